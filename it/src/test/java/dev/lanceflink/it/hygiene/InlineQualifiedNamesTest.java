package dev.lanceflink.it.hygiene;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The main code of every module names JDK types through imports, never inline as {@code
 * java.util.List} or {@code javax.annotation.Nullable}: an inline name hides a dependency from
 * the import list, the one place a reader (and {@code PackageCycleTest} in format-core) looks for
 * them. This walks every {@code src/main/java} below the repository root (this module's
 * directory is {@code it/}) and names each offending line; imports, package lines, comments,
 * javadoc and string, text block and char literals are not code and may name anything.
 */
class InlineQualifiedNamesTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** A qualified name starting at java./javax. and reaching a type (an upper-case segment). */
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.$])javax?\\.(?:[a-z_]\\w*\\.)*[A-Z]");

    @Test
    void mainCodeImportsJdkTypesInsteadOfNamingThemInline() throws IOException {
        List<Path> roots = mainSourceRoots();
        assertThat(roots)
                .as("main source roots found (run from the it/ module directory)")
                .contains(
                        ROOT.resolve("format-core/src/main/java"),
                        ROOT.resolve("flink-connector/src/main/java"),
                        ROOT.resolve("it/lance-oracle/src/main/java"));
        List<String> found = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                    String source = Files.readString(f);
                    String[] original = source.split("\n", -1);
                    for (int line : inlineQualifiedNames(source)) {
                        found.add(ROOT.relativize(f) + ":" + line + ": " + original[line - 1].strip());
                    }
                }
            }
        }
        assertThat(found)
                .as("inline java./javax. qualified names in main code (import the type instead)")
                .isEmpty();
    }

    @Test
    void onlyCodeCounts() {
        String source = String.join(
                "\n",
                "package dev.lanceflink.x;",
                "import java.util.List;",
                "import static java.util.Objects.requireNonNull;",
                "/** Unlike {@link java.util.Set}, ... */",
                "class X {",
                "    // a java.util.Map would do",
                "    String s = \"java.util.Map and \\\" java.io.File\";",
                "    String t = \"\"\"",
                "        java.util.Deque",
                "        \"\"\";",
                "    char c = '\"';",
                "    java.util.List<String> a = new java.util.ArrayList<>(); /* java.lang.Long */",
                "    List<javax.net.ssl.SSLContext> b;",
                "    Object o = this.java.util.X;",
                "    @java.lang.Deprecated int d;",
                "}");
        assertThat(inlineQualifiedNames(source)).containsExactly(12, 13, 15);
    }

    /** Every {@code src/main/java} below the repository root, outside build outputs and hidden directories. */
    private static List<Path> mainSourceRoots() throws IOException {
        Path mainJava = Path.of("src", "main", "java");
        List<Path> roots = new ArrayList<>();
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName().toString();
                if (!dir.equals(ROOT) && (name.startsWith(".") || name.startsWith("target"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (dir.endsWith(mainJava)) {
                    roots.add(dir);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }
        });
        roots.sort(null);
        return roots;
    }

    /** The 1-based lines of {@code source} whose code (not an import or package line) names a type inline. */
    static List<Integer> inlineQualifiedNames(String source) {
        String[] lines = codeOnly(source).split("\n", -1);
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.startsWith("import ") || line.startsWith("package ")) {
                continue;
            }
            if (QUALIFIED.matcher(line).find()) {
                found.add(i + 1);
            }
        }
        return found;
    }

    /**
     * {@code source} with comments and string, text block and char literals blanked out (line
     * breaks kept, so line numbers stay).
     */
    static String codeOnly(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int n = source.length();
        int i = 0;
        while (i < n) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = i + 3;
                while (end < n && !source.startsWith("\"\"\"", end)) {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 3);
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                char quote = source.charAt(i);
                end = i + 1;
                while (end < n && source.charAt(end) != quote && source.charAt(end) != '\n') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 1);
            } else {
                out.append(source.charAt(i++));
                continue;
            }
            for (int k = i; k < end; k++) {
                out.append(source.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = end;
        }
        return out.toString();
    }
}
