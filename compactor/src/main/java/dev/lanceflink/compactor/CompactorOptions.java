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
 * @param mode what to compact
 * @param policy triggers and budget
 * @param storageOptions Lance storage options for the object store (e.g. {@code aws_region})
 * @param engine {@code flink} (a Flink batch job; in-process MiniCluster unless submitted with
 *     {@code flink run}) or {@code threads} (tasks on threads of this process, no Flink needed)
 * @param parallelism task parallelism; 0 = the engine's default (Flink's, or the number of cores)
 * @param dryRun print the plan, commit nothing
 * @param maxReplanRounds how often fragments changed by concurrent writers are planned again
 * @param maxCommitAttempts commit attempts per commit when other writers keep winning
 */
public record CompactorOptions(String tableUri, CompactionMode mode, CompactionPolicy policy,
        Map<String, String> storageOptions, String engine, int parallelism, boolean dryRun, int maxReplanRounds,
        int maxCommitAttempts) {

    public static final String USAGE = """
            Usage: compact <table-uri> --mode overlay-merge|overlay-fold [options]

            Compacts the data overlay files of a Lance table: plans on the latest version, runs one
            task per fragment in parallel and commits the result (one version per run; folds of
            different column sets commit one version each). Safe to run while a streaming sink
            writes the table, and safe to re-run after a failure.

            Modes:
              overlay-merge   merge each selected fragment's overlays into one overlay (base files
                              and index coverage untouched)
              overlay-fold    fold each selected fragment's overlays into a new base file (indices
                              on the folded columns stop covering the fragment)

            Triggers (a fragment is selected when any enabled trigger fires; 0 disables one):
              --min-overlays N               overlays per fragment (default 8)
              --min-overlay-bytes-ratio R    overlay bytes >= R x base bytes (default 0.5)
              --min-version-gap G            oldest overlay >= G versions old (default 0)
            Budget per run (most overlays first; the rest wait for the next run):
              --max-fragments N              default unlimited
              --max-bytes B                  input bytes (base + overlays for a fold), default unlimited
            Execution:
              --engine flink|threads         default flink (in-process unless submitted by flink run)
              --parallelism P                default: the engine's default
              --storage-option KEY=VALUE     object store option, repeatable
              --max-replan-rounds N          re-plans of fragments changed concurrently (default 3)
              --max-commit-attempts N        default 20
              --dry-run                      print the plan as JSON and commit nothing
              --help

            Output: progress lines on stderr; one JSON summary on stdout. Exit code 0 on success
            (also when there is nothing to do), 1 on failure, 2 on a usage error.
            """;

    public CompactorOptions {
        requireNonNull(tableUri, "tableUri is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(policy, "policy is null");
        storageOptions = Map.copyOf(storageOptions);
        requireNonNull(engine, "engine is null");
    }

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
        CompactionPolicy defaults = CompactionPolicy.defaults();
        int minOverlays = defaults.minOverlays();
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
        for (; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--mode" -> {
                    try {
                        mode = CompactionMode.parse(value(args, i++));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException(e.getMessage());
                    }
                }
                case "--min-overlays" -> minOverlays = (int) number(args, i++, Integer.MAX_VALUE);
                case "--min-overlay-bytes-ratio" -> ratio = decimal(args, i++);
                case "--min-version-gap" -> gap = number(args, i++, Long.MAX_VALUE);
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
        if (mode == null) {
            throw new UsageException("Missing --mode (overlay-merge or overlay-fold)");
        }
        if (attempts < 1) {
            throw new UsageException("--max-commit-attempts must be >= 1, got " + attempts);
        }
        CompactionPolicy policy;
        try {
            policy = new CompactionPolicy(minOverlays, ratio, gap, maxFragments, maxBytes);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return new CompactorOptions(uri, mode, policy, storage, engine, parallelism, dryRun, rounds, attempts);
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

    private static double decimal(String[] args, int i) {
        String v = value(args, i);
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("Option " + args[i] + " expects a number, got '" + v + "'");
        }
    }
}
