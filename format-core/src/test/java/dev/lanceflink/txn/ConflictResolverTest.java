package dev.lanceflink.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.OverlayCoverage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class ConflictResolverTest {

    private static Fragment frag(long id) {
        return TxnFixtures.fragment("f" + id, 10)
                .withId(id)
                .withDeletionFile(new DeletionFile(DeletionFileType.ARROW_ARRAY, 1, id, 1));
    }

    private static final Operation APPEND = new Operation.Append(List.of(TxnFixtures.fragment("n", 1)));
    private static final Operation DELETE_1 = new Operation.Delete(List.of(frag(1)), List.of(), "");
    private static final Operation DELETE_2 = new Operation.Delete(List.of(frag(2)), List.of(), "");
    private static final Operation REMOVE_1 = new Operation.Delete(List.of(), List.of(1L), "");
    private static final Operation UPDATE_ROWS_1 = Operation.Update.rewriteRows(
            List.of(), List.of(frag(1)), List.of(TxnFixtures.fragment("m", 1)), new int[] {1});
    private static final Operation UPDATE_COLS_1 = new Operation.Update(
            List.of(),
            List.of(frag(1)),
            List.of(),
            new int[] {1},
            new int[0],
            Operation.UpdateMode.REWRITE_COLUMNS,
            false,
            false,
            new byte[0]);
    private static final Operation OVERWRITE = new Operation.Overwrite(List.of(), TxnFixtures.schema());
    private static final Operation REWRITE_1 = new Operation.Rewrite(
            List.of(new Operation.RewriteGroup(List.of(frag(1)), List.of(TxnFixtures.fragment("c", 10)))));
    private static final Operation REWRITE_2 = new Operation.Rewrite(
            List.of(new Operation.RewriteGroup(List.of(frag(2)), List.of(TxnFixtures.fragment("c", 10)))));
    private static final Operation MERGE = new Operation.Merge(List.of(), TxnFixtures.schema());
    private static final Operation PROJECT = new Operation.Project(TxnFixtures.schema());
    private static final Operation RESTORE = new Operation.Restore(1);
    private static final Operation RESERVE = new Operation.ReserveFragments(2);
    private static final Operation OVERLAY_1 = new Operation.DataOverlay(List.of(new Operation.OverlayGroup(
            1,
            List.of(new DataOverlayFile(
                    new DataFile("o.lance", new int[] {1}, new int[] {0}, 2, 1, 1),
                    OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(3)),
                    0)))));
    private static final Operation MEMWAL = new Operation.UpdateMemWalState(Map.of(), new byte[0]);

    private static String outcome(Operation mine, Operation theirs) throws Exception {
        ConflictOutcome o = ConflictResolver.check(mine, theirs);
        if (o instanceof ConflictOutcome.Compatible) {
            return "ok";
        } else if (o instanceof ConflictOutcome.Rebase) {
            return "rb";
        } else if (o instanceof ConflictOutcome.Retryable) {
            return "R";
        }
        return "I";
    }

    @Test
    void matrixRowsOfTheOperationsThisLibraryCommits() throws Exception {
        Map<String, Operation> cols = new LinkedHashMap<>();
        cols.put("Append", APPEND);
        cols.put("Delete(1)", DELETE_1);
        cols.put("Delete(2)", DELETE_2);
        cols.put("Remove(1)", REMOVE_1);
        cols.put("UpdateRows(1)", UPDATE_ROWS_1);
        cols.put("UpdateCols(1)", UPDATE_COLS_1);
        cols.put("Overwrite", OVERWRITE);
        cols.put("Rewrite(1)", REWRITE_1);
        cols.put("Rewrite(2)", REWRITE_2);
        cols.put("Merge", MERGE);
        cols.put("Project", PROJECT);
        cols.put("Restore", RESTORE);
        cols.put("Reserve", RESERVE);
        cols.put("Overlay(1)", OVERLAY_1);
        cols.put("MemWal", MEMWAL);

        Map<String, String> expected = new LinkedHashMap<>();
        // columns:            App De1 De2 Rm1 UpR UpC Ovw Rw1 Rw2 Mrg Prj Rst Rsv Ovl Mem
        expected.put("Append", "ok  ok  ok  ok  ok  ok  I   ok  ok  ok  ok  I   ok  ok  I");
        expected.put("Delete(1)", "ok  rb  ok  R   rb  R   I   R   ok  R   ok  I   ok  ok  I");
        expected.put("UpdateRows(1)", "ok  rb  ok  R   rb  R   I   R   ok  R   ok  I   ok  R   ok");
        expected.put("Overwrite", "ok  ok  ok  ok  ok  ok  R   ok  ok  ok  ok  ok  ok  ok  I");
        expected.put("Rewrite(1)", "ok  R   ok  R   R   R   I   R   ok  R   ok  I   ok  R   ok");
        expected.put("Overlay(1)", "ok  ok  ok  R   R   ok  I   R   ok  R   ok  I   ok  ok  I");
        expected.put("Reserve", "ok  ok  ok  ok  ok  ok  I   ok  ok  ok  ok  I   ok  ok  ok");
        expected.put("Merge", "R   R   R   R   R   R   I   R   R   R   I   I   ok  R   I");
        expected.put("Project", "ok  ok  ok  ok  ok  ok  I   ok  ok  R   R   I   ok  ok  I");

        Map<String, Operation> rows = Map.of(
                "Append",
                APPEND,
                "Delete(1)",
                DELETE_1,
                "UpdateRows(1)",
                UPDATE_ROWS_1,
                "Overwrite",
                OVERWRITE,
                "Rewrite(1)",
                REWRITE_1,
                "Overlay(1)",
                OVERLAY_1,
                "Reserve",
                RESERVE,
                "Merge",
                MERGE,
                "Project",
                PROJECT);
        for (Map.Entry<String, String> row : expected.entrySet()) {
            String[] want = row.getValue().trim().split("\\s+");
            int i = 0;
            for (Map.Entry<String, Operation> col : cols.entrySet()) {
                assertThat(outcome(rows.get(row.getKey()), col.getValue()))
                        .as("%s vs committed %s", row.getKey(), col.getKey())
                        .isEqualTo(want[i++]);
            }
        }
    }

    @Test
    void columnRewriteKeepsConcurrentDeletions() throws Exception {
        assertThat(outcome(UPDATE_COLS_1, DELETE_1)).isEqualTo("ok");
        assertThat(outcome(UPDATE_COLS_1, UPDATE_ROWS_1)).isEqualTo("ok");
        assertThat(outcome(UPDATE_COLS_1, UPDATE_COLS_1)).isEqualTo("R");
        assertThat(outcome(UPDATE_COLS_1, REMOVE_1)).isEqualTo("R");
        assertThat(outcome(DELETE_1, UPDATE_COLS_1)).isEqualTo("R");
    }

    @Test
    void rebaseNamesTheSharedFragments() throws Exception {
        Operation mine = new Operation.Delete(List.of(frag(1), frag(2)), List.of(), "");
        Operation theirs = new Operation.Delete(List.of(frag(2), frag(3)), List.of(), "");
        assertThat(ConflictResolver.check(mine, theirs)).isEqualTo(new ConflictOutcome.Rebase(Set.of(2L)));
    }

    @Test
    void reasonsNameBothOperations() throws Exception {
        ConflictOutcome o = ConflictResolver.check(OVERLAY_1, REMOVE_1);
        assertThat(o).isInstanceOf(ConflictOutcome.Retryable.class);
        assertThat(((ConflictOutcome.Retryable) o).reason())
                .isEqualTo("DataOverlay conflicts with a concurrent Delete: it removed overlaid fragment(s) [1]");
        ConflictOutcome i = ConflictResolver.check(APPEND, OVERWRITE);
        assertThat(((ConflictOutcome.Incompatible) i).reason())
                .isEqualTo("Append is incompatible with a concurrent Overwrite: the table's content was replaced");
    }

    @Test
    void overwriteConfigKeysClash() throws Exception {
        Operation a = new Operation.Overwrite(List.of(), TxnFixtures.schema(), Map.of("k", "1"), List.of());
        Operation b = new Operation.Overwrite(List.of(), TxnFixtures.schema(), Map.of("k", "2"), List.of());
        assertThat(outcome(a, b)).isEqualTo("I");
        Operation uc = new Operation.UpdateConfig(Set.of("k"), Set.of(), false, new byte[0]);
        assertThat(outcome(a, uc)).isEqualTo("I");
        assertThat(outcome(uc, a)).isEqualTo("I");
        assertThat(outcome(uc, new Operation.UpdateConfig(Set.of("z"), Set.of(), false, new byte[0])))
                .isEqualTo("ok");
    }

    private static DataOverlayFile overlayFile(String name, long committedVersion) {
        return new DataOverlayFile(
                new DataFile(name + ".lance", new int[] {1}, new int[] {0}, 2, 1, 1),
                OverlayCoverage.Dense.of(RoaringBitmap.bitmapOf(3)),
                committedVersion);
    }

    private static String reason(ConflictOutcome o) {
        assertThat(o).isInstanceOf(ConflictOutcome.Retryable.class);
        return ((ConflictOutcome.Retryable) o).reason();
    }

    @Test
    void aDeleteLosingToAnOverlayMergeCompactionIsToldWhatTheMergeWasAndDid() throws Exception {
        Fragment read = TxnFixtures.fragment("f1", 10)
                .withId(1)
                .withOverlays(List.of(overlayFile("o1", 2), overlayFile("o2", 3)));
        Fragment other = TxnFixtures.fragment("f2", 10).withId(2);
        Transaction delete = Transaction.of(
                7,
                new Operation.Delete(
                        List.of(read.withDeletionFile(new DeletionFile(DeletionFileType.ARROW_ARRAY, 7, 1, 1))),
                        List.of(2L),
                        "k = 5"));
        Transaction compaction = Transaction.of(
                7,
                new Operation.Merge(
                        List.of(read.withOverlays(List.of(overlayFile("merged", 3))), other), TxnFixtures.schema()),
                Map.of(
                        Transaction.COMPACTION_MODE_PROPERTY,
                        "overlay-merge",
                        Transaction.COMPACTION_READ_VERSION_PROPERTY,
                        "7"));

        assertThat(reason(ConflictResolver.check(delete, compaction)))
                .isEqualTo("Delete conflicts with a concurrent"
                        + " Merge: it was an overlay-merge compaction by the lance-flink compactor (planned on version 7),"
                        + " committed as a Merge of the complete fragment list; of the fragments this Delete changes, it"
                        + " replaced the overlays of fragment(s) [1], carried fragment(s) [2] along. A Delete is never"
                        + " rebased over a Merge (Lance's rule: the Merge's fragment list replaces the one this Delete was"
                        + " computed on)");
        // Same outcome, less to say, without the transactions' properties.
        assertThat(reason(ConflictResolver.check(delete.operation(), compaction.operation())))
                .startsWith("Delete conflicts with a concurrent Merge: it was a Merge (it adds columns and carries the"
                        + " complete fragment list); of the fragments this Delete changes, it replaced the overlays of"
                        + " fragment(s) [1]");
    }

    @Test
    void aColumnAddingMergeIsDescribedByWhatItDidToTheFragments() throws Exception {
        Fragment read = TxnFixtures.fragment("f1", 10).withId(1);
        Fragment kept = TxnFixtures.fragment("f3", 10).withId(3);
        Operation.Update update =
                Operation.Update.rewriteRows(List.of(), List.of(read, kept), List.of(), new int[] {1});
        Fragment widened = read.withFiles(
                List.of(read.files().get(0), new DataFile("new_col.lance", new int[] {2}, new int[] {0}, 2, 1, 5)));
        Operation.Merge addColumn = new Operation.Merge(List.of(widened, kept), TxnFixtures.schema());
        assertThat(reason(ConflictResolver.check(update, addColumn)))
                .isEqualTo("Update conflicts with a concurrent"
                        + " Merge: it was a Merge (it adds columns and carries the complete fragment list); of the fragments"
                        + " this Update changes, it replaced the data files of fragment(s) [1], left fragment(s) [3] as this"
                        + " Update read them. An Update is never rebased over a Merge (Lance's rule: the Merge's fragment list"
                        + " replaces the one this Update was computed on)");

        Operation.Merge dropped = new Operation.Merge(List.of(kept), TxnFixtures.schema());
        assertThat(reason(ConflictResolver.check(OVERLAY_1, dropped)))
                .contains("of the fragments this DataOverlay" + " changes, it dropped fragment(s) [1]");
    }

    @Test
    void aPendingCompactionMergeSaysItMustBePlannedAgain() throws Exception {
        Transaction compaction =
                Transaction.of(4, MERGE, Map.of(Transaction.COMPACTION_MODE_PROPERTY, "overlay-merge"));
        assertThat(reason(ConflictResolver.check(compaction, Transaction.of(4, DELETE_1))))
                .isEqualTo("Merge"
                        + " conflicts with a concurrent Delete: the fragments changed while this overlay-merge compaction"
                        + " (committed as a Merge of the complete fragment list) was pending; plan the compaction again on"
                        + " the newer version");
    }
}
