package dev.lanceflink.overlay;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.schema.LogicalTypes;
import dev.lanceflink.table.DataFile;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/** Field-tree helpers shared by the overlay writer, resolver, exclusion sets and compaction. */
public final class OverlayFields {
    private OverlayFields() {}

    /** Whether {@code id} is {@code field}'s own id or the id of one of its descendants. */
    static boolean inSubtree(LanceField field, int id) {
        if (field.id() == id) {
            return true;
        }
        for (LanceField c : field.children()) {
            if (inSubtree(c, id)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The position in {@code file.fields} that carries an atomic top-level field: the first slot
     * whose id is the field or one of its leaves (Lance's rule for lists: all leaves share the
     * coverage of the first one present), or -1. Tombstones never match.
     */
    public static int positionOf(DataFile file, LanceField field) {
        for (int i = 0; i < file.fieldCount(); i++) {
            int id = file.fieldId(i);
            if (id != DataFile.TOMBSTONE && inSubtree(field, id)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the field or a descendant is a legacy blob or blob v2 column. */
    static boolean isBlob(LanceField field) {
        if ("blob".equals(field.logicalType())
                || field.metadata().containsKey(LogicalTypes.BLOB_METADATA_KEY)
                || LogicalTypes.BLOB_V2_EXTENSION_NAME.equals(field.extensionName())) {
            return true;
        }
        for (LanceField c : field.children()) {
            if (isBlob(c)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code ancestor} is a strict ancestor of {@code id} in {@code schema}. */
    static boolean isAncestor(LanceSchema schema, int ancestor, int id) {
        LanceField f = schema.fieldById(id).orElse(null);
        while (f != null && f.parentId() != LanceField.NO_PARENT) {
            if (f.parentId() == ancestor) {
                return true;
            }
            f = schema.fieldById(f.parentId()).orElse(null);
        }
        return false;
    }

    /** Same Arrow type tree (names and nullability ignored: overlays relax nullability). */
    static boolean sameType(Field expected, Field actual) {
        if (!expected.getType().equals(actual.getType())) {
            return false;
        }
        List<Field> e = expected.getChildren();
        List<Field> a = actual.getChildren();
        if (e.size() != a.size()) {
            return false;
        }
        for (int i = 0; i < e.size(); i++) {
            if (!sameType(e.get(i), a.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** The field and its descendants with {@code nullable = true}, ids kept. */
    static LanceField relaxNullability(LanceField field) {
        LanceField.Builder b = field.toBuilder().nullable(true).clearChildren();
        for (LanceField c : field.children()) {
            b.addChild(relaxNullability(c));
        }
        return b.build();
    }

    /** Every id in the subtree, pre-order. */
    public static int[] subtreeIds(LanceField field) {
        return field.preOrder().mapToInt(LanceField::id).toArray();
    }

    /**
     * Positions {@code 0..keys.length-1} ordered by unsigned {@code keys[position]} (stable
     * bottom-up merge sort on primitive arrays: no boxing for large updates).
     */
    public static int[] orderBy(long[] keys) {
        int n = keys.length;
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        int[] b = new int[n];
        for (int width = 1; width < n; width <<= 1) {
            for (int lo = 0; lo < n; lo += width << 1) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + (width << 1), n);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    b[k++] = Long.compareUnsigned(keys[a[j]], keys[a[i]]) < 0 ? a[j++] : a[i++];
                }
                while (i < mid) {
                    b[k++] = a[i++];
                }
                while (j < hi) {
                    b[k++] = a[j++];
                }
            }
            int[] t = a;
            a = b;
            b = t;
        }
        return a;
    }
}
