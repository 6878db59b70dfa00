package dev.lanceflink.flink.catalog;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.DatasetExistsException;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.schema.LanceSchemaException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.types.logical.RowType;

/**
 * Converts table schemas between a Flink catalog table and the Lance schema stored in the
 * dataset, which is the only place the catalog keeps a table's columns:
 * <ul>
 *   <li>columns through {@link LanceTypeMapping}; {@code ARRAY} columns named in
 *       {@code 'vector-dimensions'} become fixed-size lists, and fixed-size lists read back as
 *       {@code ARRAY} with their dimension put back into {@code 'vector-dimensions'}, so writes
 *       through the catalog keep them fixed-size;
 *   <li>{@code PRIMARY KEY (...) NOT ENFORCED} as Lance's unenforced primary key: field
 *       metadata {@code lance-schema:unenforced-primary-key} = {@code true} and
 *       {@code lance-schema:unenforced-primary-key:position} = the 1-based key position, which
 *       Lance turns into the {@code Field.unenforced_primary_key(_position)} schema fields 12/13.
 * </ul>
 */
public final class CatalogSchemas {
    private CatalogSchemas() {}

    /**
     * What a new table is created with; the one place deciding it, for the catalog's CREATE TABLE
     * and for a {@code 'connector' = 'lance'} table's first write.
     *
     * @param schema the Lance schema (field ids from 0)
     * @param fileVersion its data storage version
     * @param stableRowIds whether it uses stable row ids
     */
    public record NewTable(LanceSchema schema, FileVersion fileVersion, boolean stableRowIds) {}

    /**
     * The new table for a Flink schema of physical columns (and its primary key).
     *
     * @param fileVersion the data storage version asked for, or null for {@link #dataStorageVersion}
     * @throws CatalogException naming the table if the schema cannot be stored or a MAP column
     *     is given a version before 2.2
     */
    public static NewTable newTable(
            String table,
            ResolvedSchema schema,
            VectorDimensions dimensions,
            FileVersion fileVersion,
            boolean stableRowIds) {
        Schema arrow = toArrowSchema(table, schema, dimensions);
        LanceSchema lance;
        try {
            lance = LanceSchema.fromArrow(arrow, 0);
            lance.validate();
        } catch (LanceSchemaException | LanceTypeException e) {
            throw new CatalogException("Cannot create " + table + ": " + e.getMessage(), e);
        }
        boolean hasMap = lance.allFields().stream().anyMatch(LanceField::isMap);
        if (fileVersion != null && hasMap && !fileVersion.storesMaps()) {
            throw new CatalogException("Cannot create " + table + " with data storage version " + fileVersion.label()
                    + ": it has a MAP column, which Lance stores only in version 2.2 files; set '"
                    + CREATE_FILE_VERSION_KEY + "' = '2.2' or leave it unset");
        }
        return new NewTable(lance, fileVersion != null ? fileVersion : dataStorageVersion(), stableRowIds);
    }

    /** The table option naming a new table's data storage version (kept here so messages name it). */
    public static final String CREATE_FILE_VERSION_KEY = "create.file-version";

    /**
     * Creates {@code table} at {@code uri} as version 1 with no rows, unless a table is there:
     * version 1 is published put-if-absent, so of concurrent creators exactly one creates it. A
     * table that exists (from before, or from a creator that won the race) is accepted if its
     * columns are those of {@code table}.
     *
     * @return true if this call created the table
     * @throws IllegalStateException naming the location and the first difference if a table with
     *     other columns is there
     */
    public static boolean createIfAbsent(String name, String uri, Map<String, String> storageOptions, NewTable table)
            throws IOException {
        WriteParams params = WriteParams.of(WriteMode.CREATE)
                .withFileVersion(table.fileVersion())
                .withStableRowIds(table.stableRowIds());
        try {
            Dataset.write(uri, storageOptions, List.of(), table.schema().toArrow(), params)
                    .close();
            return true;
        } catch (DatasetExistsException e) {
            try (Dataset existing = Dataset.open(uri, storageOptions)) {
                Optional<String> difference =
                        difference(existing.schema().toArrow(), table.schema().toArrow());
                if (difference.isPresent()) {
                    throw new IllegalStateException(
                            "Cannot write " + name + ": the Lance table at '" + uri + "' was"
                                    + " created by another writer with other columns than " + name + " declares ("
                                    + difference.get() + "); declare the table's columns, or write to another path",
                            e);
                }
                return false;
            }
        }
    }

    /** The first way the {@code declared} columns differ from the {@code existing} ones, or empty. */
    static Optional<String> difference(Schema existing, Schema declared) {
        List<String> have = existing.getFields().stream().map(Field::getName).toList();
        List<String> want = declared.getFields().stream().map(Field::getName).toList();
        if (!have.equals(want)) {
            return Optional.of("the table has the columns " + have + ", the declaration " + want);
        }
        for (int i = 0; i < have.size(); i++) {
            Field a = existing.getFields().get(i);
            Field b = declared.getFields().get(i);
            if (!sameColumn(a, b)) {
                return Optional.of(
                        "column '" + a.getName() + "' is " + describe(a) + " in the table but declared " + describe(b));
            }
        }
        return Optional.empty();
    }

