package dev.lanceflink.txn;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lanceflink.table.CorruptTableException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import lance.table.Transaction.UpdateMap;
import lance.table.Transaction.UpdateMapEntry;

/**
 * UpdateConfig: applies the update maps to the config, the table metadata and the schema metadata
 * ({@code replace = true} replaces the whole map; an entry without value deletes its key). The
 * deprecated {@code upsert_values}/{@code delete_keys}/{@code schema_metadata} forms are honoured
 * too. Per-field metadata updates are refused: this library does not rewrite field metadata.
 */
final class UpdateConfigApplier implements OperationApplier<Operation.UpdateConfig> {
    @Override
    public void apply(ManifestDraft d, Operation.UpdateConfig op) throws CorruptTableException {
        lance.table.Transaction.UpdateConfig u;
        try {
            u = lance.table.Transaction.UpdateConfig.parseFrom(op.raw());
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException("UpdateConfig carries an invalid message: " + e.getMessage(), e);
        }
        if (u.getFieldMetadataCount() > 0 || u.getFieldMetadataUpdatesCount() > 0) {
            throw new IllegalArgumentException(
                    "UpdateConfig with field metadata updates is not supported by this" + " library's committer");
        }
        d.config.putAll(u.getUpsertValuesMap());
        u.getDeleteKeysList().forEach(d.config::remove);
        if (u.hasConfigUpdates()) {
            apply(d.config, u.getConfigUpdates());
        }
        if (u.hasTableMetadataUpdates()) {
            apply(d.tableMetadata, u.getTableMetadataUpdates());
        }
        if (u.getSchemaMetadataCount() > 0 || u.hasSchemaMetadataUpdates()) {
            Map<String, String> md = new LinkedHashMap<>();
            d.schema.rawMetadata().forEach((k, v) -> md.put(k, v.toString(StandardCharsets.UTF_8)));
            md.putAll(u.getSchemaMetadataMap());
            if (u.hasSchemaMetadataUpdates()) {
                apply(md, u.getSchemaMetadataUpdates());
            }
            d.schema = d.schema.withMetadata(md);
        }
    }

    static void apply(Map<String, String> target, UpdateMap updates) {
        if (updates.getReplace()) {
            target.clear();
        }
        for (UpdateMapEntry e : updates.getUpdateEntriesList()) {
            if (e.hasValue()) {
                target.put(e.getKey(), e.getValue());
            } else {
                target.remove(e.getKey());
            }
        }
    }
}
