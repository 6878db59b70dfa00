package dev.lanceflink.maintenance;

import java.util.List;

/**
 * A version a plan keeps, with every rule that keeps it, e.g. {@code latest},
 * {@code last-3}, {@code newer-than 2026-11-20T00:00:00Z}, {@code tag v1},
 * {@code marker flink.commit-user=ab12}.
 */
public record RetainedVersion(long version, List<String> reasons) {
    public RetainedVersion {
        reasons = List.copyOf(reasons);
    }
}
