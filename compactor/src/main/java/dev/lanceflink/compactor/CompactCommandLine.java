package dev.lanceflink.compactor;

import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The command line of the compaction job as a picocli command: every option with its help text,
 * each value checked as it is read (the messages name the option and the value), then the checks
 * across options in {@link #toOptions()}. One instance parses one command line. Public for
 * {@code bin/lance-flink}, which lists the command in its help.
 */
@Command(
        name = "compact",
        separator = " ",
        sortOptions = false,
        usageHelpWidth = 100,
        synopsisHeading = "",
        customSynopsis = {
            "lance-flink compact <table-uri> --mode overlay-merge|overlay-fold|fragments|cleanup [options]",
            "   or: flink run -c dev.lanceflink.compactor.CompactorMain <job jar> <table-uri> --mode ..."
        },
        descriptionHeading = "%n",
        description = {
            "Compacts a Lance table with data overlay files, or cleans up its old versions.",
            "Plans on the latest version, runs one task per fragment (or fragment group) in parallel and",
            "commits the result (one version per run; folds of different column sets commit one version",
            "each). Safe to run while a streaming sink writes the table, and safe to re-run after a failure.",
            "",
            "Modes:",
            "  overlay-merge   merge each selected fragment's overlays into one overlay (base files and",
            "                  index coverage untouched)",
            "  overlay-fold    fold each selected fragment's overlays into a new base file (indices on the",
            "                  folded columns stop covering the fragment)",
            "  fragments       rewrite fragments with many deleted rows and merge small neighbouring",
            "                  fragments (same index coverage only) into fragments of the target size;",
            "                  overlays and deletions are materialized; committed as a Lance Rewrite (stable",
            "                  row ids and row versions are kept; the rewritten fragments leave the indices'",
            "                  fragment bitmaps)",
            "  cleanup         delete old versions and the files no kept version references (including",
            "                  files of checkpoints that never committed, once older than the grace period);",
            "                  the sink's last commit is always kept"
        },
        parameterListHeading = "%n",
        optionListHeading = "%nOptions:%n",
        footerHeading = "%n",
        footer = {
            "Overlay triggers: without any of them an overlay run takes every fragment with overlays (merge:",
            "with two or more). With one or more given, a fragment is selected when any enabled trigger fires",
            "(0 disables one; unnamed ones take their defaults), as scheduled maintenance does. The summary",
            "counts the overlays found and gives the reason for every fragment skipped. The budget takes the",
            "fragments with the most overlays first (--mode fragments: in table order); the rest waits for",
            "the next run.",
            "",
            "Output: progress lines on stderr; one JSON summary on stdout. Exit code 0 on success (also when",
            "there is nothing to do), 1 on failure (cleanup: also when some deletes failed; also when another",
            "maintainer holds the table's maintenance lease, status \"lease-held\"), 2 on a usage error."
        })
public final class CompactCommandLine {
    @Spec
    private CommandSpec spec;

    @Parameters(
            index = "0",
            paramLabel = "<table-uri>",
            description = "the table: file:///..., a local path, or s3://bucket/prefix")
    private String uri;

    private CompactionMode mode;
    private boolean cleanupMode;
    private final CompactionPolicy defaults = CompactionPolicy.defaults();
    private int minOverlays = defaults.minOverlays();
    private double ratio = defaults.minOverlayBytesRatio();
    private long gap = defaults.minVersionGap();
    private boolean triggersGiven;
    private int maxFragments = defaults.maxFragments();
    private long maxBytes = defaults.maxBytes();
    private double deletedRatio = defaults.minDeletedRatio();
    private long targetRows = defaults.targetRowsPerFragment();
    private long smallRows = -1;
    private final CleanupSettings cleanupDefaults = CleanupSettings.defaults();
    private Duration olderThan = cleanupDefaults.olderThan();
    private int retainVersions = cleanupDefaults.retainVersions();
    private Duration grace = cleanupDefaults.grace();
    private final Set<String> released = new LinkedHashSet<>();
    /** Options only --mode fragments (or cleanup) accepts, in command-line order, for the error message. */
    private final Set<String> fragmentOptions = new LinkedHashSet<>();

    private final Set<String> cleanupOptions = new LinkedHashSet<>();
    private final Map<String, String> storage = new LinkedHashMap<>();
    private String engine = "flink";
    private int parallelism;
    private int rounds = 3;
    private int attempts = 20;
    private boolean carry = true;

    @Option(names = "--dry-run", order = 92, description = "print the plan as JSON and change nothing")
    private boolean dryRun;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            order = 99,
            description = "print this help")
    private boolean help;

    /** A picocli command line for parsing or for its help; usage errors keep their own messages. */
    public static CommandLine commandLine() {
        CommandLine line = new CommandLine(new CompactCommandLine());
        line.setExpandAtFiles(false); // a table URI may start with '@'
        line.setOverwrittenOptionsAllowed(true); // a repeated option wins, as scripts that append options expect
        line.setColorScheme(Help.defaultColorScheme(Help.Ansi.OFF));
        line.setUsageHelpLongOptionsMaxWidth(30); // the longest option with its value, so they stay on one line
        return line;
    }

    /** The help text ({@code compact --help}). */
    static String usage() {
        return commandLine().getUsageMessage(Help.Ansi.OFF);
    }

    /**
     * Parses {@code args} (without a leading {@code compact}).
     *
     * @throws CompactorOptions.UsageException naming the first problem
     */
    static CompactorOptions parse(String[] args) {
        CommandLine line = commandLine();
        try {
            line.parseArgs(args);
        } catch (ParameterException e) {
            throw new CompactorOptions.UsageException(message(e));
        }
        CompactCommandLine parsed = line.getCommand();
        return parsed.toOptions();
    }

    private static String message(ParameterException e) {
        CompactCommandLine parsed = e.getCommandLine().getCommand();
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            return arg.startsWith("-") || parsed.uri == null
                    ? "Unknown option '" + arg + "'"
                    : "Only one table URI may be given, got '" + parsed.uri + "' and '" + arg + "'";
        }
        if (e instanceof MissingParameterException m && !m.getMissing().isEmpty()) {
            return m.getMissing().get(0) instanceof OptionSpec o
                    ? "Option " + o.longestName() + " needs a value"
                    : "Missing the table URI";
        }
        return e.getMessage();
    }

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            order = 0,
            description = "overlay-merge, overlay-fold, fragments or cleanup (see Modes)")
    private void mode(String m) {
        if (m.equals(CompactorOptions.CLEANUP)) {
            cleanupMode = true;
            mode = null;
            return;
        }
        try {
            mode = CompactionMode.parse(m);
            cleanupMode = false;
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage() + ", or cleanup");
        }
    }

    @Option(
            names = "--min-overlays",
            paramLabel = "N",
            order = 10,
            description = "overlay trigger: overlays per fragment (default 8)")
    private void minOverlays(String v) {
        triggersGiven = true;
        minOverlays = (int) number("--min-overlays", v, Integer.MAX_VALUE);
    }

    @Option(
            names = "--min-overlay-bytes-ratio",
            paramLabel = "R",
            order = 11,
            description = "overlay trigger: overlay bytes >= R x base bytes (default 0.5)")
    private void minOverlayBytesRatio(String v) {
        triggersGiven = true;
        ratio = decimal("--min-overlay-bytes-ratio", v);
    }

    @Option(
            names = "--min-version-gap",
            paramLabel = "G",
            order = 12,
            description = "overlay trigger: oldest overlay >= G versions old (default 0)")
    private void minVersionGap(String v) {
        triggersGiven = true;
        gap = number("--min-version-gap", v, Long.MAX_VALUE);
    }

    @Option(
            names = "--min-deleted-ratio",
            paramLabel = "R",
            order = 20,
            description = "fragments: rewrite a fragment whose deleted rows exceed R of its rows (default 0.1;"
                    + " 1 never materializes deletions)")
    private void minDeletedRatio(String v) {
        fragmentOptions.add("--min-deleted-ratio");
        deletedRatio = decimal("--min-deleted-ratio", v);
    }

    @Option(
            names = "--target-rows-per-fragment",
            paramLabel = "N",
            order = 21,
            description = "fragments: rows per new fragment (default 1048576)")
    private void targetRowsPerFragment(String v) {
        fragmentOptions.add("--target-rows-per-fragment");
        targetRows = number("--target-rows-per-fragment", v, Integer.MAX_VALUE);
    }

    @Option(
            names = "--small-fragment-rows",
            paramLabel = "N",
            order = 22,
            description =
                    "fragments: fragments with fewer rows are merged with small neighbours (default: the" + " target)")
    private void smallFragmentRows(String v) {
        fragmentOptions.add("--small-fragment-rows");
        smallRows = number("--small-fragment-rows", v, Long.MAX_VALUE);
    }

    @Option(
            names = "--max-fragments",
            paramLabel = "N",
            order = 30,
            description = "budget per run: fragments (default unlimited)")
    private void maxFragments(String v) {
        maxFragments = (int) number("--max-fragments", v, Integer.MAX_VALUE);
    }

    @Option(
            names = "--max-bytes",
            paramLabel = "B",
            order = 31,
            description = "budget per run: input bytes, base + overlays for a fold or rewrite (default unlimited)")
    private void maxBytes(String v) {
        maxBytes = number("--max-bytes", v, Long.MAX_VALUE);
    }

    @Option(
            names = "--older-than",
            paramLabel = "D",
            order = 40,
            description = "cleanup: keep versions newer than D (default 7d; D like 7d, 12h, 30m, 45s)")
    private void olderThan(String v) {
        cleanupOptions.add("--older-than");
        olderThan = duration("--older-than", v);
    }

    @Option(
            names = "--retain-versions",
            paramLabel = "N",
            order = 41,
            description = "cleanup: always keep the newest N versions (default 1)")
    private void retainVersions(String v) {
        cleanupOptions.add("--retain-versions");
        retainVersions = (int) number("--retain-versions", v, Integer.MAX_VALUE);
    }

    @Option(
            names = "--grace",
            paramLabel = "D",
            order = 42,
            description = "cleanup: delete unreferenced files only when older than D (default 1h; longer than a"
                    + " checkpoint interval plus a sink restart)")
    private void grace(String v) {
        cleanupOptions.add("--grace");
        grace = duration("--grace", v);
    }

    @Option(
            names = "--release-commit-user",
            paramLabel = "ID",
            order = 43,
            description = "cleanup: a removed sink whose last commit need not be kept (repeatable)")
    private void releaseCommitUser(String user) {
        cleanupOptions.add("--release-commit-user");
        if (user.isEmpty()) {
            throw usage("--release-commit-user needs a non-empty commit user id");
        }
        released.add(user);
    }

    @Option(
            names = "--engine",
            paramLabel = "flink|threads",
            order = 50,
            description = "default flink (in-process unless submitted by flink run); threads needs no Flink")
    private void engine(String v) {
        if (!v.equals("flink") && !v.equals("threads")) {
            throw usage("--engine must be 'flink' or 'threads', got '" + v + "'");
        }
        engine = v;
    }

    @Option(
            names = "--parallelism",
            paramLabel = "P",
            order = 51,
            description = "task parallelism (default: the engine's default)")
    private void parallelism(String v) {
        parallelism = (int) number("--parallelism", v, 1 << 15);
    }

    @Option(
            names = "--storage-option",
            paramLabel = "KEY=VALUE",
            order = 52,
            description = "object store option (Lance's key names), repeatable")
    private void storageOption(String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
            throw usage("--storage-option expects KEY=VALUE, got '" + kv + "'");
        }
        storage.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    @Option(
            names = "--max-replan-rounds",
            paramLabel = "N",
            order = 53,
            description = "re-plans of fragments changed concurrently (default 3)")
    private void maxReplanRounds(String v) {
        rounds = (int) number("--max-replan-rounds", v, 1000);
    }

    @Option(names = "--max-commit-attempts", paramLabel = "N", order = 54, description = "default 20")
    private void maxCommitAttempts(String v) {
        attempts = (int) number("--max-commit-attempts", v, 1000);
    }

    @Option(
            names = "--replan-concurrent-changes",
            order = 23,
            description = "fragments: when another writer (a streaming sink) deleted or overlaid rows of"
                    + " fragments being rewritten, plan them again instead of carrying those changes to the"
                    + " new fragments (default: carried, as deletion files and one overlay per new fragment,"
                    + " and the rewrite lands)")
    private void replanConcurrentChanges(boolean replan) {
        fragmentOptions.add("--replan-concurrent-changes");
        carry = !replan;
    }

    /** The checks across options, then the options record. */
    CompactorOptions toOptions() {
        if (mode == null && !cleanupMode) {
            throw new CompactorOptions.UsageException(
                    "Missing --mode (overlay-merge, overlay-fold, fragments or cleanup)");
        }
        if (!fragmentOptions.isEmpty() && mode != CompactionMode.FRAGMENTS) {
            throw new CompactorOptions.UsageException(
                    "Option(s) " + fragmentOptions + " apply only to --mode fragments");
        }
        if (!cleanupOptions.isEmpty() && !cleanupMode) {
            throw new CompactorOptions.UsageException("Option(s) " + cleanupOptions + " apply only to --mode cleanup");
        }
        if (cleanupMode && retainVersions < 1) {
            throw new CompactorOptions.UsageException(
                    "--retain-versions must be >= 1 (the latest version is the" + " table), got " + retainVersions);
        }
        if (attempts < 1) {
            throw new CompactorOptions.UsageException("--max-commit-attempts must be >= 1, got " + attempts);
        }
        if (!triggersGiven) {
            // Someone who asks for a merge or a fold by hand wants it done: every fragment with
            // overlays qualifies. The thresholds are for unattended runs, which name them.
            minOverlays = 1;
            ratio = 0;
            gap = 0;
        }
        CompactionPolicy policy;
        try {
            policy = new CompactionPolicy(
                    minOverlays,
                    ratio,
                    gap,
                    maxFragments,
                    maxBytes,
                    deletedRatio,
                    targetRows,
                    smallRows < 0 ? targetRows : smallRows);
        } catch (IllegalArgumentException e) {
            throw new CompactorOptions.UsageException(e.getMessage());
        }
        CleanupSettings cleanup = cleanupMode ? new CleanupSettings(olderThan, retainVersions, grace, released) : null;
        return new CompactorOptions(
                uri, mode, policy, storage, engine, parallelism, dryRun, rounds, attempts, cleanup, carry);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private long number(String option, String v, long max) {
        try {
            long n = Long.parseLong(v);
            if (n < 0 || n > max) {
                throw usage("Option " + option + " must be between 0 and " + max + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw usage("Option " + option + " expects a whole number, got '" + v + "'");
        }
    }

    private double decimal(String option, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw usage("Option " + option + " expects a number, got '" + v + "'");
        }
    }

    private Duration duration(String option, String v) {
        try {
            return CleanupSettings.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw usage("Option " + option + ": " + e.getMessage());
        }
    }
}
