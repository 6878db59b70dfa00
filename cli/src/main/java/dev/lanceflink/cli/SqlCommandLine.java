package dev.lanceflink.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The command line of {@code sql} as a picocli command: where the statements come from and the
 * output format, with the generated help. One instance parses one command line into
 * {@link SqlCommand.Arguments}.
 */
@Command(
        name = "sql",
        separator = " ",
        sortOptions = false,
        usageHelpWidth = 100,
        synopsisHeading = "",
        customSynopsis = "lance-flink sql [-f script.sql | -e 'statement; statement'] [--format table|json]",
        description = {
            "Runs Flink SQL statements, one after the other, on an embedded MiniCluster.",
            "Batch mode unless SET 'execution.runtime-mode' = 'streaming'; without -f or -e the statements are",
            "read from standard input: at a terminal, a prompt (line editing, history in ~/.lance-flink_history)",
            "runs each statement when its ';' is typed. A running INSERT prints a line per committed version",
            "and a summary at its end or on Ctrl-C."
        },
        descriptionHeading = "%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = "Exit codes: 0 ok, 1 a statement failed ({\"error\": ...} on stdout), 2 wrong command line")
final class SqlCommandLine {
    @Spec
    private CommandSpec spec;

    private String script;
    private String source;
    private SqlCommand.Format format = SqlCommand.Format.TABLE;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "print this help")
    private boolean help;

    static CommandLine commandLine() {
        CommandLine line = LanceFlinkCli.configure(new CommandLine(new SqlCommandLine()));
        // A second -f or -e reaches its setter, which says to give the statements once; a second
        // --format wins.
        line.setOverwrittenOptionsAllowed(true);
        return line;
    }

    static String usage() {
        return commandLine().getUsageMessage(Help.Ansi.OFF);
    }

    /** Parses {@code args} (args[0] is "sql"); throws {@link UsageException} naming the first problem. */
    static SqlCommand.Arguments parse(String[] args) {
        CommandLine line = commandLine();
        try {
            line.parseArgs(Arrays.copyOfRange(args, 1, args.length));
        } catch (ParameterException e) {
            throw new UsageException(message(e, args));
        }
        SqlCommandLine parsed = line.getCommand();
        // No -f or -e: the statements come from standard input (read by SqlCommand.run, which owns it).
        return new SqlCommand.Arguments(parsed.script, parsed.script == null ? "stdin" : parsed.source, parsed.format);
    }

    private static String message(ParameterException e, String[] args) {
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            return "unknown option '" + u.getUnmatched().get(0) + "' for sql";
        }
        if (e instanceof MissingParameterException m
                && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            // Named as typed (-e or --execute): the last occurrence is the one without a value.
            List<String> names = List.of(o.names());
            String typed = Arrays.stream(args)
                    .filter(names::contains)
                    .reduce((a, b) -> b)
                    .orElse(o.longestName());
            return "option " + typed + " needs a value";
        }
        return e.getMessage();
    }

    @Option(
            names = {"-f", "--file"},
            paramLabel = "script.sql",
            order = 0,
            description = "the statements, from a file")
    private void file(String file) {
        once();
        source = file;
        try {
            script = Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "cannot read the SQL script '" + file + "': " + LanceFlinkCli.message(e));
        }
    }

    @Option(
            names = {"-e", "--execute"},
            paramLabel = "'statement; ...'",
            order = 1,
            description = "the statements, on the command line")
    private void execute(String statements) {
        once();
        source = "-e";
        script = statements;
    }

    @Option(
            names = "--format",
            paramLabel = "table|json",
            order = 2,
            description = {
                "table (default): each SELECT prints a text table;",
                "json: each SELECT prints one line, a JSON array of row objects (dump value conventions)"
            })
    private void format(String value) {
        format = switch (value.toLowerCase(Locale.ROOT)) {
            case "json" -> SqlCommand.Format.JSON;
            case "table" -> SqlCommand.Format.TABLE;
            default -> throw new ParameterException(spec.commandLine(), "--format " + value + ": use json or table");
        };
    }

    private void once() {
        if (script != null) {
            throw new ParameterException(
                    spec.commandLine(), "give the statements once: either -f FILE or -e 'STATEMENTS'");
        }
    }
}
