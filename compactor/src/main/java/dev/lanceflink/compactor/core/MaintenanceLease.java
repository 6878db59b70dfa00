package dev.lanceflink.compactor.core;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.PutOutcomeUnknownException;
import dev.lanceflink.table.CorruptTableException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One maintainer of a table at a time: a lease kept in the table directory, shared by every
 * maintainer of this project (the sink's in-job maintenance, the standalone compaction job).
 *
 * <p>The object store offers atomic put-if-absent only (no rename, no conditional overwrite), so
 * the lease is a sequence of objects {@code _maintenance/lease-<20-digit epoch>.json}, each written
 * once. The highest epoch is the current lease; it names its owner and when it expires. Taking a
 * free or expired lease, renewing one's own, and releasing it all write the next epoch with
 * put-if-absent, so of two contenders exactly one wins; the loser reads the winner's lease. The
 * writer of a new epoch then deletes all but the previous one. The two newest objects are never
 * deleted, because epochs must keep growing: a deleted epoch can be written again by a maintainer
 * whose listing missed the newer ones (a holder that stalled, a directory read that raced with
 * the writes), so a writer also checks after its put that no higher epoch exists.
 *
 * <p>Expiry is wall-clock time of the writer ({@code expiresAt}), compared with the reader's
 * clock: keep the timeout well above the clock skew between maintainers. A holder that stalls past
 * its expiry may still finish what it started while a new holder begins; that is safe (every
 * compaction commit goes through the table's conflict rules), the lease only avoids doing the same
 * work twice.
 */
public final class MaintenanceLease {
    /** The directory of the lease objects, relative to the table root. */
    public static final String DIR = "_maintenance";

    private static final Pattern NAME = Pattern.compile("lease-(\\d{20})\\.json");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Attempts to read a consistent current lease or win a put before giving up (contention). */
    private static final int ATTEMPTS = 8;

    private final ObjectStore store;
    private final String owner;
    private final Duration timeout;
    private final Clock clock;
    /** The epoch this instance wrote last while holding the lease, or null. */
    private volatile Holder held;

    /**
     * @param owner who maintains (e.g. {@code "flink sink orders of job 3f2a..."}); a lease with the
     *     same owner is treated as one's own (a restarted task of the same job takes it back at once)
     * @param timeout how long a taken or renewed lease lasts without renewal
     */
    public MaintenanceLease(ObjectStore store, String owner, Duration timeout, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.owner = requireNonNull(owner, "owner is null");
        if (owner.isBlank()) {
            throw new IllegalArgumentException("The lease owner must not be blank");
        }
        this.timeout = requireNonNull(timeout, "timeout is null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The lease timeout must be positive, got " + timeout);
        }
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** The path of epoch {@code epoch}'s lease object. */
    public static String path(long epoch) {
        return DIR + "/lease-" + String.format("%020d", epoch) + ".json";
    }

    public String owner() {
        return owner;
    }

    /**
     * One lease object.
     *
     * @param released the holder gave it up; anyone may take it at once
     */
    public record Holder(long epoch, String owner, Instant acquiredAt, Instant expiresAt, boolean released) {
        public Holder {
            requireNonNull(owner, "owner is null");
            requireNonNull(acquiredAt, "acquiredAt is null");
            requireNonNull(expiresAt, "expiresAt is null");
        }

        /** Whether someone else may take it at {@code now}. */
        public boolean isFreeAt(Instant now) {
            return released || !now.isBefore(expiresAt);
        }

        @Override
        public String toString() {
            return released
                    ? "released by " + owner + " (epoch " + epoch + ")"
                    : "held by " + owner + " until " + expiresAt + " (epoch " + epoch + ")";
        }
    }

    /** What {@link #acquire} found: the lease is ours, or someone else's. */
    public sealed interface Outcome {
        Holder lease();

        /** The lease is ours until {@code lease().expiresAt()}. */
        record Acquired(Holder lease) implements Outcome {}

        /** Someone else holds the lease; try again after {@code lease().expiresAt()}. */
        record HeldElsewhere(Holder lease) implements Outcome {}

        default boolean acquired() {
            return this instanceof Acquired;
        }
    }

    /** The current lease (the highest epoch), or empty if none was ever taken. */
    public Optional<Holder> current() throws IOException {
        for (int attempt = 1; ; attempt++) {
            List<Long> epochs = epochs();
            if (epochs.isEmpty()) {
                return Optional.empty();
            }
            long top = epochs.get(epochs.size() - 1);
            try {
                return Optional.of(read(top));
            } catch (FileNotFoundException e) {
                // Its writer's successor deleted it between our listing and the read: list again.
                if (attempt >= ATTEMPTS) {
                    throw new IOException(
                            "The maintenance lease of " + store.rootUri() + " changed " + ATTEMPTS
                                    + " times while it was read (lease objects under " + DIR
                                    + "/ keep disappearing); try"
                                    + " again later",
                            e);
                }
            }
        }
    }

    /**
     * Takes the lease if it is free, expired or already ours, and renews it if ours; reports the
     * other holder otherwise. A lease of ours with more than two thirds of its time left is kept as
     * it is (no write).
     */
    public Outcome acquire() throws IOException {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Optional<Holder> current = current();
            Instant now = clock.instant();
            if (current.isPresent()) {
                Holder c = current.get();
                boolean ours = c.owner().equals(owner) && !c.released();
                if (!ours && !c.isFreeAt(now)) {
                    held = null;
                    return new Outcome.HeldElsewhere(c);
                }
                if (ours
                        && Duration.between(now, c.expiresAt())
                                        .compareTo(timeout.multipliedBy(2).dividedBy(3))
                                > 0) {
                    held = c;
                    return new Outcome.Acquired(c);
                }
            }
            long next = current.map(h -> h.epoch() + 1).orElse(1L);
            Holder mine = new Holder(next, owner, now, now.plus(timeout), false);
            if (put(mine) && isNewest(next)) {
                held = mine;
                deleteBelow(next - 1);
                return new Outcome.Acquired(mine);
            }
            // Another maintainer wrote this epoch first: read what it wrote.
        }
        throw new IOException("Could not take the maintenance lease of " + store.rootUri() + " in " + ATTEMPTS
                + " attempts: other maintainers kept writing new lease epochs under " + DIR + "/; try again later");
    }

    /**
     * Gives the lease up if this instance holds it (writes a released epoch), so that another
     * maintainer need not wait for the expiry. Does nothing if the lease moved on meanwhile.
     */
    public void release() throws IOException {
        Holder mine = held;
        held = null;
        if (mine == null) {
            return;
        }
        Optional<Holder> current = current();
        if (current.isEmpty()
                || current.get().epoch() != mine.epoch()
                || !current.get().owner().equals(owner)) {
            return; // taken over after it expired; nothing of ours to release
        }
        Instant now = clock.instant();
        Holder released = new Holder(mine.epoch() + 1, owner, now, now, true);
        if (put(released) && isNewest(released.epoch())) {
            deleteBelow(released.epoch() - 1);
        }
    }

    /**
     * Whether {@code epoch}, just written, is the highest: a listing taken while other maintainers
     * wrote and deleted lease objects may have missed them (a directory read need not show entries
     * created or removed during it), and an epoch below the current one can be written again once
     * it was deleted. Such a put won nothing.
     */
    private boolean isNewest(long epoch) throws IOException {
        List<Long> epochs = epochs();
        return epochs.isEmpty() || epochs.get(epochs.size() - 1) <= epoch;
    }

    /** Whether this instance holds the lease by its own clock (without reading the store). */
    public boolean holdsLocally() {
        Holder mine = held;
        return mine != null && clock.instant().isBefore(mine.expiresAt());
    }

    private boolean put(Holder h) throws IOException {
        byte[] content = JSON.writeValueAsBytes(toJson(h));
        try {
            return store.putIfAbsent(path(h.epoch()), content);
        } catch (PutOutcomeUnknownException e) {
            // Our put may have landed: it is ours exactly if the object holds what we wrote.
            try {
                Holder there = read(h.epoch());
                return there.equals(h);
            } catch (FileNotFoundException gone) {
                return false;
            }
        }
    }

    /** Deletes the lease objects older than {@code epoch}; a failed delete is left for the next writer. */
    private void deleteBelow(long epoch) {
        try {
            for (long e : epochs()) {
                if (e < epoch) {
                    store.delete(path(e));
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // stale lease objects are harmless: only the highest epoch counts
        }
    }

    /** The epochs of the lease objects, ascending. */
    private List<Long> epochs() throws IOException {
        List<Long> out = new ArrayList<>();
        Iterator<ObjectInfo> it = store.list(DIR);
        while (it.hasNext()) {
            Matcher m = NAME.matcher(it.next().name());
            if (m.matches()) {
                out.add(Long.parseLong(m.group(1)));
            }
        }
        out.sort(Long::compare);
        return out;
    }

    private Holder read(long epoch) throws IOException {
        String path = path(epoch);
        byte[] bytes = store.readAll(path);
        try {
            JsonNode n = JSON.readTree(bytes);
            return new Holder(
                    n.get("epoch").asLong(),
                    n.get("owner").asText(),
                    Instant.parse(n.get("acquiredAt").asText()),
                    Instant.parse(n.get("expiresAt").asText()),
                    n.path("released").asBoolean(false));
        } catch (IOException | RuntimeException e) {
            throw new CorruptTableException("Maintenance lease " + store.rootUri() + "/" + path + " is not a lease"
                    + " object (" + e.getMessage() + ": " + new String(bytes, StandardCharsets.UTF_8).strip()
                    + "); no maintainer can take the lease while it is the newest. Delete it if no maintainer runs");
        }
    }

    private static ObjectNode toJson(Holder h) {
        ObjectNode n = JSON.createObjectNode();
        n.put("epoch", h.epoch());
        n.put("owner", h.owner());
        n.put("acquiredAt", h.acquiredAt().toString());
        n.put("expiresAt", h.expiresAt().toString());
        n.put("released", h.released());
        return n;
    }
}
