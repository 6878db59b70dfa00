package dev.lanceflink.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Version;
import org.lance.WriteParams;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.schema.LanceField;

/**
 * The oracle's commands, each one call sequence against the official SDK returning one JSON
 * document. Everything the SDK reports is passed through unchanged; nothing is computed here
 * that the SDK could compute itself, because these documents are the reference our own reader
 * and writer are judged against.
 */
final class OracleCommands {

    private final BufferAllocator allocator;

    OracleCommands(BufferAllocator allocator) {
        this.allocator = allocator;
    }

    BufferAllocator allocator() {
        return allocator;
    }

    /** {@code write}: creates, appends to or overwrites a dataset from schema.json + rows.json. */
    ObjectNode write(
            String uri,
            Schema schema,
            JsonNode rows,
            WriteParams.WriteMode mode,
            String storageVersion,
            Integer maxRowsPerFile,
            Integer maxRowsPerGroup,
            boolean stableRowIds,
            Map<String, String> storageOptions)
            throws IOException {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            RowLoader.load(rows, root);
            int rowCount = root.getRowCount();
            try (SingleBatchReader reader = new SingleBatchReader(root, allocator)) {
                var builder = Dataset.write()
                        .allocator(allocator)
                        .reader(reader)
                        .uri(uri)
                        .mode(mode)
                        .storageOptions(storageOptions);
                if (storageVersion != null) {
                    builder.dataStorageVersion(storageVersion);
                }
                if (maxRowsPerFile != null) {
                    builder.maxRowsPerFile(maxRowsPerFile);
                }
                if (maxRowsPerGroup != null) {
                    builder.maxRowsPerGroup(maxRowsPerGroup);
                }
                if (stableRowIds) {
                    builder.enableStableRowIds(true);
                }
                try (Dataset dataset = builder.execute()) {
                    ObjectNode out = DumpFormat.NODES.objectNode();
                    out.put("uri", uri);
                    out.put("version", dataset.version());
                    out.put("rows_written", rowCount);
                    out.put("num_rows", dataset.countRows());
                    out.put("num_fragments", dataset.getFragments().size());
                    out.put("data_storage_version", dataset.getLanceFileFormatVersion());
                    out.put("stable_row_ids", dataset.hasStableRowIds());
                    return out;
                }
            }
        }
    }

    /** {@code delete}: deletes the rows matching a SQL predicate, creating a new version. */
    ObjectNode delete(String uri, String filter, Map<String, String> storageOptions) {
        try (Dataset dataset = open(uri, null, storageOptions)) {
            long before = dataset.countRows();
            dataset.delete(filter);
            ObjectNode out = DumpFormat.NODES.objectNode();
            out.put("uri", uri);
            out.put("version", dataset.version());
            out.put("rows_deleted", before - dataset.countRows());
            out.put("num_rows", dataset.countRows());
            return out;
        }
    }

    /**
     * {@code dump}: every row of a version in scan order (fragment order, then row offset), or
     * sorted by one column (nulls first, ties keep scan order). {@code withRowId} appends the
     * SDK's {@code _rowid} column (uint64) to schema and rows.
     */
    @SuppressWarnings("try") // LanceScanner.close() declares Exception; dump() rethrows it
    ObjectNode dump(String uri, Long version, String orderBy, boolean withRowId, Map<String, String> storageOptions)
            throws Exception {
        try (Dataset dataset = open(uri, version, storageOptions)) {
            Schema schema = dataset.getSchema();
            if (orderBy != null
                    && schema.getFields().stream().noneMatch(f -> f.getName().equals(orderBy))) {
                throw new IllegalArgumentException("--order-by: no column '" + orderBy + "' in "
                        + uri + " (columns: "
                        + schema.getFields().stream().map(Field::getName).toList()
                        + ")");
            }
            List<ObjectNode> rows = new ArrayList<>();
            ScanOptions options = new ScanOptions.Builder().withRowId(withRowId).build();
            try (LanceScanner scanner = dataset.newScan(options);
                    ArrowReader reader = scanner.scanBatches()) {
                if (withRowId) {
                    // The scan schema is the dataset schema plus the _rowid column.
                    schema = reader.getVectorSchemaRoot().getSchema();
                }
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                    List<FieldVector> vectors = batch.getFieldVectors();
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        ObjectNode row = DumpFormat.NODES.objectNode();
                        for (FieldVector vector : vectors) {
                            row.set(vector.getName(), DumpFormat.cell(vector, r));
                        }
                        rows.add(row);
                    }
                }
            }
            if (orderBy != null) {
                rows.sort(Comparator.comparing(row -> row.get(orderBy), JsonOrder.NULLS_FIRST));
            }
            ObjectNode out = DumpFormat.NODES.objectNode();
            out.put("version", dataset.version());
            out.set("schema", schemaJson(schema));
            out.put("num_rows", rows.size());
            ArrayNode rowArray = out.putArray("rows");
            rows.forEach(rowArray::add);
            return out;
        }
    }

    /** {@code versions}: every version with its timestamp and metadata. */
    ObjectNode versions(String uri, Map<String, String> storageOptions) {
        try (Dataset dataset = open(uri, null, storageOptions)) {
            ObjectNode out = DumpFormat.NODES.objectNode();
            out.put("uri", uri);
            out.put("latest_version", dataset.latestVersion());
            ArrayNode versions = out.putArray("versions");
            for (Version v : dataset.listVersions()) {
                ObjectNode node = versions.addObject();
                node.put("version", v.getId());
                node.put("timestamp", v.getDataTime().toInstant().toString());
                ObjectNode metadata = node.putObject("metadata");
                v.getMetadata().forEach(metadata::put);
            }
            return out;
        }
    }

    /** {@code inspect}: what the SDK exposes about a version's manifest and fragments. */
    ObjectNode inspect(String uri, Long version, Map<String, String> storageOptions) {
        try (Dataset dataset = open(uri, version, storageOptions)) {
            ObjectNode out = DumpFormat.NODES.objectNode();
            out.put("uri", uri);
            out.put("version", dataset.version());
            out.put("latest_version", dataset.latestVersion());
            out.put("data_storage_version", dataset.getLanceFileFormatVersion());
            out.put("stable_row_ids", dataset.hasStableRowIds());
            out.put("num_rows", dataset.countRows());
            ArrayNode fields = out.putArray("fields");
            for (LanceField field : dataset.getLanceSchema().fields()) {
                appendLanceField(field, fields);
            }
            ObjectNode config = out.putObject("config");
            dataset.getConfig().forEach(config::put);
            ArrayNode fragments = out.putArray("fragments");
            for (Fragment fragment : dataset.getFragments()) {
                FragmentMetadata meta = fragment.metadata();
                ObjectNode node = fragments.addObject();
                node.put("id", meta.getId());
                node.put("physical_rows", meta.getPhysicalRows());
                node.put("num_rows", meta.getNumRows());
                node.put("num_deletions", meta.getNumDeletions());
                ArrayNode files = node.putArray("files");
                for (DataFile file : meta.getFiles()) {
                    ObjectNode f = files.addObject();
                    f.put("path", file.getPath());
                    ArrayNode ids = f.putArray("fields");
                    for (int id : file.getFields()) {
                        ids.add(id);
                    }
                    ArrayNode columns = f.putArray("column_indices");
                    for (int c : file.getColumnIndices()) {
                        columns.add(c);
                    }
                    f.put("file_version", file.getFileMajorVersion() + "." + file.getFileMinorVersion());
                    if (file.getFileSizeBytes() != null) {
                        f.put("file_size_bytes", file.getFileSizeBytes());
                    }
                }
                DeletionFile deletion = meta.getDeletionFile();
                if (deletion == null) {
                    node.putNull("deletion_file");
                } else {
                    ObjectNode d = node.putObject("deletion_file");
                    d.put("id", deletion.getId());
                    d.put("read_version", deletion.getReadVersion());
                    if (deletion.getNumDeletedRows() != null) {
                        d.put("num_deleted_rows", deletion.getNumDeletedRows());
                    }
                    d.put("type", deletion.getFileType().name().toLowerCase(Locale.ROOT));
                }
                node.put("has_row_id_meta", meta.getRowIdMeta() != null);
            }
            return out;
        }
    }

    private static void appendLanceField(LanceField field, ArrayNode out) {
        ObjectNode node = out.addObject();
        node.put("id", field.getId());
        node.put("parent_id", field.getParentId());
        node.put("name", field.getName());
        node.put("logical_type", field.getLogicalType());
        node.put("nullable", field.isNullable());
        for (LanceField child : field.getChildren()) {
            appendLanceField(child, out);
        }
    }

    /** The {@code schema} section of a dump: top-level columns in the type grammar. */
    static ArrayNode schemaJson(Schema schema) {
        ArrayNode array = DumpFormat.NODES.arrayNode();
        for (Field field : schema.getFields()) {
            ObjectNode node = array.addObject();
            node.put("name", field.getName());
            node.put("type", TypeGrammar.format(field));
            node.put("nullable", field.isNullable());
        }
        return array;
    }

    private Dataset open(String uri, Long version, Map<String, String> storageOptions) {
        ReadOptions.Builder options = new ReadOptions.Builder().setStorageOptions(storageOptions);
        if (version != null) {
            options.setVersion(version);
        }
        return Dataset.open()
                .allocator(allocator)
                .uri(uri)
                .readOptions(options.build())
                .build();
    }
}
