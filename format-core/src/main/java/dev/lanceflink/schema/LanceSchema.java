package dev.lanceflink.schema;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An immutable Lance schema: top-level {@link LanceField}s (each the root of a tree) plus
 * schema-level metadata.
 *
 * <p>On disk a schema is a flat list of {@code lance.file.Field} entries in pre-order, each
 * pointing to its parent by id ({@code -1} at top level), stored in {@code Manifest.fields},
 * in schema-changing transaction operations and in every v2 data file's {@code FileDescriptor}.
 * {@link #fromProto} / {@link #toProto} convert losslessly.
 *
 * <p>Field ids are the identity of columns: data files, overlays, deletion-free column rewrites
 * and indices refer to fields by id, never by name. Ids never change, and the ids of dropped
 * fields are never reused; a table's next free id is the maximum over the schema <em>and</em>
 * every data file's {@code fields}, which this class cannot see, so callers adding columns pass it
 * in ({@link #fromArrow(Schema, int)}, {@link #withAssignedIds(int)}).
 *
 * <p>Equality is structural: same fields (all properties, recursively) in the same order and
 * the same metadata.
 */
public final class LanceSchema {

    private final List<LanceField> fields;
    private final Map<String, ByteString> rawMetadata;
    /** Pre-order list of every node. */
    private final List<LanceField> allFields;
    /** First field in pre-order for each id (Lance's tie-break for historical duplicate ids). */
    private final Map<Integer, LanceField> byId;

    private LanceSchema(List<LanceField> fields, Map<String, ByteString> rawMetadata) {
        List<LanceField> top = new ArrayList<>(fields.size());
        for (LanceField f : fields) {
            top.add(f.reparent(List.of(), LanceField.NO_PARENT));
        }
        this.fields = Collections.unmodifiableList(top);
        this.rawMetadata = Collections.unmodifiableMap(new LinkedHashMap<>(rawMetadata));
        List<LanceField> all = new ArrayList<>();
        for (LanceField f : this.fields) {
            f.preOrder().forEach(all::add);
        }
        this.allFields = Collections.unmodifiableList(all);
        Map<Integer, LanceField> ids = new HashMap<>();
        for (LanceField f : all) {
            ids.putIfAbsent(f.id(), f);
        }
        this.byId = ids;
    }

    /** A schema of these top-level fields without metadata. */
    public static LanceSchema of(List<LanceField> fields) {
        return new LanceSchema(fields, Map.of());
    }

    /** A schema of these top-level fields with UTF-8 metadata. */
    public static LanceSchema of(List<LanceField> fields, Map<String, String> metadata) {
        return new LanceSchema(fields, encode(metadata));
    }

    /** A schema of these top-level fields with metadata as raw bytes (as stored). */
    public static LanceSchema ofRaw(List<LanceField> fields, Map<String, ByteString> metadata) {
        return new LanceSchema(fields, metadata);
    }

    // ------------------------------------------------------------------------------------------
    // protobuf
    // ------------------------------------------------------------------------------------------

    /**
     * Rebuilds the tree from a flattened field list ({@code Manifest.fields},
     * {@code Overwrite.schema}, ...) and schema metadata ({@code Manifest.schema_metadata}).
     * A parent must appear before its children. If a historical schema repeats an id, children
     * attach to the first field with that id, as Lance does.
     *
     * @throws LanceSchemaException if an entry names a parent id not seen before it
     */
    public static LanceSchema fromProto(List<lance.file.Field> protoFields, Map<String, ByteString> metadata) {
        List<LanceField.Builder> roots = new ArrayList<>();
        Map<Integer, LanceField.Builder> firstById = new HashMap<>();
        for (int i = 0; i < protoFields.size(); i++) {
            lance.file.Field proto = protoFields.get(i);
            LanceField.Builder node = LanceField.builderFromProto(proto);
            if (proto.getParentId() == LanceField.NO_PARENT) {
                roots.add(node);
            } else {
                LanceField.Builder parent = firstById.get(proto.getParentId());
                if (parent == null) {
                    throw new LanceSchemaException("Schema entry " + i + " (field '" + proto.getName() + "', id "
                            + proto.getId() + ") references parent id " + proto.getParentId()
                            + ", which does not appear before it in the flattened field list; the schema is corrupt "
                            + "(parents must precede their children, top-level fields have parent id -1)");
                }
                parent.addChild(node);
            }
            firstById.putIfAbsent(proto.getId(), node);
        }
        List<LanceField> top = new ArrayList<>(roots.size());
        for (LanceField.Builder root : roots) {
            top.add(root.build());
        }
        return new LanceSchema(top, metadata);
    }

    /** {@link #fromProto(List, Map)} for the {@code lance.file.Schema} of a data file's FileDescriptor. */
    public static LanceSchema fromProto(lance.file.Schema schema) {
        return fromProto(schema.getFieldsList(), schema.getMetadataMap());
    }

    /** The flattened pre-order field list, as stored in {@code Manifest.fields}. */
    public List<lance.file.Field> toProto() {
        List<lance.file.Field> out = new ArrayList<>(allFields.size());
        for (LanceField f : fields) {
            f.flattenInto(out);
        }
        return out;
    }

    /** The {@code lance.file.Schema} message (fields + metadata) stored in data files. */
    public lance.file.Schema toProtoSchema() {
        return lance.file.Schema.newBuilder()
                .addAllFields(toProto())
                .putAllMetadata(rawMetadata)
                .build();
    }

    // ------------------------------------------------------------------------------------------
    // Arrow
    // ------------------------------------------------------------------------------------------

    /**
     * Converts an Arrow schema as Lance does when a table is created or columns are added:
     * fields keep an id given in metadata {@code lance:field_id}; all others get ids in pre-order
     * from {@code max(firstFieldId, largest explicit id + 1)} on. Use 0 for a new table, and
     * {@code table max field id + 1} (schema and data files) when adding columns.
     *
     * @throws UnsupportedTypeException if a field's type cannot be stored
     * @throws LanceSchemaException if the result is not a valid Lance schema (see {@link #validate()})
     */
    public static LanceSchema fromArrow(Schema arrowSchema, int firstFieldId) {
        List<LanceField.Builder> builders = new ArrayList<>();
        for (Field f : arrowSchema.getFields()) {
            builders.add(LanceField.builderFromArrow(f, FieldPaths.format(List.of(f.getName()))));
        }
        int maxExplicit = LanceField.UNASSIGNED_ID;
        for (LanceField.Builder b : builders) {
            maxExplicit = Math.max(maxExplicit, maxBuilderId(b));
        }
        int[] next = {Math.max(firstFieldId, maxExplicit + 1)};
        List<LanceField> top = new ArrayList<>(builders.size());
        for (LanceField.Builder b : builders) {
            assignIds(b, next);
            top.add(b.build());
        }
        Map<String, String> md = arrowSchema.getCustomMetadata() == null ? Map.of() : arrowSchema.getCustomMetadata();
        LanceSchema schema = new LanceSchema(top, encode(md));
        schema.validate();
        return schema;
    }

    /** The Arrow schema Lance presents for this schema (see {@link LanceField#toArrow()}). */
    public Schema toArrow() {
        List<Field> arrowFields = new ArrayList<>(fields.size());
        for (LanceField f : fields) {
            arrowFields.add(f.toArrow());
        }
        return new Schema(arrowFields, metadata());
    }

    // ------------------------------------------------------------------------------------------
    // ids
    // ------------------------------------------------------------------------------------------

    /**
     * This schema with every field whose id is negative given a new id, in pre-order, starting at
     * {@code max(firstFieldId, max existing id + 1)} (Lance's rule when fields are added).
     */
    public LanceSchema withAssignedIds(int firstFieldId) {
        int[] next = {Math.max(firstFieldId, maxFieldId() + 1)};
        List<LanceField> top = new ArrayList<>(fields.size());
        for (LanceField f : fields) {
            LanceField.Builder b = f.toBuilder();
            assignIds(b, next);
            top.add(b.build());
        }
        return new LanceSchema(top, rawMetadata);
    }

    private static void assignIds(LanceField.Builder b, int[] next) {
        if (b.id() < 0) {
            b.id(next[0]++);
        }
        List<Object> kids = b.childrenView();
        for (int i = 0; i < kids.size(); i++) {
            Object k = kids.get(i);
            LanceField.Builder kb = k instanceof LanceField ? ((LanceField) k).toBuilder() : (LanceField.Builder) k;
            assignIds(kb, next);
            kids.set(i, kb);
        }
    }

    private static int maxBuilderId(LanceField.Builder b) {
        int max = b.id();
        for (Object k : b.childrenView()) {
            max = Math.max(
                    max, k instanceof LanceField ? ((LanceField) k).maxId() : maxBuilderId((LanceField.Builder) k));
        }
        return max;
    }

    // ------------------------------------------------------------------------------------------
    // lookup
    // ------------------------------------------------------------------------------------------

    /** Top-level fields in order. */
    public List<LanceField> fields() {
        return fields;
    }

    /** Every field (all levels) in pre-order: the order of the flattened list. */
    public List<LanceField> allFields() {
        return allFields;
    }

    /** Fields without children, pre-order (the fields that own a column in 2.1+ files). */
    public List<LanceField> leafFields() {
        return allFields.stream().filter(LanceField::isLeaf).collect(Collectors.toUnmodifiableList());
    }

    /** All field ids in pre-order. */
    public int[] allFieldIds() {
        int[] ids = new int[allFields.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = allFields.get(i).id();
        }
        return ids;
    }

    /** The largest field id in the schema, or -1 when it is empty. */
    public int maxFieldId() {
        int max = -1;
        for (LanceField f : allFields) {
            max = Math.max(max, f.id());
        }
        return max;
    }

    /** The field with this id at any level. */
    public Optional<LanceField> fieldById(int id) {
        return Optional.ofNullable(byId.get(id));
    }

    /**
     * The field with this id at any level.
     *
     * @throws LanceSchemaException naming the id and the schema's ids if absent
     */
    public LanceField requireField(int id) {
        LanceField f = byId.get(id);
        if (f == null) {
            throw new LanceSchemaException("Field id " + id + " does not exist in schema with field ids "
                    + Arrays.toString(allFieldIds()) + "; the table or data file refers to a column the "
                    + "schema does not have");
        }
        return f;
    }

    /** The top-level field with this exact name. */
    public Optional<LanceField> fieldByName(String name) {
        for (LanceField f : fields) {
            if (f.name().equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** The field at a dotted path such as {@code a.b} or {@code `my.col`.x} (see {@link FieldPaths}). */
    public Optional<LanceField> fieldByPath(String dottedPath) {
        return fieldByPath(FieldPaths.parse(dottedPath));
    }

    /** The field at the given path components. */
    public Optional<LanceField> fieldByPath(List<String> components) {
        if (components.isEmpty()) {
            return Optional.empty();
        }
        Optional<LanceField> current = fieldByName(components.get(0));
        for (int i = 1; i < components.size() && current.isPresent(); i++) {
            current = current.get().child(components.get(i));
        }
        return current;
    }

    /** The parent of a field of this schema; empty for top-level fields. */
    public Optional<LanceField> parentOf(LanceField field) {
        if (field.path().size() <= 1) {
            return Optional.empty();
        }
        return fieldByPath(field.path().subList(0, field.path().size() - 1));
    }

    /** Schema metadata decoded as UTF-8. */
    public Map<String, String> metadata() {
        Map<String, String> out = new LinkedHashMap<>();
        rawMetadata.forEach((k, v) -> out.put(k, new String(v.toByteArray(), StandardCharsets.UTF_8)));
        return Collections.unmodifiableMap(out);
    }

    /** Schema metadata as stored. */
    public Map<String, ByteString> rawMetadata() {
        return rawMetadata;
    }

    /** The same fields with other (UTF-8) metadata. */
    public LanceSchema withMetadata(Map<String, String> metadata) {
        return new LanceSchema(fields, encode(metadata));
    }

    // ------------------------------------------------------------------------------------------
    // projection
    // ------------------------------------------------------------------------------------------

    /**
     * The sub-schema holding the given columns, ids kept, in schema order. A path naming a
     * nested field keeps its ancestors with only the selected children ({@code s.x} keeps struct
     * {@code s} with child {@code x}); a selected field keeps its whole subtree.
     *
     * @throws LanceSchemaException naming the first path that does not exist
     */
    public LanceSchema project(Collection<String> paths) {
        Set<Integer> ids = new LinkedHashSet<>();
        for (String p : paths) {
            LanceField f = fieldByPath(p)
                    .orElseThrow(() -> new LanceSchemaException("Cannot project column '" + p
                            + "': no such field; top-level fields are "
                            + fields.stream().map(LanceField::name).collect(Collectors.toList())));
            ids.add(f.id());
        }
        return projectIds(ids);
    }

    /**
     * The given top-level fields, whole, in the order asked for (e.g. the column order of a query),
     * ids kept.
     *
     * @throws LanceSchemaException naming the first name that is not a top-level field, or a
     *     name given twice
     */
    public LanceSchema select(List<String> topLevelNames) {
        List<LanceField> out = new ArrayList<>(topLevelNames.size());
        Set<String> seen = new HashSet<>();
        for (String name : topLevelNames) {
            if (!seen.add(name)) {
                throw new LanceSchemaException("Column '" + name + "' is selected twice");
            }
            out.add(fieldByName(name)
                    .orElseThrow(() -> new LanceSchemaException("Cannot select column '" + name
                            + "': no such top-level field; top-level fields are "
                            + fields.stream().map(LanceField::name).collect(Collectors.toList()))));
        }
        return new LanceSchema(out, rawMetadata);
    }

    /**
     * The sub-schema holding the fields with these ids, ids kept, in schema order; same rules as
     * {@link #project(Collection)}. Ids not in the schema are ignored (data files may list ids of
     * dropped columns).
     */
    public LanceSchema projectIds(Collection<Integer> ids) {
        Set<Integer> wanted = new HashSet<>(ids);
        List<LanceField> top = new ArrayList<>();
        for (LanceField f : fields) {
            LanceField p = projectField(f, wanted);
            if (p != null) {
                top.add(p);
            }
        }
        return new LanceSchema(top, rawMetadata);
    }

    /** {@link #projectIds(Collection)} for an id array. */
    public LanceSchema projectIds(int... ids) {
        List<Integer> list = new ArrayList<>(ids.length);
        for (int id : ids) {
            list.add(id);
        }
        return projectIds(list);
    }

    private static LanceField projectField(LanceField f, Set<Integer> wanted) {
        if (wanted.contains(f.id())) {
            return f;
        }
        List<LanceField> kept = new ArrayList<>();
        for (LanceField c : f.children()) {
            LanceField p = projectField(c, wanted);
            if (p != null) {
                kept.add(p);
            }
        }
        if (kept.isEmpty()) {
            return null;
        }
        if (kept.equals(f.children())) {
            return f;
        }
        LanceField.Builder b = f.toBuilder().clearChildren();
        kept.forEach(b::addChild);
        return b.build();
    }

    // ------------------------------------------------------------------------------------------
    // validation
    // ------------------------------------------------------------------------------------------

    /**
     * Checks the rules Lance enforces before it writes a schema: top-level names without
     * {@code '.'}; no duplicate names among siblings; ids non-negative and unique; every node's
     * children fit its type (one element for lists, maps and fixed-size lists of structs, none for
     * leaf types); logical types inside the grammar; primary key fields are leaves that are not
     * nullable, with non-nullable ancestors, not inside a list or map.
     *
     * @throws LanceSchemaException (or {@link UnsupportedTypeException}) describing the first violation
     */
    public void validate() {
        Set<String> topNames = new HashSet<>();
        for (LanceField f : fields) {
            if (f.name().indexOf('.') >= 0) {
                throw new LanceSchemaException("Top-level field '" + f.name() + "' contains '.', which Lance does "
                        + "not allow; rename it, or use a struct for nested fields");
            }
            if (!topNames.add(f.name())) {
                throw new LanceSchemaException("Duplicate top-level field name '" + f.name() + "'");
            }
        }
        Set<Integer> seen = new HashSet<>();
        for (LanceField f : allFields) {
            if (f.id() < 0) {
                throw new LanceSchemaException("Field '" + f.pathString() + "' has no field id (id " + f.id()
                        + "); assign ids with withAssignedIds(nextFieldId) before writing");
            }
            if (!seen.add(f.id())) {
                throw new LanceSchemaException("Field id " + f.id() + " is used twice (second time by '"
                        + f.pathString() + "'); field ids must be unique");
            }
            Set<String> childNames = new HashSet<>();
            for (LanceField c : f.children()) {
                if (!childNames.add(c.name())) {
                    throw new LanceSchemaException(
                            "Field '" + f.pathString() + "' has two children named '" + c.name() + "'");
                }
            }
            checkShape(f);
        }
        for (LanceField f : allFields) {
            if (f.isUnenforcedPrimaryKey()) {
                checkPrimaryKey(f);
            }
        }
    }

    private static void checkShape(LanceField f) {
        int n = f.children().size();
        switch (f.shape()) {
            case LIST:
            case LARGE_LIST:
            case MAP:
            case FIXED_SIZE_LIST_STRUCT:
                if (n != 1) {
                    throw new LanceSchemaException("Field '" + f.pathString() + "' of type '" + f.logicalType()
                            + "' must have exactly one child field, found " + n);
                }
                LanceField child = f.children().get(0);
                boolean structChild = child.isStruct();
                boolean wantStruct = f.logicalType().endsWith(".struct")
                        || f.isMap()
                        || f.shape() == LogicalTypes.Shape.FIXED_SIZE_LIST_STRUCT;
                if (wantStruct && !structChild) {
                    throw new LanceSchemaException("Field '" + f.pathString() + "' of type '" + f.logicalType()
                            + "' needs a struct child, found '" + child.logicalType() + "'");
                }
                if (!wantStruct && structChild) {
                    throw new LanceSchemaException("Field '" + f.pathString() + "' has a struct element, so its type "
                            + "must be '" + f.logicalType() + ".struct', not '" + f.logicalType() + "'");
                }
                if (f.isMap()
                        && (child.children().size() < 2
                                || child.children().get(0).nullable())) {
                    throw new LanceSchemaException("Map field '" + f.pathString() + "' needs an entries struct with a "
                            + "non-nullable key and a value");
                }
                break;
            case LEAF:
                if (n != 0) {
                    throw new LanceSchemaException("Field '" + f.pathString() + "' of type '" + f.logicalType()
                            + "' cannot have child fields, found " + n);
                }
                f.arrowType();
                break;
            case STRUCT:
            default:
                break;
        }
    }

    private void checkPrimaryKey(LanceField pk) {
        if (!pk.isLeaf()) {
            throw new LanceSchemaException("Primary key field '" + pk.pathString() + "' must be a leaf field");
        }
        for (int i = 1; i <= pk.path().size(); i++) {
            LanceField node = fieldByPath(pk.path().subList(0, i)).orElseThrow();
            if (node.nullable()) {
                throw new LanceSchemaException("Primary key field '" + pk.pathString() + "' and all its ancestors "
                        + "must be non-nullable, but '" + node.pathString() + "' is nullable");
            }
            if (node != pk && (node.isList() || node.isMap())) {
                throw new LanceSchemaException("Primary key field '" + pk.pathString() + "' must not be inside a "
                        + "list or map ('" + node.pathString() + "' is " + node.logicalType() + ")");
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Object
    // ------------------------------------------------------------------------------------------

    private static Map<String, ByteString> encode(Map<String, String> metadata) {
        Map<String, ByteString> out = new LinkedHashMap<>();
        metadata.forEach((k, v) -> out.put(k, ByteString.copyFromUtf8(v)));
        return out;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LanceSchema)) {
            return false;
        }
        LanceSchema s = (LanceSchema) o;
        return fields.equals(s.fields) && rawMetadata.equals(s.rawMetadata);
    }

    @Override
    public int hashCode() {
        return fields.hashCode() * 31 + rawMetadata.hashCode();
    }

    @Override
    public String toString() {
        return "LanceSchema" + fields;
    }
}
