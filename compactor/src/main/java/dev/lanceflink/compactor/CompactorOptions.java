package dev.lanceflink.compactor;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPolicy;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The command line of {@link CompactorMain}, parsed and validated.
 *
 * @param tableUri the table ({@code file:///...}, a local path, or {@code s3://bucket/prefix})
 * @param mode what to compact; null for {@code --mode cleanup}
 * @param policy triggers and budget (unused by cleanup)
 * @param storageOptions Lance storage options for the object store (e.g. {@code aws_region})
 * @param engine {@code flink} (a Flink batch job; in-process MiniCluster unless submitted with
 *     {@code flink run}) or {@code threads} (tasks on threads of this process, no Flink needed)
 * @param parallelism task parallelism; 0 = the engine's default (Flink's, or the number of cores)
 * @param dryRun print the plan, commit nothing
 * @param maxReplanRounds how often fragments changed by concurrent writers are planned again
 * @param maxCommitAttempts commit attempts per commit when other writers keep winning
 * @param cleanup the settings of {@code --mode cleanup}; null for the compaction modes
 */
public record CompactorOptions(String tableUri, CompactionMode mode, CompactionPolicy policy,
        Map<String, String> storageOptions, String engine, int parallelism, boolean dryRun, int maxReplanRounds,
        int maxCommitAttempts, CleanupSettings cleanup) {

    public static final String USAGE = """
            Usage: compact <table-uri> --mode overlay-merge|overlay-fold|fragments|cleanup [options]

            Compacts a Lance table with data overlay files: plans on the latest version, runs one
            task per fragment (or fragment group) in parallel and commits the result (one version
            per run; folds of different column sets commit one version each). Safe to run while a
            streaming sink writes the table, and safe to re-run after a failure.

            Modes:
              overlay-merge   merge each selected fragment's overlays into one overlay (base files
                              and index coverage untouched)
              overlay-fold    fold each selected fragment's overlays into a new base file (indices
                              on the folded columns stop covering the fragment)
              fragments       rewrite fragments with many deleted rows and merge small neighbouring
                              fragments (same index coverage only) into fragments of the target
                              size; overlays and deletions are materialized; committed as a Lance
                              Rewrite (stable row ids and row versions are kept; the rewritten
                              fragments leave the indices' fragment bitmaps)
              cleanup         delete old versions and the files no kept version references
                              (including files of checkpoints that never committed, once older
                              than the grace period); the sink's last commit is always kept

            Overlay triggers: without any of them an overlay run takes every fragment with overlays
            (merge: with two or more). With one or more given, a fragment is selected when any
            enabled trigger fires (0 disables one; unnamed ones take the defaults shown), as
            scheduled maintenance does:
              --min-overlays N               overlays per fragment (default 8)
              --min-overlay-bytes-ratio R    overlay bytes >= R x base bytes (default 0.5)
              --min-version-gap G            oldest overlay >= G versions old (default 0)
            The summary counts the overlays found and gives the reason for every fragment skipped.
            Fragment rules (--mode fragments):
              --min-deleted-ratio R          rewrite a fragment whose deleted rows exceed R of its
                                             rows (default 0.1; 1 never materializes deletions)
              --target-rows-per-fragment N   rows per new fragment (default 1048576)
              --small-fragment-rows N        fragments with fewer rows are merged with small
                                             neighbours (default: the target)
            Budget per run (overlays: most overlays first; fragments: table order; the rest waits
            for the next run):
              --max-fragments N              default unlimited
              --max-bytes B                  input bytes (base + overlays for a fold or rewrite),
                                             default unlimited
            Cleanup (--mode cleanup):
              --older-than D                 keep versions newer than D (default 7d; D like 7d,
                                             12h, 30m, 45s)
              --retain-versions N            always keep the newest N versions (default 1)
              --grace D                      delete unreferenced files only when older than D
                                             (default 1h; longer than a checkpoint interval plus
                                             a sink restart)
              --release-commit-user ID       a removed sink whose last commit need not be kept
                                             (repeatable)
            Execution:
              --engine flink|threads         default flink (in-process unless submitted by flink run)
              --parallelism P                default: the engine's default
              --storage-option KEY=VALUE     object store option, repeatable
              --max-replan-rounds N          re-plans of fragments changed concurrently (default 3)
              --max-commit-attempts N        default 20
              --dry-run                      print the plan as JSON and change nothing
              --help

            Output: progress lines on stderr; one JSON summary on stdout. Exit code 0 on success
            (also when there is nothing to do), 1 on failure (cleanup: also when some deletes
            failed; also when another maintainer holds the table's maintenance lease, status
            "lease-held"), 2 on a usage error.
            """;

    public CompactorOptions {
        requireNonNull(tableUri, "tableUri is null");
        if ((mode == null) == (cleanup == null)) {
            throw new IllegalArgumentException("Exactly one of a compaction mode and cleanup settings must be given");
        }
        requireNonNull(policy, "policy is null");
        storageOptions = Map.copyOf(storageOptions);
        requireNonNull(engine, "engine is null");
    }

    /** The name of the mode, as on the command line. */
    public String modeName() {
        return mode == null ? CLEANUP : mode.cliName();
    }

    /** The mode name of {@code --mode cleanup}. */
    public static final String CLEANUP = "cleanup";

    /** Thrown for a malformed command line; the message says what is wrong. */
    public static final class UsageException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code args}; a leading {@code compact} (as passed by {@code bin/lance-flink compact})
     * is skipped.
     *
     * @throws UsageException on a malformed command line
     */
    public static CompactorOptions parse(String[] args) {
        int i = 0;
        if (args.length > 0 && args[0].equals("compact")) {
            i++;
        }
        String uri = null;
        CompactionMode mode = null;
        boolean cleanupMode = false;
        CompactionPolicy defaults = CompactionPolicy.defaults();
        int minOverlays = defaults.minOverlays();
        boolean triggersGiven = false;
        double ratio = defaults.minOverlayBytesRatio();
        long gap = defaults.minVersionGap();
        int maxFragments = defaults.maxFragments();
        long maxBytes = defaults.maxBytes();
        Map<String, String> storage = new LinkedHashMap<>();
        String engine = "flink";
        int parallelism = 0;
        boolean dryRun = false;
        int rounds = 3;
        int attempts = 20;
        double deletedRatio = defaults.minDeletedRatio();
        long targetRows = defaults.targetRowsPerFragment();
        long smallRows = -1;
        CleanupSettings cd = CleanupSettings.defaults();
        java.time.Duration olderThan = cd.olderThan();
        int retainVersions = cd.retainVersions();
        java.time.Duration grace = cd.grace();
        java.util.Set<String> released = new java.util.LinkedHashSet<>();
        java.util.Set<String> fragmentOptions = new java.util.LinkedHashSet<>();
        java.util.Set<String> cleanupOptions = new java.util.LinkedHashSet<>();
        for (; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--mode" -> {
                    String m = value(args, i++);
                    if (m.equals(CLEANUP)) {
                        cleanupMode = true;
                        mode = null;
                    } else {
                        try {
                            mode = CompactionMode.parse(m);
                            cleanupMode = false;
                        } catch (IllegalArgumentException e) {
                            throw new UsageException(e.getMessage() + ", or cleanup");
                        }
                    }
                }
                case "--min-deleted-ratio" -> {
                    fragmentOptions.add(a);
                    deletedRatio = decimal(args, i++);
                }
                case "--target-rows-per-fragment" -> {
                    fragmentOptions.add(a);
                    targetRows = number(args, i++, Integer.MAX_VALUE);
                }
                case "--small-fragment-rows" -> {
                    fragmentOptions.add(a);
                    smallRows = number(args, i++, Long.MAX_VALUE);
                }
                case "--older-than" -> {
                    cleanupOptions.add(a);
                    olderThan = duration(args, i++);
                }
                case "--grace" -> {
                    cleanupOptions.add(a);
                    grace = duration(args, i++);
                }
                case "--retain-versions" -> {
                    cleanupOptions.add(a);
                    retainVersions = (int) number(args, i++, Integer.MAX_VALUE);
                }
                case "--release-commit-user" -> {
                    cleanupOptions.add(a);
                    String user = value(args, i++);
                    if (user.isEmpty()) {
                        throw new UsageException("--release-commit-user needs a non-empty commit user id");
                    }
                    released.add(user);
                }
                case "--min-overlays" -> {
                    triggersGiven = true;
                    minOverlays = (int) number(args, i++, Integer.MAX_VALUE);
                }
                case "--min-overlay-bytes-ratio" -> {
                    triggersGiven = true;
                    ratio = decimal(args, i++);
                }
                case "--min-version-gap" -> {
                    triggersGiven = true;
                    gap = number(args, i++, Long.MAX_VALUE);
                }
                case "--max-fragments" -> maxFragments = (int) number(args, i++, Integer.MAX_VALUE);
                case "--max-bytes" -> maxBytes = number(args, i++, Long.MAX_VALUE);
                case "--engine" -> {
                    engine = value(args, i++);
                    if (!engine.equals("flink") && !engine.equals("threads")) {
                        throw new UsageException("--engine must be 'flink' or 'threads', got '" + engine + "'");
                    }
                }
                case "--parallelism" -> parallelism = (int) number(args, i++, 1 << 15);
                case "--storage-option" -> {
                    String kv = value(args, i++);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageException("--storage-option expects KEY=VALUE, got '" + kv + "'");
                    }
                    storage.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "--max-replan-rounds" -> rounds = (int) number(args, i++, 1000);
                case "--max-commit-attempts" -> attempts = (int) number(args, i++, 1000);
                case "--dry-run" -> dryRun = true;
                default -> {
                    if (a.startsWith("--")) {
                        throw new UsageException("Unknown option '" + a + "'");
                    }
                    if (uri != null) {
                        throw new UsageException("Only one table URI may be given, got '" + uri + "' and '" + a + "'");
                    }
                    uri = a;
                }
            }
        }
        if (uri == null) {
            throw new UsageException("Missing the table URI");
        }
        if (mode == null && !cleanupMode) {
            throw new UsageException("Missing --mode (overlay-merge, overlay-fold, fragments or cleanup)");
        }
        if (!fragmentOptions.isEmpty() && mode != CompactionMode.FRAGMENTS) {
            throw new UsageException("Option(s) " + fragmentOptions + " apply only to --mode fragments");
        }
        if (!cleanupOptions.isEmpty() && !cleanupMode) {
            throw new UsageException("Option(s) " + cleanupOptions + " apply only to --mode cleanup");
        }
        if (cleanupMode && retainVersions < 1) {
            throw new UsageException("--retain-versions must be >= 1 (the latest version is the table), got "
                    + retainVersions);
        }
        if (attempts < 1) {
            throw new UsageException("--max-commit-attempts must be >= 1, got " + attempts);
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
            policy = new CompactionPolicy(minOverlays, ratio, gap, maxFragments, maxBytes, deletedRatio, targetRows,
                    smallRows < 0 ? targetRows : smallRows);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        CleanupSettings cleanup = cleanupMode ? new CleanupSettings(olderThan, retainVersions, grace, released) : null;
        return new CompactorOptions(uri, mode, policy, storage, engine, parallelism, dryRun, rounds, attempts,
                cleanup);
    }

    private static String value(String[] args, int i) {
        if (i + 1 >= args.length) {
            throw new UsageException("Option " + args[i] + " needs a value");
        }
        return args[i + 1];
    }

    private static long number(String[] args, int i, long max) {
        String v = value(args, i);
        try {
            long n = Long.parseLong(v);
            if (n < 0 || n > max) {
                throw new UsageException("Option " + args[i] + " must be between 0 and " + max + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("Option " + args[i] + " expects a whole number, got '" + v + "'");
        }
    }

    private static java.time.Duration duration(String[] args, int i) {
        String v = value(args, i);
        try {
            return CleanupSettings.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new UsageException("Option " + args[i] + ": " + e.getMessage());
        }
    }

    private static double decimal(String[] args, int i) {
        String v = value(args, i);
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("Option " + args[i] + " expects a number, got '" + v + "'");
        }
    }
}
