package dev.lanceflink.maintenance;

/** Why cleanup may delete a file. */
public enum CleanupReason {
    /**
     * The file is referenced only by versions this cleanup removes. A manifest proved it belongs to
     * committed history, so it cannot be part of a write in flight and its age does not matter
     * (Lance calls these "verified" files).
     */
    ONLY_REMOVED_VERSIONS("only-removed-versions"),
    /**
     * No manifest references the file at all (an aborted write or a checkpoint that never
     * committed), and it is older than the grace period, so no commit in flight can still need it.
     */
    UNREFERENCED_PAST_GRACE("unreferenced-past-grace");

    private final String label;

    CleanupReason(String label) {
        this.label = label;
    }

    /** The name used in JSON output. */
    public String label() {
        return label;
    }
}
