package dev.lanceflink.it.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the project's documentation, each with what the doc tests do with it.
 *
 * <p>A block is run, compiled or checked by default according to its language: {@code sql} runs
 * through {@code bin/lance-flink sql} ({@link DocSnippetsRunITCase}), {@code bash}/{@code sh} lines
 * {@code bin/lance-flink ...} run through the CLI's entry point (same test), {@code java} compiles
 * ({@link DocJavaSnippetsTest}), {@code xml} (a Maven dependency) must name a module of this build
 * ({@link DocSnippetsInventoryTest}). Anything else, or a block that cannot run as written, needs a
 * marker: an HTML comment on the last non-blank line before its fence,
 *
 * <ul>
 *   <li>{@code <!-- doc-test: skip (reason) -->}: not run, for the reason given;
 *   <li>{@code <!-- doc-test: run by path/to/SomeTest.java -->}: another test runs it; the test
 *       source must contain each of the block's SQL statements (sql), set each key of a Flink
 *       configuration to the value shown ({@code "key", "value"}; yaml) or name each script the
 *       block runs (other languages);
 *   <li>{@code <!-- doc-test: synopsis -->}: a command synopsis with placeholders; each command and
 *       option in it must be in the CLI's {@code --help};
 *   <li>{@code <!-- doc-test: output -->}: the expected stdout of the runnable block just before
 *       (text: exactly, after trimming line ends; json: every field shown must be in the actual
 *       document with that value).
 * </ul>
 *
 * <p>The same markers work in the SQL and shell files of {@code examples/} as a comment line
 * ({@code -- doc-test: ...}, {@code # doc-test: ...}); {@code examples/*.sql} files run like sql
 * blocks.
 */
final class DocSnippets {

    /** The repository root; tests run in the it module's directory. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```+\\s*([\\w+-]*)\\s*$");
    private static final Pattern CLOSE = Pattern.compile("^\\s*```+\\s*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*doc-test:\\s*(.*?)\\s*-->\\s*$");
    private static final Pattern FILE_MARKER = Pattern.compile("^\\s*(?:--|#)\\s*doc-test:\\s*(.*?)\\s*$");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

    /** What the doc tests do with a block. */
    enum Kind {
        /** Run as written (sql, bash). */
        RUN,
        /** Compiled (java). */
        COMPILE,
        /** Checked against the build (a Maven dependency in xml). */
        DEPENDENCY,
        /** Checked against the CLI's help. */
        SYNOPSIS,
        /** The expected output of the block before. */
        OUTPUT,
        /** Run by another test, named in the marker. */
        RUN_BY,
        /** Not run, with a reason. */
        SKIP,
        /** No default treatment and no marker: a build failure. */
        UNMARKED
    }

    /**
     * One block: the file (relative to the root), the line of its opening fence, its language (as
     * written after the fence, lower case), its text (dedented to the fence), the marker text
     * after {@code doc-test:} or null, and the heading it is under.
     */
    record Snippet(Path file, int line, String language, String text, String marker, String section) {

        Kind kind() {
            if (marker != null) {
                String m = marker.toLowerCase(Locale.ROOT);
                if (m.startsWith("skip")) {
                    return Kind.SKIP;
                }
                if (m.startsWith("run by ")) {
                    return Kind.RUN_BY;
                }
                if (m.equals("synopsis")) {
                    return Kind.SYNOPSIS;
                }
                if (m.equals("output")) {
                    return Kind.OUTPUT;
                }
                return Kind.UNMARKED;
            }
            return switch (language) {
                case "sql", "bash", "sh" -> Kind.RUN;
                case "java" -> Kind.COMPILE;
                case "xml" -> Kind.DEPENDENCY;
                default -> Kind.UNMARKED;
            };
        }

        /** The reason of a skip marker ("skip (reason)"), or "" when there is none. */
        String skipReason() {
            Matcher m = Pattern.compile("(?is)skip\\s*\\((.*)\\)\\s*").matcher(marker == null ? "" : marker);
            return m.matches() ? m.group(1).strip() : "";
        }

        /** The test file of a "run by" marker, relative to the root. */
        Path runBy() {
            return Path.of(marker.substring("run by ".length()).strip());
        }

        /** A whole file of examples/ rather than a block of a Markdown file. */
        boolean isScriptFile() {
            return !file.toString().endsWith(".md");
        }

        boolean isSql() {
            return language.equals("sql");
        }

        /** Where the block is, for messages: file:line. */
        String where() {
            return file + ":" + line;
        }

        @Override
        public String toString() {
            return where() + " (" + (language.isEmpty() ? "no language" : language) + ", " + kind() + ")";
        }
    }

    private DocSnippets() {}

    /**
     * The documentation files: README.md, the README.md of every module (compactor/, it/, ...),
     * every Markdown file under examples/ and docs/.
     */
    static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>();
        files.add(Path.of("README.md"));
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.filter(d ->
                            Files.isRegularFile(d.resolve("pom.xml")) && Files.isRegularFile(d.resolve("README.md")))
                    .map(d -> ROOT.relativize(d.resolve("README.md")))
                    .sorted()
                    .forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String dir : List.of("examples", "docs")) {
            files.addAll(list(dir, ".md"));
        }
        return files.stream().distinct().toList();
    }

    /** The SQL and shell files of examples/, which are snippets as a whole. */
    static List<Path> exampleScripts() {
        List<Path> files = new ArrayList<>(list("examples", ".sql"));
        files.addAll(list("examples", ".sh"));
        files.addAll(list("examples", ".py"));
        return files;
    }

    private static List<Path> list(String dir, String suffix) {
        Path base = ROOT.resolve(dir);
        if (!Files.isDirectory(base)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(base)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .filter(p -> !ROOT.relativize(p).toString().contains("/target"))
                    .map(ROOT::relativize)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every snippet: the fenced blocks of {@link #markdownFiles()}, then {@link #exampleScripts()}. */
    static List<Snippet> all() {
        List<Snippet> out = new ArrayList<>();
        for (Path f : markdownFiles()) {
            out.addAll(blocks(f));
        }
        for (Path f : exampleScripts()) {
            out.add(script(f));
        }
        return out;
    }

    /** The fenced blocks of one Markdown file, in document order. */
    static List<Snippet> blocks(Path file) {
        List<String> lines = read(file).lines().toList();
        List<Snippet> out = new ArrayList<>();
        String section = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                section = heading.group(1).strip();
                continue;
            }
            Matcher fence = FENCE.matcher(line);
            if (!fence.matches()) {
                continue;
            }
            int indent = fence.group(1).length();
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i = i + 1; i < lines.size() && !CLOSE.matcher(lines.get(i)).matches(); i++) {
                String l = lines.get(i);
                int cut = Math.min(indent, l.length() - l.stripLeading().length());
                text.append(l.substring(cut)).append('\n');
            }
            if (i >= lines.size()) {
                throw new IllegalStateException(file + ":" + (start + 1) + ": code block is never closed");
            }
            out.add(new Snippet(
                    file,
                    start + 1,
                    fence.group(2).toLowerCase(Locale.ROOT),
                    text.toString(),
                    marker(lines, start),
                    section));
        }
        return out;
    }

    /** A script of examples/ as one snippet; its marker is a {@code -- doc-test:} or {@code # doc-test:} line. */
    static Snippet script(Path file) {
        String text = read(file);
        String name = file.getFileName().toString();
        String language = name.substring(name.lastIndexOf('.') + 1);
        String marker = text.lines()
                .map(FILE_MARKER::matcher)
                .filter(Matcher::matches)
                .map(m -> m.group(1))
                .findFirst()
                .orElse(null);
        return new Snippet(file, 1, language.equals("py") ? "python" : language, text, marker, name);
    }

    private static String marker(List<String> lines, int fence) {
        for (int j = fence - 1; j >= 0; j--) {
            if (!lines.get(j).isBlank()) {
                Matcher m = MARKER.matcher(lines.get(j));
                return m.matches() ? m.group(1) : null;
            }
        }
        return null;
    }

    static String read(Path file) {
        try {
            return Files.readString(ROOT.resolve(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