    /** Equal but for field ids and other metadata than the primary key's. */
    private static boolean sameColumn(Field a, Field b) {
        if (!a.getName().equals(b.getName())
                || !a.getType().equals(b.getType())
                || a.isNullable() != b.isNullable()
                || !primaryKeyOf(a).equals(primaryKeyOf(b))
                || a.getChildren().size() != b.getChildren().size()) {
            return false;
        }
        for (int i = 0; i < a.getChildren().size(); i++) {
            if (!sameColumn(a.getChildren().get(i), b.getChildren().get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String primaryKeyOf(Field f) {
        Map<String, String> m = f.getMetadata();
        return m.getOrDefault(LanceField.PRIMARY_KEY_METADATA_KEY, "false") + "@"
                + m.getOrDefault(LanceField.PRIMARY_KEY_POSITION_METADATA_KEY, "");
    }

    private static String describe(Field f) {
        return f.getType()
                + (f.getChildren().isEmpty()
                        ? ""
                        : f.getChildren().stream()
                                .map(CatalogSchemas::describe)
                                .toList()
                                .toString())
                + (f.isNullable() ? "" : " NOT NULL")
                + ("false@".equals(primaryKeyOf(f)) ? "" : " (primary key)");
    }

    /** The Lance (Arrow) schema a new catalog table is created with. */
    public static Schema toArrowSchema(String table, ResolvedSchema schema, VectorDimensions dimensions) {
        List<String> notStorable = schema.getColumns().stream()
                .filter(c -> !c.isPhysical())
                .map(Column::getName)
                .toList();
        if (!notStorable.isEmpty()) {
            throw new CatalogException("Cannot create " + table + ": columns " + notStorable + " are computed or "
                    + "metadata columns, which a Lance table cannot store (the catalog keeps a table's columns in the "
                    + "Lance schema only). Declare physical columns only, and add computed or metadata columns "
                    + "(e.g. _rowaddr) in a CREATE TEMPORARY TABLE ... LIKE over it");
        }
        if (!schema.getWatermarkSpecs().isEmpty()) {
            throw new CatalogException("Cannot create " + table + ": a WATERMARK cannot be stored in a Lance table; "
                    + "declare it in a CREATE TEMPORARY TABLE ... LIKE over it");
        }
        List<RowType.RowField> fields = new ArrayList<>();
        for (Column c : schema.getColumns()) {
            fields.add(new RowType.RowField(c.getName(), c.getDataType().getLogicalType()));
        }
        Schema arrow;
        try {
            arrow = LanceTypeMapping.toArrowSchema(new RowType(false, fields), dimensions);
        } catch (LanceTypeException e) {
            throw new CatalogException("Cannot create " + table + ": " + e.getMessage(), e);
        }
        List<String> key =
                schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
        if (key.isEmpty()) {
            return arrow;
        }
        List<Field> out = new ArrayList<>();
        for (Field f : arrow.getFields()) {
            int position = key.indexOf(f.getName());
            if (position < 0) {
                out.add(f);
                continue;
            }
            Map<String, String> metadata = new LinkedHashMap<>(f.getMetadata());
            metadata.put(LanceField.PRIMARY_KEY_METADATA_KEY, "true");
            metadata.put(LanceField.PRIMARY_KEY_POSITION_METADATA_KEY, Integer.toString(position + 1));
            // Flink makes primary key columns NOT NULL, as Lance requires of key fields.
            out.add(new Field(
                    f.getName(),
                    new FieldType(f.isNullable(), f.getType(), f.getDictionary(), metadata),
                    f.getChildren()));
        }
        return new Schema(out, arrow.getCustomMetadata());
    }

    /**
     * The data storage version a new table is created with: current Lance's default (2.2, which
     * also stores MAP columns; older Lance readers need 2.1, which the user can ask for).
     */
    static FileVersion dataStorageVersion() {
        return FileVersion.DEFAULT_FOR_NEW_TABLES;
    }

    /** Options map {@code 'vector-dimensions'} value ("a:1,b:2") as the map {@link VectorDimensions#parse} takes. */
    static Map<String, String> parseMapOption(String value) {
        Map<String, String> out = new HashMap<>();
        for (String entry : value.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int colon = entry.lastIndexOf(':');
            if (colon < 0) {
                throw new CatalogException("'vector-dimensions' entry '" + entry.trim() + "' is not 'column:dimension'"
                        + "; write e.g. 'embedding:768,image.clip:512'");
            }
            out.put(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim());
        }
        return out;
    }
}
