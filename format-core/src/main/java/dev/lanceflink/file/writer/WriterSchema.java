package dev.lanceflink.file.writer;

import dev.lanceflink.schema.LanceField;
import dev.lanceflink.schema.LanceSchema;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/** Converts a {@link LanceSchema} into the writer's field tree, refusing what it cannot store. */
final class WriterSchema {
    private WriterSchema() {}

    static List<WriterField> topLevel(LanceSchema schema) {
        List<WriterField> out = new ArrayList<>();
        for (LanceField f : schema.fields()) {
            out.add(convert(f));
        }
        return out;
    }

    private static WriterField convert(LanceField f) {
        if (f.id() < 0) {
            throw new IllegalArgumentException("field '" + f.pathString() + "' has no field id; assign ids"
                    + " (LanceSchema.withAssignedIds) before writing a data file");
        }
        if (f.isPackedStruct()) {
            throw new IllegalArgumentException("field '" + f.pathString() + "' (id " + f.id() + ") is a packed struct"
                    + " (metadata 'lance-encoding:packed'); the writer does not produce packed structs."
                    + " Remove the metadata to store it as a normal struct.");
        }
        String blob = f.metadata().get("lance-encoding:blob");
        if (blob != null && !blob.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("field '" + f.pathString() + "' (id " + f.id() + ") is a blob column"
                    + " ('lance-encoding:blob'); the writer does not produce blob layouts");
        }
        Field arrow = f.toArrow();
        if (arrow.getDictionary() != null) {
            throw new IllegalArgumentException("field '" + f.pathString() + "' (id " + f.id() + ") is dictionary"
                    + " encoded (" + f.logicalType() + "); write the decoded values instead");
        }
        List<WriterField> children = new ArrayList<>();
        for (LanceField c : f.children()) {
            children.add(convert(c));
        }
        return WriterField.of(f.id(), arrow, children);
    }
}
