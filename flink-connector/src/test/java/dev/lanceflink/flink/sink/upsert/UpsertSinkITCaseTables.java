package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The {@code (id, name, age, score)} test table of the upsert ITCases: created from model rows, compared to the model. */
final class UpsertSinkITCaseTables {
    private UpsertSinkITCaseTables() {}

    static void create(String uri, Map<Long, ChangelogModel.Row> rows, long rowsPerFile) throws Exception {
        create(uri, Map.of(), rows, rowsPerFile);
    }

    static void create(String uri, Map<String, String> storage, Map<Long, ChangelogModel.Row> rows, long rowsPerFile)
            throws Exception {
        try (BufferAllocator a = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(UpsertSinkITCase.SCHEMA, a)) {
            int n = rows.size();
            root.allocateNew();
            int i = 0;
            for (Map.Entry<Long, ChangelogModel.Row> e : rows.entrySet()) {
                ((BigIntVector) root.getVector("id")).setSafe(i, e.getKey());
                ChangelogModel.Row r = e.getValue();
                if (r.name() == null) {
                    ((VarCharVector) root.getVector("name")).setNull(i);
                } else {
                    ((VarCharVector) root.getVector("name")).setSafe(i, r.name().getBytes(StandardCharsets.UTF_8));
                }
                if (r.age() == null) {
                    ((IntVector) root.getVector("age")).setNull(i);
                } else {
                    ((IntVector) root.getVector("age")).setSafe(i, r.age());
                }
                if (r.score() == null) {
                    ((Float8Vector) root.getVector("score")).setNull(i);
                } else {
                    ((Float8Vector) root.getVector("score")).setSafe(i, r.score());
                }
                i++;
            }
            root.setRowCount(n);
            WriteParams p = WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(Math.max(1, rowsPerFile));
            Dataset.write(uri, storage, List.of(root), UpsertSinkITCase.SCHEMA, p).close();
        }
    }

    /** Every row of the latest version equals the model's, cell by cell; no key twice, none missing. */
    static void assertTableEquals(String uri, Map<String, String> storage, TreeMap<Long, ChangelogModel.Row> expected)
            throws Exception {
        TreeMap<Long, ChangelogModel.Row> actual = new TreeMap<>();
        try (Dataset ds = Dataset.open(uri, storage); Scanner s = ds.scan(ScanOptions.all())) {
            while (s.hasNext()) {
                try (VectorSchemaRoot b = s.next()) {
                    BigIntVector id = (BigIntVector) b.getVector("id");
                    VarCharVector name = (VarCharVector) b.getVector("name");
                    IntVector age = (IntVector) b.getVector("age");
                    Float8Vector score = (Float8Vector) b.getVector("score");
                    for (int i = 0; i < b.getRowCount(); i++) {
                        ChangelogModel.Row row = new ChangelogModel.Row(
                                name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8),
                                age.isNull(i) ? null : age.get(i), score.isNull(i) ? null : score.get(i));
                        assertThat(actual.put(id.get(i), row)).as("duplicate key %s", id.get(i)).isNull();
                    }
                }
            }
        }
        List<String> diffs = new ArrayList<>();
        for (Map.Entry<Long, ChangelogModel.Row> e : expected.entrySet()) {
            ChangelogModel.Row got = actual.get(e.getKey());
            if (!ChangelogModel.same(got, e.getValue()) && diffs.size() < 20) {
                diffs.add("id " + e.getKey() + ": expected " + e.getValue() + " got " + got);
            }
        }
        for (Long id : actual.keySet()) {
            if (!expected.containsKey(id) && diffs.size() < 20) {
                diffs.add("id " + id + ": expected no row, got " + actual.get(id));
            }
        }
        assertThat(diffs).as("cells differing from the model").isEmpty();
        assertThat(actual).hasSameSizeAs(expected);
    }
}
