package dev.lanceflink.flink.sink.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.Due;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.ListedVersion;
import dev.lanceflink.flink.sink.maintenance.MaintenanceTriggers.TableHealth;
import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.Manifest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trigger decisions on real manifests: 4 fragments of 100 rows; fragment 0 gets one overlay
 * per update round over 10 rows, fragment 1 one per round over 60 rows (so it covers most of the
 * column), fragments 2 and 3 none.
 */
class MaintenanceTriggersTest {
    @TempDir
    Path dir;

    private BufferAllocator allocator;
    private Dataset ds;
    private static final MaintenanceSettings ON =
            MaintenanceSettings.enabledWithDefaults().withOverlayFold(0, Duration.ZERO);

    @BeforeEach
    void table() throws Exception {
        allocator = new RootAllocator();
        ds = MaintenanceTables.create(new LocalObjectStore(dir), allocator, 4, 100);
    }

    @AfterEach
    void close() throws Exception {
        ds.close();
        allocator.close();
    }

    private void rounds(int n) throws Exception {
        int[] few = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        int[] many = new int[60];
        for (int i = 0; i < many.length; i++) {
            many[i] = i;
        }
        for (int r = 0; r < n; r++) {
            ds = MaintenanceTables.update(ds, new long[] {0}, few, 1000 + r);
            ds = MaintenanceTables.update(ds, new long[] {1}, many, 2000 + r);
        }
    }

