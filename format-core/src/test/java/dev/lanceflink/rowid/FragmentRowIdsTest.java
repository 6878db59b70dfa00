package dev.lanceflink.rowid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.LocalObjectStore;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FragmentRowIdsTest {
    @TempDir
    Path dir;

    private static Fragment fragment(long physicalRows, SequenceSource rowIds) {
        return Fragment.of(7, List.of(), physicalRows).withRowIdMeta(new RowIdMeta(rowIds, null, null));
    }

    @Test
    void inlineSequenceGivesTheIdOfEveryPhysicalRow() throws IOException {
        // After a compaction: ids 0, 1, 3, 4, 5 (2 was deleted before it) and a later append's 9.
        long[] ids = {0, 1, 3, 4, 5, 9};
        Fragment f = fragment(6, new SequenceSource.Inline(RowIdSequenceCodec.encode(ids)));

        assertThat(FragmentRowIds.load(new LocalObjectStore(dir), f)).containsExactly(0, 1, 3, 4, 5, 9);
    }

    @Test
    void externalSequenceIsReadFromItsRange() throws IOException {
        LocalObjectStore store = new LocalObjectStore(dir);
        byte[] seq = RowIdSequenceCodec.encodeRange(100, 104);
        byte[] file = new byte[10 + seq.length + 5];
        System.arraycopy(seq, 0, file, 10, seq.length);
        store.put("_rowids/f7.bin", file);
        Fragment f = fragment(4, new SequenceSource.External("_rowids/f7.bin", 10, seq.length));

        assertThat(FragmentRowIds.load(store, f)).containsExactly(100, 101, 102, 103);
    }

    @Test
    void missingOrMiscountedSequenceIsACorruptTable() {
        LocalObjectStore store = new LocalObjectStore(dir);

        assertThatThrownBy(() -> FragmentRowIds.load(store, Fragment.of(7, List.of(), 3)))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("Fragment 7")
                .hasMessageContaining("carries no row id sequence");
        assertThatThrownBy(() -> FragmentRowIds.load(
                        store, fragment(5, new SequenceSource.Inline(RowIdSequenceCodec.encodeRange(0, 4)))))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("has 4 ids but the fragment has 5 physical rows");
    }
}
