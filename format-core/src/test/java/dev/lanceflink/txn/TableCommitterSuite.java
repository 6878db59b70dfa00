package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.deletion.DeletionFiles;
import dev.lanceflink.deletion.DeletionVector;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import dev.lanceflink.io.StoreBackedSuite;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.ManifestNamingScheme;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.UnsupportedTableFeatureException;
import dev.lanceflink.table.VersionResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Commits through {@link TableCommitter} against a real store: transaction files, manifests and
 * the version hint, rebasing of stale appends and deletes, conflicts that leave nothing behind,
 * restore, lost commit responses, feature flags, and 8 threads committing at once. Runs locally
 * as {@link TableCommitterTest} and on S3 as s3-store's {@code S3TableCommitterTest}.
 */
public abstract class TableCommitterSuite extends StoreBackedSuite {
    private static final CommitOptions OPTS =
            CommitOptions.defaults().withMaxAttempts(500).withBackoff(Duration.ofMillis(2), Duration.ofMillis(50));

    private static Manifest create(ObjectStore store, int fragments, long rows) throws Exception {
        List<Fragment> fs = new ArrayList<>();
        for (int i = 0; i < fragments; i++) {
            fs.add(TxnFixtures.fragment("base" + i, rows));
        }
        return TableCommitter.commit(store, Transaction.of(0, new Operation.Overwrite(fs, TxnFixtures.schema())), OPTS);
    }

    private static Manifest latest(ObjectStore store) throws Exception {
        return ManifestIO.read(store, VersionResolver.latest(store));
    }

    /** A Delete computed against {@code read}: the fragment's current vector plus {@code offsets}. */
    private static Transaction deleteRows(ObjectStore store, Manifest read, long fragmentId, int... offsets)
            throws Exception {
        Fragment f = read.fragment(fragmentId).orElseThrow();
        DeletionVector dv =
                f.deletionFile() == null ? DeletionVector.EMPTY : DeletionFiles.read(store, f.id(), f.deletionFile());
        DeletionVector merged = dv.union(DeletionVector.of(offsets));
        DeletionFile file = DeletionFiles.write(
                store,
                f.id(),
                read.version(),
                merged,
                f.deletionFile() == null ? null : f.deletionFile().type());
        return Transaction.of(read.version(), new Operation.Delete(List.of(f.withDeletionFile(file)), List.of(), "t"));
    }

    private static List<String> names(ObjectStore store, String dir) throws Exception {
        List<String> out = new ArrayList<>();
        for (Iterator<ObjectInfo> it = store.list(dir); it.hasNext(); ) {
            out.add(it.next().name());
        }
        return out;
    }

