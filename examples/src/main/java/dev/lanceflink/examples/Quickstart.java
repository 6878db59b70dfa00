package dev.lanceflink.examples;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The quickstart: creates the {@code users} table of the overlay spec's worked example in a local
 * directory, updates two ages with a data overlay file (only the changed cells are written),
 * appends, deletes, and prints the table after each step. Run it with
 * {@code examples/quickstart.sh}, which then shows the table with {@code bin/lance-flink}.
 *
 * <p>Usage: {@code Quickstart [table-directory]} (default {@code quickstart-data/users.lance}).
 */
public final class Quickstart {
    private static final Schema USERS = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
            new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field(
                    "embedding",
                    FieldType.nullable(new ArrowType.FixedSizeList(4)),
                    List.of(new Field(
                            "item",
                            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                            null)))));

    private Quickstart() {}

    public static void main(String[] args) throws Exception {
        Path table = Path.of(args.length > 0 ? args[0] : "quickstart-data/users.lance")
                .toAbsolutePath();
        if (Files.exists(table)) {
            try (var walk = Files.walk(table)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        String uri = table.toString();
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot first = users(
                            allocator,
                            new int[] {1, 2, 3, 4},
                            new String[] {"Alice", "Bob", "Carol", "Dan"},
                            new int[] {30, 25, 40, 22});
                    Dataset created =
                            Dataset.write(uri, Map.of(), List.of(first), USERS, WriteParams.of(WriteMode.CREATE))) {
                show("created", created);
                Dataset v1 = addOneYear(created, allocator, "id IN (2, 4)");
                show("UPDATE users SET age = age + 1 WHERE id IN (2, 4) -- one overlay file", v1);
                try (VectorSchemaRoot more =
                        users(allocator, new int[] {5, 6}, new String[] {"Eve", null}, new int[] {35, 28})) {
                    Dataset v2 = v1.append(List.of(more), WriteParams.of(WriteMode.APPEND));
                    show("appended 2 users", v2);
                    Dataset v3 = v2.delete("name IS NULL OR age > 38");
                    show("deleted users with no name or older than 38", v3);
                }
            }
        }
        System.out.println("table written to " + uri);
        StreamingQuickstart.main(
                new String[] {table.resolveSibling("events.lance").toString()});
        UpsertStreamExample.main(
                new String[] {table.resolveSibling("accounts.lance").toString()});
    }

    private static VectorSchemaRoot users(BufferAllocator allocator, int[] ids, String[] names, int[] ages) {
        VectorSchemaRoot root = VectorSchemaRoot.create(USERS, allocator);
        IntVector id = (IntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        IntVector age = (IntVector) root.getVector("age");
        FixedSizeListVector embedding = (FixedSizeListVector) root.getVector("embedding");
        Float4Vector items = (Float4Vector) embedding.getDataVector();
        for (int i = 0; i < ids.length; i++) {
            id.setSafe(i, ids[i]);
            if (names[i] == null) {
                name.setNull(i);
            } else {
                name.setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
            }
            age.setSafe(i, ages[i]);
            embedding.setNotNull(i);
            for (int j = 0; j < 4; j++) {
                items.setSafe(i * 4 + j, ids[i] + j / 10f);
            }
        }
        root.setRowCount(ids.length);
        return root;
    }

    /** Adds one to {@code age} of the rows matching {@code filter}, as a data overlay commit. */
    private static Dataset addOneYear(Dataset ds, BufferAllocator allocator, String filter) throws Exception {
        List<Long> addresses = new ArrayList<>();
        List<Integer> ages = new ArrayList<>();
        try (Scanner s = ds.scan(
                ScanOptions.all().withColumns(List.of("age")).withFilter(filter).withRowAddress(true))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    IntVector age = (IntVector) b.getVector("age");
                    UInt8Vector addr = (UInt8Vector) b.getVector(ScanOptions.ROW_ADDRESS);
                    for (int r = 0; r < b.getRowCount(); r++) {
                        addresses.add(addr.get(r));
                        ages.add(age.get(r) + 1);
                    }
                }
            }
        }
        Schema ageOnly = new Schema(List.of(USERS.findField("age")));
        try (VectorSchemaRoot values = VectorSchemaRoot.create(ageOnly, allocator)) {
            IntVector age = (IntVector) values.getVector("age");
            for (int i = 0; i < ages.size(); i++) {
                age.setSafe(i, ages.get(i));
            }
            values.setRowCount(ages.size());
            return ds.update(addresses.stream().mapToLong(Long::longValue).toArray(), values);
        }
    }

    private static void show(String step, Dataset ds) throws Exception {
        System.out.println("== version " + ds.version() + ": " + step + " (" + ds.countRows() + " rows)");
        System.out.println("id\tname\tage");
        try (Scanner s = ds.scan(ScanOptions.all().withColumns(List.of("id", "name", "age")))) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    for (int r = 0; r < b.getRowCount(); r++) {
                        System.out.println(b.getVector(0).getObject(r) + "\t"
                                + b.getVector(1).getObject(r) + "\t"
                                + b.getVector(2).getObject(r));
                    }
                }
            }
        }
    }
}
