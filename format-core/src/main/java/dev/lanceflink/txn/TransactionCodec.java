package dev.lanceflink.txn;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Parser;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.BasePath;
import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.IndexEntry;
import dev.lanceflink.table.TableProtoCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import lance.file.Field;
import lance.table.CompactedSsTable;
import lance.table.IndexMetadata;

/** Encodes and decodes {@link Transaction}s as {@code lance.table.Transaction} protobuf bytes. */
public final class TransactionCodec {
    /** Field number of the first member of the {@code operation} oneof ({@code append}). */
    private static final int FIRST_OPERATION_FIELD = 100;

    private TransactionCodec() {}

    /** The protobuf bytes, as stored in {@code .txn} files and inline in manifests. */
    public static byte[] encode(Transaction t) {
        return toProto(t).toByteArray();
    }

    /**
     * Decodes transaction bytes.
     *
     * @param source the file or manifest the bytes came from, for error messages
     */
    public static Transaction decode(byte[] bytes, String source) throws CorruptTableException {
        lance.table.Transaction p;
        try {
            p = lance.table.Transaction.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptTableException(
                    "Transaction in " + source + " (" + bytes.length + " bytes) is not a valid Transaction protobuf: "
                            + e.getMessage(),
                    e);
        }
        return fromProto(p, source);
    }

