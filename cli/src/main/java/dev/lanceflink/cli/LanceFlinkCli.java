package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.compactor.CompactCommandLine;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;

/**
 * The {@code bin/lance-flink} command-line tool: {@code dump}, {@code inspect} and
 * {@code versions} of a Lance table (local path, {@code file:} or {@code s3://} URI),
 * {@code compact} (the compaction job, see compactor/README.md), and {@code sql} (Flink SQL
 * statements, see {@link SqlCommand}, which has its own output contract).
 *
 * <p>Contract for scripts: exactly one JSON document on stdout, nothing else there (logs and
 * stack traces go to stderr). Exit code 0 on success; 1 when the table cannot be read, with
 * {@code {"error": "<message>"}}; 2 when the command line is wrong, with
 * {@code {"error": "<message> (lance-flink --help)"}} (the usage goes to stderr). The document is
 * rendered in memory first, so a failure half-way never leaves a truncated document on stdout.
 * {@code --help} (top level, or after any command) prints plain-text help on stdout, exit code 0.
 *
 * <p>Every command line is parsed by picocli (the commands are {@link TableCommandLine},
 * {@link SqlCommandLine} and the compactor's {@link CompactCommandLine}); the help is generated
 * from those definitions.
 */
public final class LanceFlinkCli {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    private LanceFlinkCli() {}

    /** The top level: only its help is printed; each command parses its own arguments. */
    @Command(
            name = "lance-flink",
            usageHelpWidth = 100,
            synopsisHeading = "",
            customSynopsis = "lance-flink <command> <uri> [options]   (one JSON document on stdout)",
            commandListHeading = "%nCommands:%n",
            footerHeading = "%n",
            footer = {
                "dump, inspect, versions and compact take [--storage-option key=value]... (object store options,",
                "Lance's key names); --verbose anywhere: Flink and Lance logs at INFO on stderr.",
                "lance-flink <command> --help lists the options of a command.",
                "Exit codes: 0 ok, 1 the table could not be read (sql: a statement failed), 2 wrong command line;",
                "every failure prints one {\"error\": ...} line on stdout."
            })
    private static final class TopLevel {}

    /** The command tree, for the top-level help and the list of command names. */
    static CommandLine commandLine() {
        CommandLine top = configure(new CommandLine(new TopLevel()));
        for (String name : List.of("dump", "inspect", "versions")) {
            top.addSubcommand(name, TableCommandLine.of(name));
        }
        top.addSubcommand("compact", CompactCommandLine.commandLine());
        top.addSubcommand("sql", SqlCommandLine.commandLine());
        return top;
    }

    /** The commands, comma-separated, for error messages. */
    static String commandNames() {
        return String.join(", ", commandLine().getSubcommands().keySet());
    }

    /** The settings every command line of this tool shares. */
    static CommandLine configure(CommandLine line) {
        line.setExpandAtFiles(false); // a table URI or a filter may start with '@'; no argument files
        line.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF)); // plain text, also on a terminal
        line.setUsageHelpLongOptionsMaxWidth(30); // the longest option with its value, so they stay on one line
        return line;
    }

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
        if (args.length == 1 && (isHelp(args[0]) || args[0].equals("help"))) {
            return printHelp(out, commandLine().getUsageMessage(Help.Ansi.OFF), err);
        }
        CommandLine table = args.length > 0 ? TableCommandLine.of(args[0]) : null;
        if (table != null && Arrays.stream(args).skip(1).anyMatch(LanceFlinkCli::isHelp)) {
            return printHelp(out, table.getUsageMessage(Help.Ansi.OFF), err);
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
            return usageError(out, e, table, err);
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
            return usageError(out, e, table, err);
        } catch (IOException | RuntimeException e) {
            err.println("lance-flink " + parsed.command() + " " + parsed.uri() + " failed: " + message(e));
            if (unexpected(e) || System.getenv("LANCE_FLINK_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return emit(
                    out,
                    g -> {
                        g.writeStartObject();
                        g.writeStringField("error", message(e));
                        g.writeEndObject();
                    },
                    EXIT_FAILED,
                    err);
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
            out.write((text.endsWith("\n") ? text : text + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return EXIT_OK;
        } catch (IOException e) {
            err.println("lance-flink: cannot write the help to stdout: " + e);
            return EXIT_FAILED;
        }
    }

    /**
     * A wrong command line: one {"error"} line on stdout, like every failure; the usage on stderr
     * ({@code command}'s when the command is known, else the top level's).
     */
    private static int usageError(OutputStream out, UsageException e, CommandLine command, PrintStream err) {
        err.print((command != null ? command : commandLine()).getUsageMessage(Help.Ansi.OFF));
        return emit(
                out,
                g -> {
                    g.writeStartObject();
                    g.writeStringField("error", e.getMessage() + " (lance-flink --help)");
                    g.writeEndObject();
                },
                EXIT_USAGE,
                err);
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
        boolean selfExplaining = type.getName().startsWith("dev.lanceflink.")
                || type == IOException.class
                || type == IllegalArgumentException.class
                || type == IllegalStateException.class;
        return selfExplaining ? text : type.getSimpleName() + ": " + text;
    }

    /**
     * A failure that is not about the table or the request (a bug): its stack trace goes to
     * stderr. Expected failures (missing table, unknown column, corrupt file, I/O) only print
     * their message there unless {@code LANCE_FLINK_DEBUG} is set.
     */
    private static boolean unexpected(Throwable e) {
        return !(e instanceof IOException
                || e instanceof UncheckedIOException
                || e instanceof IllegalArgumentException
                || e instanceof IllegalStateException);
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
