package dev.lanceflink.flink.catalog;

import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.LanceTypeMapping;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * The Flink view of a Lance schema, as the catalog shows a table (the other direction, and what a
 * new table is created with, is {@link CatalogSchemas}; a class of its own because the two sides
 * each have their {@code Schema}).
 *
 * @param schema columns (those Flink can read) and the primary key
 * @param vectorDimensions {@code 'vector-dimensions'} for the fixed-size list columns, or empty
 * @param unreadable columns left out because Flink has no type for them, with the reason
 */
record FlinkView(Schema schema, String vectorDimensions, Map<String, String> unreadable) {

    /** The Flink view of {@code lance}. */
    static FlinkView of(LanceSchema lance) {
        Schema.Builder builder = Schema.newBuilder();
        Map<String, String> unreadable = new LinkedHashMap<>();
        Map<String, Integer> dims = new LinkedHashMap<>();
        List<LanceField> keyFields = new ArrayList<>();
        for (LanceField f : lance.fields()) {
            Field arrow = f.toArrow();
            LogicalType type;
            try {
                type = LanceTypeMapping.toLogicalType(f.name(), arrow);
            } catch (LanceTypeException e) {
                unreadable.put(f.name(), e.getMessage());
                continue;
            }
            builder.column(f.name(), TypeConversions.fromLogicalToDataType(type));
            collectDimensions(f.name(), arrow, dims);
            if (f.isUnenforcedPrimaryKey()) {
                keyFields.add(f);
            }
        }
        if (!keyFields.isEmpty()) {
            // Key order: the 1-based position; fields in the key without a position (0) follow, by field id.
            keyFields.sort(Comparator.comparingInt((LanceField f) -> f.unenforcedPrimaryKeyPosition() == 0
                            ? Integer.MAX_VALUE
                            : f.unenforcedPrimaryKeyPosition())
                    .thenComparingInt(LanceField::id));
            List<String> names = keyFields.stream().map(LanceField::name).toList();
            builder.primaryKeyNamed("PK_" + String.join("_", names), names);
        }
        String dimensionOption = dims.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
        return new FlinkView(builder.build(), dimensionOption, unreadable);
    }

    /** Paths as {@link LanceTypeMapping} names them: {@code a.b} for struct fields, {@code .item} for list elements. */
    private static void collectDimensions(String path, Field field, Map<String, Integer> out) {
        ArrowType type = field.getType();
        if (type instanceof ArrowType.FixedSizeList fsl) {
            out.put(path, fsl.getListSize());
        }
        if (type instanceof ArrowType.Map) {
            Field entries = field.getChildren().get(0);
            for (Field kv : entries.getChildren()) {
                collectDimensions(path + "." + kv.getName(), kv, out);
            }
            return;
        }
        for (Field child : field.getChildren()) {
            String childPath = type instanceof ArrowType.Struct
                    ? path + "." + child.getName()
                    : path + "." + LanceTypeMapping.LIST_ELEMENT_NAME;
            collectDimensions(childPath, child, out);
        }
    }
}
