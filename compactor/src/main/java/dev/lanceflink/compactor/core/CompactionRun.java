package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One compaction run, engine-neutral: plan on the latest version (pinned for the whole round), run
 * the tasks through a {@link TaskExecutor}, commit them with {@link CompactionCommitter}, and for
 * fragments a concurrent writer changed in the meantime, plan, run and commit again on the newer
 * version, up to {@code maxReplanRounds} times (mode {@code fragments}: the changed groups are
 * re-formed from their fragments only).
 *
 * <p>Fragment rewrites carry deletions and overlays other writers committed on their fragments
 * meanwhile over to the new fragments by default ({@link #replanningConcurrentChanges()} turns
 * that off): next to a streaming sink that changes every fragment every checkpoint, a rewrite
 * that needs its fragments unchanged is re-planned again and again and never lands, and Lance's
 * own compaction likewise rebases its {@code Rewrite} over concurrent deletions.
 *
 * <p>Re-running is safe: a run that failed before its commit left only unreferenced files; a run
 * that committed left fragments below the triggers, so the next plan is empty.
 */
public final class CompactionRun {
    private final ObjectStore store;
    private final String tableUri;
    private final CompactionMode mode;
    private final CompactionPolicy policy;
    private final CommitOptions commitOptions;
    private final int maxReplanRounds;
    /** The fragments the run may compact (null: any). */
    private final Set<Long> only;
    /** Extra transaction properties of every commit (e.g. who maintains). */
    private final Map<String, String> properties;
    /** Whether rewrites carry concurrent deletions and overlays instead of going stale. */
    private final boolean carry;

    public CompactionRun(
            ObjectStore store,
            String tableUri,
            CompactionMode mode,
            CompactionPolicy policy,
            CommitOptions commitOptions,
            int maxReplanRounds) {
        this(store, tableUri, mode, policy, commitOptions, maxReplanRounds, null, Map.of(), true);
    }

    private CompactionRun(
            ObjectStore store,
            String tableUri,
            CompactionMode mode,
            CompactionPolicy policy,
            CommitOptions commitOptions,
            int maxReplanRounds,
            Set<Long> only,
            Map<String, String> properties,
            boolean carry) {
        this.store = requireNonNull(store, "store is null");
        this.tableUri = requireNonNull(tableUri, "tableUri is null");
        this.mode = requireNonNull(mode, "mode is null");
        this.policy = requireNonNull(policy, "policy is null");
        this.commitOptions = requireNonNull(commitOptions, "commitOptions is null");
        if (maxReplanRounds < 0) {
            throw new IllegalArgumentException("maxReplanRounds must be >= 0, got " + maxReplanRounds);
        }
        this.maxReplanRounds = maxReplanRounds;
        this.only = only == null ? null : Set.copyOf(only);
        this.properties = Map.copyOf(properties);
        this.carry = carry;
    }

    /**
     * The same run restricted to {@code fragmentIds}: only they are planned (a caller's own
     * trigger chose them), and only they are planned again when they changed meanwhile.
     */
    public CompactionRun onlyFragments(Set<Long> fragmentIds) {
        return new CompactionRun(
                store,
                tableUri,
                mode,
                policy,
                commitOptions,
                maxReplanRounds,
                requireNonNull(fragmentIds, "fragmentIds is null"),
                properties,
                carry);
    }

    /** The same run committing with these extra transaction properties. */
    public CompactionRun withCommitProperties(Map<String, String> extra) {
        return new CompactionRun(store, tableUri, mode, policy, commitOptions, maxReplanRounds, only, extra, carry);
    }

    /**
     * The same run, whose fragment compactions carry deletions and overlays other writers
     * committed on their fragments meanwhile over to the new fragments instead of going stale
     * ({@link CompactionCommitter#commit(ObjectStore, List, Map, CommitOptions, boolean)}): for a
     * table a streaming sink changes everywhere, every checkpoint. The default.
     */
    public CompactionRun carryingConcurrentChanges() {
        return new CompactionRun(store, tableUri, mode, policy, commitOptions, maxReplanRounds, only, properties, true);
    }

    /**
     * The same run, whose fragment compactions go stale when another writer changed one of their
     * fragments in any way meanwhile, and are planned again on the newer version (up to {@code
     * maxReplanRounds} times): the new fragments then hold every row materialized, without
     * deletion files or overlays, at the price of rewriting again (and, next to a sink that
     * changes those fragments every checkpoint, of rarely landing).
     */
    public CompactionRun replanningConcurrentChanges() {
        return new CompactionRun(
                store, tableUri, mode, policy, commitOptions, maxReplanRounds, only, properties, false);
    }

    /** The plan on the latest version. */
    public CompactionPlan plan() throws IOException {
        return planned().plan();
    }

    /**
     * A plan with the manifest it was made on. The run hands that manifest to the executor and the
     * committer instead of each reading the version again: on a table with many overlays a
     * manifest is tens of MB and each read seconds, which a maintenance check paid three times.
     */
    private record Planned(CompactionPlan plan, Manifest manifest) {}

    private Planned planned() throws IOException {
        return plannedOn(ManifestIO.read(store, VersionResolver.latest(store)));
    }

    private Planned plannedOn(Manifest manifest) throws IOException {
        return new Planned(CompactionPlanner.plan(tableUri, manifest, mode, policy, only), manifest);
    }

    /** Plans only: the summary of a {@code --dry-run}. */
    public CompactionSummary dryRun() throws IOException {
        long start = System.nanoTime();
        CompactionPlan plan = plan();
        return CompactionSummary.empty(CompactionSummary.DRY_RUN, plan, (System.nanoTime() - start) / 1_000_000);
    }

    /** Plans, runs and commits. */
    public CompactionSummary execute(TaskExecutor executor, TaskExecutor.ProgressListener progress) throws IOException {
        long start = System.nanoTime();
        return execute(executor, progress, planned(), start);
    }

    /**
     * Plans on {@code readOn} instead of reading the latest version, then runs and commits: for a
     * caller that has just read the latest manifest to decide on the run (the sink's maintenance
     * does), which saves reading it once more (tens of MB on a table with many overlays). Whatever
     * was committed after {@code readOn} is handled as for any plan that other writers overtook
     * while its tasks ran: carried over on commit, or planned again.
     *
     * @param readOn a version of this run's table, normally the latest the caller read
     */
    public CompactionSummary execute(TaskExecutor executor, TaskExecutor.ProgressListener progress, Manifest readOn)
            throws IOException {
        long start = System.nanoTime();
        return execute(executor, progress, plannedOn(requireNonNull(readOn, "readOn is null")), start);
    }

    private CompactionSummary execute(
            TaskExecutor executor, TaskExecutor.ProgressListener progress, Planned planned, long start)
            throws IOException {
        CompactionPlan first = planned.plan();
        if (first.isEmpty()) {
            return CompactionSummary.empty(
                    CompactionSummary.NOTHING_TO_DO, first, (System.nanoTime() - start) / 1_000_000);
        }
        List<Long> versions = new ArrayList<>();
        Set<Long> replanned = new LinkedHashSet<>();
        int compacted = 0;
        long before = 0;
        long after = 0;
        long bytesWritten = 0;
        int fragmentsAdded = 0;
        long rowsWritten = 0;
        long carriedDeletions = 0;
        long carriedOverlays = 0;
        CompactionPlan plan = first;
        List<Long> stale = List.of();
        for (int round = 0; round <= maxReplanRounds && !plan.isEmpty(); round++) {
            List<TaskResult> results = executor.execute(plan, planned.manifest(), progress);
            CommitReport report =
                    CompactionCommitter.commit(store, planned.manifest(), results, properties, commitOptions, carry);
            versions.addAll(report.committedVersions());
            carriedDeletions += report.carriedDeletions();
            carriedOverlays += report.carriedOverlays();
            for (TaskResult r : report.committed()) {
                compacted += r.task().fragmentIds().size();
                before += r.task().overlayPaths().size();
                after += r.task().overlaysAfter();
                TaskResult.Output o = r.output();
                bytesWritten += o.bytes();
                fragmentsAdded += o.newFragments();
                rowsWritten += o.rowsWritten();
            }
            stale = report.staleFragmentIds();
            if (stale.isEmpty()) {
                break;
            }
            replanned.addAll(stale);
            planned = replan(stale);
            plan = planned.plan();
            stale = plan.tasks().stream().flatMap(t -> t.fragmentIds().stream()).toList();
        }
        String status = versions.isEmpty() ? CompactionSummary.NOTHING_TO_DO : CompactionSummary.COMMITTED;
        return new CompactionSummary(
                status,
                first,
                compacted,
                before,
                after,
                versions,
                new ArrayList<>(replanned),
                stale,
                (System.nanoTime() - start) / 1_000_000,
                new TaskResult.Output(bytesWritten, fragmentsAdded, rowsWritten),
                carriedDeletions,
                carriedOverlays);
    }

    /** A plan of the given fragments on the latest version (those that still need compaction). */
    private Planned replan(List<Long> fragmentIds) throws IOException {
        Manifest latest = ManifestIO.read(store, VersionResolver.latest(store));
        if (mode == CompactionMode.FRAGMENTS) {
            // Groups are re-formed from the changed fragments only; fragments committed in an earlier
            // round are new fragments now and stay out of this run.
            CompactionPlan p = FragmentCompactionPlanner.plan(tableUri, latest, policy, new HashSet<>(fragmentIds));
            return new Planned(
                    new CompactionPlan(
                            tableUri, latest.version(), mode, policy, p.tasks(), List.of(), p.overlaysFound()),
                    latest);
        }
        List<CompactionTask> tasks = new ArrayList<>();
        for (long id : fragmentIds) {
            Optional<CompactionTask> t = CompactionPlanner.planFragment(latest, id, mode, policy);
            t.ifPresent(tasks::add);
        }
        return new Planned(
                new CompactionPlan(
                        tableUri,
                        latest.version(),
                        mode,
                        policy,
                        tasks,
                        List.of(),
                        CompactionPlanner.overlayCount(latest)),
                latest);
    }
}