    @Test
    void fragmentCompactionIsDueForEnoughSmallFragmentsAndTheyAreNotAlsoMergedOrFolded() throws Exception {
        rounds(3);
        Manifest m = ds.manifest();
        MaintenanceSettings.FragmentCompaction small =
                new MaintenanceSettings.FragmentCompaction(true, 1000, 0, 0.1, 4);
        // Four fragments of 100 rows, all below 1000: one group of the standalone planner.
        Due due = MaintenanceTriggers.decide(
                m, ON.withOverlayMerge(3, 0).withFragmentCompaction(small), Duration.ZERO, 0);
        assertThat(due.compact()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
        assertThat(due.merge()).as("rewritten fragments need no merge").isEmpty();
        assertThat(due.reasons()).singleElement().asString().startsWith("compact 4 fragments into 1 group(s)");
        // Fewer candidates than min-fragments: not yet.
        assertThat(MaintenanceTriggers.decide(
                                m,
                                ON.withOverlayMerge(0, 0)
                                        .withFragmentCompaction(
                                                new MaintenanceSettings.FragmentCompaction(true, 1000, 0, 0.1, 5)),
                                Duration.ZERO,
                                0)
                        .isEmpty())
                .isTrue();
        // More candidates than one run takes (2 fragments here, so groups of 2): due once all the
        // runs together reach min-fragments (3), not only the first run's share of the table.
        Due inRuns = MaintenanceTriggers.decide(
                m,
                ON.withOverlayMerge(0, 0)
                        .withExecution(MaintenanceSettings.DEFAULT_LEASE_TIMEOUT, 1, 2)
                        .withFragmentCompaction(new MaintenanceSettings.FragmentCompaction(true, 1000, 0, 0.1, 3)),
                Duration.ZERO,
                0);
        assertThat(inRuns.compact()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
        // Fragments at the target: nothing to compact (and with it off, nothing either).
        assertThat(MaintenanceTriggers.decide(
                                m,
                                ON.withOverlayMerge(0, 0)
                                        .withFragmentCompaction(
                                                new MaintenanceSettings.FragmentCompaction(true, 100, 0, 0.1, 1)),
                                Duration.ZERO,
                                0)
                        .isEmpty())
                .isTrue();
        assertThat(MaintenanceTriggers.decide(m, ON.withOverlayMerge(0, 0), Duration.ZERO, 0)
                        .compact())
                .isEmpty();
    }

    @Test
    void mergeIsDueAtTheOverlayCountOfAFragment() throws Exception {
        rounds(3);
        Manifest m = ds.manifest();
        assertThat(MaintenanceTriggers.decide(m, ON.withOverlayMerge(4, 0), Duration.ZERO, 0)
                        .isEmpty())
                .isTrue();
        Due due = MaintenanceTriggers.decide(m, ON.withOverlayMerge(3, 0), Duration.ZERO, 0);
        assertThat(due.merge()).containsExactlyInAnyOrder(0L, 1L);
        assertThat(due.fold()).isEmpty();
        assertThat(due.cleanup()).isFalse();
        assertThat(due.reasons()).containsExactly("merge 2 fragments: >= 3 overlays");

        TableHealth h = TableHealth.of(m, 1234);
        assertThat(h.fragments()).isEqualTo(4);
        assertThat(h.fragmentsWithOverlays()).isEqualTo(2);
        assertThat(h.maxOverlaysPerFragment()).isEqualTo(3);
        assertThat(h.overlays()).isEqualTo(6);
        assertThat(h.overlayBytes()).isPositive();
        assertThat(h.liveRows()).isEqualTo(ds.countRows());
        assertThat(h.deletedRows())
                .isEqualTo(m.fragments().stream()
                        .mapToLong(f -> f.numDeletedRows())
                        .sum());
        assertThat(h.dataBytes())
                .isEqualTo(m.fragments().stream()
                        .flatMap(f -> f.files().stream())
                        .mapToLong(d -> d.fileSizeBytes())
                        .sum())
                .isPositive();
        assertThat(h.manifestBytes()).isEqualTo(1234);
    }

    @Test
    void mergeIsDueAtTheOverlayBytesOfAFragmentButNeedsTwoOverlays() throws Exception {
        rounds(1);
        Manifest m = ds.manifest();
        long fragment1Bytes = MaintenanceTriggers.overlayBytes(m.fragment(1).orElseThrow());
        MaintenanceSettings byBytes = ON.withOverlayMerge(0, 1);
        assertThat(MaintenanceTriggers.decide(m, byBytes, Duration.ZERO, 0).isEmpty())
                .as("one overlay each: nothing to merge")
                .isTrue();
        rounds(1);
        m = ds.manifest();
        long fragment0Bytes = MaintenanceTriggers.overlayBytes(m.fragment(0).orElseThrow());
        fragment1Bytes = MaintenanceTriggers.overlayBytes(m.fragment(1).orElseThrow());
        assertThat(fragment1Bytes).isGreaterThan(fragment0Bytes);
        Due due = MaintenanceTriggers.decide(m, ON.withOverlayMerge(0, fragment1Bytes), Duration.ZERO, 0);
        assertThat(due.merge()).containsExactly(1L);
        assertThat(due.reasons()).containsExactly("merge 1 fragments: >= " + fragment1Bytes + " overlay bytes");
    }

    @Test
    void foldIsDueWhenOverlaysCoverMostOfAColumnAndTheMergeStillCoversTheFragmentIfTheFoldCannotLand()
            throws Exception {
        rounds(3);
        Manifest m = ds.manifest();
        assertThat(MaintenanceTriggers.maxColumnCoverage(m.fragment(0).orElseThrow()))
                .isEqualTo(0.1);
        assertThat(MaintenanceTriggers.maxColumnCoverage(m.fragment(1).orElseThrow()))
                .isEqualTo(0.6);
        Due due = MaintenanceTriggers.decide(
                m, ON.withOverlayMerge(3, 0).withOverlayFold(0.5, Duration.ZERO), Duration.ZERO, 0);
        assertThat(due.fold()).containsExactly(1L);
        assertThat(due.merge()).containsExactlyInAnyOrder(0L, 1L);
        assertThat(due.reasons())
                .containsExactly(
                        "fold 1 fragments: overlays cover >= 0.5 of a column (max 0.60)",
                        "merge 2 fragments: >= 3 overlays");
        assertThat(MaintenanceTriggers.decide(
                                m, ON.withOverlayMerge(0, 0).withOverlayFold(0.61, Duration.ZERO), Duration.ZERO, 0)
                        .isEmpty())
                .isTrue();
    }

    @Test
    void afterTheQuietPeriodEveryFragmentWithOverlaysIsFolded() throws Exception {
        rounds(1);
        Manifest m = ds.manifest();
        MaintenanceSettings quiet = ON.withOverlayMerge(0, 0).withOverlayFold(0, Duration.ofMinutes(10));
        assertThat(MaintenanceTriggers.decide(m, quiet, Duration.ofMinutes(9), 0)
                        .isEmpty())
                .isTrue();
        Due due = MaintenanceTriggers.decide(m, quiet, Duration.ofMinutes(10), 0);
        assertThat(due.fold()).containsExactlyInAnyOrder(0L, 1L);
        assertThat(due.reasons()).containsExactly("fold 2 fragments: no commit for 600 s >= 600 s");
    }

    @Test
    void versionsBeyondTheRetentionCountOnlyWhenOldNotNewestAndBeforeTheSinksLastCommit() throws Exception {
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        List<ListedVersion> versions = new ArrayList<>();
        for (long v = 1; v <= 10; v++) {
            // versions 1..10, one minute apart, the newest committed a minute ago
            versions.add(
                    new ListedVersion(v, now.minus(Duration.ofMinutes(11 - v)).toEpochMilli()));
        }
        MaintenanceSettings keep3 = ON.withCleanup(true, 3, Duration.ZERO, Duration.ofHours(1));
        assertThat(MaintenanceTriggers.removableVersions(versions, keep3, now, Long.MAX_VALUE))
                .isEqualTo(7);
        assertThat(MaintenanceTriggers.removableVersions(versions, keep3, now, 6))
                .as("the sink committed version 6")
                .isEqualTo(5);
        MaintenanceSettings young = ON.withCleanup(true, 3, Duration.ofMinutes(5), Duration.ofHours(1));
        assertThat(MaintenanceTriggers.removableVersions(versions, young, now, Long.MAX_VALUE))
                .as("versions 6..10 are younger than 5 minutes")
                .isEqualTo(5);
        versions.set(0, new ListedVersion(1, 0));
        assertThat(MaintenanceTriggers.removableVersions(versions, keep3, now, Long.MAX_VALUE))
                .as("unknown age is young")
                .isEqualTo(6);
        assertThat(MaintenanceTriggers.decide(ds.manifest(), keep3, Duration.ZERO, 6)
                        .cleanup())
                .isTrue();
        MaintenanceSettings keep10 = ON.withCleanup(true, 10, Duration.ZERO, Duration.ofHours(1));
        assertThat(MaintenanceTriggers.decide(ds.manifest(), keep10, Duration.ZERO, 4)
                        .cleanup())
                .as("batched until half the retention can go")
                .isFalse();
        assertThat(MaintenanceTriggers.decide(ds.manifest(), keep10, Duration.ZERO, 5)
                        .reasons())
                .containsExactly("cleanup: 5 versions beyond the retention");
        assertThat(MaintenanceTriggers.decide(
                                ds.manifest(),
                                keep3.withCleanup(false, 3, Duration.ZERO, Duration.ofHours(1)),
                                Duration.ZERO,
                                6)
                        .isEmpty())
                .isTrue();
    }
}