    @Test
    void createAndAppendWriteTxnFileManifestAndHint() throws Exception {
        ObjectStore store = newStore();
        Manifest v1 = create(store, 1, 10);
        assertThat(v1.version()).isEqualTo(1);
        Transaction t = Transaction.of(
                1, new Operation.Append(List.of(TxnFixtures.fragment("x", 5))), Map.of("flink.checkpoint-id", "7"));
        Manifest v2 = TableCommitter.commit(store, t, OPTS);
        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.transactionFile()).isEqualTo("1-" + t.uuid() + ".txn");
        assertThat(names(store, "_versions"))
                .containsExactlyInAnyOrder(
                        "18446744073709551614.manifest", "18446744073709551613.manifest", "latest_version_hint.json");
        assertThat(names(store, "_transactions")).hasSize(2).contains(v2.transactionFile());
        Transaction stored = TransactionStore.readForVersion(store, 2);
        assertThat(stored.properties()).containsEntry("flink.checkpoint-id", "7");
        assertThat(TransactionCodec.decode(store.readAll("_transactions/" + v2.transactionFile()), "f"))
                .isEqualTo(stored);
        assertThat(latest(store).fragments()).extracting(Fragment::id).containsExactly(0L, 1L);
    }

    @Test
    void theInlineCopyAndTheTxnFileAreTheSameEncodingOfTheCommittedTransactionAlsoAfterARebase() throws Exception {
        ObjectStore store = newStore();
        Manifest v1 = create(store, 1, 10);
        Transaction mine = deleteRows(store, v1, 0, 1, 2);
        TableCommitter.commit(store, deleteRows(store, v1, 0, 5), OPTS);
        // Read at version 1, committed as version 3: the rebase gives it a merged deletion file,
        // i.e. a new transaction; the commit encodes it once for both copies, which must be of it.
        Manifest v3 = TableCommitter.commit(store, mine, OPTS);
        byte[] inline = v3.inlineTransaction().orElseThrow();
        byte[] file = store.readAll("_transactions/" + v3.transactionFile());
        assertThat(inline).isEqualTo(file);
        Transaction stored = TransactionCodec.decode(inline, "inline");
        assertThat(stored.uuid()).isEqualTo(mine.uuid());
        assertThat(stored.operation()).isNotEqualTo(mine.operation());
        Fragment deleted =
                ((Operation.Delete) stored.operation()).updatedFragments().get(0);
        assertThat(deleted.deletionFile())
                .isEqualTo(v3.fragment(0).orElseThrow().deletionFile());
    }

    @Test
    void staleAppendIsRebasedOntoNewerVersions() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        Transaction a = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("a", 1))));
        Transaction b = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("b", 1))));
        TableCommitter.commit(store, a, OPTS);
        Manifest v3 = TableCommitter.commit(store, b, OPTS);
        assertThat(v3.version()).isEqualTo(3);
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(0L, 1L, 2L);
        // Rebased, but the transaction keeps the version its writer read (as Lance does).
        assertThat(TransactionStore.readForVersion(store, 3).readVersion()).isEqualTo(1);
        assertThat(v3.transactionFile()).isEqualTo("1-" + b.uuid() + ".txn");
    }

    @Test
    void aStaleDataReplacementKeepsTheOverlaysCommittedAfterItsReadVersion() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        TableCommitter.commit(store, Transaction.of(1, overlayOfField1("seen.lance", 1, 2)), OPTS); // v2
        DataFile replacement = new DataFile("r.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 77);
        Transaction replace = Transaction.of(
                2, new Operation.DataReplacement(List.of(new Operation.DataReplacementGroup(0, replacement))));
        TableCommitter.commit(store, Transaction.of(2, overlayOfField1("concurrent.lance", 2, 3)), OPTS); // v3

        Manifest v4 = TableCommitter.commit(store, replace, OPTS);

        // The overlay the replacement's writer saw (v2) is superseded and, fully tombstoned, removed;
        // the one committed concurrently (v3) keeps shadowing the new values.
        assertThat(v4.fragment(0).orElseThrow().overlays())
                .extracting(o -> o.dataFile().path(), DataOverlayFile::committedVersion)
                .containsExactly(Tuple.tuple("concurrent.lance", 3L));
        assertThat(TransactionStore.readForVersion(store, 4).readVersion()).isEqualTo(2);
    }

    /** A DataOverlay of field 1 (and field 0, so a replacement of both fully covers it) at {@code offsets}. */
    private static Operation overlayOfField1(String path, int... offsets) {
        DataOverlayFile ov = new DataOverlayFile(
                new DataFile(path, new int[] {0, 1}, new int[] {0, 1}, 2, 1, 9),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(offsets)),
                0);
        return new Operation.DataOverlay(List.of(new Operation.OverlayGroup(0, List.of(ov))));
    }

    @Test
    void concurrentDeletesOfDifferentRowsAreMergedAndOverlappingOnesConflict() throws Exception {
        ObjectStore store = newStore();
        Manifest v1 = create(store, 1, 10);
        Transaction mine = deleteRows(store, v1, 0, 1, 2);
        Transaction theirs = deleteRows(store, v1, 0, 5);
        TableCommitter.commit(store, theirs, OPTS);
        Manifest v3 = TableCommitter.commit(store, mine, OPTS);
        Fragment f = v3.fragment(0).orElseThrow();
        assertThat(DeletionFiles.read(store, 0, f.deletionFile())).isEqualTo(DeletionVector.of(1, 2, 5));
        assertThat(f.deletionFile().readVersion()).isEqualTo(2);
        assertThat(v3.countLiveRows()).isEqualTo(7);

        Transaction again = deleteRows(store, v3, 0, 7);
        Transaction clash = deleteRows(store, v3, 0, 7, 8);
        TableCommitter.commit(store, again, OPTS);
        List<String> txnsBefore = names(store, "_transactions");
        List<String> delsBefore = names(store, "_deletions");
        assertThatThrownBy(() -> TableCommitter.commit(store, clash, OPTS))
                .isInstanceOf(CommitConflictException.class)
                .hasMessageContaining("both deleted or moved 1 row(s) of fragment 0, first at offset 7")
                .satisfies(e ->
                        assertThat(((CommitConflictException) e).isRetryable()).isTrue());
        assertThat(names(store, "_transactions")).isEqualTo(txnsBefore);
        assertThat(names(store, "_deletions")).isEqualTo(delsBefore);
        assertThat(latest(store).version()).isEqualTo(4);
    }

    @Test
    void deletingTheLastRowsThroughRebaseRemovesTheFragment() throws Exception {
        ObjectStore store = newStore();
        Manifest v1 = create(store, 2, 3);
        TableCommitter.commit(store, deleteRows(store, v1, 1, 0, 1), OPTS);
        Manifest v3 = TableCommitter.commit(store, deleteRows(store, v1, 1, 2), OPTS);
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(0L);
        Operation.Delete recorded =
                (Operation.Delete) TransactionStore.readForVersion(store, 3).operation();
        assertThat(recorded.deletedFragmentIds()).containsExactly(1L);
    }

    @Test
    void restoreBringsBackAnOldVersionWithoutReusingFragmentIds() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        TableCommitter.commit(
                store, Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("a", 1)))), OPTS);
        Manifest v3 = TableCommitter.commit(store, Transaction.of(2, new Operation.Restore(1)), OPTS);
        assertThat(v3.version()).isEqualTo(3);
        assertThat(v3.fragments()).extracting(Fragment::id).containsExactly(0L);
        assertThat(v3.maxFragmentId().getAsLong()).isEqualTo(1);
        Manifest v4 = TableCommitter.commit(
                store, Transaction.of(3, new Operation.Append(List.of(TxnFixtures.fragment("b", 1)))), OPTS);
        assertThat(v4.fragments()).extracting(Fragment::id).containsExactly(0L, 2L);
        assertThat(TransactionStore.readForVersion(store, 3).operation()).isEqualTo(new Operation.Restore(1));
    }

    @Test
    void incompatibleConflictNamesBothOperationsAndVersion() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        Transaction append = Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("a", 1))));
        TableCommitter.commit(
                store,
                Transaction.of(1, new Operation.Overwrite(List.of(TxnFixtures.fragment("o", 2)), TxnFixtures.schema())),
                OPTS);
        assertThatThrownBy(() -> TableCommitter.commit(store, append, OPTS))
                .isInstanceOf(CommitConflictException.class)
                .hasMessageContaining("Commit of Append (transaction " + append.uuid() + ", read version 1)")
                .hasMessageContaining("Append is incompatible with a concurrent Overwrite")
                .hasMessageContaining("committed as version 2")
                .satisfies(e -> {
                    assertThat(((CommitConflictException) e).isRetryable()).isFalse();
                    assertThat(((CommitConflictException) e).conflictingVersion())
                            .isEqualTo(2);
                });
        assertThat(names(store, "_transactions")).hasSize(2);
    }

    /** A plan appending one fragment per build, recording what the loop told it. */
    private static final class AppendPlan implements CommitPlan {
        final long readVersion;
        int builds;
        final List<String> retried = new ArrayList<>();
        boolean mayRetry = true;
        CommitConflictException checkFails;
        /** Builds after this many refuse with a conflict that is not retryable. */
        int refuseAfterBuilds = Integer.MAX_VALUE;

        AppendPlan(long readVersion) {
            this.readVersion = readVersion;
        }

        @Override
        public long readVersion() {
            return readVersion;
        }

        @Override
        public void check(long version, TableHistory history, Manifest latest) throws CommitConflictException {
            if (checkFails != null) {
                throw checkFails;
            }
        }

        @Override
        public java.util.Optional<Operation> build(Manifest latest) throws CommitConflictException {
            if (builds >= refuseAfterBuilds) {
                throw new CommitConflictException("refused after " + builds + " builds", false, latest.version());
            }
            builds++;
            return java.util.Optional.of(new Operation.Append(List.of(TxnFixtures.fragment("p" + builds, 1))));
        }

        @Override
        public boolean mayRetry(java.io.IOException failure) {
            return mayRetry && CommitPlan.super.mayRetry(failure);
        }

        @Override
        public void retrying(int failedAttempts, java.io.IOException failure, Operation op, boolean mayBePublished) {
            retried.add(failedAttempts + ":" + failure.getMessage() + ":" + (op != null) + ":" + mayBePublished);
        }
    }

    @Test
    void storeErrorsAreRetriedByTheLoopOnlyAsTheOptionsAndThePlanAllow() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        int[] refusals = {2};
        CommitOptions refusing = OPTS.withCommitHandler((s, path, bytes) -> {
            if (refusals[0]-- > 0) {
                throw new java.io.IOException("refused " + path);
            }
            return s.putIfAbsent(path, bytes);
        });
        CommitOptions.FailureRetries three = new CommitOptions.FailureRetries(3, Duration.ZERO, Duration.ZERO);

        AppendPlan noRetries = new AppendPlan(1);
        assertThatThrownBy(() -> TableCommitter.commit(store, noRetries, new TableHistory(store), refusing))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("refused");
        AppendPlan refusedByPlan = new AppendPlan(1);
        refusedByPlan.mayRetry = false;
        assertThatThrownBy(() -> TableCommitter.commit(
                        store, refusedByPlan, new TableHistory(store), refusing.withFailureRetries(three)))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("refused");
        assertThat(refusedByPlan.retried).isEmpty();
        assertThat(VersionResolver.list(store)).hasSize(1);

        refusals[0] = 2;
        AppendPlan retried = new AppendPlan(1);
        Manifest m = TableCommitter.commit(store, retried, new TableHistory(store), refusing.withFailureRetries(three))
                .orElseThrow();
        assertThat(m.version()).isEqualTo(2);
        String v2 = ManifestNamingScheme.V2.path(2);
        assertThat(retried.retried)
                .containsExactly("1:refused " + v2 + ":true:false", "2:refused " + v2 + ":true:false");
        assertThat(names(store, "_transactions"))
                .as("only the committed transaction's file is left")
                .hasSize(2);

        refusals[0] = 5;
        assertThatThrownBy(() -> TableCommitter.commit(
                        store, new AppendPlan(2), new TableHistory(store), refusing.withFailureRetries(three)))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("refused");
        AppendPlan conflicting = new AppendPlan(1);
        conflicting.checkFails = new CommitConflictException("contradicts version 2", false, 2);
        assertThatThrownBy(() -> TableCommitter.commit(
                        store, conflicting, new TableHistory(store), OPTS.withFailureRetries(three)))
                .isSameAs(conflicting.checkFails);
        assertThat(conflicting.retried)
                .as("a conflict that is not retryable is final")
                .isEmpty();
        assertThat(VersionResolver.list(store)).hasSize(2);
    }

    @Test
    void aLostResponseWhoseCheckFailedIsFoundByTheRetryAsTheCommitsOwnVersion() throws Exception {
        ObjectStore base = newStore();
        create(base, 1, 10);
        String[] failHead = {null};
        ObjectStore store = new dev.lanceflink.io.ForwardingObjectStore(base) {
            @Override
            public java.util.Optional<ObjectInfo> head(String path) throws java.io.IOException {
                if (path.equals(failHead[0])) {
                    failHead[0] = null;
                    throw new java.io.IOException("store down while checking " + path);
                }
                return super.head(path);
            }
        };
        boolean[] lose = {true};
        CommitOptions losing = OPTS.withCommitHandler((s, path, bytes) -> {
            boolean created = s.putIfAbsent(path, bytes);
            if (lose[0]) {
                lose[0] = false;
                failHead[0] = path; // the check that follows fails too: the outcome stays unknown
                throw new PutOutcomeUnknownException("response lost for " + path, null);
            }
            return created;
        });

        AppendPlan once = new AppendPlan(1);
        assertThatThrownBy(() -> TableCommitter.commit(store, once, new TableHistory(store), losing))
                .isInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("version 2");
        assertThat(VersionResolver.list(store)).as("it landed").hasSize(2);

        lose[0] = true;
        AppendPlan retried = new AppendPlan(2);
        Manifest m = TableCommitter.commit(
                        store,
                        retried,
                        new TableHistory(store),
                        losing.withFailureRetries(new CommitOptions.FailureRetries(3, Duration.ZERO, Duration.ZERO)))
                .orElseThrow();
        assertThat(m.version()).isEqualTo(3);
        assertThat(retried.builds)
                .as("recognised by its uuid, not built and published again")
                .isEqualTo(1);
        assertThat(retried.retried).hasSize(1).allMatch(r -> r.startsWith("1:store down") && r.endsWith(":true"));
        assertThat(VersionResolver.list(store)).hasSize(3);
        assertThat(m.fragments()).extracting(Fragment::id).hasSize(3);
    }

    @Test
    void unknownPutOutcomeThatLandedCountsAsSuccess() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        CommitOptions flaky = OPTS.withCommitHandler((s, path, bytes) -> {
            s.putIfAbsent(path, bytes);
            throw new PutOutcomeUnknownException("response lost", null);
        });
        Manifest m = TableCommitter.commit(
                store, Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("a", 1)))), flaky);
        assertThat(m.version()).isEqualTo(2);
        assertThat(VersionResolver.list(store)).hasSize(2);

        // The store never tells, and the version is not there when looked for: the request may
        // still be in flight. Giving up is then an unknown outcome, and nothing the publication
        // references is deleted, so that the version is whole should it land after all.
        byte[][] inFlight = {null};
        CommitOptions lost = OPTS.withMaxAttempts(2).withCommitHandler((s, path, bytes) -> {
            inFlight[0] = bytes;
            throw new PutOutcomeUnknownException("no response", null);
        });
        Transaction b = Transaction.of(2, new Operation.Append(List.of(TxnFixtures.fragment("b", 1))));
        assertThatThrownBy(() -> TableCommitter.commit(store, b, lost))
                .isInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("gave up after 2 attempts")
                .hasMessageContaining("may still be published as version 3")
                .satisfies(e -> assertThat(((CommitOutcomeUnknownException) e).transactionUuid())
                        .isEqualTo(b.uuid()));
        assertThat(VersionResolver.list(store)).hasSize(2);
        assertThat(names(store, "_transactions"))
                .as("the transaction file is kept")
                .hasSize(3);

        assertThat(store.putIfAbsent(ManifestNamingScheme.V2.path(3), inFlight[0]))
                .isTrue(); // it lands
        Manifest landed = latest(store);
        assertThat(landed.version()).isEqualTo(3);
        assertThat(TransactionCodec.decode(
                                store.readAll(Transaction.TRANSACTIONS_DIR + "/" + landed.transactionFile()), "txn")
                        .uuid())
                .isEqualTo(b.uuid());
    }

    @Test
    void aRebuiltTransactionNeverRewritesTheFileOfAPublicationThatMayStillLand() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        String v2 = ManifestNamingScheme.V2.path(2);
        byte[][] inFlight = {null};
        CommitOptions late = OPTS.withCommitHandler((s, path, bytes) -> {
            if (inFlight[0] == null) {
                inFlight[0] = bytes; // not applied yet, and the store cannot tell
                throw new PutOutcomeUnknownException("no response for " + path, null);
            }
            s.putIfAbsent(v2, inFlight[0]); // the first publication lands late, before the second
            return s.putIfAbsent(path, bytes);
        });
        AppendPlan plan = new AppendPlan(1);

        Manifest m = TableCommitter.commit(store, plan, new TableHistory(store), late)
                .orElseThrow();

        assertThat(plan.builds).as("built again after the unknown outcome").isEqualTo(2);
        assertThat(m.version()).isEqualTo(2);
        assertThat(m.fragments()).extracting(f -> f.files().get(0).path()).contains("p1.lance");
        Transaction inFile = TransactionCodec.decode(
                store.readAll(Transaction.TRANSACTIONS_DIR + "/" + m.transactionFile()), m.transactionFile());
        assertThat(((Operation.Append) inFile.operation()).fragments())
                .as("the transaction file of the version that landed describes that version's change")
                .extracting(f -> f.files().get(0).path())
                .containsExactly("p1.lance");
        assertThat(names(store, "_transactions"))
                .as("the rebuilt transaction's file, never published, is deleted")
                .hasSize(2);
    }

    @Test
    void aConflictAfterAPublicationInDoubtKeepsWhatThatPublicationReferences() throws Exception {
        ObjectStore store = newStore();
        create(store, 1, 10);
        byte[][] inFlight = {null};
        CommitOptions neverTells = OPTS.withCommitHandler((s, path, bytes) -> {
            inFlight[0] = bytes;
            throw new PutOutcomeUnknownException("no response for " + path, null);
        });
        AppendPlan plan = new AppendPlan(1);
        plan.refuseAfterBuilds = 1; // the attempt after the unknown outcome is refused by the plan's check

        assertThatThrownBy(() -> TableCommitter.commit(store, plan, new TableHistory(store), neverTells))
                .isInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("may still be published as version 2")
                .hasRootCauseMessage("refused after 1 builds");

        assertThat(store.putIfAbsent(ManifestNamingScheme.V2.path(2), inFlight[0]))
                .isTrue();
        Manifest landed = latest(store);
        assertThat(store.exists(Transaction.TRANSACTIONS_DIR + "/" + landed.transactionFile()))
                .as("the version that landed late still has its transaction file")
                .isTrue();
    }

    @Test
    void refusesUnknownWriterFlagsAndRecordsInlineOnlyTransactions() throws Exception {
        ObjectStore store = newStore();
        Manifest v1 = create(store, 1, 10);
        Manifest inlineOnly = TableCommitter.commit(
                store,
                Transaction.of(1, new Operation.Append(List.of(TxnFixtures.fragment("a", 1)))),
                OPTS.withTransactionStorage(false, true));
        assertThat(inlineOnly.writerFeatureFlags()).isEqualTo(FeatureFlags.DISABLE_TRANSACTION_FILE);
        assertThat(inlineOnly.readerFeatureFlags()).isZero();
        assertThat(inlineOnly.transactionFile()).isEmpty();
        assertThat(TransactionStore.readForVersion(store, 2).operation()).isInstanceOf(Operation.Append.class);

        Manifest future =
                inlineOnly.toBuilder().version(3).writerFeatureFlags(1L << 9).build();
        store.putIfAbsent(ManifestNamingScheme.V2.path(3), ManifestIO.serialize(future));
        assertThatThrownBy(() -> TableCommitter.commit(
                        store, Transaction.of(3, new Operation.Append(List.of(TxnFixtures.fragment("b", 1)))), OPTS))
                .isInstanceOf(UnsupportedTableFeatureException.class)
                .hasMessageContaining("writer feature flag bit(s) 512");
        assertThat(v1.version()).isEqualTo(1);
    }

    @Test
    void eightThreadsCommittingAppendsAndDeletesAllLandExactlyOnce() throws Exception {
        ObjectStore store = newStore();
        int threads = 8;
        int perThread = 5;
        create(store, threads, 100); // fragment t is thread t's; fragment 0 is also shared by all deletes
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> committed = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Integer> deletedFromShared = new ConcurrentLinkedQueue<>();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int k = 0; k < perThread; k++) {
                    Manifest read = latest(store);
                    Transaction txn;
                    if (k % 2 == 0) {
                        txn = Transaction.of(
                                read.version(),
                                new Operation.Append(List.of(TxnFixtures.fragment("t" + me + "-" + k, 3))));
                    } else {
                        int offset = me * 10 + k; // distinct rows of the shared fragment 0
                        txn = deleteRows(store, read, 0, offset);
                        deletedFromShared.add(offset);
                    }
                    Manifest m = TableCommitter.commit(store, txn, OPTS);
                    assertThat(TransactionStore.read(store, m).orElseThrow().uuid())
                            .isEqualTo(txn.uuid());
                    committed.add(txn.uuid());
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        int total = threads * perThread;
        List<ManifestLocation> versions = VersionResolver.list(store);
        assertThat(versions).hasSize(1 + total);
        assertThat(versions.get(versions.size() - 1).version()).isEqualTo(1 + total);
        Set<String> seen = new HashSet<>();
        for (long v = 2; v <= 1 + total; v++) {
            assertThat(seen.add(TransactionStore.readForVersion(store, v).uuid()))
                    .as("version %d", v)
                    .isTrue();
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(committed);

        Manifest last = latest(store);
        int appends = threads * ((perThread + 1) / 2);
        assertThat(last.fragments()).hasSize(threads + appends);
        assertThat(last.maxFragmentId().getAsLong()).isEqualTo(threads + appends - 1L);
        Fragment shared = last.fragment(0).orElseThrow();
        DeletionVector dv = DeletionFiles.read(store, 0, shared.deletionFile());
        assertThat(dv.toArray())
                .containsExactlyInAnyOrder(
                        deletedFromShared.stream().mapToInt(Integer::intValue).toArray());
        assertThat(last.countLiveRows()).isEqualTo(threads * 100L + appends * 3L - deletedFromShared.size());
        // every transaction file and deletion file left behind is referenced by some version
        assertThat(names(store, "_transactions")).hasSize(1 + total);
    }
}
