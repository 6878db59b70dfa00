package dev.lanceflink.cli;

import dev.lanceflink.read.ScanOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The command lines of {@code dump}, {@code inspect} and {@code versions} as picocli commands:
 * the options each accepts, each value checked as it is read, and the generated help. Strict: an
 * option the command does not take, a missing or malformed value, or an option given twice (but
 * {@code --storage-option}) is an error, so a mistyped option never silently changes what is
 * printed. One instance parses one command line into {@link CliArguments}.
 */
abstract class TableCommandLine {
    static final String FOOTER =
            "Prints one JSON document; exit codes: 0 ok, 1 the table could not be read," + " 2 wrong command line";

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<uri>", description = "the table: a local path, file: or s3:// URI")
    private String uri;

    @Option(
            names = "--storage-option",
            paramLabel = "key=value",
            order = 90,
            description = "object store option (Lance's key names), repeatable")
    private List<String> storageOptions = new ArrayList<>();

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "print this help")
    private boolean help;

    Long version;
    List<String> columns;
    List<String> orderBy = List.of();
    long limit = -1;
    boolean withRowAddress;
    String filter;

    /** The command line of {@code command}, or null when it is not one of dump, inspect, versions. */
    static CommandLine of(String command) {
        TableCommandLine line = switch (command) {
            case "dump" -> new Dump();
            case "inspect" -> new Inspect();
            case "versions" -> new Versions();
            default -> null;
        };
        return line == null ? null : LanceFlinkCli.configure(new CommandLine(line));
    }

    /** Parses {@code args} ({@code <command> <uri> [options]}); throws {@link UsageException} naming the first problem. */
    static CliArguments parse(String[] args) {
        if (args.length == 0) {
            throw new UsageException("no command given; expected one of " + LanceFlinkCli.commandNames());
        }
        String command = args[0];
        CommandLine line = of(command);
        if (line == null) {
            throw new UsageException(
                    "unknown command '" + command + "'; expected one of " + LanceFlinkCli.commandNames());
        }
        try {
            line.parseArgs(Arrays.copyOfRange(args, 1, args.length));
        } catch (ParameterException e) {
            throw new UsageException(message(command, line.getCommandSpec(), e));
        }
        TableCommandLine parsed = line.getCommand();
        return parsed.toArguments();
    }

    /** Picocli's own errors in the words of this tool: the command first, then what is wrong. */
    private static String message(String command, CommandSpec spec, ParameterException e) {
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            List<String> accepted = spec.options().stream()
                    .filter(o -> !o.usageHelp())
                    .map(OptionSpec::longestName)
                    .sorted()
                    .toList();
            return command + ": unknown option '" + u.getUnmatched().get(0) + "' (accepted: "
                    + String.join(", ", accepted) + ")";
        }
        if (e instanceof MissingParameterException m && !m.getMissing().isEmpty()) {
            ArgSpec missing = m.getMissing().get(0);
            return missing instanceof OptionSpec o
                    ? command + ": option " + o.longestName() + " needs a value"
                    : command + ": the table URI is missing (" + command + " <uri> ...)";
        }
        if (e instanceof OverwrittenOptionException o && o.getOverwritten() instanceof OptionSpec option) {
            return command + ": option " + option.longestName() + " is given twice";
        }
        return e.getMessage();
    }

    private CliArguments toArguments() {
        Map<String, String> storage = new LinkedHashMap<>();
        for (String kv : storageOptions) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(spec.name() + ": --storage-option needs key=value, got '" + kv + "'");
            }
            storage.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return new CliArguments(spec.name(), uri, storage, version, columns, orderBy, limit, withRowAddress, filter);
    }

    ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), spec.name() + ": " + message);
    }

    long atLeast(String option, String value, long min) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw usage(option + " needs an integer, got '" + value + "'");
        }
        if (n < min) {
            throw usage(option + " must be at least " + min + ", got " + n);
        }
        return n;
    }

    List<String> names(String option, String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String name = part.trim();
            if (name.isEmpty()) {
                throw usage(option + " needs comma-separated column names, got '" + value + "'");
            }
            out.add(name);
        }
        return out;
    }

    /** {@code --version N} (dump and inspect). */
    abstract static class AtVersion extends TableCommandLine {
        @Option(
                names = "--version",
                paramLabel = "N",
                order = 0,
                description = "the table version to read (default: the latest)")
        private void version(String value) {
            version = atLeast("--version", value, 1);
        }
    }

    @Command(
            name = "dump",
            separator = " ",
            sortOptions = false,
            usageHelpWidth = 100,
            synopsisHeading = "",
            customSynopsis = {
                "lance-flink dump <uri> [--version N] [--columns a,b] [--order-by col[,col2]] [--limit N]",
                "                 [--with-row-address] [--filter SQL] [--storage-option key=value]..."
            },
            description = {
                "The rows of one table version as JSON, in scan order unless --order-by sorts them.",
                "The document: {\"version\", \"schema\": [...], \"num_rows\", \"rows\": [...]}."
            },
            descriptionHeading = "%n",
            parameterListHeading = "%n",
            optionListHeading = "%nOptions:%n",
            footerHeading = "%n",
            footer = FOOTER)
    static final class Dump extends AtVersion {
        @Option(names = "--columns", paramLabel = "a,b", order = 1, description = "only these columns, in this order")
        private void columns(String value) {
            columns = names("--columns", value);
        }

        @Option(
                names = "--order-by",
                paramLabel = "col[,col2]",
                order = 2,
                description =
                        "sort the rows (stable; nulls first); " + ScanOptions.ROW_ADDRESS + " needs --with-row-address")
        private void orderBy(String value) {
            orderBy = names("--order-by", value);
        }

        @Option(
                names = "--limit",
                paramLabel = "N",
                order = 3,
                description = "at most N rows (after sorting, as in SQL)")
        private void limit(String value) {
            limit = atLeast("--limit", value, 0);
        }

        @Option(
                names = "--with-row-address",
                order = 4,
                description = "add each row's address (" + ScanOptions.ROW_ADDRESS + ": fragment << 32 | offset)")
        private void withRowAddress(boolean on) {
            withRowAddress = on;
        }

        @Option(
                names = "--filter",
                paramLabel = "SQL",
                order = 5,
                description = "only rows matching a SQL predicate, e.g. \"id > 5 AND name IS NOT NULL\"")
        private void filter(String value) {
            if (value.isBlank()) {
                throw usage("--filter needs a SQL predicate, e.g. --filter \"id > 5\"");
            }
            filter = value;
        }
    }

    @Command(
            name = "inspect",
            separator = " ",
            sortOptions = false,
            usageHelpWidth = 100,
            synopsisHeading = "",
            customSynopsis = "lance-flink inspect <uri> [--version N] [--storage-option key=value]...",
            description = "The manifest of one version: fragments, files, deletions, overlays, indices, flags.",
            descriptionHeading = "%n",
            parameterListHeading = "%n",
            optionListHeading = "%nOptions:%n",
            footerHeading = "%n",
            footer = FOOTER)
    static final class Inspect extends AtVersion {}

    @Command(
            name = "versions",
            separator = " ",
            sortOptions = false,
            usageHelpWidth = 100,
            synopsisHeading = "",
            customSynopsis = "lance-flink versions <uri> [--storage-option key=value]...",
            description = "Every version with its operation, row count and properties.",
            descriptionHeading = "%n",
            parameterListHeading = "%n",
            optionListHeading = "%nOptions:%n",
            footerHeading = "%n",
            footer = FOOTER)
    static final class Versions extends TableCommandLine {}
}