    public static lance.table.Transaction toProto(Transaction t) {
        lance.table.Transaction.Builder b = lance.table.Transaction.newBuilder()
                .setReadVersion(t.readVersion())
                .setUuid(t.uuid())
                .setTag(t.tag())
                .putAllTransactionProperties(t.properties());
        Operation op = t.operation();
        if (op instanceof Operation.Append a) {
            b.setAppend(lance.table.Transaction.Append.newBuilder()
                    .addAllFragments(TableProtoCodec.toProtos(a.fragments())));
        } else if (op instanceof Operation.Delete d) {
            b.setDelete(lance.table.Transaction.Delete.newBuilder()
                    .addAllUpdatedFragments(TableProtoCodec.toProtos(d.updatedFragments()))
                    .addAllDeletedFragmentIds(d.deletedFragmentIds())
                    .setPredicate(d.predicate()));
        } else if (op instanceof Operation.Overwrite o) {
            lance.table.Transaction.Overwrite.Builder ob = lance.table.Transaction.Overwrite.newBuilder()
                    .addAllFragments(TableProtoCodec.toProtos(o.fragments()))
                    .addAllSchema(o.schema().toProto())
                    .putAllSchemaMetadata(o.schema().rawMetadata())
                    .putAllConfigUpsertValues(o.configUpsertValues());
            for (BasePath bp : o.initialBases()) {
                ob.addInitialBases(TableProtoCodec.toProto(bp));
            }
            b.setOverwrite(ob);
        } else if (op instanceof Operation.CreateIndex c) {
            lance.table.Transaction.CreateIndex.Builder cb = lance.table.Transaction.CreateIndex.newBuilder();
            c.newIndices().forEach(e -> cb.addNewIndices(e.toProto()));
            c.removedIndices().forEach(e -> cb.addRemovedIndices(e.toProto()));
            b.setCreateIndex(cb);
        } else if (op instanceof Operation.Rewrite r) {
            lance.table.Transaction.Rewrite.Builder rb = lance.table.Transaction.Rewrite.newBuilder();
            for (Operation.RewriteGroup g : r.groups()) {
                rb.addGroups(lance.table.Transaction.Rewrite.RewriteGroup.newBuilder()
                        .addAllOldFragments(TableProtoCodec.toProtos(g.oldFragments()))
                        .addAllNewFragments(TableProtoCodec.toProtos(g.newFragments())));
            }
            for (byte[] ri : r.rewrittenIndices()) {
                try {
                    rb.addRewrittenIndices(lance.table.Transaction.Rewrite.RewrittenIndex.parseFrom(ri));
                } catch (InvalidProtocolBufferException e) {
                    throw new IllegalArgumentException("Rewrite carries an invalid RewrittenIndex message", e);
                }
            }
            b.setRewrite(rb);
        } else if (op instanceof Operation.Merge m) {
            b.setMerge(lance.table.Transaction.Merge.newBuilder()
                    .addAllFragments(TableProtoCodec.toProtos(m.fragments()))
                    .addAllSchema(m.schema().toProto())
                    .putAllSchemaMetadata(m.schema().rawMetadata()));
        } else if (op instanceof Operation.Project pr) {
            b.setProject(lance.table.Transaction.Project.newBuilder()
                    .addAllSchema(pr.schema().toProto()));
        } else if (op instanceof Operation.Restore rs) {
            b.setRestore(lance.table.Transaction.Restore.newBuilder().setVersion(rs.version()));
        } else if (op instanceof Operation.ReserveFragments rf) {
            b.setReserveFragments(
                    lance.table.Transaction.ReserveFragments.newBuilder().setNumFragments(rf.numFragments()));
        } else if (op instanceof Operation.Update u) {
            lance.table.Transaction.Update.Builder ub = lance.table.Transaction.Update.newBuilder();
            try {
                ub.mergeFrom(u.extras());
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalArgumentException("Update carries invalid extra fields", e);
            }
            ub.addAllRemovedFragmentIds(u.removedFragmentIds())
                    .addAllUpdatedFragments(TableProtoCodec.toProtos(u.updatedFragments()))
                    .addAllNewFragments(TableProtoCodec.toProtos(u.newFragments()))
                    .setUpdateModeValue(u.mode() == Operation.UpdateMode.REWRITE_ROWS ? 0 : 1);
            for (int f : u.fieldsModified()) {
                ub.addFieldsModified(f);
            }
            for (int f : u.fieldsForPreservingFragBitmap()) {
                ub.addFieldsForPreservingFragBitmap(f);
            }
            b.setUpdate(ub);
        } else if (op instanceof Operation.UpdateConfig uc) {
            b.setUpdateConfig(parse(uc.raw(), lance.table.Transaction.UpdateConfig.parser(), "UpdateConfig"));
        } else if (op instanceof Operation.DataReplacement dr) {
            lance.table.Transaction.DataReplacement.Builder db = lance.table.Transaction.DataReplacement.newBuilder();
            for (Operation.DataReplacementGroup g : dr.replacements()) {
                db.addReplacements(lance.table.Transaction.DataReplacementGroup.newBuilder()
                        .setFragmentId(g.fragmentId())
                        .setNewFile(TableProtoCodec.toProto(g.newFile())));
            }
            b.setDataReplacement(db);
        } else if (op instanceof Operation.DataOverlay dov) {
            lance.table.Transaction.DataOverlay.Builder ob = lance.table.Transaction.DataOverlay.newBuilder();
            for (Operation.OverlayGroup g : dov.groups()) {
                lance.table.Transaction.DataOverlayGroup.Builder gb =
                        lance.table.Transaction.DataOverlayGroup.newBuilder().setFragmentId(g.fragmentId());
                for (DataOverlayFile f : g.overlays()) {
                    gb.addOverlays(TableProtoCodec.toProto(f));
                }
                ob.addGroups(gb);
            }
            b.setDataOverlay(ob);
        } else if (op instanceof Operation.UpdateMemWalState mw) {
            b.setUpdateMemWalState(
                    parse(mw.raw(), lance.table.Transaction.UpdateMemWalState.parser(), "UpdateMemWalState"));
        } else if (op instanceof Operation.Clone cl) {
            b.setClone(parse(cl.raw(), lance.table.Transaction.Clone.parser(), "Clone"));
        } else if (op instanceof Operation.UpdateBases ub) {
            lance.table.Transaction.UpdateBases.Builder bb = lance.table.Transaction.UpdateBases.newBuilder();
            ub.newBases().forEach(bp -> bb.addNewBases(TableProtoCodec.toProto(bp)));
            b.setUpdateBases(bb);
        } else if (op instanceof Operation.Unknown u) {
            // Only its field number was kept: this library never re-commits another writer's
            // transaction, and an operation it cannot interpret must not be rewritten.
            throw new IllegalArgumentException("Cannot encode the " + u.name() + " of transaction " + t.uuid()
                    + ": it was written by a newer Lance and is not understood here");
        }
        return b.build();
    }

    private static <T> T parse(byte[] raw, Parser<T> parser, String what) {
        try {
            return parser.parseFrom(raw);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException(what + " carries an invalid serialized message", e);
        }
    }

