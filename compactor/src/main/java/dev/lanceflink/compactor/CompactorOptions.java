package dev.lanceflink.compactor;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.compactor.core.CompactionMode;
import dev.lanceflink.compactor.core.CompactionPolicy;
import java.util.Arrays;
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
 * @param carryConcurrentChanges whether fragment rewrites carry deletions and overlays committed
 *     on their fragments meanwhile to the new fragments (default) instead of being planned again
 *     ({@code --replan-concurrent-changes})
 */
public record CompactorOptions(
        String tableUri,
        CompactionMode mode,
        CompactionPolicy policy,
        Map<String, String> storageOptions,
        String engine,
        int parallelism,
        boolean dryRun,
        int maxReplanRounds,
        int maxCommitAttempts,
        CleanupSettings cleanup,
        boolean carryConcurrentChanges) {

    /** The help text ({@code compact --help}), generated from the command line's definition. */
    public static String usage() {
        return CompactCommandLine.usage();
    }

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
        boolean named = args.length > 0 && args[0].equals("compact");
        return CompactCommandLine.parse(named ? Arrays.copyOfRange(args, 1, args.length) : args);
    }
}
