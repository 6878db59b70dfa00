package dev.lanceflink.rowid;

import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.RowIdMeta;
import dev.lanceflink.table.SequenceSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Assigns stable row ids to new fragments on append (tables with feature flag 2): fragment
 * {@code k} gets {@code [next, next + physical_rows_k)} in order, with created-at and
 * last-updated-at sequences of the committing version. Existing fragments keep their ids, also
 * after deletes, so a row's id never changes.
 */
public final class RowIdAssigner {
    private RowIdAssigner() {}

    /** New fragments with row-id metadata, and the table's next unused row id afterwards. */
    public record Result(List<Fragment> fragments, long nextRowId) {}

    /**
     * @param nextRowId the table's {@code next_row_id} before the commit
     * @param version the version being committed
     * @throws IllegalArgumentException if a fragment already carries row ids or has 0 physical rows
     */
    public static Result assign(List<Fragment> newFragments, long nextRowId, long version) {
        List<Fragment> out = new ArrayList<>(newFragments.size());
        long next = nextRowId;
        for (Fragment f : newFragments) {
            if (f.rowIdMeta().rowIds() != null) {
                throw new IllegalArgumentException("New fragment " + f.id() + " already carries row ids;"
                        + " ids are assigned by the committer from next_row_id");
            }
            if (f.physicalRows() <= 0) {
                throw new IllegalArgumentException("New fragment " + f.id() + " has physical_rows = " + f.physicalRows()
                        + "; stable row ids need the exact row count");
            }
            long end = next + f.physicalRows();
            byte[] versions = RowVersionSequenceCodec.encodeSingleRun(f.physicalRows(), version);
            out.add(f.withRowIdMeta(new RowIdMeta(
                    new SequenceSource.Inline(RowIdSequenceCodec.encodeRange(next, end)),
                    new SequenceSource.Inline(versions),
                    new SequenceSource.Inline(versions))));
            next = end;
        }
        return new Result(out, next);
    }
}
