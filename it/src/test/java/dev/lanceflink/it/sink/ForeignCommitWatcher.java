package dev.lanceflink.it.sink;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the table's versions after the first that lack the sink's commit marker (the other
 * writer's commits) into {@code seen}, polling until stopped: the sink's source waits on it so
 * that both writers demonstrably interleave.
 */
public final class ForeignCommitWatcher implements AutoCloseable {
    private final AtomicBoolean watching = new AtomicBoolean(true);
    private final Thread thread;

    public ForeignCommitWatcher(String uri, Map<String, String> storage, AtomicInteger seen) {
        this(uri, storage, seen, new AtomicInteger());
    }

    /**
     * Also counts into {@code rewritesAmidSink} the other writer's compactions ({@code Rewrite}
     * versions) that land after the sink's first commit: a source can hold its last change until
     * one has, so that rows demonstrably move under the running sink however fast it is.
     */
    public ForeignCommitWatcher(
            String uri, Map<String, String> storage, AtomicInteger seen, AtomicInteger rewritesAmidSink) {
        seen.set(0);
        rewritesAmidSink.set(0);
        thread = new Thread(() -> watch(uri, storage, seen, rewritesAmidSink), "foreign-commit-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    private void watch(String uri, Map<String, String> storage, AtomicInteger seen, AtomicInteger rewritesAmidSink) {
        long checked = 1;
        int count = 0;
        boolean sinkCommitted = false;
        while (watching.get()) {
            try (Dataset ds = Dataset.open(uri, storage)) {
                for (long v = checked + 1; v <= ds.version(); v++) {
                    try (Dataset at = ds.checkoutVersion(v)) {
                        Optional<Transaction> txn = at.transaction();
                        boolean foreign = txn.map(t -> !t.properties().containsKey(CommitMarker.COMMIT_USER_KEY))
                                .orElse(false);
                        if (foreign) {
                            seen.set(++count);
                            if (sinkCommitted && txn.get().operation() instanceof Operation.Rewrite) {
                                rewritesAmidSink.incrementAndGet();
                            }
                        } else if (txn.isPresent()) {
                            sinkCommitted = true;
                        }
                    }
                    checked = v;
                }
            } catch (Exception e) {
                // A version being published right now may not be readable yet; look again next round.
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        watching.set(false);
        thread.join(10_000);
    }
}
