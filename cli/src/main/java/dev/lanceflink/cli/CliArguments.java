package dev.lanceflink.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed command line: {@code <command> <uri> [options]}. Parsing is by hand (three commands,
 * a handful of options) and strict: every option must be one the command accepts, every value
 * present and well-formed, so a mistyped option never silently changes what is printed.
 *
 * @param command {@code dump}, {@code inspect} or {@code versions}
 * @param uri the table: a local path, {@code file:} or {@code s3://} URI
 * @param storageOptions {@code --storage-option key=value}, in command-line order
 * @param version {@code --version N}, or null for the latest version
 * @param columns {@code --columns a,b}, or null for all columns
 * @param orderBy {@code --order-by a[,b]}, empty for physical scan order
 * @param limit {@code --limit N}, or -1 for all rows
 * @param withRowAddress {@code --with-row-address}
 * @param filter {@code --filter SQL}, or null
 */
public record CliArguments(String command, String uri, Map<String, String> storageOptions, Long version,
        List<String> columns, List<String> orderBy, long limit, boolean withRowAddress, String filter) {

    /** The commands and the options each accepts ({@code --storage-option} everywhere). */
    static final Map<String, Set<String>> OPTIONS = Map.of(
            "dump", Set.of("--version", "--columns", "--order-by", "--limit", "--with-row-address", "--filter",
                    "--storage-option"),
            "inspect", Set.of("--version", "--storage-option"),
            "versions", Set.of("--storage-option"));

    public static final String USAGE = String.join("\n",
            "lance-flink <command> <uri> [options]   (one JSON document on stdout)",
            "  dump <uri> [--version N] [--columns a,b] [--order-by col[,col2]] [--limit N]",
            "             [--with-row-address] [--filter SQL]",
            "  inspect <uri> [--version N]",
            "  versions <uri>",
            "  compact <uri> --mode overlay-merge|overlay-fold|fragments|cleanup [--dry-run] ...   (compact --help)",
            "  sql [-f script.sql | -e 'stmt; stmt'] [--format table|json]   (sql --help)",
            "  every command: [--storage-option key=value]...   --verbose: Flink and Lance logs at INFO on stderr",
            "exit codes: 0 ok, 1 the table could not be read, 2 wrong command line");

    /** The usage of one of dump, inspect, versions: its lines of {@link #USAGE} plus the common option. */
    static String usageOf(String command) {
        StringBuilder text = new StringBuilder("lance-flink ");
        boolean in = false;
        for (String line : USAGE.split("\n")) {
            if (line.startsWith("  " + command + " ")) {
                in = true;
                text.append(line.substring(2));
            } else if (in && line.startsWith("      ")) {
                text.append('\n').append(line);
            } else {
                in = false;
            }
        }
        return text.append("\n  [--storage-option key=value]...   object store options (Lance's key names)")
                .append("\nPrints one JSON document; exit codes: 0 ok, 1 the table could not be read,")
                .append(" 2 wrong command line").toString();
    }

    public CliArguments {
        storageOptions = Collections.unmodifiableMap(new LinkedHashMap<>(storageOptions));
        columns = columns == null ? null : List.copyOf(columns);
        orderBy = List.copyOf(orderBy);
    }

    /** Parses {@code args}; throws {@link UsageException} naming the first problem. */
    public static CliArguments parse(String[] args) {
        if (args.length == 0) {
            throw new UsageException("no command given; expected one of dump, inspect, versions, compact, sql");
        }
        String command = args[0];
        Set<String> accepted = OPTIONS.get(command);
        if (accepted == null) {
            throw new UsageException("unknown command '" + command
                    + "'; expected one of dump, inspect, versions, compact, sql");
        }
        if (args.length < 2 || args[1].startsWith("--")) {
            throw new UsageException(command + ": the table URI is missing (" + command + " <uri> ...)");
        }
        String uri = args[1];
        Map<String, String> storage = new LinkedHashMap<>();
        Long version = null;
        List<String> columns = null;
        List<String> orderBy = List.of();
        long limit = -1;
        boolean rowAddress = false;
        String filter = null;
        List<String> seen = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            String option = args[i];
            if (!accepted.contains(option)) {
                throw new UsageException(command + ": unknown option '" + option + "' (accepted: "
                        + String.join(", ", accepted.stream().sorted().toList()) + ")");
            }
            if (!option.equals("--storage-option") && seen.contains(option)) {
                throw new UsageException(command + ": option " + option + " is given twice");
            }
            seen.add(option);
            if (option.equals("--with-row-address")) {
                rowAddress = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new UsageException(command + ": option " + option + " needs a value");
            }
            String value = args[++i];
            switch (option) {
                case "--version" -> version = positive(command, option, value, 1);
                case "--limit" -> limit = positive(command, option, value, 0);
                case "--columns" -> columns = names(command, option, value);
                case "--order-by" -> orderBy = names(command, option, value);
                case "--filter" -> {
                    if (value.isBlank()) {
                        throw new UsageException(command + ": --filter needs a SQL predicate, e.g. --filter \"id > 5\"");
                    }
                    filter = value;
                }
                case "--storage-option" -> {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException(command + ": --storage-option needs key=value, got '" + value + "'");
                    }
                    storage.put(value.substring(0, eq), value.substring(eq + 1));
                }
                default -> throw new IllegalStateException("option " + option + " is accepted but not parsed");
            }
        }
        return new CliArguments(command, uri, storage, version, columns, orderBy, limit, rowAddress, filter);
    }

    private static long positive(String command, String option, String value, long min) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": " + option + " needs an integer, got '" + value + "'");
        }
        if (n < min) {
            throw new UsageException(command + ": " + option + " must be at least " + min + ", got " + n);
        }
        return n;
    }

    private static List<String> names(String command, String option, String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String name = part.trim();
            if (name.isEmpty()) {
                throw new UsageException(command + ": " + option + " needs comma-separated column names, got '"
                        + value + "'");
            }
            out.add(name);
        }
        return out;
    }
}
