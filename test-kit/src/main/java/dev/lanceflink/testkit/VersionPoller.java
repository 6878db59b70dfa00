package dev.lanceflink.testkit;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.ManifestLocation;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.Transaction;
import dev.lanceflink.txn.TransactionStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread body that reads every version of a table as soon as it is listed, while writers (a
 * sink, maintenance, a cleanup) run, and hands each to {@link #onVersion}. Versions are read in
 * order, each once; one removed before it was read (by a cleanup) counts as {@link #missed}.
 * After {@link #stop} it polls one more round, so that it also reads the last versions. A failure
 * ends the polling and is kept in {@link #failure}, for the test to assert on.
 */
public abstract class VersionPoller implements Runnable {
    public final AtomicBoolean stop = new AtomicBoolean();
    private final ObjectStore store;
    private final long pauseMillis;
    public volatile Throwable failure;
    /** The newest version seen so far. */
    public volatile long lastSeen;
    /** Versions read. */
    public int read;
    /** Versions removed before they were read. */
    public int missed;

    /** Polls {@code store} (closed when polling ends), pausing {@code pauseMillis} between rounds. */
    protected VersionPoller(ObjectStore store, long pauseMillis) {
        this.store = store;
        this.pauseMillis = pauseMillis;
    }

    /**
     * Runs {@code work} (typically a job, to its end) while this poller reads every version in a
     * thread of its own; then lets it read the last versions and waits for it.
     */
    public final <T> T during(Callable<T> work) throws Exception {
        Thread polling = new Thread(this, getClass().getSimpleName());
        polling.start();
        try {
            return work.call();
        } finally {
            stop.set(true);
            polling.join();
        }
    }

    @Override
    public final void run() {
        try (ObjectStore s = store) {
            boolean last = false;
            while (!last) {
                last = stop.get(); // one more round after the writers ended
                poll(s);
                Thread.sleep(pauseMillis);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void poll(ObjectStore s) throws IOException {
        List<ManifestLocation> versions = VersionResolver.list(s);
        onListed(versions);
        for (ManifestLocation loc : versions) {
            long v = loc.version();
            if (v <= lastSeen) {
                continue;
            }
            missed += (int) (v - lastSeen - 1);
            lastSeen = v;
            if (read(s, loc)) {
                read++;
            } else {
                missed++;
            }
        }
    }

    /** Called with every listing, oldest version first, before its new versions are read. */
    protected void onListed(List<ManifestLocation> versions) {}

    /**
     * Reads version {@code loc}: by default its manifest and transaction, handed to
     * {@link #onVersion}. Returns false if the version was removed before it could be read.
     */
    protected boolean read(ObjectStore s, ManifestLocation loc) throws IOException {
        Manifest m;
        Optional<Transaction> txn;
        try {
            m = ManifestIO.read(s, loc);
            txn = TransactionStore.read(s, m);
        } catch (FileNotFoundException e) {
            return false; // removed by a cleanup before it was read
        }
        onVersion(m, txn);
        return true;
    }

    /** One version, as it was committed. */
    protected void onVersion(Manifest m, Optional<Transaction> txn) {}
}
