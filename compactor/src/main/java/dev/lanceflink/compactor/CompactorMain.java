package dev.lanceflink.compactor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.compactor.core.CompactionRun;
import dev.lanceflink.compactor.core.CompactionSummary;
import dev.lanceflink.compactor.core.LocalTaskExecutor;
import dev.lanceflink.compactor.core.TaskExecutor;
import dev.lanceflink.compactor.flink.FlinkTaskExecutor;
import dev.lanceflink.file.writer.FileWriterOptions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.maintenance.CleanupPlan;
import dev.lanceflink.maintenance.CleanupResult;
import dev.lanceflink.maintenance.TableCleanup;
import dev.lanceflink.txn.CommitOptions;
import java.io.PrintStream;
import java.time.Instant;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Entry point of the compaction job: {@code flink run -c dev.lanceflink.compactor.CompactorMain
 * lance-flink-compactor.jar <table-uri> --mode overlay-merge ...}, or locally {@code bin/lance-flink
 * compact <table-uri> --mode ...}. Arguments: {@link CompactorOptions#usage()}.
 *
 * <p>Prints one JSON object on stdout: {@code status} ({@code committed}, {@code nothing-to-do},
 * {@code dry-run}), {@code table}, {@code mode}, {@code planVersion}, {@code fragmentsPlanned},
 * {@code fragmentsCompacted}, {@code overlaysBefore}, {@code overlaysAfter}, {@code inputBytes},
 * {@code bytesWritten}, (mode {@code fragments}) {@code fragmentsAdded}, {@code rowsWritten},
 * {@code carriedDeletions} and {@code carriedOverlays} (what other writers changed on the rewritten
 * fragments meanwhile, carried to the new fragments),
 * {@code committedVersions}, {@code replannedFragments}, {@code uncompactedFragments},
 * {@code durationMillis} and the {@code plan} (tasks with positions or fragment groups, triggers
 * and sizes; skipped fragments with reasons). {@code --mode cleanup} prints the cleanup plan and
 * result instead (see {@code cleanup}). On failure: {@code {"status":"failed","error":"..."}}.
 *
 * <p>Except for {@code --dry-run}, a run holds the table's {@link dev.lanceflink.compactor.core.MaintenanceLease}
 * (renewed while it runs, released at the end), the same lease a sink's in-job maintenance takes:
 * when another maintainer holds it, the run changes nothing and exits with code 1 and
 * {@code {"status":"lease-held","error":"..."}}.
 */
public final class CompactorMain {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CompactorMain() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the CLI with progress on {@code System.err}; returns the exit code (0, 1 failure, 2 usage). */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, System.err);
    }

    /** Runs the CLI; the JSON summary goes to {@code out}, progress and usage to {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, UnaryOperator.identity());
    }

    /**
     * As {@link #run(String[], PrintStream, PrintStream)}, running the tasks through {@code
     * executor} applied to the engine's executor: tests use it to let another writer commit
     * between the tasks and the commit, where a concurrent sink's commits land.
     */
    static int run(String[] args, PrintStream out, PrintStream err, UnaryOperator<TaskExecutor> executor) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                out.print(CompactorOptions.usage());
                return 0;
            }
        }
        CompactorOptions options;
        try {
            options = CompactorOptions.parse(args);
        } catch (CompactorOptions.UsageException e) {
            // One JSON line on stdout like every other failure; the hint goes to stderr.
            ObjectNode error = JsonNodeFactory.instance.objectNode();
            error.put("error", e.getMessage());
            out.println(write(error));
            err.println("compact: " + e.getMessage() + " (compact --help lists the options)");
            return 2;
        }
        if (options.cleanup() != null) {
            return cleanup(options, out, err);
        }
        try (ObjectStore store = ObjectStores.open(options.tableUri(), options.storageOptions());
                BufferAllocator allocator = new RootAllocator()) {
            CommitOptions commit = CommitOptions.defaults().withMaxAttempts(options.maxCommitAttempts());
            CompactionRun run = new CompactionRun(
                    store, options.tableUri(), options.mode(), options.policy(), commit, options.maxReplanRounds());
            if (!options.carryConcurrentChanges()) {
                run = run.replanningConcurrentChanges();
            }
            CompactionSummary summary;
            if (options.dryRun()) {
                summary = run.dryRun();
            } else {
                TaskExecutor engine = options.engine().equals("threads")
                        ? new LocalTaskExecutor(
                                store,
                                allocator,
                                FileWriterOptions.defaults(),
                                options.parallelism() > 0
                                        ? options.parallelism()
                                        : Runtime.getRuntime().availableProcessors())
                        : new FlinkTaskExecutor(
                                options.tableUri(), options.storageOptions(), store, options.parallelism());
                TaskExecutor tasks = executor.apply(engine);
                try (RunLease lease = RunLease.take(store, options.modeName(), err)) {
                    summary = run.execute(
                            tasks,
                            (result, finished, total) -> err.println("compact: "
                                    + (result.task().group() != null
                                            ? result.task().fragmentIds().size() + " fragments rewritten"
                                            : "fragment " + result.task().fragmentId() + " staged")
                                    + " (" + finished + "/" + total + " tasks)"));
                }
            }
            out.println(write(summary.toJson()));
            return 0;
        } catch (Exception | LinkageError e) {
            return failed(options, e, out, err);
        }
    }

    /**
     * {@code --mode cleanup}: plans on the latest version and, unless {@code --dry-run}, deletes.
     * Prints {@code status} ({@code dry-run}, {@code nothing-to-do}, {@code cleaned}, or
     * {@code incomplete} when some deletes failed: exit code 1, the next run retries them),
     * {@code table}, {@code mode}, {@code plan} and {@code result} (see CleanupPlan / CleanupResult).
     */
    private static int cleanup(CompactorOptions options, PrintStream out, PrintStream err) {
        try (ObjectStore store = ObjectStores.open(options.tableUri(), options.storageOptions());
                RunLease lease = options.dryRun() ? null : RunLease.take(store, CompactorOptions.CLEANUP, err)) {
            CleanupPlan plan = TableCleanup.plan(store, options.cleanup().toPolicy(Instant.now()));
            ObjectNode json = JSON.createObjectNode();
            json.put("table", options.tableUri());
            json.put("mode", CompactorOptions.CLEANUP);
            int code = 0;
            if (options.dryRun()) {
                json.put("status", CompactionSummary.DRY_RUN);
            } else if (plan.isEmpty()) {
                json.put("status", CompactionSummary.NOTHING_TO_DO);
            } else {
                err.println("compact: cleanup deletes " + plan.bytesToDelete() + " bytes of " + plan.fileCounts());
                CleanupResult result = TableCleanup.execute(store, plan);
                boolean complete = result.failedDeletes().isEmpty();
                json.put("status", complete ? "cleaned" : "incomplete");
                json.set("result", JSON.readTree(result.toJson()));
                if (!complete) {
                    err.println("compact: " + result.failedDeletes().size() + " deletes failed; the files stay and"
                            + " the next cleanup run retries them");
                    code = 1;
                }
            }
            json.set("plan", JSON.readTree(plan.toJson()));
            out.println(write(json));
            return code;
        } catch (Exception | LinkageError e) {
            return failed(options, e, out, err);
        }
    }

    private static int failed(CompactorOptions options, Throwable e, PrintStream out, PrintStream err) {
        ObjectNode failed = JSON.createObjectNode();
        failed.put("status", e instanceof RunLease.HeldException ? "lease-held" : "failed");
        failed.put("table", options.tableUri());
        failed.put("mode", options.modeName());
        failed.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        out.println(write(failed));
        err.println("compact: failed: " + e);
        if (e instanceof NoClassDefFoundError) {
            err.println("compact: Flink classes are missing; put the Flink distribution's lib/ on the classpath"
                    + " or use --engine threads");
        }
        return 1;
    }

    private static String write(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Could not render the JSON summary", e);
        }
    }
}
