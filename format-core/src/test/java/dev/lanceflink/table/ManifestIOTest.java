package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.LocalObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ManifestIOTest {

    static String[] fixtures() {
        return Fixtures.NAMES;
    }

    private static Path manifestFile(String fixture) throws Exception {
        try (var s = Files.list(Fixtures.dataset(fixture).resolve("_versions"))) {
            return s.filter(p -> p.toString().endsWith(".manifest")).findFirst().orElseThrow();
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyFixtureManifestParsesAndReserializesByteIdentically(String fixture) throws Exception {
        Path file = manifestFile(fixture);
        byte[] bytes = Files.readAllBytes(file);
        Manifest m = ManifestIO.parse(bytes, file.toString());

        assertThat(m.version()).isEqualTo(1);
        assertThat(m.fragments()).hasSize(1);
        Fragment f = m.fragments().get(0);
        assertThat(f.id()).isZero();
        assertThat(f.files()).hasSize(1);
        assertThat(f.files().get(0).path()).endsWith(".lance").doesNotContain("/");
        assertThat(f.deletionFile()).isNull();
        assertThat(m.maxFragmentId()).isEqualTo(OptionalLong.of(0));
        assertThat(m.writerVersion()).isEqualTo(new WriterVersion("lance", "7.0.0", null, null));
        String version = fixture.substring(1, 2) + "." + fixture.substring(2, 3);
        assertThat(m.dataFormat()).isEqualTo(DataStorageFormat.lance(version));
        assertThat(f.files().get(0).fileMajorVersion()).isEqualTo(2);
        assertThat(f.files().get(0).fileMinorVersion()).isEqualTo(Integer.parseInt(fixture.substring(2, 3)));
        assertThat(m.hasIndexSection()).isFalse();
        assertThat(m.inlineTransaction()).isPresent();
        try (var txns = Files.list(Fixtures.dataset(fixture).resolve("_transactions"))) {
            assertThat(m.transactionFile())
                    .isEqualTo(txns.findFirst().orElseThrow().getFileName().toString());
        }
        assertThat(m.readerFeatureFlags()).isZero();
        assertThat(m.writerFeatureFlags()).isZero();
        assertThat(m.timestamp()).isAfter(Instant.parse("2020-01-01T00:00:00Z"));

        assertThat(ManifestIO.serialize(m)).isEqualTo(bytes);
    }

    @Test
    void lanceWrittenManifestWithDeletionFilesRoundTrips() throws Exception {
        byte[] bytes;
        try (var in = ManifestIOTest.class.getResourceAsStream("lance-7.0.0-delete-v5.manifest")) {
            bytes = in.readAllBytes();
        }
        Manifest m = ManifestIO.parse(bytes, "lance-7.0.0-delete-v5.manifest");
        assertThat(m.version()).isEqualTo(5);
        assertThat(m.readerFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        assertThat(m.writerFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        assertThat(m.fragments()).hasSize(2);
        DeletionFile d0 = m.fragments().get(0).deletionFile();
        DeletionFile d1 = m.fragments().get(1).deletionFile();
        assertThat(d0.fileName(0)).isEqualTo("0-4-15489868017238274129.arrow");
        assertThat(d0.numDeletedRows()).isEqualTo(13);
        assertThat(d1.fileName(1)).isEqualTo("1-4-6598878104229110398.bin");
        assertThat(d1.type()).isEqualTo(DeletionFileType.BITMAP);
        assertThat(m.countLiveRows()).isEqualTo(1975);
        assertThat(m.maxFragmentId()).isEqualTo(OptionalLong.of(1));
        assertThat(ManifestIO.serialize(m)).isEqualTo(bytes);
    }

    @Test
    void readThroughStoreMatchesParse() throws Exception {
        Path root = Fixtures.dataset("v21_default_table");
        LocalObjectStore store = new LocalObjectStore(root);
        ManifestLocation loc = VersionResolver.latest(store);
        assertThat(loc)
                .isEqualTo(new ManifestLocation(
                        1,
                        ManifestNamingScheme.V2,
                        "_versions/18446744073709551614.manifest",
                        Files.size(manifestFile("v21_default_table"))));
        Manifest m = ManifestIO.read(store, loc);
        assertThat(m.fragments().get(0).physicalRows()).isEqualTo(1000);
        assertThat(m.schemaFields())
                .extracting(lance.file.Field::getName)
                .containsExactly("id", "name", "age", "score", "embedding");
        assertThat(ManifestIO.serialize(m)).isEqualTo(Files.readAllBytes(manifestFile("v21_default_table")));
    }

    /** A manifest using most fields; also written to a store by {@link ManifestStoreSuite}. */
    static Manifest richManifest() {
        DataFile base = new DataFile("a.lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 1234);
        DataFile ov = new DataFile("o.lance", new int[] {1}, new int[] {0}, 2, 1, 99, OptionalInt.of(3));
        Fragment f = new Fragment(
                7,
                List.of(base),
                new DeletionFile(DeletionFileType.BITMAP, 5, -2L, 3, OptionalInt.empty()),
                100,
                new RowIdMeta(
                        new SequenceSource.Inline(new byte[] {1, 2}), null, new SequenceSource.External("x.bin", 4, 8)),
                List.of(new DataOverlayFile(
                        ov, OverlayCoverage.Dense.of(org.roaringbitmap.RoaringBitmap.bitmapOf(1, 5)), 6)));
        return Manifest.builder()
                .version(9)
                .fragments(List.of(f))
                .maxFragmentId(OptionalLong.of(7))
                .tag("t")
                .readerFeatureFlags(1 | 64)
                .writerFeatureFlags(1 | 8 | 64)
                .config(Map.of("k", "v"))
                .tableMetadata(Map.of("flink.checkpoint-id", "12"))
                .basePaths(List.of(new BasePath(3, null, false, "s3://b/p")))
                .writerVersion(WriterVersion.thisLibrary())
                .dataFormat(DataStorageFormat.lance("2.1"))
                .timestamp(Instant.ofEpochSecond(1_700_000_000L, 123))
                .nextRowId(5)
                .writeIndexSection(true)
                .inlineTransaction(new byte[] {8, 1})
                .build();
    }

    @Test
    void roundTripsEveryModelField() throws Exception {
        Manifest m = richManifest();
        byte[] bytes = ManifestIO.serialize(m);
        Manifest back = ManifestIO.parse(bytes, "mem");
        assertThat(back.fragments()).isEqualTo(m.fragments());
        assertThat(back.hasIndexSection()).isTrue();
        assertThat(back.inlineTransaction())
                .hasValueSatisfying(t -> assertThat(t).containsExactly(8, 1));
        assertThat(back.timestamp()).isEqualTo(m.timestamp());
        assertThat(back.basePaths()).isEqualTo(m.basePaths());
        assertThat(back.config()).isEqualTo(m.config());
        assertThat(back.tableMetadata()).isEqualTo(m.tableMetadata());
        assertThat(back.writerVersion()).isEqualTo(new WriterVersion("lance-flink", "0.1.0", "SNAPSHOT", null));
        assertThat(back.fragments().get(0).deletionFile().fileName(7)).isEqualTo("7-5-18446744073709551614.bin");
        assertThat(ManifestIO.serialize(back)).isEqualTo(bytes);
        // layout: empty index section blob first (4-byte length 0), then the transaction blob
        assertThat(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(0))
                .isZero();
        assertThat(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(4))
                .isEqualTo(2);
    }

    @Test
    void overlaysAreStableSortedByCommittedVersionOnLoad() throws Exception {
        DataFile d = new DataFile("o.lance", new int[] {1}, new int[] {0}, 2, 1, 9);
        var cov = OverlayCoverage.Dense.of(org.roaringbitmap.RoaringBitmap.bitmapOf(1));
        DataOverlayFile a = new DataOverlayFile(d, cov, 8);
        DataOverlayFile b = new DataOverlayFile(new DataFile("b.lance", new int[] {1}, new int[] {0}, 2, 1, 9), cov, 5);
        DataOverlayFile c = new DataOverlayFile(new DataFile("c.lance", new int[] {1}, new int[] {0}, 2, 1, 9), cov, 5);
        Fragment f = new Fragment(0, List.of(), null, 10, RowIdMeta.NONE, List.of(a, b, c));
        Fragment loaded = TableProtoCodec.fragment(TableProtoCodec.toProto(f), "test");
        assertThat(loaded.overlays()).containsExactly(b, c, a);
        assertThatThrownBy(f::checkOverlayOrder)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("overlay files must be stored newest-last, but committed_version 8 precedes 5")
                .hasMessageContaining("fragment 0, overlay 1: b.lance");
    }

    @Test
    void rejectsBadMagic() throws Exception {
        byte[] bytes = Files.readAllBytes(manifestFile("v21_ints"));
        bytes[bytes.length - 1] = 'X';
        assertThatThrownBy(() -> ManifestIO.parse(bytes, "bad.manifest"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("bad.manifest does not end with the magic \"LANC\" (found 4c414e58");
    }

    @Test
    void rejectsTruncatedFile() throws Exception {
        byte[] bytes = Files.readAllBytes(manifestFile("v21_ints"));
        byte[] cut = java.util.Arrays.copyOf(bytes, bytes.length - 20);
        assertThatThrownBy(() -> ManifestIO.parse(cut, "cut.manifest"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("cut.manifest");
        assertThatThrownBy(() -> ManifestIO.parse(new byte[10], "tiny.manifest"))
                .hasMessageContaining("tiny.manifest is 10 bytes, too short");
    }

    @Test
    void rejectsPositionOutsideFileAndLengthMismatch() throws Exception {
        byte[] bytes = Files.readAllBytes(manifestFile("v21_ints"));
        byte[] far = bytes.clone();
        ByteBuffer.wrap(far).order(ByteOrder.LITTLE_ENDIAN).putLong(far.length - 16, 1_000_000);
        assertThatThrownBy(() -> ManifestIO.parse(far, "far.manifest"))
                .hasMessageContaining("the trailer points to offset 1000000 for the manifest blob, outside the "
                        + far.length + "-byte file");
        byte[] off = bytes.clone();
        ByteBuffer.wrap(off).order(ByteOrder.LITTLE_ENDIAN).putLong(off.length - 16, 0);
        assertThatThrownBy(() -> ManifestIO.parse(off, "off.manifest"))
                .hasMessageContaining("the manifest blob at offset 0 declares");
    }

    @Test
    void rejectsUnparsableProtobuf() throws Exception {
        byte[] body = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
        ByteBuffer b = ByteBuffer.allocate(4 + body.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(body.length)
                .put(body)
                .putLong(0)
                .putShort((short) 0)
                .putShort((short) 2)
                .put("LANC".getBytes());
        assertThatThrownBy(() -> ManifestIO.parse(b.array(), "garbage.manifest"))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("garbage.manifest: the 5-byte blob at offset 0 is not a valid Manifest protobuf");
    }
}
