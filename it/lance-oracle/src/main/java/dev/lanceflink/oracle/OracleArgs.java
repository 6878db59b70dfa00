package dev.lanceflink.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parsed command line of one oracle command: the command name, its positional arguments and
 * its {@code --options}. Options are validated against the set each command accepts so that a
 * misspelt option fails loudly instead of being ignored (an ignored {@code --stable-row-ids}
 * would silently produce a different dataset than the test intended).
 */
final class OracleArgs {

    final String command;
    final List<String> positional = new ArrayList<>();
    private final Map<String, List<String>> options = new LinkedHashMap<>();

    private OracleArgs(String command) {
        this.command = command;
    }

    /**
     * Parses {@code args}; {@code flags} are options without a value, {@code valued} take one
     * (and may repeat).
     */
    static OracleArgs parse(List<String> args, Set<String> flags, Set<String> valued) {
        if (args.isEmpty()) {
            throw new UsageException("missing command");
        }
        OracleArgs parsed = new OracleArgs(args.get(0));
        for (int i = 1; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.startsWith("--")) {
                String name = arg.substring(2);
                if (flags.contains(name)) {
                    parsed.options.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
                } else if (valued.contains(name)) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException(parsed.command + ": option --" + name + " needs a value");
                    }
                    parsed.options.computeIfAbsent(name, k -> new ArrayList<>()).add(args.get(++i));
                } else {
                    throw new UsageException(parsed.command + ": unknown option --" + name + " (accepted: "
                            + describe(flags, valued) + ")");
                }
            } else {
                parsed.positional.add(arg);
            }
        }
        return parsed;
    }

    private static String describe(Set<String> flags, Set<String> valued) {
        List<String> all = new ArrayList<>();
        valued.stream().sorted().forEach(v -> all.add("--" + v + " <value>"));
        flags.stream().sorted().forEach(f -> all.add("--" + f));
        return all.isEmpty() ? "none" : String.join(", ", all);
    }

    /** The single positional argument (the dataset URI, or the command file of a batch). */
    String target() {
        if (positional.size() != 1) {
            throw new UsageException(command + ": expected exactly one target (dataset URI, or the "
                    + "command file for batch), got "
                    + positional.size() + " positional arguments " + positional);
        }
        return positional.get(0);
    }

    boolean flag(String name) {
        return options.containsKey(name);
    }

    String value(String name) {
        List<String> values = options.get(name);
        if (values == null) {
            return null;
        }
        if (values.size() > 1) {
            throw new UsageException(command + ": option --" + name + " given " + values.size() + " times");
        }
        return values.get(0);
    }

    String required(String name) {
        String value = value(name);
        if (value == null) {
            throw new UsageException(command + ": option --" + name + " is required");
        }
        return value;
    }

    Long longValue(String name) {
        String value = value(name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " expects an integer, got '" + value + "'");
        }
    }

    /** Repeated {@code k=v} options (e.g. {@code --storage-option}) as a map. */
    Map<String, String> keyValues(String name) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String entry : options.getOrDefault(name, List.of())) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new UsageException(command + ": --" + name + " expects key=value, got '" + entry + "'");
            }
            map.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
        return map;
    }

    /** A wrong command line: reported with exit code 2 instead of 1. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
