package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.compactor.CompactorMain;
import dev.lanceflink.dataset.Dataset;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code bin/lance-flink} command-line tool: {@code dump}, {@code inspect} and
 * {@code versions} of a Lance table (local path, {@code file:} or {@code s3://} URI),
 * {@code compact} (the compaction job, see compactor/README.md), and {@code sql} (Flink SQL
 * statements, see {@link SqlCommand}, which has its own output contract).
 *
 * <p>Contract for scripts: exactly one JSON document on stdout, nothing else there (logs and
 * stack traces go to stderr). Exit code 0 on success; 1 when the table cannot be read, with
 * {@code {"error": "<message>"}}; 2 when the command line is wrong, with
 * {@code {"error": "<message>", "usage": "<usage text>"}}. The document is rendered in memory
 * first, so a failure half-way never leaves a truncated document on stdout.
 */
public final class LanceFlinkCli {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    private LanceFlinkCli() {}

    public static void main(String[] args) {
        args = applyVerbosity(args);
        int code = run(args, System.out, System.err);
        System.out.flush();
        System.exit(code);
    }

    /**
     * Removes {@code --verbose} and, when it was given (or {@code LANCE_FLINK_LOG_LEVEL} is set),
     * raises the log level before any logger exists: system properties take precedence over
     * {@code simplelogger.properties}.
     */
    static String[] applyVerbosity(String[] args) {
        String level = System.getenv("LANCE_FLINK_LOG_LEVEL");
        List<String> rest = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--verbose") || a.equals("-v")) {
                level = "info";
            } else {
                rest.add(a);
            }
        }
        if (level != null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
            System.setProperty("org.slf4j.simpleLogger.log.dev.lanceflink", level);
        }
        return rest.toArray(String[]::new);
    }

    /**
     * Runs one command in-process: writes its JSON document (or error document) plus a newline
     * to {@code out}, diagnostics to {@code err}, and returns the exit code.
     */
    public static int run(String[] args, OutputStream out, PrintStream err) {
        if (args.length == 1 && isHelp(args[0]) || args.length == 1 && args[0].equals("help")) {
            return printHelp(out, CliArguments.USAGE + "\n\n" + SqlCommand.USAGE, err);
        }
        if (args.length >= 2 && CliArguments.OPTIONS.containsKey(args[0])
                && Arrays.stream(args).anyMatch(LanceFlinkCli::isHelp)) {
            return printHelp(out, CliArguments.usageOf(args[0]), err);
        }
        if (args.length > 0 && args[0].equals("sql")) {
            // Flink SQL statements on an embedded MiniCluster; its own output contract (SqlCommand).
            return SqlCommand.run(args, System.in, out, err);
        }
        if (args.length > 0 && args[0].equals("compact")) {
            // The compaction job has its own options and JSON summary (compactor/README.md).
            PrintStream printOut = new PrintStream(out, true, StandardCharsets.UTF_8);
            int code = CompactorMain.run(args, printOut, err);
            printOut.flush();
            return code;
        }
        CliArguments parsed;
        try {
            parsed = CliArguments.parse(args);
        } catch (UsageException e) {
            return usageError(out, e, err);
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try (Dataset latest = Dataset.open(parsed.uri(), parsed.storageOptions());
                JsonGenerator g = Json.FACTORY.createGenerator(buffer)) {
            Dataset dataset = parsed.version() == null ? latest : latest.checkoutVersion(parsed.version());
            try {
                switch (parsed.command()) {
                    case "dump" -> DumpCommand.run(dataset, parsed, g);
                    case "inspect" -> InspectCommand.run(dataset, g);
                    case "versions" -> VersionsCommand.run(dataset, g);
                    default -> throw new IllegalStateException("command " + parsed.command() + " is not dispatched");
                }
            } finally {
                if (dataset != latest) {
                    dataset.close(); // closes the stores it opened for base paths; the table's own stays open
                }
            }
        } catch (UsageException e) {
            return usageError(out, e, err);
        } catch (IOException | RuntimeException e) {
            err.println("lance-flink " + parsed.command() + " " + parsed.uri() + " failed: " + message(e));
            if (unexpected(e) || System.getenv("LANCE_FLINK_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return emit(out, g -> {
                g.writeStartObject();
                g.writeStringField("error", message(e));
                g.writeEndObject();
            }, EXIT_FAILED, err);
        }
        try {
            buffer.write('\n');
            buffer.writeTo(out);
            out.flush();
            return EXIT_OK;
        } catch (IOException e) {
            err.println("lance-flink: cannot write the result to stdout: " + e);
            return EXIT_FAILED;
        }
    }

    static boolean isHelp(String arg) {
        return arg.equals("--help") || arg.equals("-h");
    }

    /** Help is for people: plain text on stdout, exit code 0. */
    static int printHelp(OutputStream out, String text, PrintStream err) {
        try {
            out.write((text + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return EXIT_OK;
        } catch (IOException e) {
            err.println("lance-flink: cannot write the help to stdout: " + e);
            return EXIT_FAILED;
        }
    }

    /** A wrong command line: one {"error"} line on stdout, like every failure; the usage on stderr. */
    private static int usageError(OutputStream out, UsageException e, PrintStream err) {
        err.println(CliArguments.USAGE);
        return emit(out, g -> {
            g.writeStartObject();
            g.writeStringField("error", e.getMessage() + " (lance-flink --help)");
            g.writeEndObject();
        }, EXIT_USAGE, err);
    }

    /**
     * The error text for a failure. Our own exceptions and plain I/O or argument errors carry
     * complete messages; others keep their type in front, because it is part of the story:
     * {@code NoSuchFileException} and friends only name a path, and a
     * {@code NullPointerException} is a bug to report.
     */
    static String message(Throwable e) {
        Throwable t = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
        String text = t.getMessage();
        if (text == null || text.isBlank()) {
            return t.getClass().getName();
        }
        Class<?> type = t.getClass();
        boolean selfExplaining = type.getName().startsWith("dev.lanceflink.") || type == IOException.class
                || type == IllegalArgumentException.class || type == IllegalStateException.class;
        return selfExplaining ? text : type.getSimpleName() + ": " + text;
    }

    /**
     * A failure that is not about the table or the request (a bug): its stack trace goes to
     * stderr. Expected failures (missing table, unknown column, corrupt file, I/O) only print
     * their message there unless {@code LANCE_FLINK_DEBUG} is set.
     */
    private static boolean unexpected(Throwable e) {
        return !(e instanceof IOException || e instanceof UncheckedIOException
                || e instanceof IllegalArgumentException || e instanceof IllegalStateException);
    }

    private interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    private static int emit(OutputStream out, JsonWriter writer, int code, PrintStream err) {
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            try (JsonGenerator g = Json.FACTORY.createGenerator(buffer)) {
                writer.write(g);
            }
            buffer.write('\n');
            buffer.writeTo(out);
            out.flush();
        } catch (IOException e) {
            err.println("lance-flink: cannot write the result to stdout: " + e);
        }
        return code;
    }
}
