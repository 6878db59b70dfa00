package dev.lanceflink.compactor;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.maintenance.CleanupPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;

/**
 * The options of {@code --mode cleanup}, turned into a {@link CleanupPolicy} at run time.
 *
 * @param olderThan versions committed within this time are kept ({@code --older-than})
 * @param retainVersions the newest this many versions are kept ({@code --retain-versions})
 * @param grace files no manifest references are deleted only when older than this ({@code --grace});
 *     longer than a sink's checkpoint interval plus its restart time
 * @param releasedCommitUsers sink commit users ({@code flink.commit-user}) whose last commit no
 *     longer needs to be kept, because the sink is gone ({@code --release-commit-user})
 */
public record CleanupSettings(Duration olderThan, int retainVersions, Duration grace, Set<String> releasedCommitUsers) {
    /** Transaction property by which the exactly-once sink finds its last committed checkpoint. */
    public static final String COMMIT_USER_PROPERTY = "flink.commit-user";

    public CleanupSettings {
        requireNonNull(olderThan, "olderThan is null");
        requireNonNull(grace, "grace is null");
        releasedCommitUsers = Set.copyOf(releasedCommitUsers);
    }

    /** Defaults: keep 7 days of versions and at least the latest one; 1 hour of grace for unreferenced files. */
    public static CleanupSettings defaults() {
        return new CleanupSettings(Duration.ofDays(7), 1, Duration.ofHours(1), Set.of());
    }

    /** The policy for a run at {@code now}; the sink's last commit per commit user is always kept. */
    public CleanupPolicy toPolicy(Instant now) {
        return new CleanupPolicy(olderThan, retainVersions, grace, now, COMMIT_USER_PROPERTY, releasedCommitUsers);
    }

    /**
     * Parses a duration such as {@code 7d}, {@code 12h}, {@code 30m}, {@code 45s} or {@code 0}, or
     * an ISO-8601 duration ({@code PT90M}).
     *
     * @throws IllegalArgumentException naming the accepted forms
     */
    public static Duration parseDuration(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.length() >= 2 && Character.isDigit(s.charAt(0))) {
            String digits = s.substring(0, s.length() - 1);
            char unit = s.charAt(s.length() - 1);
            try {
                long n = Long.parseLong(digits);
                switch (unit) {
                    case 'd':
                        return Duration.ofDays(n);
                    case 'h':
                        return Duration.ofHours(n);
                    case 'm':
                        return Duration.ofMinutes(n);
                    case 's':
                        return Duration.ofSeconds(n);
                    default:
                        break;
                }
            } catch (NumberFormatException | ArithmeticException e) {
                // fall through to the error below
            }
        }
        if (s.startsWith("p")) {
            try {
                Duration d = Duration.parse(text.trim());
                if (!d.isNegative()) {
                    return d;
                }
            } catch (DateTimeParseException e) {
                // fall through to the error below
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a duration; use a whole number with a unit d, h, m"
                + " or s (7d, 12h, 30m, 45s), 0, or an ISO-8601 duration (PT90M)");
    }
}
