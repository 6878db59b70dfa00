package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionResolver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit whose build takes longer than the gap between another writer's commits loses every
 * race; holding the table's {@link CommitGate} after a few lost races lets it land while the
 * frequent commits in this JVM yield, and they go on afterwards.
 */
class CommitGateTest {
    private static final CommitOptions SLOW =
            CommitOptions.defaults().withMaxAttempts(8).withBackoff(Duration.ofMillis(1), Duration.ofMillis(5));
    private static final CommitOptions FAST =
            CommitOptions.defaults().withMaxAttempts(1000).withBackoff(Duration.ofMillis(1), Duration.ofMillis(5));

    @TempDir
    Path dir;

    /** Appends one fragment per build; the build takes {@code buildMillis}. */
    private static final class AppendPlan implements CommitPlan {
        private final long readVersion;
        private final String name;
        private final long buildMillis;
        private final int holdAfter;
        private final boolean yields;

        AppendPlan(long readVersion, String name, long buildMillis, int holdAfter, boolean yields) {
            this.readVersion = readVersion;
            this.name = name;
            this.buildMillis = buildMillis;
            this.holdAfter = holdAfter;
            this.yields = yields;
        }

        @Override
        public long readVersion() {
            return readVersion;
        }

        @Override
        public Optional<Operation> build(Manifest latest) throws java.io.InterruptedIOException {
            try {
                Thread.sleep(buildMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
            return Optional.of(new Operation.Append(List.of(TxnFixtures.fragment(name, 1))));
        }

        @Override
        public int holdsGateAfterLostRaces() {
            return holdAfter;
        }

        @Override
        public boolean yieldsToSlowCommits() {
            return yields;
        }
    }

    /** Commits the slow plan while another thread commits a yielding plan every few ms. */
    private Manifest slowCommitBesideFrequentCommits(ObjectStore store, int holdAfter, AtomicInteger frequentAfter)
            throws Exception {
        TableCommitter.commit(
                store,
                Transaction.of(
                        0, new Operation.Overwrite(List.of(TxnFixtures.fragment("base", 10)), TxnFixtures.schema())),
                FAST);
        AtomicBoolean slowDone = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicInteger frequent = new AtomicInteger();
        Thread writer = new Thread(() -> {
            try {
                while (!stop.get()) {
                    long read = latest(store).version();
                    TableCommitter.commit(
                            store,
                            new AppendPlan(read, "f" + frequent.get(), 0, 0, true),
                            new TableHistory(store),
                            FAST);
                    frequent.incrementAndGet();
                    if (slowDone.get()) {
                        frequentAfter.incrementAndGet();
                    }
                    Thread.sleep(5);
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        writer.start();
        try {
            while (frequent.get() < 5) {
                Thread.sleep(5);
            }
            long read = latest(store).version();
            return TableCommitter.commit(
                            store, new AppendPlan(read, "slow", 100, holdAfter, false), new TableHistory(store), SLOW)
                    .orElseThrow();
        } finally {
            slowDone.set(true);
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (frequentAfter.get() < 5 && System.nanoTime() < until && failed.get() == null) {
                Thread.sleep(5);
            }
            stop.set(true);
            writer.join();
            assertThat(failed.get()).as("the frequent writer").isNull();
        }
    }

    private static Manifest latest(ObjectStore store) throws Exception {
        return ManifestIO.read(store, VersionResolver.latest(store));
    }

    @Test
    void aSlowCommitThatHoldsTheGateLandsAndTheFrequentCommitsGoOn() throws Exception {
        try (ObjectStore store = new LocalObjectStore(dir)) {
            AtomicInteger after = new AtomicInteger();
            Manifest m = slowCommitBesideFrequentCommits(store, 2, after);
            assertThat(m.fragments().stream().map(Fragment::files).flatMap(List::stream))
                    .anySatisfy(f -> assertThat(f.path()).contains("slow"));
            assertThat(after.get()).as("frequent commits after the slow one").isGreaterThanOrEqualTo(5);
            assertThat(CommitGate.of(store.rootUri()).held()).isFalse();
        }
    }

    @Test
    void withoutTheGateTheSlowCommitLosesEveryRace() throws Exception {
        try (ObjectStore store = new LocalObjectStore(dir)) {
            assertThatThrownBy(() -> slowCommitBesideFrequentCommits(store, 0, new AtomicInteger()))
                    .isInstanceOf(CommitConflictException.class)
                    .hasMessageContaining("gave up after 8 attempts");
        }
    }
}
