package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import lance.table.Manifest;
import lance.table.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks the table-format protobuf definitions against files written by Lance 7.0.0: every
 * manifest and transaction decodes without a single unknown field at any depth (a wrong number
 * or wire type would leave one), the inline transaction equals the {@code .txn} file, and the
 * values land in the fields the spec names.
 */
class TableProtosFixtureTest {

    static Stream<String> fixtures() throws Exception {
        return LanceSchemaFixtureTest.fixtures();
    }

    private static Path fixtureDir(String fixture) throws Exception {
        URL url = TableProtosFixtureTest.class.getResource("/fixtures/lance-7.0.0/" + fixture + ".lance");
        return Paths.get(url.toURI());
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void manifestAndTransactionDecodeCompletely(String fixture) throws Exception {
        Path dir = fixtureDir(fixture);
        Path manifestFile;
        try (Stream<Path> files = Files.list(dir.resolve("_versions"))) {
            manifestFile = files.filter(p -> p.toString().endsWith(".manifest"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(manifestFile);
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(le.getShort(bytes.length - 8)).isZero();
        assertThat(le.getShort(bytes.length - 6)).isEqualTo((short) 2);
        Manifest manifest = LanceSchemaFixtureTest.readManifest(fixture);
        assertThat(unknownFieldPaths(manifest, "Manifest")).isEmpty();

        assertThat(manifest.getVersion()).isEqualTo(1);
        assertThat(manifest.hasTransactionSection()).isTrue();
        assertThat(manifest.getTransactionSection()).isZero();
        assertThat(manifest.hasMaxFragmentId()).isTrue();
        assertThat(manifest.getMaxFragmentId()).isZero();
        assertThat(manifest.hasIndexSection()).isFalse();
        assertThat(manifest.getWriterVersion().getLibrary()).isEqualTo("lance");
        assertThat(manifest.getWriterVersion().getVersion()).isEqualTo("7.0.0");
        assertThat(manifest.getDataFormat().getFileFormat()).isEqualTo("lance");
        assertThat(manifest.getDataFormat().getVersion()).isEqualTo(fixture.charAt(1) + "." + fixture.charAt(2));
        assertThat(manifest.getFragmentsList()).singleElement().satisfies(fragment -> {
            assertThat(fragment.getId()).isZero();
            assertThat(fragment.getPhysicalRows()).isPositive();
            assertThat(fragment.getFilesList()).singleElement().satisfies(file -> {
                assertThat(Files.size(dir.resolve("data").resolve(file.getPath())))
                        .isEqualTo(file.getFileSizeBytes());
                assertThat(file.getFieldsCount()).isEqualTo(file.getColumnIndicesCount());
            });
        });

        // The inline transaction (position 0) is the same message as the .txn file.
        int inlineLength = le.getInt((int) manifest.getTransactionSection());
        Transaction inline = Transaction.parseFrom(ByteBuffer.wrap(bytes, 4, inlineLength));
        Transaction file = Transaction.parseFrom(
                Files.readAllBytes(dir.resolve("_transactions").resolve(manifest.getTransactionFile())));
        assertThat(inline).isEqualTo(file);
        assertThat(unknownFieldPaths(file, "Transaction")).isEmpty();
        assertThat(manifest.getTransactionFile()).isEqualTo(file.getReadVersion() + "-" + file.getUuid() + ".txn");
        assertThat(file.getOperationCase()).isEqualTo(Transaction.OperationCase.OVERWRITE);
        assertThat(file.getOverwrite().getSchemaList()).isEqualTo(manifest.getFieldsList());
    }

    /**
     * Global buffer 0 of each data file is a {@code lance.file.FileDescriptor}: it must decode
     * completely, count the fragment's rows, and carry the table schema with the same ids.
     */
    @ParameterizedTest
    @MethodSource("fixtures")
    void dataFileDescriptorCarriesTheTableSchema(String fixture) throws Exception {
        Manifest manifest = LanceSchemaFixtureTest.readManifest(fixture);
        lance.table.DataFragment fragment = manifest.getFragments(0);
        byte[] bytes = Files.readAllBytes(
                fixtureDir(fixture).resolve("data").resolve(fragment.getFiles(0).getPath()));
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int footer = bytes.length - 40;
        assertThat(new String(bytes, footer + 36, 4, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("LANC");
        int gboTable = (int) le.getLong(footer + 16);
        assertThat(le.getInt(footer + 24)).isPositive();
        int position = (int) le.getLong(gboTable);
        int length = (int) le.getLong(gboTable + 8);

        lance.file.FileDescriptor descriptor =
                lance.file.FileDescriptor.parseFrom(ByteBuffer.wrap(bytes, position, length));

        assertThat(unknownFieldPaths(descriptor, "FileDescriptor")).isEmpty();
        assertThat(descriptor.getLength()).isEqualTo(fragment.getPhysicalRows());
        LanceSchema fileSchema = LanceSchema.fromProto(descriptor.getSchema());
        LanceSchema tableSchema = LanceSchema.fromProto(manifest.getFieldsList(), manifest.getSchemaMetadataMap());
        assertThat(fileSchema.toProto()).isEqualTo(tableSchema.toProto());
        assertThat(fileSchema.toProtoSchema()).isEqualTo(descriptor.getSchema());
    }

    /** Paths of every (sub)message that carries fields this schema does not define. */
    private static List<String> unknownFieldPaths(Message message, String path) {
        List<String> out = new ArrayList<>();
        if (!message.getUnknownFields().asMap().isEmpty()) {
            out.add(path + " " + message.getUnknownFields().asMap().keySet());
        }
        for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
            if (e.getKey().getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            String child = path + "." + e.getKey().getName();
            if (e.getKey().isRepeated()) {
                List<?> items = (List<?>) e.getValue();
                for (int i = 0; i < items.size(); i++) {
                    out.addAll(unknownFieldPaths((Message) items.get(i), child + "[" + i + "]"));
                }
            } else {
                out.addAll(unknownFieldPaths((Message) e.getValue(), child));
            }
        }
        return out;
    }
}
