package dev.lanceflink.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds manifests: the latest version, a given version, the version current at a point in time,
 * and the list of all versions (table-format.md §2.5).
 */
public final class VersionResolver {
    /** Optional pointer to the latest version, a pure optimisation ({"version":N}). */
    public static final String HINT_PATH = ManifestNamingScheme.VERSIONS_DIR + "/latest_version_hint.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** After this many probes past the hint, listing is cheaper. */
    private static final int MAX_HINT_PROBES = 16;

    private VersionResolver() {}

    /** The latest version of the table, using the version hint when present and trustworthy. */
    public static ManifestLocation latest(ObjectStore store) throws IOException {
        if (hintsEnabled()) {
            Optional<ManifestLocation> viaHint = latestViaHint(store);
            if (viaHint.isPresent()) {
                return viaHint.get();
            }
        }
        return latestByListing(store);
    }

    /**
     * The latest version by listing {@code _versions/}: with V2 names the first entry of the
     * sorted listing is the newest; with V1 names every entry is scanned.
     */
    public static ManifestLocation latestByListing(ObjectStore store) throws IOException {
        Iterator<ObjectInfo> it = store.list(ManifestNamingScheme.VERSIONS_DIR);
        ManifestLocation best = null;
        while (it.hasNext()) {
            ObjectInfo info = it.next();
            Optional<ManifestLocation> loc = ManifestNamingScheme.parse(info.name(), info.size());
            if (loc.isEmpty()) {
                continue;
            }
            if (best == null && loc.get().scheme() == ManifestNamingScheme.V2) {
                return loc.get(); // inverted names: the smallest name is the newest version
            }
            if (best != null && best.scheme() != loc.get().scheme()) {
                throw mixed(store, best, loc.get());
            }
            if (best == null || Long.compareUnsigned(loc.get().version(), best.version()) > 0) {
                best = loc.get();
            }
        }
        if (best == null) {
            throw new VersionNotFoundException("No Lance table at " + store.rootUri() + ": "
                    + ManifestNamingScheme.VERSIONS_DIR + "/ contains no manifest");
        }
        return best;
    }

    private static Optional<ManifestLocation> latestViaHint(ObjectStore store) throws IOException {
        long hinted;
        try {
            // One GET, no HEAD first: a missing hint is a FileNotFoundException, caught below
            // like every other reason to ignore it.
            JsonNode node = JSON.readTree(new String(store.readAll(HINT_PATH), StandardCharsets.UTF_8));
            if (node == null || !node.path("version").canConvertToLong()) {
                return Optional.empty();
            }
            hinted = node.path("version").asLong();
        } catch (IOException e) {
            return Optional.empty(); // the hint is never authoritative: unreadable = absent
        }
        if (hinted < 1) {
            return Optional.empty();
        }
        Optional<ManifestLocation> found = find(store, hinted);
        if (found.isEmpty()) {
            return Optional.empty(); // points past the end (or the version was cleaned up)
        }
        ManifestLocation last = found.get();
        for (int i = 0; i < MAX_HINT_PROBES; i++) {
            Optional<ManifestLocation> next = find(store, last.version() + 1, last.scheme());
            if (next.isEmpty()) {
                return Optional.of(last);
            }
            last = next.get();
        }
        return Optional.empty();
    }

    /** The manifest of {@code version}, trying the V2 name first, then V1. */
    public static ManifestLocation version(ObjectStore store, long version) throws IOException {
        Optional<ManifestLocation> found = find(store, version);
        if (found.isPresent()) {
            return found.get();
        }
        // Say what exists instead (the error path may afford a listing); manifest file names are
        // an implementation detail a user cannot act on.
        String latest;
        try {
            latest = "its latest version is "
                    + Long.toUnsignedString(latest(store).version());
        } catch (VersionNotFoundException e) {
            latest = "it has no committed version at all";
        }
        throw new VersionNotFoundException("Table " + store.rootUri() + " has no version "
                + Long.toUnsignedString(version) + " (" + latest + "; bin/lance-flink versions lists them): it may"
                + " never have been committed, or cleanup may have removed it");
    }

    /** The manifest of {@code version} if it exists. */
    public static Optional<ManifestLocation> find(ObjectStore store, long version) throws IOException {
        Optional<ManifestLocation> v2 = find(store, version, ManifestNamingScheme.V2);
        return v2.isPresent() ? v2 : find(store, version, ManifestNamingScheme.V1);
    }

    /** The manifest of {@code version} under one naming scheme, if it exists. */
    public static Optional<ManifestLocation> find(ObjectStore store, long version, ManifestNamingScheme scheme)
            throws IOException {
        String path = scheme.path(version);
        return store.head(path).map(info -> new ManifestLocation(version, scheme, path, info.size()));
    }

    /** Every version of the table, oldest first. */
    public static List<ManifestLocation> list(ObjectStore store) throws IOException {
        List<ManifestLocation> out = new ArrayList<>();
        Iterator<ObjectInfo> it = store.list(ManifestNamingScheme.VERSIONS_DIR);
        while (it.hasNext()) {
            ObjectInfo info = it.next();
            Optional<ManifestLocation> loc = ManifestNamingScheme.parse(info.name(), info.size());
            if (loc.isEmpty()) {
                continue;
            }
            if (!out.isEmpty() && out.get(0).scheme() != loc.get().scheme()) {
                throw mixed(store, out.get(0), loc.get());
            }
            out.add(loc.get());
        }
        out.sort(Comparator.comparing(ManifestLocation::version, Long::compareUnsigned));
        return out;
    }

    /**
     * The latest version committed at or before {@code instant}, by manifest timestamp. Uses a
     * binary search over the versions (commit timestamps grow with the version), reading
     * O(log n) manifests.
     */
    public static ManifestLocation asOf(ObjectStore store, Instant instant) throws IOException {
        List<ManifestLocation> all = list(store);
        if (all.isEmpty()) {
            throw new VersionNotFoundException("No Lance table at " + store.rootUri() + ": "
                    + ManifestNamingScheme.VERSIONS_DIR + "/ contains no manifest");
        }
        int lo = 0;
        int hi = all.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Instant ts = ManifestIO.read(store, all.get(mid)).timestamp();
            if (ts != null && !ts.isAfter(instant)) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (found < 0) {
            throw new VersionNotFoundException(
                    "Table " + store.rootUri() + " has no version committed at or before " + instant
                            + "; its oldest remaining version is " + all.get(0).version());
        }
        return all.get(found);
    }

    /** Writes the version hint, best effort: failures are ignored (readers never rely on it). */
    public static void writeHint(ObjectStore store, long version) {
        try {
            store.put(
                    HINT_PATH,
                    ("{\"version\":" + Long.toUnsignedString(version) + "}").getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            // best effort by design
        }
    }

    private static boolean hintsEnabled() {
        String v = System.getenv("LANCE_USE_VERSION_HINT");
        if (v == null) {
            return true;
        }
        String s = v.trim().toLowerCase(Locale.ROOT);
        return !(s.equals("0") || s.equals("false") || s.equals("off"));
    }

    private static CorruptTableException mixed(ObjectStore store, ManifestLocation a, ManifestLocation b) {
        return new CorruptTableException("Table " + store.rootUri() + " mixes manifest naming schemes: "
                + a.path() + " is " + a.scheme() + " but " + b.path() + " is " + b.scheme()
                + ". A table must use one scheme; migrate the V1 manifests to V2 names with Lance before using it");
    }
}
