package dev.lanceflink.it.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.it.cluster.ChildJvm;
import dev.lanceflink.it.interop.DumpComparator;
import dev.lanceflink.it.interop.OurCli;
import dev.lanceflink.it.interop.PylanceOracle;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.testkit.users.UsersTable;
import dev.lanceflink.txn.TransactionStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15's acceptance run: a streaming upsert + append job (parallelism 2, a checkpoint every
 * second, in-job maintenance on) runs for at least three minutes (on the local file system; with
 * {@code -Dsoak.store=s3} on S3Proxy on loopback) while
 * <ul>
 *   <li>the whole job (the JVM running its MiniCluster, {@link SoakJobMain}) is SIGKILLed at random
 *       moments and restarted from its newest retained checkpoint;
 *   <li>the standalone compaction job ({@link CompactorLoop}: overlay-merge and overlay-fold) and
 *       pylance's {@code compact_files} (fragment compaction, moving the sink's rows) commit to the
 *       same table;
 *   <li>a reader in this JVM reads every version as soon as it appears.
 * </ul>
 *
 * <p>What must hold: every version the reader sees is the model after a whole checkpoint (a
 * prefix of the changelog, bracketed by its marker row; see {@link SoakChangelog}), prefixes never
 * go back, no key appears twice; overlays per fragment, fragments and retained versions stay
 * under the configured bounds (plus a justified slack) in every version and at every poll; pylance
 * (overlays enabled) reads versions sampled during the run exactly as our reader does; at the end
 * the table equals the model after the whole changelog cell by cell, and every checkpoint the
 * sink committed appears once. A lost, duplicated or half-applied change, a wrong cell or a bound
 * run over fails the test.
 *
 * <p>System properties: {@code -Dsoak.store=local|s3} (default local) and
 * {@code -Dsoak.compaction=pylance|in-job|both} (default pylance: who compacts fragments). The
 * suite (CI) runs the defaults; the S3 variant runs on demand (it takes longer, and on a loaded
 * machine its figures vary more); it passed with {@code -Dsoak.compaction=both} once a commit
 * after a compaction wrote one overlay per destination fragment and the in-job compaction carried
 * the sink's concurrent changes (README, soak paragraph).
 */
class SinkSoakRunTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final long SEED = 1515;
    private static final int PER_SECOND = 200;
    /** Three minutes of changes at {@link #PER_SECOND}: the job's run time without kills. */
    private static final int COUNT = PER_SECOND * 180;

    private static final int INITIAL_KEYS = 2_000;
    private static final long KEYS = 3_000;
    private static final int INITIAL_ROWS_PER_FILE = 500;
    private static final int KILLS = 3;
    /** pylance compacts the table's fragments this often. */
    private static final long PYLANCE_COMPACT_SECONDS = 15;
    /** pylance and our reader compare a version this often. */
    private static final long SAMPLE_SECONDS = 25;
    /** The standalone compactor's pause between runs (an operator's frequent schedule, not a busy loop). */
    private static final long COMPACTOR_PAUSE_MILLIS = 2_000;

    @TempDir
    Path dir;

    @Test
    void killedRestoredAndCompactedTheTableStaysBoundedAndEqualsTheModel() throws Exception {
        long testStarted = System.nanoTime();
        String store = System.getProperty("soak.store", "local");
        if (!List.of("local", "s3").contains(store)) {
            throw new IllegalArgumentException("-Dsoak.store must be local or s3, got " + store);
        }
        boolean onS3 = store.equals("s3");
        String compaction = System.getProperty("soak.compaction", "pylance");
        if (!List.of("pylance", "in-job", "both").contains(compaction)) {
            throw new IllegalArgumentException("-Dsoak.compaction must be pylance, in-job or both, got " + compaction);
        }
        boolean pylanceCompacts = !compaction.equals("in-job");
        boolean inJobFragments = !compaction.equals("pylance");
        Map<String, String> storage = onS3 ? S3.server().storageOptions() : Map.of();
        String uri = onS3
                ? "s3://" + S3.server().createBucket("soak-" + System.nanoTime()) + "/users.lance"
                : dir.resolve("users.lance").toString();
        List<String> storageArgs = new ArrayList<>();
        storage.forEach((k, v) -> storageArgs.addAll(List.of("--storage-option", k + "=" + v)));

        SoakChangelog log = SoakChangelog.generate(SEED, COUNT, INITIAL_KEYS, KEYS);
        UsersTable.create(uri, storage, log.initial, INITIAL_ROWS_PER_FILE);
        PylanceOracle pylance = PylanceOracle.fromBuild().withOverlays();

        Path checkpoints = dir.resolve("checkpoints");
        Files.createDirectories(checkpoints);
        Files.createDirectories(dir.resolve("tmp"));
        // Rows of versions as fast as they can be read (every version locally, a sample on S3);
        // bounds of every version from its manifest, which is cheap enough to miss none.
        VersionPoller poller =
                new VersionPoller(uri, storage, log, onS3 ? SoakJobMain.RETAIN_VERSIONS / 2 : Long.MAX_VALUE);
        Thread polling = new Thread(poller, "soak-version-poller");
        polling.setDaemon(true);
        polling.start();
        Path logs = Path.of("target", "soak-run");
        Files.createDirectories(logs);
        BoundsPoller bounds =
                new BoundsPoller(uri, storage, logs.resolve("versions-" + (onS3 ? "s3" : "local") + ".csv"));
        Thread boundsPolling = new Thread(bounds, "soak-bounds-poller");
        boundsPolling.setDaemon(true);
        boundsPolling.start();
        PylanceBeside beside = new PylanceBeside(pylance, uri, storage, storageArgs, poller, dir);
        Thread besideThread = new Thread(beside, "soak-pylance");
        besideThread.setDaemon(true);

        Random random = new Random(SEED);
        List<String> incarnations = new ArrayList<>();
        long jobNanos = 0;
        int kills = 0;
        // The job's logs and the versions' bounds (logs above) stay after the run (the temporary
        // directory does not).
        try (CompactorLoop compactor = new CompactorLoop(uri, storage, COMPACTOR_PAUSE_MILLIS)) {
            compactor.start();
            besideThread.start();
            String restore = "-";
            for (int k = 0; ; k++) {
                Path out = logs.resolve("job-" + k + ".log");
                long started = System.nanoTime();
                long restoredId = restore.equals("-") ? 0 : checkpointId(Path.of(restore));
                // Cleanup by count in every incarnation: the key map follows pylance's compactions
                // itself (its rewrite log is in the checkpoint), so no restore needs their versions.
                long retainMinAgeSeconds = 0;
                Process job = ChildJvm.start(
                        command(uri, checkpoints, restore, retainMinAgeSeconds, inJobFragments, storage),
                        dir,
                        Map.of(),
                        out,
                        out);
                incarnations.add("incarnation " + k + " from " + restore);
                if (k == 0 && pylanceCompacts) {
                    beside.compactFromVersion = 0;
                    beside.compacting = true;
                }
                if (k == KILLS) {
                    // Bounds are reported per phase: before and after the last restore.
                    bounds.retentionPhaseOver = true;
                }
                try {
                    if (k < KILLS) {
                        // Killed 25-40 s after its start, once it has completed a checkpoint (so every
                        // restore starts from a checkpoint the previous incarnation took).
                        long runFor = TimeUnit.SECONDS.toNanos(25 + random.nextInt(16));
                        while (System.nanoTime() - started < runFor
                                || newestCheckpointId(checkpoints) <= restoredId + 1) {
                            assertAlive(job, out, k);
                            assertThat(poller.failure)
                                    .as("the version poller's verdict")
                                    .isNull();
                            assertThat(bounds.failure)
                                    .as("the bounds poller's verdict")
                                    .isNull();
                            Thread.sleep(200);
                        }
                        job.destroyForcibly(); // SIGKILL: no shutdown hook, no release of the lease
                        job.waitFor(30, TimeUnit.SECONDS);
                        kills++;
                        jobNanos += System.nanoTime() - started;
                        restore = newestCheckpoint(checkpoints).toString();
                        continue;
                    }
                    boolean ended = job.waitFor(10, TimeUnit.MINUTES);
                    jobNanos += System.nanoTime() - started;
                    assertThat(ended)
                            .as("the last incarnation finished within 10 min")
                            .isTrue();
                    assertThat(job.exitValue())
                            .as("last incarnation's exit code; its log:%n%s", ChildJvm.tail(out, 80))
                            .isZero();
                    assertThat(Files.readString(out, StandardCharsets.UTF_8)).contains(SoakJobMain.FINISHED);
                    break;
                } finally {
                    if (job.isAlive()) {
                        job.destroyForcibly();
                        job.waitFor(30, TimeUnit.SECONDS);
                    }
                }
            }
            beside.stop.set(true);
            besideThread.join(TimeUnit.MINUTES.toMillis(3));
            List<CompactorLoop.Run> runs = compactor.stop();
            poller.stop.set(true);
            bounds.stop.set(true);
            polling.join(TimeUnit.MINUTES.toMillis(3));
            boundsPolling.join(TimeUnit.MINUTES.toMillis(1));
            assertThat(polling.isAlive()).as("the poller ended").isFalse();
            assertThat(boundsPolling.isAlive()).as("the bounds poller ended").isFalse();

            // -- what the run did -------------------------------------------------------------------
            long compactorCommits = runs.stream()
                    .mapToLong(CompactorLoop.Run::committedVersions)
                    .sum();
            long compactorLeaseHeld =
                    runs.stream().filter(r -> r.status().equals("lease-held")).count();
            List<CompactorLoop.Run> compactorFailures = runs.stream()
                    .filter(r -> r.exitCode() != 0 && !r.status().equals("lease-held"))
                    .toList();
            System.out.printf(
                    "soak (%s, fragment compaction by %s): %d incarnations, %d kills, job run %d s, whole test %d s%n",
                    onS3 ? "S3" : "local",
                    compaction,
                    incarnations.size(),
                    kills,
                    TimeUnit.NANOSECONDS.toSeconds(jobNanos),
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - testStarted));
            System.out.printf(
                    "soak: rows of %d versions checked (%d by the sink, %d missed); bounds of %d"
                            + " versions read (%d missed, %d by the sink), max %d overlays per fragment (version %d), %d"
                            + " versions above %d; max %d fragments (version %d); max %d versions retained at a poll; max"
                            + " %d overlays one checkpoint added to a fragment%n",
                    poller.read,
                    poller.sinkVersions,
                    poller.missed,
                    bounds.read,
                    bounds.missed,
                    bounds.sinkVersions,
                    bounds.maxOverlays,
                    bounds.worstOverlayVersion,
                    bounds.versionsAbove(SoakJobMain.MAX_OVERLAYS + bounds.maxAddedByOneCheckpoint),
                    SoakJobMain.MAX_OVERLAYS + bounds.maxAddedByOneCheckpoint,
                    bounds.maxFragments,
                    bounds.worstFragmentVersion,
                    bounds.maxRetained,
                    bounds.maxAddedByOneCheckpoint);
            System.out.printf(
                    "soak: before the last restore max %d overlays per fragment (one commit added up to"
                            + " %d); after it max %d (one commit added up to %d)%n",
                    maxOverlays(bounds, 0, 3),
                    maxOverlays(bounds, 0, 4),
                    maxOverlays(bounds, 1, 3),
                    maxOverlays(bounds, 1, 4));
            System.out.printf(
                    "soak: compactor %d runs, %d versions committed, %d lease-held, %d failed; pylance"
                            + " %d compactions committed, %d failed (%s); %d pylance reads compared, %d lost to cleanup;"
                            + " operations seen: %s%n",
                    runs.size(),
                    compactorCommits,
                    compactorLeaseHeld,
                    compactorFailures.size(),
                    beside.compactions,
                    beside.compactionFailures.size(),
                    beside.compactionFailures.stream().limit(3).toList(),
                    beside.compared,
                    beside.lostSamples,
                    bounds.operations);
            System.out.println(
                    "soak: pylance compactions (s after the start: s taken, exit code): " + beside.compactionTimes);
            incarnations.forEach(s -> System.out.println("soak: " + s));

            // -- every version a whole checkpoint, pylance agreeing -----------------------------------
            assertThat(poller.failure).as("the version poller's verdict").isNull();
            assertThat(bounds.failure).as("the bounds poller's verdict").isNull();
            assertThat(beside.failure).as("pylance beside the job").isNull();
            assertThat(poller.lastPrefix).as("changes in the last version read").isEqualTo(COUNT);
            if (!onS3) {
                // Locally the reader keeps up with the retention: it reads every version. On S3
                // (S3Proxy on this machine) a full read of a version takes longer than the
                // retention lasts under load, so there versions read are a sample.
                assertThat(poller.missed)
                        .as("versions removed before the reader read them")
                        .isZero();
            }
            assertThat(poller.sinkVersions).as("sink versions read").isGreaterThanOrEqualTo(40);
            // The bounds hold "at every moment": every version's manifest is read, on both stores.
            assertThat(bounds.missed)
                    .as("versions removed before their manifest was read")
                    .isZero();
            assertThat(beside.compared)
                    .as("versions pylance and our reader compared during the run")
                    .isGreaterThanOrEqualTo(4);
            assertThat(kills).isEqualTo(KILLS);
            assertThat(TimeUnit.NANOSECONDS.toSeconds(jobNanos))
                    .as("job run time, s")
                    .isGreaterThanOrEqualTo(180);

            // -- the end: the model, cell by cell; each checkpoint once -------------------------------
            UsersTable.assertLatestEquals(uri, storage, log.finalModel());
            VersionsByWriter history = VersionsByWriter.read(uri, storage);
            history.assertContiguous();
            history.assertSinkCommitsExactlyOnce();
            assertThat(compactorFailures)
                    .as("standalone compaction runs that failed")
                    .isEmpty();
            // Beside it, not only started: the standalone job landed versions between the sink's
            // maintenance (82 of 98 runs in one local run, 8 finding the lease held) and pylance
            // landed its compactions (13 of 13).
            assertThat(compactorCommits)
                    .as("versions the standalone compaction job committed")
                    .isPositive();
            if (pylanceCompacts) {
                assertThat(beside.compactions)
                        .as("compactions pylance committed")
                        .isPositive();
            }

            // -- bounds ------------------------------------------------------------------------------
            // Overlays, in both phases (before and after the last restore): maintenance never holds
            // up the sink, so the checkpoints committing while a check works, or during the up to
            // LEASE_TIMEOUT after each SIGKILL in which the dead job's lease keeps every maintainer
            // away, add overlays past the merge trigger (README: worst 19 for a trigger of 8 at
            // 200 ms checkpoints; 210 in a loaded run with a compaction stuck). The checkpoint
            // commits themselves keep the hard bound: one that would pass it merges the fragment's
            // overlays in its own version, so no version exceeds it, whatever maintenance does.
            long addedInPhase = Math.max(maxOverlays(bounds, 0, 4), maxOverlays(bounds, 1, 4));
            assertThat(maxOverlays(bounds, 0, 3))
                    .as("overlays per fragment in any version before the last restore")
                    .isLessThanOrEqualTo(SoakJobMain.HARD_MAX_OVERLAYS);
            assertThat(maxOverlays(bounds, 1, 3))
                    .as(
                            "overlays per fragment in any version after the last restore"
                                    + " (one sink commit added up to %s)",
                            addedInPhase)
                    .isLessThanOrEqualTo(SoakJobMain.HARD_MAX_OVERLAYS);
            // Versions: the retention, up to half of it waiting for the next (batched) cleanup, and
            // the versions committed during one maintenance check or a dead job's lease.
            // Fragments: every checkpoint with new keys appends a fragment per writer, and only
            // fragment compaction (pylance's, the in-job one or both) brings them back, so the bound
            // holds from the first compaction on: what the checkpoints between two landed
            // compactions append, two fragments each, over the few a compaction leaves. pylance's
            // can lose its race to a sink commit ("preempted by concurrent transaction Update", 1 of
            // 8 in a run), so that gap is two of its intervals plus a compaction's own run (10 s
            // allowed); the in-job one runs at the next check with 8 candidates, but not while a
            // SIGKILLed job's lease or the standalone compactor's keeps it away: two lease timeouts
            // plus a check (10 s allowed).
            long compactFrom = pylanceCompacts ? beside.compactFromVersion : 0;
            long firstRewrite = bounds.fragmentsPerVersion.stream()
                    .filter(r -> r[0] > compactFrom && r[2] == 1)
                    .mapToLong(r -> r[0])
                    .min()
                    .orElseThrow(() -> new AssertionError("no fragment compaction landed"));
            long maxFragmentsCompacted = bounds.fragmentsPerVersion.stream()
                    .filter(r -> r[0] >= firstRewrite)
                    .mapToLong(r -> r[1])
                    .max()
                    .orElseThrow();
            long gapSeconds =
                    pylanceCompacts ? 2 * PYLANCE_COMPACT_SECONDS + 10 : 2 * SoakJobMain.LEASE_TIMEOUT.toSeconds() + 10;
            long fragmentBound = 8 + 2 * gapSeconds * 1000 / SoakJobMain.CHECKPOINT_MILLIS;
            System.out.printf(
                    "soak: max %d fragments from version %d (the first compaction) on, bound %d%n",
                    maxFragmentsCompacted, firstRewrite, fragmentBound);
            assertThat(maxFragmentsCompacted)
                    .as("fragments in any version from %s on", firstRewrite)
                    .isLessThanOrEqualTo(fragmentBound);
            int retainSlack = SoakJobMain.RETAIN_VERSIONS / 2
                    + (int) (2 * SoakJobMain.LEASE_TIMEOUT.toMillis() / SoakJobMain.CHECKPOINT_MILLIS);
            System.out.printf("soak: %d versions retained at the end%n", bounds.retainedAtEnd);
            assertThat(bounds.maxRetained)
                    .as("versions retained at any poll")
                    .isLessThanOrEqualTo(SoakJobMain.RETAIN_VERSIONS + retainSlack);
        }
    }

    /**
     * The per-version check refuses what the run must never show: a version missing one change of
     * its checkpoint (half applied), a wrong cell, a table that goes back to an older checkpoint.
     */
    @Test
    void theVersionCheckRefusesHalfCheckpointsWrongCellsAndGoingBack() {
        SoakChangelog log = SoakChangelog.generate(SEED, 200, INITIAL_KEYS, KEYS);
        VersionPoller ok = new VersionPoller("t", Map.of(), log, Long.MAX_VALUE);
        ok.checkWholeCheckpoint(1, new TreeMap<>(log.initial));
        ok.checkWholeCheckpoint(2, after(log, 45, -1));
        ok.checkWholeCheckpoint(3, after(log, 45, -1)); // a compaction: the same rows
        ok.checkWholeCheckpoint(4, after(log, 60, -1));
        assertThat(ok.lastPrefix).isEqualTo(60);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ok.checkWholeCheckpoint(5, after(log, 30, -1)))
                .hasMessageContaining("went back");

        int skipped = firstUpdateAfter(log, 41);
        VersionPoller half = new VersionPoller("t", Map.of(), log, Long.MAX_VALUE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> half.checkWholeCheckpoint(2, after(log, 50, skipped)))
                .hasMessageContaining("not a whole checkpoint")
                .hasMessageContaining("id " + log.ids[skipped]);

        TreeMap<Long, UsersTable.Row> wrong = after(log, 50, -1);
        long key = wrong.firstKey();
        UsersTable.Row r = wrong.get(key);
        wrong.put(key, new UsersTable.Row(r.name(), r.age() == null ? 1 : r.age() + 1, r.score()));
        VersionPoller cell = new VersionPoller("t", Map.of(), log, Long.MAX_VALUE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> cell.checkWholeCheckpoint(2, wrong))
                .hasMessageContaining("not a whole checkpoint")
                .hasMessageContaining("id " + key);
    }

    /** The model after {@code prefix} changes, without change {@code skip} (-1: none skipped). */
    private static TreeMap<Long, UsersTable.Row> after(SoakChangelog log, int prefix, int skip) {
        TreeMap<Long, UsersTable.Row> model = new TreeMap<>(log.initial);
        for (int i = 0; i < prefix; i++) {
            if (i != skip) {
                log.apply(i, model);
            }
        }
        return model;
    }

    /** The first change from {@code from} on that is not a marker and whose key no later change of the first 50 touches. */
    private static int firstUpdateAfter(SoakChangelog log, int from) {
        for (int i = from; i < 50; i++) {
            final int c = i;
            boolean later = java.util.stream.IntStream.range(c + 1, 50).anyMatch(j -> log.ids[j] == log.ids[c]);
            if (i % SoakChangelog.MARKER_EVERY != 0 && !later) {
                return i;
            }
        }
        throw new AssertionError("no change to skip among 41..49");
    }

    /** The largest {@code column} of the versions read in {@code phase} (0: until the last restore). */
    private static long maxOverlays(BoundsPoller bounds, int phase, int column) {
        return bounds.fragmentsPerVersion.stream()
                .filter(r -> r[5] == phase)
                .mapToLong(r -> r[column])
                .max()
                .orElse(0);
    }

    private static void assertAlive(Process job, Path out, int k) {
        if (!job.isAlive()) {
            throw new AssertionError("incarnation " + k + " of the job exited with " + job.exitValue()
                    + " before the test killed it; its log:\n" + ChildJvm.tail(out, 120));
        }
    }

    private List<String> command(
            String uri,
            Path checkpoints,
            String restore,
            long retainMinAgeSeconds,
            boolean inJobFragments,
            Map<String, String> storage) {
        List<String> args = new ArrayList<>(List.of(
                uri,
                checkpoints.toString(),
                restore,
                Long.toString(SEED),
                Integer.toString(COUNT),
                Integer.toString(INITIAL_KEYS),
                Long.toString(KEYS),
                Integer.toString(PER_SECOND),
                Long.toString(retainMinAgeSeconds),
                inJobFragments ? "fragments" : "no-fragments"));
        storage.forEach((k, v) -> args.add(k + "=" + v));
        String classpath = System.getProperty("surefire.test.class.path", "");
        if (classpath.isEmpty()) {
            classpath = System.getProperty("java.class.path");
        }
        return ChildJvm.command(
                List.of(
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "-Xmx768m",
                        "-XX:+UseSerialGC",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-Dorg.slf4j.simpleLogger.log.dev.lanceflink=info",
                        "-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.checkpoint.CheckpointCoordinator=info",
                        "-Dorg.slf4j.simpleLogger.showDateTime=true"),
                classpath,
                SoakJobMain.class.getName(),
                args);
    }

    private static long checkpointId(Path chk) {
        return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
    }

    private static long newestCheckpointId(Path checkpoints) throws IOException {
        try {
            return checkpointId(newestCheckpoint(checkpoints));
        } catch (AssertionError none) {
            return 0;
        }
    }

    /** The newest complete retained checkpoint ({@code <job>/chk-N} with its {@code _metadata}). */
    static Path newestCheckpoint(Path checkpoints) throws IOException {
        Path newest = null;
        long newestId = -1;
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            for (Path job : jobs.filter(Files::isDirectory).toList()) {
                try (Stream<Path> chks = Files.list(job)) {
                    for (Path chk : chks.toList()) {
                        String name = chk.getFileName().toString();
                        if (name.startsWith("chk-") && Files.isRegularFile(chk.resolve("_metadata"))) {
                            long id = Long.parseLong(name.substring(4));
                            if (id > newestId) {
                                newestId = id;
                                newest = chk;
                            }
                        }
                    }
                }
            }
        }
        if (newest == null) {
            throw new AssertionError("no complete checkpoint under " + checkpoints);
        }
        return newest;
    }

    /**
     * Reads versions as they appear and checks that each is the model after a whole checkpoint.
     * Versions come in order and the prefixes never go back, so one model moves forward with them.
     * A full read of a version takes long on S3 under load; there a version more than
     * {@code skipBehind} versions older than the newest listed is skipped (counted as missed)
     * rather than read while cleanup removes it. The bounds are {@link BoundsPoller}'s.
     */
    static final class VersionPoller implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final String uri;
        private final Map<String, String> storage;
        private final SoakChangelog log;
        private final long skipBehind;
        private final TreeMap<Long, UsersTable.Row> model;
        volatile Throwable failure;
        volatile int lastPrefix;
        volatile long lastGoodVersion;
        volatile long lastSeen;
        volatile int sinkVersions;
        int read;
        int missed;

        VersionPoller(String uri, Map<String, String> storage, SoakChangelog log, long skipBehind) {
            this.uri = uri;
            this.storage = storage;
            this.log = log;
            this.skipBehind = skipBehind;
            this.model = new TreeMap<>(log.initial);
        }

        @Override
        public void run() {
            try (ObjectStore store = ObjectStores.open(uri, storage)) {
                boolean last = false;
                while (!last) {
                    last = stop.get(); // one more round after the job ended
                    poll(store);
                    Thread.sleep(20);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void poll(ObjectStore store) throws IOException {
            List<ManifestLocation> versions = VersionResolver.list(store);
            long newest =
                    versions.isEmpty() ? 0 : versions.get(versions.size() - 1).version();
            try (Dataset latest = Dataset.open(uri, storage)) {
                for (ManifestLocation loc : versions) {
                    long v = loc.version();
                    if (v <= lastSeen) {
                        continue;
                    }
                    missed += (int) (v - lastSeen - 1);
                    lastSeen = v;
                    if (newest - v > skipBehind) {
                        missed++;
                        continue;
                    }
                    TreeMap<Long, UsersTable.Row> rows;
                    boolean bySink;
                    try (Dataset at = latest.checkoutVersion(v)) {
                        bySink = at.transaction()
                                .map(t -> t.properties().containsKey("flink.commit-user"))
                                .orElse(false);
                        rows = UsersTable.read(at);
                    } catch (IOException | RuntimeException e) {
                        // Cleanup removes a version's manifest first, then the files only removed
                        // versions reference (Lance's rule): a read that falls behind the retention
                        // fails mid-way. Only then is the failure not the table's fault.
                        if (VersionResolver.find(store, v).isEmpty()) {
                            missed++;
                            continue;
                        }
                        throw new IOException("reading version " + v + " of " + uri, e);
                    }
                    read++;
                    if (bySink) {
                        sinkVersions++;
                    }
                    checkWholeCheckpoint(v, rows);
                    lastGoodVersion = v;
                }
            }
        }

        /**
         * {@code rows} must equal the model after some prefix in the marker's bracket, at or after
         * the previous version's prefix.
         */
        void checkWholeCheckpoint(long version, TreeMap<Long, UsersTable.Row> rows) {
            UsersTable.Row marker = rows.get(SoakChangelog.MARKER_ID);
            int lo = marker == null ? 0 : (int) (double) marker.score() + 1;
            int hi = marker == null ? 0 : Math.min(lo - 1 + SoakChangelog.MARKER_EVERY, log.size());
            if (lastPrefix > hi) {
                throw new AssertionError("version " + version + " of " + uri + " holds marker " + marker
                        + ", so at most " + hi + " changes, but an earlier version held " + lastPrefix
                        + ": the table went back");
            }
            int p = lastPrefix;
            while (p < lo) {
                log.apply(p++, model);
            }
            List<String> closest = null;
            int closestPrefix = -1;
            while (true) {
                if (model.equals(rows)) {
                    lastPrefix = p;
                    return;
                }
                List<String> d = diffs(rows);
                if (closest == null || d.size() < closest.size()) {
                    closest = d;
                    closestPrefix = p;
                }
                if (p >= hi) {
                    throw new AssertionError("version " + version + " of " + uri + " (marker " + marker
                            + ") equals the model after none of the changes " + lo + ".." + hi
                            + " (not a whole checkpoint); closest, the model after " + closestPrefix
                            + " changes, differs in: " + closest);
                }
                log.apply(p++, model);
            }
        }

        /** How {@code rows} differ from the model, the first 10 keys. */
        private List<String> diffs(TreeMap<Long, UsersTable.Row> rows) {
            List<String> out = new ArrayList<>();
            for (Map.Entry<Long, UsersTable.Row> e : model.entrySet()) {
                if (!e.getValue().equals(rows.get(e.getKey())) && out.size() < 10) {
                    out.add("id " + e.getKey() + ": model " + e.getValue() + ", table " + rows.get(e.getKey()));
                }
            }
            for (Map.Entry<Long, UsersTable.Row> e : rows.entrySet()) {
                if (!model.containsKey(e.getKey()) && out.size() < 10) {
                    out.add("id " + e.getKey() + ": model has none, table " + e.getValue());
                }
            }
            return out;
        }
    }

    /**
     * Reads the manifest (and transaction) of every version as soon as it is listed: its fragments
     * and overlays per fragment, and the versions retained at that moment. A manifest is one small
     * object, so this poller keeps up with the retention on S3 too and misses no version; each
     * version's figures go to a CSV file next to the job logs, for a look at a run's course.
     */
    static final class BoundsPoller implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final String uri;
        private final Map<String, String> storage;
        private final Path csv;
        private final long started = System.nanoTime();
        volatile Throwable failure;
        /** Set when the last incarnation starts (bounds are reported before and after it). */
        volatile boolean retentionPhaseOver;

        long lastSeen;
        int read;
        int missed;
        int sinkVersions;
        int maxOverlays;
        long worstOverlayVersion;
        int maxFragments;
        long worstFragmentVersion;
        int maxRetained;
        int retainedAtEnd;
        int maxAddedByOneCheckpoint;
        final List<Integer> overlaysPerVersion = new ArrayList<>();
        /**
         * Per version: {version, fragments, 1 if a Rewrite, most overlays of a fragment, most
         * overlays this version added to a fragment, 1 if read after the last restore}.
         */
        final List<long[]> fragmentsPerVersion = new ArrayList<>();

        final Map<String, Integer> operations = new TreeMap<>();

        BoundsPoller(String uri, Map<String, String> storage, Path csv) {
            this.uri = uri;
            this.storage = storage;
            this.csv = csv;
        }

        int versionsAbove(int bound) {
            return (int) overlaysPerVersion.stream().filter(n -> n > bound).count();
        }

        @Override
        public void run() {
            try (ObjectStore store = ObjectStores.open(uri, storage);
                    java.io.BufferedWriter out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
                out.write("version,seconds,operation,sink,fragments,fragments_with_overlays,max_overlays,"
                        + "max_added,retained,after_last_restore\n");
                boolean last = false;
                while (!last) {
                    last = stop.get(); // one more round after the job ended
                    poll(store, out);
                    out.flush();
                    Thread.sleep(20);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void poll(ObjectStore store, java.io.Writer out) throws IOException {
            List<ManifestLocation> versions = VersionResolver.list(store);
            maxRetained = Math.max(maxRetained, versions.size());
            retainedAtEnd = versions.size();
            for (ManifestLocation loc : versions) {
                long v = loc.version();
                if (v <= lastSeen) {
                    continue;
                }
                missed += (int) (v - lastSeen - 1);
                lastSeen = v;
                Manifest m;
                Map<String, String> properties;
                String operation;
                try {
                    m = ManifestIO.read(store, loc);
                    var txn = TransactionStore.read(store, m);
                    properties = txn.map(t -> t.properties()).orElse(Map.of());
                    operation = txn.map(t -> t.operation().name()).orElse("none");
                } catch (IOException | RuntimeException e) {
                    if (VersionResolver.find(store, v).isEmpty()) {
                        missed++;
                        continue;
                    }
                    throw new IOException("reading the manifest of version " + v + " of " + uri, e);
                }
                record(m, properties, operation, versions.size(), out);
            }
        }

        private void record(
                Manifest m, Map<String, String> properties, String operation, int retained, java.io.Writer out)
                throws IOException {
            read++;
            operations.merge(operation, 1, Integer::sum);
            int max = 0;
            int withOverlays = 0;
            int added = 0;
            for (Fragment f : m.fragments()) {
                int n = f.overlays().size();
                max = Math.max(max, n);
                withOverlays += n > 0 ? 1 : 0;
                added = Math.max(added, (int) f.overlays().stream()
                        .filter(o -> o.committedVersion() == m.version())
                        .count());
            }
            overlaysPerVersion.add(max);
            if (max > maxOverlays) {
                maxOverlays = max;
                worstOverlayVersion = m.version();
            }
            fragmentsPerVersion.add(new long[] {
                m.version(),
                m.fragments().size(),
                operation.equals("Rewrite") ? 1 : 0,
                max,
                added,
                retentionPhaseOver ? 1 : 0
            });
            if (m.fragments().size() > maxFragments) {
                maxFragments = m.fragments().size();
                worstFragmentVersion = m.version();
            }
            boolean bySink = properties.containsKey("flink.commit-user");
            if (bySink) {
                sinkVersions++;
                maxAddedByOneCheckpoint = Math.max(maxAddedByOneCheckpoint, added);
            }
            out.write(m.version() + "," + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) / 1000.0 + ","
                    + operation + "," + (bySink ? 1 : 0) + "," + m.fragments().size() + "," + withOverlays + ","
                    + max + "," + added + "," + retained + "," + (retentionPhaseOver ? 1 : 0) + "\n");
        }
    }

    /**
     * pylance next to the job: every {@link #PYLANCE_COMPACT_SECONDS} it compacts the table's
     * fragments ({@code compact_files}, a Rewrite moving rows under the sink), and every
     * {@link #SAMPLE_SECONDS} it dumps the newest version the poller has checked, which must equal
     * our reader's dump of that version.
     */
    static final class PylanceBeside implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        private final PylanceOracle pylance;
        private final String uri;
        private final Map<String, String> storage;
        private final List<String> storageArgs;
        private final VersionPoller poller;
        private final long started = System.nanoTime();
        /** Per compaction: seconds after the start, seconds it took, exit code. */
        final List<String> compactionTimes = new CopyOnWriteArrayList<>();

        private final Path compactOps;
        volatile Throwable failure;
        volatile boolean compacting;
        /** The newest version read when compaction was switched on. */
        volatile long compactFromVersion = Long.MAX_VALUE;

        volatile int compactions;
        final List<String> compactionFailures = new CopyOnWriteArrayList<>();
        volatile int compared;
        volatile int lostSamples;

        PylanceBeside(
                PylanceOracle pylance,
                String uri,
                Map<String, String> storage,
                List<String> storageArgs,
                VersionPoller poller,
                Path dir)
                throws IOException {
            this.pylance = pylance;
            this.uri = uri;
            this.storage = storage;
            this.storageArgs = storageArgs;
            this.poller = poller;
            this.compactOps = dir.resolve("compact.json");
            Files.writeString(
                    compactOps,
                    "[{\"op\": \"compact\", \"target_rows_per_fragment\": 4096,"
                            + " \"materialize_deletions_threshold\": 0.1}]",
                    StandardCharsets.UTF_8);
        }

        @Override
        public void run() {
            long nextCompact = System.nanoTime() + TimeUnit.SECONDS.toNanos(PYLANCE_COMPACT_SECONDS);
            long nextSample = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            try {
                while (!stop.get()) {
                    if (System.nanoTime() >= nextSample) {
                        sample();
                        nextSample = System.nanoTime() + TimeUnit.SECONDS.toNanos(SAMPLE_SECONDS);
                    }
                    if (!compacting) {
                        nextCompact = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    } else if (System.nanoTime() >= nextCompact) {
                        compact();
                        nextCompact = System.nanoTime() + TimeUnit.SECONDS.toNanos(PYLANCE_COMPACT_SECONDS);
                    }
                    Thread.sleep(200);
                }
                sample(); // the final version too
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void compact() {
            List<String> args = new ArrayList<>(List.of("ops", uri, compactOps.toString()));
            args.addAll(storageArgs);
            long t0 = System.nanoTime();
            PylanceOracle.Result r = pylance.execute(args);
            compactionTimes.add(TimeUnit.NANOSECONDS.toSeconds(t0 - started) + ": "
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0) + " s, " + r.exitCode());
            if (r.exitCode() == 0) {
                compactions++;
            } else {
                // compact_files loses races against the sink's commits of the same fragments.
                compactionFailures.add(r.error());
            }
        }

        private void sample() throws IOException {
            long v = poller.lastGoodVersion;
            if (v == 0) {
                return;
            }
            List<String> args = new ArrayList<>(List.of("dump", uri, "--version", Long.toString(v)));
            args.addAll(storageArgs);
            OurCli.Result ours = OurCli.execute(args);
            PylanceOracle.Result theirs = pylance.execute(args);
            if (ours.exitCode() != 0 || theirs.exitCode() != 0) {
                boolean removed;
                try (ObjectStore store = ObjectStores.open(uri, storage)) {
                    removed = VersionResolver.find(store, v).isEmpty();
                }
                if (removed) {
                    lostSamples++; // cleaned up meanwhile; the next sample takes a newer version
                    return;
                }
                throw new AssertionError("dump of version " + v + " failed: ours " + ours.error() + ", pylance "
                        + theirs.error() + " / " + theirs.stderr());
            }
            JsonNode pyJson = theirs.json();
            assertThat(pyJson.get("version").asLong())
                    .as("version pylance read")
                    .isEqualTo(v);
            DumpComparator.exact()
                    .sortedBy("id")
                    .assertSame("pylance vs our reader, version " + v + " of " + uri, ours.json(), pyJson);
            compared++;
        }
    }
}
