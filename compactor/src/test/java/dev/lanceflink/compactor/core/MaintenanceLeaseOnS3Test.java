package dev.lanceflink.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.s3.S3ObjectStore;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.s3.S3TestClients;
import dev.lanceflink.testkit.time.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The maintenance lease on a real S3 server (S3Proxy): its conditional put decides the race. */
class MaintenanceLeaseOnS3Test {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @Test
    void concurrentContendersOnS3HaveOneWinnerAndTheExpiredLeaseIsTakenOver() throws Exception {
        String uri = S3TestClients.freshUri(S3.server(), "lease");
        TestClock clock = new TestClock();
        Duration timeout = Duration.ofMinutes(1);
        int contenders = 4;
        List<S3ObjectStore> stores = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(contenders);
        try {
            CyclicBarrier start = new CyclicBarrier(contenders);
            List<MaintenanceLease> leases = new ArrayList<>();
            List<Future<MaintenanceLease.Outcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                S3ObjectStore store = S3ObjectStore.open(uri, S3.server().config());
                stores.add(store);
                MaintenanceLease l = new MaintenanceLease(store, "contender " + i, timeout, clock);
                leases.add(l);
                outcomes.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return l.acquire();
                }));
            }
            List<Integer> winners = new ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                if (outcomes.get(i).get(60, TimeUnit.SECONDS).acquired()) {
                    winners.add(i);
                }
            }
            assertThat(winners).hasSize(1);
            MaintenanceLease.Holder first = leases.get(0).current().orElseThrow();
            assertThat(first.owner()).isEqualTo("contender " + winners.get(0));
            assertThat(first.epoch()).isEqualTo(1);

            int loser = (winners.get(0) + 1) % contenders;
            assertThat(leases.get(loser).acquire().acquired()).isFalse();
            clock.advance(timeout);
            MaintenanceLease.Outcome takeover = leases.get(loser).acquire();
            assertThat(takeover.acquired()).isTrue();
            assertThat(takeover.lease().epoch()).isEqualTo(2);
            assertThat(leases.get(winners.get(0)).acquire().acquired())
                    .as("the expired holder")
                    .isFalse();
        } finally {
            pool.shutdownNow();
            stores.forEach(S3ObjectStore::close);
        }
    }
}
