package dev.lanceflink.txn;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets a slow commit of a table land beside fast, frequent commits of the same table in this JVM.
 *
 * <p>Lance versions are linear: an attempt publishes exactly the next version and loses to any
 * writer that published first. A streaming sink commits every checkpoint (every second or so) and
 * each of its attempts is cheap; a fragment compaction carrying the sink's concurrent changes
 * rebuilds its operation at every attempt, which can take longer than a second on a loaded
 * machine, so it lost every race until it gave up (seen: 20 lost races, 163 s, while fragments and
 * overlays piled up). A plan that keeps losing {@linkplain CommitPlan#holdsGateAfterLostRaces()
 * holds} the table's gate for its remaining attempts; plans that {@linkplain
 * CommitPlan#yieldsToSlowCommits() yield} wait before each attempt while another commit holds it,
 * at most {@link #MAX_WAIT}, then go ahead anyway. Commits in other processes do not see the
 * gate: for them the loop behaves as without it.
 */
public final class CommitGate {
    /** The longest a yielding commit waits for a gate held by another commit. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private static final ConcurrentHashMap<String, CommitGate> GATES = new ConcurrentHashMap<>();

    private Object holder;

    private CommitGate() {}

    /** The gate of the table at {@code rootUri} (one per table URI in this JVM). */
    public static CommitGate of(String rootUri) {
        return GATES.computeIfAbsent(rootUri, k -> new CommitGate());
    }

    /**
     * Takes the gate for {@code owner}, waiting at most {@code maxWait} for another holder.
     *
     * @return whether {@code owner} holds it now
     */
    synchronized boolean hold(Object owner, Duration maxWait) throws InterruptedIOException {
        awaitFree(owner, maxWait);
        if (holder == null) {
            holder = owner;
        }
        return holder == owner;
    }

    /** Gives the gate back if {@code owner} holds it. */
    synchronized void release(Object owner) {
        if (holder == owner) {
            holder = null;
            notifyAll();
        }
    }

    /**
     * Waits while another commit than {@code self} holds the gate, at most {@code maxWait}.
     *
     * @return whether the gate is free (or held by {@code self}) now
     */
    synchronized boolean awaitOpen(Object self, Duration maxWait) throws InterruptedIOException {
        awaitFree(self, maxWait);
        return holder == null || holder == self;
    }

    private void awaitFree(Object self, Duration maxWait) throws InterruptedIOException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (holder != null && holder != self) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for another commit of the table");
            }
        }
    }

    /** Whether some commit holds the gate (for tests and logs). */
    synchronized boolean held() {
        return holder != null;
    }
}
