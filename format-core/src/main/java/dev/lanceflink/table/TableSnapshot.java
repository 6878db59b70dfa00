package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.io.Serial;
import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One pinned view of a table for the life of a statement: the version it reads, that version's
 * schema with its field ids, data storage version and row id style. A statement planned against a
 * snapshot writes by the snapshot's field ids and reads its rows at the snapshot's version, so its
 * planning, writers and committer agree on one schema whatever other writers commit meanwhile
 * (as an Iceberg scan and its commit share one snapshot and schema).
 *
 * <p>Field ids, not names, identify columns ({@link LanceSchema}): a column renamed after the
 * snapshot keeps its id and a write to it lands in the renamed column; a column dropped after
 * the snapshot has no id in the later schema, so a write to it would be lost
 * ({@link #droppedIn}).
 *
 * <p>Immutable and serializable (the schema travels as its protobuf form), so it can be planned
 * in a client and shipped to the tasks of a job.
 */
public final class TableSnapshot implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    private final long version;
    private final byte[] schemaProto;
    private final String dataStorageVersion;
    private final boolean stableRowIds;
    private transient LanceSchema schema;

    private TableSnapshot(long version, LanceSchema schema, String dataStorageVersion, boolean stableRowIds) {
        this.version = version;
        this.schema = requireNonNull(schema, "schema is null");
        this.schemaProto = schema.toProtoSchema().toByteArray();
        this.dataStorageVersion = requireNonNull(dataStorageVersion, "dataStorageVersion is null");
        this.stableRowIds = stableRowIds;
    }

    /** The snapshot of the version {@code manifest} describes. */
    public static TableSnapshot of(Manifest manifest) {
        return new TableSnapshot(
                manifest.version(), manifest.schema(), manifest.dataFormat().version(), manifest.usesStableRowIds());
    }

    /** The version the statement reads. */
    public long version() {
        return version;
    }

    /** The schema of {@link #version()}, with its field ids. */
    public LanceSchema schema() {
        LanceSchema s = schema;
        if (s == null) {
            try {
                s = LanceSchema.fromProto(lance.file.Schema.parseFrom(schemaProto));
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("A serialized table snapshot holds an unreadable schema", e);
            }
            schema = s;
        }
        return s;
    }

    /** The data storage version of {@link #version()} (e.g. {@code 2.1}). */
    public String dataStorageVersion() {
        return dataStorageVersion;
    }

    /** Whether the table uses stable row ids at {@link #version()}. */
    public boolean stableRowIds() {
        return stableRowIds;
    }

    /**
     * The field ids of the top-level columns {@code names}, in order: the column mapping a
     * statement writes by.
     *
     * @throws IllegalArgumentException naming the column if the snapshot's schema has no such column
     */
    public int[] fieldIds(List<String> names) {
        int[] ids = new int[names.size()];
        for (int i = 0; i < ids.length; i++) {
            String n = names.get(i);
            ids[i] = schema().fieldByName(n)
                    .orElseThrow(() -> new IllegalArgumentException("Column '" + n + "' does not exist in version "
                            + version + " (columns: "
                            + schema().fields().stream().map(LanceField::name).toList() + ")"))
                    .id();
        }
        return ids;
    }

    /**
     * The first of the field ids {@code written} that a later schema no longer has (the column was
     * dropped after this snapshot), described for a message; empty if all are still there, under
     * whatever name.
     */
    public Optional<String> droppedIn(LanceSchema later, Iterable<Integer> written) {
        OptionalInt id = firstDropped(later, written);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        String name =
                schema().fieldById(id.getAsInt()).map(LanceField::pathString).orElse("?");
        return Optional.of("column '" + name + "' (field id " + id.getAsInt() + ")");
    }

    /**
     * The first of the field ids {@code written} (by a statement planned against an earlier
     * version) that {@code later} no longer has, or empty. Such a write cannot land: the column
     * was dropped, and Lance reads no field by an id its schema does not have, so the values would
     * be lost without an error. A rename keeps the id, so a write planned before it lands in the
     * renamed column, as in Iceberg, whose writers also address columns by field id.
     */
    public static OptionalInt firstDropped(LanceSchema later, Iterable<Integer> written) {
        for (int id : written) {
            if (later.fieldById(id).isEmpty()) {
                return OptionalInt.of(id);
            }
        }
        return OptionalInt.empty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableSnapshot s
                && s.version == version
                && s.stableRowIds == stableRowIds
                && s.dataStorageVersion.equals(dataStorageVersion)
                && s.schema().equals(schema());
    }

    @Override
    public int hashCode() {
        return Long.hashCode(version) * 31 + schema().hashCode();
    }

    @Override
    public String toString() {
        return "TableSnapshot[version=" + version + ", columns="
                + schema().fields().stream().map(f -> f.name() + "#" + f.id()).toList() + "]";
    }
}