    public static Transaction fromProto(lance.table.Transaction p, String source) throws CorruptTableException {
        String ctx = "transaction " + p.getUuid() + " in " + source;
        Operation op = switch (p.getOperationCase()) {
            case APPEND ->
                new Operation.Append(TableProtoCodec.fragments(p.getAppend().getFragmentsList(), ctx));
            case DELETE ->
                new Operation.Delete(
                        TableProtoCodec.fragments(p.getDelete().getUpdatedFragmentsList(), ctx),
                        p.getDelete().getDeletedFragmentIdsList(),
                        p.getDelete().getPredicate());
            case OVERWRITE -> {
                lance.table.Transaction.Overwrite o = p.getOverwrite();
                List<BasePath> bases = new ArrayList<>();
                o.getInitialBasesList().forEach(bp -> bases.add(TableProtoCodec.basePath(bp)));
                yield new Operation.Overwrite(
                        TableProtoCodec.fragments(o.getFragmentsList(), ctx),
                        schema(o.getSchemaList(), o.getSchemaMetadataMap(), ctx),
                        o.getConfigUpsertValuesMap(),
                        bases);
            }
            case CREATE_INDEX ->
                new Operation.CreateIndex(
                        indices(p.getCreateIndex().getNewIndicesList()),
                        indices(p.getCreateIndex().getRemovedIndicesList()));
            case REWRITE -> {
                lance.table.Transaction.Rewrite r = p.getRewrite();
                List<Operation.RewriteGroup> groups = new ArrayList<>();
                if (r.getGroupsCount() == 0 && (r.getOldFragmentsCount() > 0 || r.getNewFragmentsCount() > 0)) {
                    // deprecated layout: one implicit group
                    groups.add(new Operation.RewriteGroup(
                            TableProtoCodec.fragments(r.getOldFragmentsList(), ctx),
                            TableProtoCodec.fragments(r.getNewFragmentsList(), ctx)));
                }
                for (lance.table.Transaction.Rewrite.RewriteGroup g : r.getGroupsList()) {
                    groups.add(new Operation.RewriteGroup(
                            TableProtoCodec.fragments(g.getOldFragmentsList(), ctx),
                            TableProtoCodec.fragments(g.getNewFragmentsList(), ctx)));
                }
                List<byte[]> ri = new ArrayList<>();
                r.getRewrittenIndicesList().forEach(x -> ri.add(x.toByteArray()));
                yield new Operation.Rewrite(groups, ri);
            }
            case MERGE ->
                new Operation.Merge(
                        TableProtoCodec.fragments(p.getMerge().getFragmentsList(), ctx),
                        schema(p.getMerge().getSchemaList(), p.getMerge().getSchemaMetadataMap(), ctx));
            case RESTORE -> new Operation.Restore(p.getRestore().getVersion());
            case RESERVE_FRAGMENTS ->
                new Operation.ReserveFragments(p.getReserveFragments().getNumFragments());
            case UPDATE -> update(p.getUpdate(), ctx);
            case PROJECT -> new Operation.Project(schema(p.getProject().getSchemaList(), Map.of(), ctx));
            case UPDATE_CONFIG -> updateConfig(p.getUpdateConfig());
            case DATA_REPLACEMENT -> {
                List<Operation.DataReplacementGroup> groups = new ArrayList<>();
                for (lance.table.Transaction.DataReplacementGroup g :
                        p.getDataReplacement().getReplacementsList()) {
                    groups.add(new Operation.DataReplacementGroup(
                            g.getFragmentId(), TableProtoCodec.dataFile(g.getNewFile())));
                }
                yield new Operation.DataReplacement(groups);
            }
            case UPDATE_MEM_WAL_STATE ->
                new Operation.UpdateMemWalState(
                        shardGenerations(p.getUpdateMemWalState().getCompactedSstablesList()),
                        p.getUpdateMemWalState().toByteArray());
            case CLONE ->
                new Operation.Clone(p.getClone().getIsShallow(), p.getClone().toByteArray());
            case UPDATE_BASES -> {
                List<BasePath> bases = new ArrayList<>();
                p.getUpdateBases().getNewBasesList().forEach(bp -> bases.add(TableProtoCodec.basePath(bp)));
                yield new Operation.UpdateBases(bases);
            }
            case DATA_OVERLAY -> {
                List<Operation.OverlayGroup> groups = new ArrayList<>();
                for (lance.table.Transaction.DataOverlayGroup g :
                        p.getDataOverlay().getGroupsList()) {
                    List<DataOverlayFile> files = new ArrayList<>();
                    for (lance.table.DataOverlayFile f : g.getOverlaysList()) {
                        files.add(TableProtoCodec.overlay(f, ctx + ", overlay group of fragment " + g.getFragmentId()));
                    }
                    groups.add(new Operation.OverlayGroup(g.getFragmentId(), files));
                }
                yield new Operation.DataOverlay(groups);
            }
            case OPERATION_NOT_SET -> unknownOperation(p, ctx);
        };
        return new Transaction(p.getReadVersion(), p.getUuid(), p.getTag(), p.getTransactionPropertiesMap(), op);
    }

