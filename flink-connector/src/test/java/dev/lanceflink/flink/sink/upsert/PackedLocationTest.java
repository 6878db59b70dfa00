package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link PackedLocation} round trips row addresses and pending rows, never takes the value NONE,
 * and refuses fragment ids of 2^31 or more; {@link PendingFileTable} converts {fileId, position}
 * both ways and resolves a file to its fragment once a manifest names it.
 */
class PackedLocationTest {
    @Test
    void rowAddressesAndPendingRowsRoundTrip() {
        for (long fragment : new long[] {0, 1, 77, (1L << 31) - 1}) {
            for (long offset : new long[] {0, 1, 0xFFFF_FFFFL}) {
                long packed = PackedLocation.ofRowAddress(RowAddress.of(fragment, offset));
                assertThat(PackedLocation.isPending(packed)).isFalse();
                assertThat(packed).isNotEqualTo(PackedLocation.NONE);
                assertThat(PackedLocation.rowAddress(packed)).isEqualTo(RowAddress.of(fragment, offset));
                assertThat(PackedLocation.offset(packed)).isEqualTo(offset);
            }
        }
        for (int slot : new int[] {0, 1, 12345, PackedLocation.MAX_SLOTS - 1}) {
            for (long offset : new long[] {0, 1, 0xFFFF_FFFFL}) {
                long packed = PackedLocation.ofPending(slot, offset);
                assertThat(PackedLocation.isPending(packed)).isTrue();
                assertThat(packed).isNotEqualTo(PackedLocation.NONE);
                assertThat(PackedLocation.slot(packed)).isEqualTo(slot);
                assertThat(PackedLocation.offset(packed)).isEqualTo(offset);
            }
        }
    }

    @Test
    void fragmentIdsOf2To31OrMoreAreRefusedWithAMessage() {
        assertThatThrownBy(() -> PackedLocation.ofRowAddress(RowAddress.of(1L << 31, 5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fragment 2147483648, offset 5")
                .hasMessageContaining("fragment ids below 2^31");
        assertThatThrownBy(() -> PackedLocation.ofPending(PackedLocation.MAX_SLOTS, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PackedLocation.ofPending(0, 1L << 32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pendingFilesConvertBothWaysAndResolveToTheirFragment() {
        PendingFileTable files = new PendingFileTable();
        long fileA = 0x0123_4567_89ab_cdefL;
        long fileB = -5;
        long a = files.pack(new long[] {fileA, 7});
        long b = files.pack(fileB, 3);
        long committed = files.pack(new long[] {0, RowAddress.of(4, 2)});
        assertThat(files.pack(fileA, 8)).isEqualTo(a + 1);
        assertThat(files.unpack(a)).containsExactly(fileA, 7);
        assertThat(files.unpack(b)).containsExactly(fileB, 3);
        assertThat(files.unpack(committed)).containsExactly(0, RowAddress.of(4, 2));
        assertThat(files.fileIdOf(b)).isEqualTo(fileB);
        assertThat(files.fileIdOf(committed)).isZero();
        assertThat(files.size()).isEqualTo(2);

        Fragment holdingB = Fragment.of(9, List.of(), 4);
        assertThat(files.resolve(Map.of(fileB, holdingB))).isEqualTo(1);
        assertThat(files.current(b)).isEqualTo(RowAddress.of(9, 3));
        assertThat(files.current(a)).isEqualTo(a);
        assertThat(files.current(committed)).isEqualTo(committed);
        assertThat(files.resolve(Map.of(fileB, holdingB))).isZero();
        assertThatThrownBy(() -> files.pack(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void compactingTurnsCommittedFilesRowsIntoAddressesAndRenumbersTheRest() {
        PendingFileTable files = new PendingFileTable();
        LongKeyLocationMap map = new LongKeyLocationMap(LongKeyLocationMap.IntegralKey.BIGINT);
        long[] fileIds = {11, 22, 33, 44};
        for (int k = 0; k < 40; k++) {
            map.put(k, files.pack(fileIds[k % 4], k));
        }
        map.put(100, PackedLocation.ofRowAddress(RowAddress.of(1, 5)));
        files.resolve(Map.of(22L, Fragment.of(7, List.of(), 40), 44L, Fragment.of(8, List.of(), 40)));

        assertThat(files.compact(map)).isEqualTo(2);

        assertThat(files.size()).isEqualTo(2);
        for (int k = 0; k < 40; k++) {
            long l = map.get(k);
            switch (k % 4) {
                case 1 -> assertThat(l).isEqualTo(RowAddress.of(7, k));
                case 3 -> assertThat(l).isEqualTo(RowAddress.of(8, k));
                default -> assertThat(files.unpack(l)).containsExactly(fileIds[k % 4], k);
            }
        }
        assertThat(map.get(100)).isEqualTo(RowAddress.of(1, 5));
        assertThat(files.slotOf(33)).isEqualTo(1);
        assertThat(files.slotOf(55)).isEqualTo(2);
        assertThat(files.compact(map)).isZero();
    }
}
