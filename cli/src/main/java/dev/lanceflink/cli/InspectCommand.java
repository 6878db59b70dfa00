package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.schema.LanceField;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.DeletionFile;
import dev.lanceflink.table.DeletionFileType;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.OverlayCoverage;
import dev.lanceflink.table.WriterVersion;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * {@code inspect}: the manifest of one version as JSON — format and feature flags, the flattened
 * schema with field ids, every fragment with its data files, deletion file and data overlay files
 * (with the offsets each overlay covers per field), the indices and the transaction that produced
 * the version. Field names are the manifest's own ({@code table.proto}) in snake case.
 */
final class InspectCommand {

    private InspectCommand() {}

    static void run(Dataset dataset, JsonGenerator g) throws IOException {
        Manifest m = dataset.manifest();
        g.writeStartObject();
        g.writeNumberField("version", m.version());
        g.writeStringField("timestamp", m.timestamp().toString());
        g.writeObjectFieldStart("data_format");
        g.writeStringField("file_format", m.dataFormat().fileFormat());
        g.writeStringField("version", m.dataFormat().version());
        g.writeEndObject();
        writeFlags(g, "reader_feature_flags", m.readerFeatureFlags());
        writeFlags(g, "writer_feature_flags", m.writerFeatureFlags());
        WriterVersion writer = m.writerVersion();
        if (writer == null) {
            g.writeNullField("writer_version");
        } else {
            g.writeObjectFieldStart("writer_version");
            g.writeStringField("library", writer.library());
            g.writeStringField("version", writer.version());
            g.writeStringField("prerelease", writer.prerelease());
            g.writeStringField("build_metadata", writer.buildMetadata());
            g.writeEndObject();
        }
        g.writeBooleanField("stable_row_ids", m.usesStableRowIds());
        g.writeNumberField("num_rows", m.countLiveRows());
        writeMap(g, "config", m.config());
        g.writeArrayFieldStart("base_paths"); // where files with a base_id live (e.g. a shallow clone's source)
        for (BasePath b : m.basePaths()) {
            g.writeStartObject();
            g.writeNumberField("id", b.id());
            g.writeStringField("name", b.name());
            g.writeBooleanField("is_dataset_root", b.isDatasetRoot());
            g.writeStringField("path", b.path());
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeArrayFieldStart("schema");
        for (LanceField f : m.schema().allFields()) {
            g.writeStartObject();
            g.writeStringField("name", f.name());
            g.writeNumberField("id", f.id());
            g.writeNumberField("parent_id", f.parentId());
            g.writeStringField("logical_type", f.logicalType());
            g.writeBooleanField("nullable", f.nullable());
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeArrayFieldStart("fragments");
        for (Fragment f : m.fragments()) {
            writeFragment(g, f);
        }
        g.writeEndArray();

        g.writeArrayFieldStart("indices");
        for (IndexEntry index : m.indices()) {
            g.writeStartObject();
            g.writeStringField("name", index.name());
            g.writeStringField("uuid", index.uuid().toString());
            writeInts(g, "fields", index.fields());
            g.writeNumberField("dataset_version", index.datasetVersion());
            byte[] bitmap = index.fragmentBitmap();
            if (bitmap.length == 0) {
                g.writeNullField("fragment_bitmap"); // unknown: the index covers every fragment
            } else {
                writeBitmap(g, "fragment_bitmap", deserialize(bitmap, "index '" + index.name() + "'"));
            }
            g.writeEndObject();
        }
        g.writeEndArray();

        Optional<Transaction> txn = dataset.transaction();
        if (txn.isEmpty()) {
            g.writeNullField("transaction");
        } else {
            g.writeObjectFieldStart("transaction");
            g.writeStringField("operation", txn.get().operation().name());
            g.writeNumberField("read_version", txn.get().readVersion());
            g.writeStringField("uuid", txn.get().uuid());
            writeMap(g, "properties", txn.get().properties());
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void writeFlags(JsonGenerator g, String name, long flags) throws IOException {
        g.writeNumberField(name, flags);
        g.writeStringField(name + "_names", FeatureFlags.describe(flags));
    }

    private static void writeFragment(JsonGenerator g, Fragment f) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", f.id());
        g.writeNumberField("physical_rows", f.physicalRows());
        g.writeNumberField("num_rows", f.liveRows());
        g.writeArrayFieldStart("files");
        for (DataFile file : f.files()) {
            g.writeStartObject();
            writeDataFile(g, file);
            g.writeEndObject();
        }
        g.writeEndArray();
        DeletionFile d = f.deletionFile();
        if (d == null) {
            g.writeNullField("deletion");
        } else {
            g.writeObjectFieldStart("deletion");
            g.writeStringField("type", d.type() == DeletionFileType.BITMAP ? "bitmap" : "array");
            g.writeNumberField("num_deleted_rows", d.numDeletedRows());
            g.writeNumberField("read_version", d.readVersion());
            g.writeFieldName("id"); // a u64 in Lance: print it unsigned, as the file name does
            g.writeNumber(new BigInteger(Long.toUnsignedString(d.id())));
            g.writeStringField("path", d.rootRelativePath(f.id())); // relative to its base when base_id is set
            if (d.baseId().isPresent()) {
                g.writeNumberField("base_id", d.baseId().getAsInt());
            }
            g.writeEndObject();
        }
        g.writeBooleanField("has_row_ids", f.rowIdMeta().rowIds() != null);
        g.writeArrayFieldStart("overlays");
        for (DataOverlayFile overlay : f.overlays()) {
            g.writeStartObject();
            writeDataFile(g, overlay.dataFile());
            g.writeNumberField("committed_version", overlay.committedVersion());
            OverlayCoverage coverage = overlay.coverage();
            g.writeStringField("coverage", coverage instanceof OverlayCoverage.Dense ? "dense" : "sparse");
            g.writeArrayFieldStart("offsets");
            for (int i = 0; i < overlay.dataFile().fieldCount(); i++) {
                RoaringBitmap covered = coverage.bitmap(i);
                g.writeStartArray();
                for (IntIterator it = covered.getIntIterator(); it.hasNext(); ) {
                    g.writeNumber(Integer.toUnsignedLong(it.next()));
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void writeDataFile(JsonGenerator g, DataFile file) throws IOException {
        g.writeStringField("path", file.path());
        writeInts(g, "fields", file.fields());
        writeInts(g, "column_indices", file.columnIndices());
        g.writeNumberField("file_major_version", file.fileMajorVersion());
        g.writeNumberField("file_minor_version", file.fileMinorVersion());
        g.writeNumberField("file_size_bytes", file.fileSizeBytes());
        if (file.baseId().isPresent()) {
            g.writeNumberField("base_id", file.baseId().getAsInt());
        }
    }

    private static void writeInts(JsonGenerator g, String name, int[] values) throws IOException {
        g.writeArrayFieldStart(name);
        for (int v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }

    private static void writeBitmap(JsonGenerator g, String name, RoaringBitmap bitmap) throws IOException {
        g.writeArrayFieldStart(name);
        for (IntIterator it = bitmap.getIntIterator(); it.hasNext(); ) {
            g.writeNumber(Integer.toUnsignedLong(it.next()));
        }
        g.writeEndArray();
    }

    private static void writeMap(JsonGenerator g, String name, Map<String, String> map) throws IOException {
        g.writeObjectFieldStart(name);
        for (Map.Entry<String, String> e : map.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }

    private static RoaringBitmap deserialize(byte[] bytes, String what) throws IOException {
        RoaringBitmap bitmap = new RoaringBitmap();
        try {
            bitmap.deserialize(ByteBuffer.wrap(bytes));
        } catch (RuntimeException e) {
            throw new IOException(
                    "The fragment bitmap of " + what + " is not a valid Roaring bitmap (" + bytes.length + " bytes): "
                            + e.getMessage(),
                    e);
        }
        return bitmap;
    }
}
