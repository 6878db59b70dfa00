package dev.lanceflink.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ForwardingObjectStore;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.testkit.time.TestClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The epoch-numbered maintenance lease on a real local store: contenders, expiry, races. */
class MaintenanceLeaseTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private final TestClock clock = new TestClock();

    private MaintenanceLease lease(ObjectStore store, String owner) {
        return new MaintenanceLease(store, owner, TIMEOUT, clock);
    }

    private static List<String> leaseObjects(ObjectStore store) throws IOException {
        List<String> names = new ArrayList<>();
        for (Iterator<ObjectInfo> it = store.list(MaintenanceLease.DIR); it.hasNext(); ) {
            names.add(it.next().name());
        }
        return names;
    }

    @Test
    void secondContenderSeesTheFirstHolderUntilItReleases() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        MaintenanceLease a = lease(store, "sink a");
        MaintenanceLease b = lease(store, "sink b");

        MaintenanceLease.Outcome first = a.acquire();
        assertThat(first.acquired()).isTrue();
        assertThat(first.lease().epoch()).isEqualTo(1);
        assertThat(first.lease().expiresAt()).isEqualTo(clock.instant().plus(TIMEOUT));

        MaintenanceLease.Outcome second = b.acquire();
        assertThat(second.acquired()).isFalse();
        assertThat(second.lease().owner()).isEqualTo("sink a");
        assertThat(second.lease().toString()).contains("held by sink a until");
        assertThat(b.holdsLocally()).isFalse();
        assertThat(a.holdsLocally()).isTrue();

        a.release();
        assertThat(a.holdsLocally()).isFalse();
        assertThat(lease(store, "reader").current()).get().satisfies(h -> {
            assertThat(h.released()).isTrue();
            assertThat(h.epoch()).isEqualTo(2);
        });
        MaintenanceLease.Outcome third = b.acquire();
        assertThat(third.acquired()).isTrue();
        assertThat(third.lease().epoch()).isEqualTo(3);
        assertThat(third.lease().owner()).isEqualTo("sink b");
        // The newest lease object and the one before stay: their writer deleted the older ones.
        assertThat(leaseObjects(store))
                .containsExactly("lease-00000000000000000002.json", "lease-00000000000000000003.json");
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheStalledHolderCannotRenewIt() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        MaintenanceLease a = lease(store, "sink a");
        MaintenanceLease b = lease(store, "compactor b");
        assertThat(a.acquire().acquired()).isTrue();

        clock.advance(TIMEOUT.minusSeconds(1));
        assertThat(b.acquire().acquired()).as("one second before the expiry").isFalse();
        clock.advance(Duration.ofSeconds(1));
        MaintenanceLease.Outcome taken = b.acquire();
        assertThat(taken.acquired()).as("at the expiry").isTrue();
        assertThat(taken.lease().epoch()).isEqualTo(2);
        assertThat(a.holdsLocally()).isFalse();

        // The stalled holder wakes up: its renewal finds b's epoch and reports it.
        MaintenanceLease.Outcome late = a.acquire();
        assertThat(late.acquired()).isFalse();
        assertThat(late.lease().owner()).isEqualTo("compactor b");
        // Its release does not touch b's lease.
        a.release();
        assertThat(lease(store, "reader").current()).get().satisfies(h -> {
            assertThat(h.owner()).isEqualTo("compactor b");
            assertThat(h.released()).isFalse();
        });
    }

    @Test
    void renewsOnlyWhenAThirdOfTheTimeIsUsedAndTheSameOwnerTakesItsLeaseBack() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        MaintenanceLease a = lease(store, "sink a of job 1");
        assertThat(a.acquire().lease().epoch()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(a.acquire().lease().epoch())
                .as("kept: more than two thirds left")
                .isEqualTo(1);
        clock.advance(Duration.ofSeconds(20));
        MaintenanceLease.Outcome renewed = a.acquire();
        assertThat(renewed.lease().epoch()).isEqualTo(2);
        assertThat(renewed.lease().expiresAt()).isEqualTo(clock.instant().plus(TIMEOUT));
        assertThat(leaseObjects(store))
                .containsExactly("lease-00000000000000000001.json", "lease-00000000000000000002.json");

        // A restarted task of the same job (same owner, new instance) takes it back without waiting.
        MaintenanceLease restarted = lease(store, "sink a of job 1");
        clock.advance(Duration.ofSeconds(50));
        MaintenanceLease.Outcome back = restarted.acquire();
        assertThat(back.acquired()).isTrue();
        assertThat(back.lease().epoch()).isEqualTo(3);
    }

    @Test
    void ofManyConcurrentContendersExactlyOneWinsEachEpoch() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        int contenders = 8;
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            for (int round = 0; round < 30; round++) {
                CyclicBarrier start = new CyclicBarrier(contenders);
                List<MaintenanceLease> leases = new ArrayList<>();
                List<Future<MaintenanceLease.Outcome>> outcomes = new ArrayList<>();
                for (int i = 0; i < contenders; i++) {
                    MaintenanceLease l = lease(store, "round " + round + " contender " + i);
                    leases.add(l);
                    Callable<MaintenanceLease.Outcome> take = () -> {
                        start.await(10, TimeUnit.SECONDS);
                        return l.acquire();
                    };
                    outcomes.add(pool.submit(take));
                }
                List<String> winners = new ArrayList<>();
                for (int i = 0; i < contenders; i++) {
                    MaintenanceLease.Outcome o = outcomes.get(i).get(30, TimeUnit.SECONDS);
                    if (o.acquired()) {
                        winners.add(leases.get(i).owner());
                    }
                }
                assertThat(winners).as("round %s", round).hasSize(1);
                MaintenanceLease.Holder current =
                        lease(store, "reader").current().orElseThrow();
                assertThat(current.owner()).isEqualTo(winners.get(0));
                for (int i = 0; i < contenders; i++) {
                    assertThat(leases.get(i).holdsLocally())
                            .isEqualTo(leases.get(i).owner().equals(winners.get(0)));
                }
                clock.advance(TIMEOUT); // the next round finds it expired
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aContenderWhoseListingIsStaleLosesThePutAndReportsTheWinner() throws Exception {
        LocalObjectStore local = new LocalObjectStore(dir);
        MaintenanceLease a = lease(local, "sink a");
        assertThat(a.acquire().acquired()).isTrue();
        clock.advance(TIMEOUT);
        // b lists and reads epoch 1 (expired); before b's put, c takes epoch 2.
        MaintenanceLease c = lease(local, "sink c");
        ObjectStore racing = new ForwardingObjectStore(local) {
            private boolean raced;

            @Override
            public boolean putIfAbsent(String path, byte[] content) throws IOException {
                if (!raced) {
                    raced = true;
                    assertThat(c.acquire().acquired()).isTrue();
                }
                return super.putIfAbsent(path, content);
            }
        };
        MaintenanceLease.Outcome b = lease(racing, "sink b").acquire();
        assertThat(b.acquired()).isFalse();
        assertThat(b.lease().owner()).isEqualTo("sink c");
        assertThat(b.lease().epoch()).isEqualTo(2);
    }

    @Test
    void aPutOfADeletedLowerEpochWinsNothing() throws Exception {
        LocalObjectStore local = new LocalObjectStore(dir);
        MaintenanceLease a = lease(local, "sink a");
        for (int i = 0; i < 3; i++) {
            clock.advance(TIMEOUT);
            assertThat(a.acquire().lease().epoch()).isEqualTo(i + 1);
        }
        // Epochs 2 and 3 are left. A contender whose listing missed them (it raced with the writes)
        // sees no lease and writes epoch 1 again; that must not make it a holder.
        ObjectStore blind = new ForwardingObjectStore(local) {
            private boolean first = true;

            @Override
            public Iterator<ObjectInfo> list(String directory) throws IOException {
                if (first) {
                    first = false;
                    return List.<ObjectInfo>of().iterator();
                }
                return super.list(directory);
            }
        };
        MaintenanceLease b = lease(blind, "sink b");
        MaintenanceLease.Outcome o = b.acquire();
        assertThat(o.acquired()).isFalse();
        assertThat(o.lease().owner()).isEqualTo("sink a");
        assertThat(o.lease().epoch()).isEqualTo(3);
        assertThat(b.holdsLocally()).isFalse();
    }

    @Test
    void aLeaseObjectThatIsNotJsonIsReportedWithItsPath() throws Exception {
        LocalObjectStore store = new LocalObjectStore(dir);
        store.putIfAbsent(MaintenanceLease.path(7), "garbage".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> lease(store, "sink a").acquire())
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("_maintenance/lease-00000000000000000007.json is not a lease object")
                .hasMessageContaining("Delete it if no maintainer runs");
    }
}
