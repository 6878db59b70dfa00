package dev.lanceflink.it.docs;

import dev.lanceflink.cli.LanceFlinkCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs documentation snippets as a user runs them from the repository root, with
 * {@code bin/lance-flink} in-process ({@link LanceFlinkCli#run}, the launcher's main class; one
 * JVM, so every job runs on the test's MiniCluster).
 *
 * <p>The one substitution: the snippets use relative table paths, which a user's shell resolves
 * against the repository root, while this JVM's working directory is the it module. So a relative
 * path (no {@code scheme://}, not absolute) in a SQL {@code 'path'} or {@code 'warehouse'} option,
 * and a relative table argument of {@code dump}, {@code inspect}, {@code versions} and
 * {@code compact}, is resolved against a fresh working directory instead. {@code sql -f file}
 * reads the file from the repository (or that directory) and runs it with the same substitution.
 * Nothing else of a snippet is changed.
 */
final class DocRunner {

    private static final Pattern PATH_OPTION = Pattern.compile("'(path|warehouse)'(\\s*=\\s*)'([^']*)'");

    private final Path work;

    DocRunner(Path work) {
        this.work = work;
    }

    /** What one command printed. */
    record Run(List<String> args, int exitCode, String stdout, String stderr) {

        String describe() {
            return "lance-flink " + args + " exited with " + exitCode + "\nstdout:\n" + stdout + "\nstderr (tail):\n"
                    + tail(stderr);
        }
    }

    /** SQL with every relative {@code 'path'} and {@code 'warehouse'} resolved against the working directory. */
    String rewriteSql(String sql) {
        Matcher m = PATH_OPTION.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = m.group(3);
            String resolved = isRelative(value) ? work.resolve(value).toString() : value;
            m.appendReplacement(
                    out, Matcher.quoteReplacement("'" + m.group(1) + "'" + m.group(2) + "'" + resolved + "'"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Runs a SQL script with {@code bin/lance-flink sql -f}, after the path substitution. */
    Run sql(String script, String name) {
        try {
            Path file = work.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, rewriteSql(script));
            return cli(List.of("sql", "-f", file.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs one {@code bin/lance-flink ...} command line of a shell snippet (the words after
     * {@code bin/lance-flink}), after the path substitution.
     */
    Run command(List<String> words) {
        List<String> args = new ArrayList<>(words);
        if (args.isEmpty()) {
            return cli(args);
        }
        String command = args.get(0);
        if (command.equals("sql")) {
            for (int i = 1; i < args.size() - 1; i++) {
                if (args.get(i).equals("-e")) {
                    args.set(i + 1, rewriteSql(args.get(i + 1)));
                } else if (args.get(i).equals("-f")) {
                    Path inRepo = DocSnippets.ROOT.resolve(args.get(i + 1));
                    Path script = Files.isRegularFile(inRepo) ? inRepo : work.resolve(args.get(i + 1));
                    String rewritten = rewriteSql(read(script));
                    Path copy = work.resolve("sql-scripts").resolve(script.getFileName());
                    write(copy, rewritten);
                    args.set(i + 1, copy.toString());
                }
            }
        } else if (List.of("dump", "inspect", "versions", "compact").contains(command)
                && args.size() > 1
                && !args.get(1).startsWith("-")
                && isRelative(args.get(1))) {
            args.set(1, work.resolve(args.get(1)).toString());
        }
        return cli(args);
    }

    /** A relative path resolved against the working directory; anything else unchanged. */
    String resolve(String path) {
        return isRelative(path) ? work.resolve(path).toString() : path;
    }

    /** {@code bin/lance-flink} in-process. */
    static Run cli(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = LanceFlinkCli.run(args.toArray(String[]::new), out, errStream);
        }
        return new Run(args, code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static boolean isRelative(String path) {
        return !path.contains("://") && !path.startsWith("/") && !path.startsWith("file:");
    }

    /**
     * Splits a shell command line into words as bash would for the quoting the snippets use:
     * single and double quotes (with backslash escapes inside double quotes), a {@code #} comment
     * from a word start to the line end, and a trailing backslash continuing the line.
     */
    static List<String> shellWords(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        String text = line.replace("\\\n", " ");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
                continue;
            }
            if (c == '#' && word == null) {
                break;
            }
            if (word == null) {
                word = new StringBuilder();
            }
            if (c == '\'') {
                int end = text.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unclosed ' in: " + line);
                }
                word.append(text, i + 1, end);
                i = end;
            } else if (c == '"') {
                int j = i + 1;
                for (; j < text.length() && text.charAt(j) != '"'; j++) {
                    char d = text.charAt(j);
                    if (d == '\\' && j + 1 < text.length() && "\"\\$`".indexOf(text.charAt(j + 1)) >= 0) {
                        word.append(text.charAt(++j));
                    } else {
                        word.append(d);
                    }
                }
                if (j >= text.length()) {
                    throw new IllegalArgumentException("unclosed \" in: " + line);
                }
                i = j;
            } else if (c == '\\' && i + 1 < text.length()) {
                word.append(text.charAt(++i));
            } else {
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    /**
     * The command lines of a shell snippet: comment-only and blank lines dropped, lines ending in
     * a backslash joined with the next.
     */
    static List<String> commandLines(String snippet) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : snippet.lines().toList()) {
            if (current.length() == 0 && (line.isBlank() || line.strip().startsWith("#"))) {
                continue;
            }
            if (line.endsWith("\\")) {
                current.append(line, 0, line.length() - 1).append(' ');
            } else {
                out.add(current.append(line).toString().strip());
                current.setLength(0);
            }
        }
        if (current.length() > 0) {
            out.add(current.toString().strip());
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }
}
