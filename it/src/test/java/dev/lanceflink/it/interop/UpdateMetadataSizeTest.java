package dev.lanceflink.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.table.OverlayCoverage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one small UPDATE writes besides its data (issue #17, "metadata per small update"): 1,000
 * cells of {@code age} on a 1M-row table, once at random offsets and once at contiguous ones,
 * written by us and by pylance 14 ({@code pylance/overlay_update_sizes.py}) on tables of the same
 * rows, file version 2.1. Prints the overlay data, transaction file and manifest bytes of each, and
 * checks that ours are no larger than pylance's (a 10% margin). A regression check: the figures
 * in the README come from its output.
 *
 * <p>Lance keeps an overlay's coverage (a Roaring bitmap of its offsets) in three places: the
 * fragment's overlay entry in the manifest, the transaction the manifest embeds, and the
 * transaction file. For 1,000 random offsets of a million that bitmap is about 2 KB, more than
 * the 1,000 values; for contiguous offsets it is a few bytes.
 */
class UpdateMetadataSizeTest {

    private static final int ROWS = 1_000_000;
    private static final int CELLS = 1_000;
    private static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("id", new ArrowType.Int(64, true)), Field.nullable("age", new ArrowType.Int(32, true))));

    @TempDir
    Path dir;

    record Sizes(long data, long transaction, long manifest, long manifestBefore) {
        long metadata() {
            return transaction + manifest;
        }

        static Sizes of(JsonNode n) {
            return new Sizes(
                    n.get("overlay_data_bytes").asLong(),
                    n.get("transaction_bytes").asLong(),
                    n.get("manifest_bytes").asLong(),
                    n.get("manifest_bytes_before").asLong());
        }
    }

    @ParameterizedTest(name = "{0} offsets")
    @ValueSource(strings = {"random", "contiguous"})
    void ourSmallUpdateWritesNoMoreThanPylances(String shape) throws Exception {
        long[] offsets = "random".equals(shape)
                ? new Random(17).longs(0, ROWS).distinct().limit(CELLS).sorted().toArray()
                : LongStream.range(400_000, 400_000 + CELLS).toArray();
        Sizes ours = ours(offsets);
        Sizes pylance = pylance(offsets);
        System.out.printf(
                "1,000-cell UPDATE (%s offsets) on a 1M-row table, 2.1: overlay data / transaction file /"
                        + " manifest (before) bytes: ours %d / %d / %d (%d), pylance %d / %d / %d (%d); metadata per"
                        + " overlay data byte: ours %.2f, pylance %.2f%n",
                shape,
                ours.data(),
                ours.transaction(),
                ours.manifest(),
                ours.manifestBefore(),
                pylance.data(),
                pylance.transaction(),
                pylance.manifest(),
                pylance.manifestBefore(),
                (double) ours.metadata() / ours.data(),
                (double) pylance.metadata() / pylance.data());
        if (shape.equals("contiguous")) {
            assertThat(cookie(dir.resolve("pylance.lance")))
                    .as("pylance's coverage of a run of offsets: run containers")
                    .isEqualTo(12347);
            assertThat(cookie(dir.resolve("ours.lance"))).as("ours, the same").isEqualTo(12347);
        }
        assertThat(ours.data())
                .as("overlay data bytes, ours vs pylance's")
                .isLessThanOrEqualTo(pylance.data() * 11 / 10);
        assertThat(ours.metadata())
                .as("transaction + manifest bytes, ours vs pylance's")
                .isLessThanOrEqualTo(pylance.metadata() * 11 / 10);
    }

    private Sizes ours(long[] offsets) throws IOException {
        Path table = dir.resolve("ours.lance");
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot rows = VectorSchemaRoot.create(SCHEMA, allocator)) {
                BigIntVector id = (BigIntVector) rows.getVector(0);
                IntVector age = (IntVector) rows.getVector(1);
                for (int i = 0; i < ROWS; i++) {
                    id.setSafe(i, i);
                    age.setSafe(i, i % 90);
                }
                rows.setRowCount(ROWS);
                Dataset.write(
                                table.toString(),
                                Map.of(),
                                List.of(rows),
                                SCHEMA,
                                WriteParams.of(WriteMode.CREATE).withFileVersion(FileVersion.V2_1))
                        .close();
            }
            Map<String, Long> before = files(table);
            Schema ageOnly = new Schema(List.of(SCHEMA.getFields().get(1)));
            try (Dataset ds = Dataset.open(table.toString(), Map.of());
                    VectorSchemaRoot values = VectorSchemaRoot.create(ageOnly, allocator)) {
                IntVector age = (IntVector) values.getVector(0);
                for (int i = 0; i < offsets.length; i++) {
                    age.setSafe(i, 100 + i % 50);
                }
                values.setRowCount(offsets.length);
                ds.update(offsets, values).close(); // fragment 0: row address = offset
            }
            Map<String, Long> after = files(table);
            after.keySet().removeAll(before.keySet());
            return new Sizes(
                    sum(after, "data/"), sum(after, "_transactions/"), sumManifests(after), sumManifests(before));
        }
    }

    private Sizes pylance(long[] offsets) throws IOException {
        Path list = dir.resolve("offsets.txt");
        Files.writeString(list, LongStream.of(offsets).mapToObj(Long::toString).collect(Collectors.joining("\n")));
        PylanceOracle.Output out = PylanceOracle.fromBuild()
                .withOverlays()
                .runPython(
                        Path.of("pylance/overlay_update_sizes.py").toAbsolutePath(),
                        List.of(
                                dir.resolve("pylance.lance").toString(),
                                Integer.toString(ROWS),
                                "2.1",
                                list.toString()));
        assertThat(out.exitCode()).as(out.stderr()).isZero();
        return Sizes.of(DumpComparator.MAPPER.readTree(out.stdout()));
    }

    /** The Roaring cookie (low 16 bits) of the coverage of fragment 0's overlay in the latest version. */
    private static int cookie(Path table) throws IOException {
        try (Dataset ds = Dataset.open(table.toString(), Map.of())) {
            OverlayCoverage c =
                    ds.manifest().fragments().get(0).overlays().get(0).coverage();
            byte[] bytes = ((OverlayCoverage.Dense) c).sharedOffsetBitmap();
            return (bytes[0] & 0xff) | (bytes[1] & 0xff) << 8;
        }
    }

    private static Map<String, Long> files(Path root) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(p).toString(), Files.size(p));
            }
        }
        return out;
    }

    private static long sum(Map<String, Long> files, String prefix) {
        return files.entrySet().stream()
                .filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    private static long sumManifests(Map<String, Long> files) {
        return files.entrySet().stream()
                .filter(e -> e.getKey().endsWith(".manifest"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