    /**
     * The operation of a newer Lance: an unknown field in the operation range (100 and up; the
     * known ones are 100-115). Decoded rather than refused, so that reading the table and listing
     * its history keep working; what needs the operation refuses {@link Operation.Unknown}.
     */
    private static Operation unknownOperation(lance.table.Transaction p, String ctx) throws CorruptTableException {
        for (int field : p.getUnknownFields().asMap().keySet()) {
            if (field >= FIRST_OPERATION_FIELD) {
                return new Operation.Unknown(field);
            }
        }
        throw new CorruptTableException("The " + ctx + " has no operation (no field " + FIRST_OPERATION_FIELD
                + " or above in its Transaction message), so what it committed cannot be told");
    }

    private static LanceSchema schema(List<Field> fields, Map<String, ByteString> metadata, String ctx)
            throws CorruptTableException {
        try {
            return LanceSchema.fromProto(fields, metadata);
        } catch (RuntimeException e) {
            throw new CorruptTableException(ctx + ": invalid schema: " + e.getMessage(), e);
        }
    }

    private static List<IndexEntry> indices(List<IndexMetadata> ps) {
        List<IndexEntry> out = new ArrayList<>(ps.size());
        ps.forEach(p -> out.add(new IndexEntry(p)));
        return out;
    }

    private static Operation.Update update(lance.table.Transaction.Update u, String ctx) throws CorruptTableException {
        lance.table.Transaction.Update extras = lance.table.Transaction.Update.newBuilder()
                .addAllCompactedSstables(u.getCompactedSstablesList())
                .putAllUpdatedFragmentOffsets(u.getUpdatedFragmentOffsetsMap())
                .mergeFrom(
                        u.hasInsertedRows()
                                ? lance.table.Transaction.Update.newBuilder()
                                        .setInsertedRows(u.getInsertedRows())
                                        .build()
                                : lance.table.Transaction.Update.getDefaultInstance())
                .build();
        int[] modified =
                u.getFieldsModifiedList().stream().mapToInt(Integer::intValue).toArray();
        int[] preserving = u.getFieldsForPreservingFragBitmapList().stream()
                .mapToInt(Integer::intValue)
                .toArray();
        Operation.UpdateMode mode = switch (u.getUpdateModeValue()) {
            case 0 -> Operation.UpdateMode.REWRITE_ROWS;
            case 1 -> Operation.UpdateMode.REWRITE_COLUMNS;
            default ->
                throw new CorruptTableException(ctx + ": update_mode " + u.getUpdateModeValue()
                        + " is unknown (0 = REWRITE_ROWS, 1 = REWRITE_COLUMNS)");
        };
        return new Operation.Update(
                u.getRemovedFragmentIdsList(),
                TableProtoCodec.fragments(u.getUpdatedFragmentsList(), ctx),
                TableProtoCodec.fragments(u.getNewFragmentsList(), ctx),
                modified,
                preserving,
                mode,
                u.hasInsertedRows(),
                u.getCompactedSstablesCount() > 0,
                extras.toByteArray());
    }

    private static Operation.UpdateConfig updateConfig(lance.table.Transaction.UpdateConfig u) {
        Set<String> config = new HashSet<>(u.getUpsertValuesMap().keySet());
        config.addAll(u.getDeleteKeysList());
        u.getConfigUpdates().getUpdateEntriesList().forEach(e -> config.add(e.getKey()));
        Set<String> tableMeta = new HashSet<>();
        u.getTableMetadataUpdates().getUpdateEntriesList().forEach(e -> tableMeta.add(e.getKey()));
        boolean schemaMeta = u.getSchemaMetadataCount() > 0
                || u.getFieldMetadataCount() > 0
                || u.hasSchemaMetadataUpdates()
                || u.getFieldMetadataUpdatesCount() > 0;
        return new Operation.UpdateConfig(config, tableMeta, schemaMeta, u.toByteArray());
    }

    private static Map<String, Long> shardGenerations(List<CompactedSsTable> tables) {
        Map<String, Long> out = new HashMap<>();
        for (CompactedSsTable t : tables) {
            out.merge(HexFormat.of().formatHex(t.getShardId().getUuid().toByteArray()), t.getGeneration(), Math::max);
        }
        return out;
    }
}
