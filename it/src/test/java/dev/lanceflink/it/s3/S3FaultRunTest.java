package dev.lanceflink.it.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.VersionInfo;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.s3.FaultInjectingHttpClient;
import dev.lanceflink.s3.S3ClientFactory;
import dev.lanceflink.s3.S3Location;
import dev.lanceflink.s3.S3ObjectStore;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3StoreConfig;
import dev.lanceflink.txn.CommitConflictException;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.CommitOutcomeUnknownException;
import dev.lanceflink.update.OverlayUpdate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Issue #4's acceptance run on S3: a seeded run of appends, deletes (by filter and by row address)
 * and data-overlay updates against S3Proxy, where 5% of ALL HTTP calls fail below the AWS SDK's
 * retry layer: 2% are reset before reaching the server, 2% are applied and then lose their
 * response, 1% are applied and answered with a 500. Unlike {@link FaultInjectedTableRunTest},
 * which fails whole store operations, this lets the S3 store's own bounded retries absorb what
 * they can (including the conditional PUT of a manifest retried after its first try landed), so
 * range reads can fail at the full 5% too.
 *
 * <p>Whatever still surfaces is handled the way a real job must: every logical operation carries
 * a unique transaction property ({@value #OP_ID}); after any failure the caller first asks
 * {@link Dataset#findCommittedVersion} whether that operation already landed and only otherwise
 * recomputes it against the latest version (also after a {@link CommitConflictException}, and a
 * {@link CommitOutcomeUnknownException} is answered the same way). At the end the table must equal
 * an in-memory model exactly, every manifest must be readable, each operation must be recorded in
 * exactly one version, and sampled old versions must hold their expected rows.
 *
 * <p>Two things are forced rather than left to chance. Every {@value #LOST_COMMIT_EVERY}
 * operations one commit's manifest PUT loses the response of every attempt and the store's
 * read-back fails too, so the commit surfaces as {@link CommitOutcomeUnknownException} although it
 * landed; the caller must find it by its property and not redo it. And every 5th overlay update
 * races a second writer (through a store without faults) between reading the table and
 * committing: half the time it updates the same rows (the commit rebases, ours must win), half
 * the time it rewrites the table with the same rows, which removes the overlaid fragments and
 * makes the update fail with a {@link CommitConflictException} that is recomputed.
 *
 * <p>Besides failing, {@value #DELAYED_PERCENT}% of the HTTP requests are slow: held for
 * {@value #DELAY_MILLIS} ms before they are sent or after the server answered (half each), so
 * the parallel range reads of a scan complete out of order and some commits hear of their
 * outcome late.
 *
 * <p>The S3 SDK is given {@code SDK_ATTEMPTS} (2) attempts per call so that some random failures
 * do reach the caller (0.05^2 per call); the fault draws are seeded ({@code -Dlf.it.faultSeed=N})
 * but parallel range reads make their order, and so the exact faults, vary from run to run. Every 25 operations the
 * table is overwritten with its own contents to keep the fragment count, and so the number of
 * calls per scan, bounded.
 */
class S3FaultRunTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    /** The transaction property naming the logical operation of a commit. */
    static final String OP_ID = "it.s3-fault-run.op-id";
    /** The operation id prefix of the second writer's commits. */
    private static final String OTHER_WRITER = "other-writer-";

    private static final double FAIL_BEFORE = 0.02;
    private static final double LOSE_RESPONSE = 0.02;
    private static final double APPLY_THEN_500 = 0.01;
    private static final int DELAYED_PERCENT = 3;
    private static final long DELAY_MILLIS = 20;
    private static final int OPERATIONS = 200;
    /** Every this many operations, one commit's outcome is made unknowable to the store. */
    private static final int LOST_COMMIT_EVERY = 20;

    private static final int SDK_ATTEMPTS = Integer.getInteger("lf.it.s3FaultRunSdkAttempts", 2);
    private static final int MAX_ATTEMPTS_PER_OPERATION = 50;
    private static final long MAX_ROWS_PER_FILE = 32;

    /** The state the table must have at one version. */
    private record Expected(long version, String opId, TreeMap<Long, Long> rows) {}

    /** One attempt at an operation against the latest version; returns the version it left. */
    @FunctionalInterface
    private interface Attempt {
        long run(Dataset latest) throws IOException;
    }

    /**
     * Sits in front of the shared fault injector, whose own random mode draws only resets and
     * lost responses, and adds two things to it, both by scripting faults for exact requests:
     * <ul>
     *   <li>{@link FaultInjectingHttpClient.Fault#APPLY_THEN_500} at a seeded rate;
     *   <li>on demand ({@link #loseNextCommit}), the worst case of a commit: every SDK attempt of
     *       the next manifest PUT loses its response (the first one having created the object),
     *       and the next {@value #BLACKOUT_REQUESTS} requests after it fail too, so the store
     *       cannot read back whether the commit landed and the caller must find out itself.
     * </ul>
     */
    private static final class FaultScheduler implements SdkHttpClient {
        static final int BLACKOUT_REQUESTS = 12;

        private final FaultInjectingHttpClient faults;
        private final Random random;
        private final double applyThen500;
        private final int sdkAttempts;
        private int manifestPutLosses;
        private int blackout;
        private int lostCommits;
        private int lostCommitFaults;

        FaultScheduler(FaultInjectingHttpClient faults, long seed, double applyThen500, int sdkAttempts) {
            this.faults = faults;
            this.random = new Random(seed);
            this.applyThen500 = applyThen500;
            this.sdkAttempts = sdkAttempts;
        }

        /** Makes the next manifest PUT land with its outcome unknowable to the store. */
        synchronized void loseNextCommit() {
            manifestPutLosses = sdkAttempts;
            blackout = 0;
        }

        /** Faults injected by {@link #loseNextCommit}, on top of the random 5%. */
        synchronized int lostCommitFaults() {
            return lostCommitFaults;
        }

        /** How many manifest PUTs had every attempt's response lost. */
        synchronized int lostCommits() {
            return lostCommits;
        }

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            SdkHttpRequest http = request.httpRequest();
            FaultInjectingHttpClient.Fault fault = null;
            synchronized (this) {
                if (manifestPutLosses > 0 && isManifestPut(http)) {
                    fault = FaultInjectingHttpClient.Fault.LOSE_RESPONSE;
                    lostCommitFaults++;
                    if (--manifestPutLosses == 0) {
                        lostCommits++;
                        blackout = BLACKOUT_REQUESTS;
                    }
                } else if (blackout > 0) {
                    blackout--;
                    lostCommitFaults++;
                    fault = FaultInjectingHttpClient.Fault.FAIL_BEFORE;
                } else if (random.nextDouble() < applyThen500) {
                    fault = FaultInjectingHttpClient.Fault.APPLY_THEN_500;
                }
            }
            if (fault != null) {
                faults.failNext(r -> r == http, fault, 1);
            }
            return faults.prepareRequest(request);
        }

        private static boolean isManifestPut(SdkHttpRequest http) {
            return http.method() == SdkHttpMethod.PUT
                    && http.encodedPath().contains("/_versions/")
                    && http.encodedPath().endsWith(".manifest");
        }

        @Override
        public String clientName() {
            return faults.clientName();
        }

        @Override
        public void close() {
            faults.close();
        }
    }

    // Counters of what reached the caller (the S3 SDK absorbed everything else).
    private long failedAttempts;
    private long outcomeUnknown;
    private long conflicts;
    private long landedDespiteFailure;
    private long knownVersion = 1;
    private int updates;
    private ObjectStore cleanStore;
    private int rewriteRaces;

    @Test
    void fivePercentHttpFaultsEndWithExactlyTheModelTable() throws Exception {
        long seed = Long.getLong("lf.it.faultSeed", 20261129L);
        TableLocation table = TableLocation.fresh(StoreKind.S3, S3.server(), null, "s3-faults");
        S3StoreConfig config = S3StoreConfig.fromOptions(table.storageOptions())
                .withRetries(SDK_ATTEMPTS, Duration.ofMillis(5), Duration.ofMillis(50));
        FaultInjectingHttpClient http = new FaultInjectingHttpClient(S3ClientFactory.newHttpClient(config), seed)
                .randomFaults(r -> true, FAIL_BEFORE, LOSE_RESPONSE)
                .randomDelays(r -> true, DELAYED_PERCENT / 100.0, Duration.ofMillis(DELAY_MILLIS));
        FaultScheduler scheduler = new FaultScheduler(http, seed + 1, APPLY_THEN_500, SDK_ATTEMPTS);
        String context = "table " + table.uri() + ", seed " + seed;
        Random random = new Random(seed);
        List<Expected> expected = new ArrayList<>();
        TreeMap<Long, Long> model = TestRows.initial(TestRows.range(0, 50));
        long nextId = 50;

        try (BufferAllocator allocator = new RootAllocator();
                ObjectStore clean = table.openStore();
                S3ObjectStore faulty = new S3ObjectStore(
                        S3ClientFactory.builder(config).httpClient(scheduler).build(),
                        S3Location.parse(table.uri()),
                        config,
                        true)) {
            try (VectorSchemaRoot first = TestRows.batch(allocator, TestRows.range(0, 50))) {
                Dataset.write(
                        clean,
                        allocator,
                        List.of(first),
                        TestRows.SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(MAX_ROWS_PER_FILE));
            }
            expected.add(new Expected(1, "", new TreeMap<>(model)));
            cleanStore = clean;
            long start = System.nanoTime();

            for (int i = 0; i < OPERATIONS; i++) {
                String opId = "op-" + i + "-" + seed;
                long before = knownVersion;
                int pick = random.nextInt(100);
                if (i % LOST_COMMIT_EVERY == LOST_COMMIT_EVERY / 2) {
                    scheduler.loseNextCommit();
                }
                boolean changes = true;
                long version;
                if (i % 25 == 24) {
                    long[] ids =
                            model.keySet().stream().mapToLong(Long::longValue).toArray();
                    long[] vals =
                            model.values().stream().mapToLong(Long::longValue).toArray();
                    version = perform(faulty, allocator, opId, latest -> {
                        try (VectorSchemaRoot batch = TestRows.batch(allocator, ids, vals)) {
                            return Dataset.write(
                                            faulty,
                                            allocator,
                                            List.of(batch),
                                            TestRows.SCHEMA,
                                            params(WriteMode.OVERWRITE, opId))
                                    .version();
                        }
                    });
                } else if (pick < 35 || model.size() < 10) {
                    long[] ids = TestRows.range(nextId, nextId + 1 + random.nextInt(20));
                    nextId += ids.length;
                    version = perform(faulty, allocator, opId, latest -> {
                        try (VectorSchemaRoot batch = TestRows.batch(allocator, ids)) {
                            return latest.append(List.of(batch), params(WriteMode.APPEND, opId))
                                    .version();
                        }
                    });
                    model.putAll(TestRows.initial(ids));
                } else if (pick < 50) {
                    long from = randomLiveId(model, random) - random.nextInt(3);
                    long to = from + 1 + random.nextInt(6);
                    changes = !model.subMap(from, to).isEmpty();
                    String filter = "id >= " + from + " AND id < " + to;
                    version = perform(
                            faulty,
                            allocator,
                            opId,
                            latest -> latest.delete(filter, Map.of(OP_ID, opId), CommitOptions.defaults())
                                    .version());
                    model.subMap(from, to).clear();
                } else if (pick < 65) {
                    long[] ids = distinctLiveIds(model, random, 1 + random.nextInt(4));
                    version = perform(faulty, allocator, opId, latest -> {
                        long[] rows = addressesOf(latest, ids);
                        return latest.deleteRows(rows, Map.of(OP_ID, opId), CommitOptions.defaults())
                                .version();
                    });
                    for (long id : ids) {
                        model.remove(id);
                    }
                } else {
                    long[] ids = distinctLiveIds(model, random, 1 + random.nextInt(6));
                    long[] vals = new long[ids.length];
                    long[] otherVals = new long[ids.length];
                    for (int k = 0; k < ids.length; k++) {
                        vals[k] = random.nextInt(1_000_000) - 500_000L;
                        otherVals[k] = random.nextInt(1_000_000) + 1_000_000L;
                    }
                    // Every 5th update races another writer between our read of the table and our
                    // commit. Every other time it updates the same rows (the commit rebases: ours
                    // ends up on top); otherwise it rewrites the whole table with the same rows,
                    // removing the fragments we overlay: a retryable CommitConflictException, so
                    // the update must be recomputed on the new fragments. Either way exactly once.
                    boolean raced = ++updates % 5 == 0;
                    boolean rewrite = updates % 10 == 0;
                    long[] allIds =
                            model.keySet().stream().mapToLong(Long::longValue).toArray();
                    long[] allVals =
                            model.values().stream().mapToLong(Long::longValue).toArray();
                    String otherOp = OTHER_WRITER + i + "-" + seed;
                    boolean[] otherDone = {false};
                    version = perform(faulty, allocator, opId, latest -> {
                        long[] rows = addressesOf(latest, ids);
                        if (raced && !otherDone[0]) {
                            otherDone[0] = true;
                            if (rewrite) {
                                rewriteRaces++;
                                try (VectorSchemaRoot batch = TestRows.batch(allocator, allIds, allVals)) {
                                    Dataset.write(
                                            clean,
                                            allocator,
                                            List.of(batch),
                                            TestRows.SCHEMA,
                                            params(WriteMode.OVERWRITE, otherOp));
                                }
                            } else {
                                updateAsOtherWriter(clean, allocator, ids, otherVals, otherOp);
                            }
                        }
                        try (VectorSchemaRoot values = TestRows.vals(allocator, vals)) {
                            return latest.update(
                                            rows,
                                            values,
                                            OverlayUpdate.Mode.OVERLAY,
                                            Map.of(OP_ID, opId),
                                            CommitOptions.defaults())
                                    .version();
                        }
                    });
                    if (raced) {
                        for (int k = 0; k < ids.length && !rewrite; k++) {
                            model.put(ids[k], otherVals[k]);
                        }
                        expected.add(new Expected(++before, otherOp, new TreeMap<>(model)));
                    }
                    for (int k = 0; k < ids.length; k++) {
                        model.put(ids[k], vals[k]);
                    }
                }
                assertThat(version).as("version after %s (%s)", opId, context).isEqualTo(changes ? before + 1 : before);
                if (changes) {
                    expected.add(new Expected(version, opId, new TreeMap<>(model)));
                }
            }
            long runMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();

            long requests = http.log().size();
            long failBefore = http.count("FAIL_BEFORE");
            long lost = http.count("LOSE_RESPONSE");
            long applied500 = http.count("APPLY_THEN_500");
            long manifestAfterApplied = http.log().stream()
                    .filter(l -> (l.startsWith("LOSE_RESPONSE PUT") || l.startsWith("APPLY_THEN_500 PUT"))
                            && l.contains("_versions/"))
                    .count();
            int slowRequests = http.delayedCount(FaultInjectingHttpClient.Delay.DELAY_REQUEST);
            int slowResponses = http.delayedCount(FaultInjectingHttpClient.Delay.DELAY_RESPONSE);
            System.out.printf(
                    "S3 fault run (%s): %d operations in %d ms, %d versions; %d HTTP requests"
                            + " (%d delayed before sending, %d after the answer), %d random"
                            + " faults, plus %d faults making %d commits' outcome unknowable (all together: %d reset before,"
                            + " %d lost responses, %d applied-then-500, %d after-applied on manifest PUTs);"
                            + " %d failures reached the caller"
                            + " (%d outcome unknown, %d conflicts; %d races with a rewrite), %d operations had landed despite"
                            + " the failure%n",
                    context,
                    OPERATIONS,
                    runMillis,
                    expected.size(),
                    requests,
                    slowRequests,
                    slowResponses,
                    failBefore + lost + applied500 - scheduler.lostCommitFaults(),
                    scheduler.lostCommitFaults(),
                    scheduler.lostCommits(),
                    failBefore,
                    lost,
                    applied500,
                    manifestAfterApplied,
                    failedAttempts,
                    outcomeUnknown,
                    conflicts,
                    rewriteRaces,
                    landedDespiteFailure);

            double faultRate = (failBefore + lost + applied500 - scheduler.lostCommitFaults()) / (double) requests;
            assertThat(faultRate)
                    .as("fraction of HTTP calls that failed at random (%s)", context)
                    .isBetween(0.04, 0.06);
            assertThat(failBefore).as("resets before the server (%s)", context).isPositive();
            assertThat(slowRequests + slowResponses)
                    .as("delayed requests (%s)", context)
                    .isBetween((int) (requests * 0.02), (int) (requests * 0.04));
            assertThat(slowRequests)
                    .as("requests delayed before sending (%s)", context)
                    .isPositive();
            assertThat(slowResponses)
                    .as("requests delayed after the answer (%s)", context)
                    .isPositive();
            assertThat(lost).as("lost responses (%s)", context).isPositive();
            assertThat(applied500).as("applied-then-500 (%s)", context).isPositive();
            assertThat(manifestAfterApplied)
                    .as("after-applied faults of manifest PUTs (%s)", context)
                    .isPositive();
            assertThat(scheduler.lostCommits())
                    .as("commits with every response lost (%s)", context)
                    .isGreaterThanOrEqualTo(OPERATIONS / LOST_COMMIT_EVERY - 1);
            assertThat(conflicts)
                    .as("conflicts with the other writer's rewrites, recomputed (%s)", context)
                    .isGreaterThanOrEqualTo(rewriteRaces);
            assertThat(landedDespiteFailure)
                    .as("operations found landed by their property after a failure (%s)", context)
                    .isGreaterThanOrEqualTo(scheduler.lostCommits());

            verify(clean, allocator, expected, model, context);
        }
    }

    private static WriteParams params(WriteMode mode, String opId) {
        return WriteParams.of(mode)
                .withMaxRowsPerFile(MAX_ROWS_PER_FILE)
                .withTransactionProperties(Map.of(OP_ID, opId));
    }

    /**
     * Runs {@code attempt} until it succeeds. After a failed attempt the operation may have landed
     * (the failure can come after the manifest was published), so every retry first looks for
     * {@code opId} in the versions after the last one this caller knows; only if it is absent is
     * the operation recomputed against the latest version.
     */
    private long perform(ObjectStore store, BufferAllocator allocator, String opId, Attempt attempt) {
        List<Exception> errors = new ArrayList<>();
        for (int a = 1; a <= MAX_ATTEMPTS_PER_OPERATION; a++) {
            try (Dataset latest = Dataset.open(store, allocator)) {
                if (a > 1) {
                    Optional<Long> landed = latest.findCommittedVersion(OP_ID, opId, knownVersion);
                    if (landed.isPresent()) {
                        landedDespiteFailure++;
                        knownVersion = landed.get();
                        return landed.get();
                    }
                }
                long version = attempt.run(latest);
                knownVersion = version;
                return version;
            } catch (IOException | UncheckedIOException e) {
                failedAttempts++;
                if (e instanceof CommitOutcomeUnknownException) {
                    outcomeUnknown++;
                } else if (e instanceof CommitConflictException c) {
                    // One writer only: a conflict can only be with one of our own landed commits.
                    conflicts++;
                    if (!c.isRetryable() && !byOtherWritersRewrite(c, allocator)) {
                        throw new AssertionError(
                                "Operation " + opId + ": non-retryable conflict that is not with"
                                        + " the other writer's same-content rewrite",
                                e);
                    }
                }
                errors.add(e);
                java.io.FileNotFoundException missing = missingFile(e);
                if (missing != null) {
                    throw new AssertionError(
                            "Operation " + opId + ": the table is corrupt, a committed version"
                                    + " references a missing object (" + missing.getMessage() + ")",
                            e);
                }
            }
        }
        AssertionError error = new AssertionError("Operation " + opId + " still failed after "
                + MAX_ATTEMPTS_PER_OPERATION + " attempts; last error: " + errors.get(errors.size() - 1));
        errors.forEach(error::addSuppressed);
        throw error;
    }

    /**
     * Whether conflict {@code c} is with one of the other writer's rewrites. Those replace the
     * table with the very rows it had, which the conflict check cannot know (it refuses overlays
     * over an Overwrite as contradictory); this caller knows, so recomputing is right. Read
     * through the store without faults: this is bookkeeping of the test, not the run.
     */
    private boolean byOtherWritersRewrite(CommitConflictException c, BufferAllocator allocator) {
        if (c.conflictingVersion() < 0) {
            return false;
        }
        try (Dataset latest = Dataset.open(cleanStore, allocator)) {
            String op = latest.checkoutVersion(c.conflictingVersion())
                    .transaction()
                    .map(t -> t.properties().getOrDefault(OP_ID, ""))
                    .orElse("");
            return op.startsWith(OTHER_WRITER);
        } catch (IOException e) {
            throw new AssertionError(
                    "Reading version " + c.conflictingVersion() + " through the store without" + " faults failed", e);
        }
    }

    private static java.io.FileNotFoundException missingFile(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.io.FileNotFoundException f
                    && !(t instanceof dev.lanceflink.dataset.NotADatasetException)) {
                return f;
            }
        }
        return null;
    }

    /** A second writer's overlay update of rows {@code ids}, through a store without faults. */
    private static void updateAsOtherWriter(
            ObjectStore clean, BufferAllocator allocator, long[] ids, long[] vals, String opId) throws IOException {
        try (Dataset latest = Dataset.open(clean, allocator);
                VectorSchemaRoot values = TestRows.vals(allocator, vals)) {
            latest.update(
                    addressesOf(latest, ids),
                    values,
                    OverlayUpdate.Mode.OVERLAY,
                    Map.of(OP_ID, opId),
                    CommitOptions.defaults());
        }
    }

    /** The row addresses, at {@code latest}, of rows the model says are live. */
    private static long[] addressesOf(Dataset latest, long[] ids) throws IOException {
        Map<Long, Long> addresses = TestRows.rowAddresses(latest);
        long[] rows = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            Long a = addresses.get(ids[i]);
            if (a == null) {
                throw new AssertionError("id " + ids[i] + " is live in the model but not in version " + latest.version()
                        + " of " + latest.uri());
            }
            rows[i] = a;
        }
        return rows;
    }

    private static void verify(
            ObjectStore clean,
            BufferAllocator allocator,
            List<Expected> expected,
            TreeMap<Long, Long> model,
            String context)
            throws IOException {
        try (Dataset latest = Dataset.open(clean, allocator)) {
            assertThat(latest.version())
                    .as("latest version (%s)", context)
                    .isEqualTo(expected.get(expected.size() - 1).version());
            assertThat(TestRows.contents(latest))
                    .as("final contents (%s)", context)
                    .isEqualTo(model);
            assertThat(latest.countRows()).as("live rows (%s)", context).isEqualTo(model.size());

            List<VersionInfo> versions = latest.versions(); // reads every manifest and its transaction
            assertThat(versions)
                    .extracting(VersionInfo::version)
                    .as("versions (%s)", context)
                    .containsExactlyElementsOf(
                            expected.stream().map(Expected::version).toList());
            Map<String, Long> versionOfOp = new HashMap<>();
            for (int i = 0; i < versions.size(); i++) {
                Expected e = expected.get(i);
                VersionInfo v = versions.get(i);
                String op = v.properties().getOrDefault(OP_ID, "");
                assertThat(op)
                        .as("operation of version %d (%s)", e.version(), context)
                        .isEqualTo(e.opId());
                if (!op.isEmpty()) {
                    Long twice = versionOfOp.put(op, v.version());
                    assertThat(twice)
                            .as("%s applied at versions %s and %d (%s)", op, twice, v.version(), context)
                            .isNull();
                }
                assertThat(v.numRows())
                        .as("rows at version %d (%s)", e.version(), context)
                        .isEqualTo(e.rows().size());
                if (i % 10 == 0 || i == versions.size() - 1) {
                    assertThat(TestRows.contents(latest.checkoutVersion(e.version())))
                            .as("contents at version %d (%s)", e.version(), context)
                            .isEqualTo(e.rows());
                }
            }
        }
    }

    private static long randomLiveId(TreeMap<Long, Long> model, Random random) {
        long probe = model.firstKey() + (long) (random.nextDouble() * (model.lastKey() - model.firstKey() + 1));
        Long id = model.ceilingKey(probe);
        return id != null ? id : model.lastKey();
    }

    private static long[] distinctLiveIds(TreeMap<Long, Long> model, Random random, int n) {
        TreeSet<Long> ids = new TreeSet<>();
        for (int tries = 0; ids.size() < Math.min(n, model.size()) && tries < 100; tries++) {
            ids.add(randomLiveId(model, random));
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }
}
