package dev.lanceflink.table;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import lance.table.DataFragment;
import lance.table.ExternalFile;
import lance.table.FieldCoverage;
import lance.table.IndexMetadata;

/**
 * Converts between the table model and the generated {@code lance.table} protobuf classes. The
 * only place (with the transaction codec) that knows the protobuf field layout, so that callers
 * never touch generated classes.
 */
public final class TableProtoCodec {
    private TableProtoCodec() {}

    // ---- DataFile -------------------------------------------------------------------------

    public static DataFile dataFile(lance.table.DataFile p) {
        int[] fields = new int[p.getFieldsCount()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = p.getFields(i);
        }
        int[] cols = new int[p.getColumnIndicesCount()];
        for (int i = 0; i < cols.length; i++) {
            cols[i] = p.getColumnIndices(i);
        }
        return new DataFile(
                p.getPath(),
                fields,
                cols,
                p.getFileMajorVersion(),
                p.getFileMinorVersion(),
                p.getFileSizeBytes(),
                p.hasBaseId() ? OptionalInt.of(p.getBaseId()) : OptionalInt.empty());
    }

    public static lance.table.DataFile toProto(DataFile d) {
        lance.table.DataFile.Builder b = lance.table.DataFile.newBuilder()
                .setPath(d.path())
                .setFileMajorVersion(d.fileMajorVersion())
                .setFileMinorVersion(d.fileMinorVersion())
                .setFileSizeBytes(d.fileSizeBytes());
        for (int i = 0; i < d.fieldCount(); i++) {
            b.addFields(d.fieldId(i));
        }
        int[] cols = d.columnIndices();
        for (int c : cols) {
            b.addColumnIndices(c);
        }
        d.baseId().ifPresent(b::setBaseId);
        return b.build();
    }

    // ---- DeletionFile ---------------------------------------------------------------------

    public static DeletionFile deletionFile(lance.table.DeletionFile p, String context) throws CorruptTableException {
        DeletionFileType type = switch (p.getFileTypeValue()) {
            case 0 -> DeletionFileType.ARROW_ARRAY;
            case 1 -> DeletionFileType.BITMAP;
            default ->
                throw new CorruptTableException(context + ": deletion file type " + p.getFileTypeValue()
                        + " is unknown (expected 0 = ARROW_ARRAY or 1 = BITMAP)");
        };
        return new DeletionFile(
                type,
                p.getReadVersion(),
                p.getId(),
                p.getNumDeletedRows(),
                p.hasBaseId() ? OptionalInt.of(p.getBaseId()) : OptionalInt.empty());
    }

    public static lance.table.DeletionFile toProto(DeletionFile d) {
        lance.table.DeletionFile.Builder b = lance.table.DeletionFile.newBuilder()
                .setFileTypeValue(d.type() == DeletionFileType.ARROW_ARRAY ? 0 : 1)
                .setReadVersion(d.readVersion())
                .setId(d.id())
                .setNumDeletedRows(d.numDeletedRows());
        d.baseId().ifPresent(b::setBaseId);
        return b.build();
    }

    // ---- Overlays -------------------------------------------------------------------------

    public static DataOverlayFile overlay(lance.table.DataOverlayFile p, String context) throws CorruptTableException {
        if (!p.hasDataFile()) {
            throw new CorruptTableException(context + ": data overlay file has no data_file");
        }
        DataFile file = dataFile(p.getDataFile());
        OverlayCoverage coverage = switch (p.getCoverageCase()) {
            case SHARED_OFFSET_BITMAP ->
                new OverlayCoverage.Dense(p.getSharedOffsetBitmap().toByteArray());
            case FIELD_COVERAGE -> {
                List<byte[]> bms = new ArrayList<>();
                for (ByteString bs : p.getFieldCoverage().getOffsetBitmapsList()) {
                    bms.add(bs.toByteArray());
                }
                yield new OverlayCoverage.PerField(bms);
            }
            case COVERAGE_NOT_SET ->
                throw new CorruptTableException(context + ": data overlay file " + file.path()
                        + " has no coverage (neither shared_offset_bitmap nor field_coverage)");
        };
        try {
            return new DataOverlayFile(file, coverage, p.getCommittedVersion());
        } catch (IllegalArgumentException e) {
            throw new CorruptTableException(context + ": " + e.getMessage(), e);
        }
    }

    public static lance.table.DataOverlayFile toProto(DataOverlayFile o) {
        lance.table.DataOverlayFile.Builder b = lance.table.DataOverlayFile.newBuilder()
                .setDataFile(toProto(o.dataFile()))
                .setCommittedVersion(o.committedVersion());
        if (o.coverage() instanceof OverlayCoverage.Dense d) {
            b.setSharedOffsetBitmap(ByteString.copyFrom(d.sharedOffsetBitmap()));
        } else if (o.coverage() instanceof OverlayCoverage.PerField p) {
            FieldCoverage.Builder fc = FieldCoverage.newBuilder();
            for (byte[] bm : p.offsetBitmaps()) {
                fc.addOffsetBitmaps(ByteString.copyFrom(bm));
            }
            b.setFieldCoverage(fc);
        }
        return b.build();
    }

    // ---- Fragment -------------------------------------------------------------------------

    /**
     * Decodes a fragment. Overlays are stable-sorted by {@code committed_version} (list position
     * breaks ties), as Lance does on load, so readers can rely on oldest-first order.
     */
    public static Fragment fragment(DataFragment p, String context) throws CorruptTableException {
        String ctx = context + ", fragment " + Long.toUnsignedString(p.getId());
        List<DataFile> files = new ArrayList<>(p.getFilesCount());
        for (lance.table.DataFile f : p.getFilesList()) {
            files.add(dataFile(f));
        }
        DeletionFile del = p.hasDeletionFile() ? deletionFile(p.getDeletionFile(), ctx) : null;
        SequenceSource rowIds = switch (p.getRowIdSequenceCase()) {
            case INLINE_ROW_IDS -> new SequenceSource.Inline(p.getInlineRowIds().toByteArray());
            case EXTERNAL_ROW_IDS -> external(p.getExternalRowIds());
            case ROWIDSEQUENCE_NOT_SET -> null;
        };
        SequenceSource updated = switch (p.getLastUpdatedAtVersionSequenceCase()) {
            case INLINE_LAST_UPDATED_AT_VERSIONS ->
                new SequenceSource.Inline(p.getInlineLastUpdatedAtVersions().toByteArray());
            case EXTERNAL_LAST_UPDATED_AT_VERSIONS -> external(p.getExternalLastUpdatedAtVersions());
            case LASTUPDATEDATVERSIONSEQUENCE_NOT_SET -> null;
        };
        SequenceSource created = switch (p.getCreatedAtVersionSequenceCase()) {
            case INLINE_CREATED_AT_VERSIONS ->
                new SequenceSource.Inline(p.getInlineCreatedAtVersions().toByteArray());
            case EXTERNAL_CREATED_AT_VERSIONS -> external(p.getExternalCreatedAtVersions());
            case CREATEDATVERSIONSEQUENCE_NOT_SET -> null;
        };
        List<DataOverlayFile> overlays = new ArrayList<>(p.getOverlaysCount());
        for (lance.table.DataOverlayFile o : p.getOverlaysList()) {
            overlays.add(overlay(o, ctx));
        }
        // List.sort is stable: equal versions keep their list order (later = newer).
        overlays.sort(Comparator.comparingLong(DataOverlayFile::committedVersion)); // versions < 2^63
        return new Fragment(
                p.getId(), files, del, p.getPhysicalRows(), new RowIdMeta(rowIds, updated, created), overlays);
    }

    private static SequenceSource external(ExternalFile e) {
        return new SequenceSource.External(e.getPath(), e.getOffset(), e.getSize());
    }

    private static ExternalFile toProto(SequenceSource.External e) {
        return ExternalFile.newBuilder()
                .setPath(e.path())
                .setOffset(e.offset())
                .setSize(e.size())
                .build();
    }

    public static DataFragment toProto(Fragment f) {
        DataFragment.Builder b = DataFragment.newBuilder().setId(f.id()).setPhysicalRows(f.physicalRows());
        for (DataFile d : f.files()) {
            b.addFiles(toProto(d));
        }
        if (f.deletionFile() != null) {
            b.setDeletionFile(toProto(f.deletionFile()));
        }
        RowIdMeta m = f.rowIdMeta();
        if (m.rowIds() instanceof SequenceSource.Inline i) {
            b.setInlineRowIds(ByteString.copyFrom(i.bytes()));
        } else if (m.rowIds() instanceof SequenceSource.External e) {
            b.setExternalRowIds(toProto(e));
        }
        if (m.lastUpdatedAtVersions() instanceof SequenceSource.Inline i) {
            b.setInlineLastUpdatedAtVersions(ByteString.copyFrom(i.bytes()));
        } else if (m.lastUpdatedAtVersions() instanceof SequenceSource.External e) {
            b.setExternalLastUpdatedAtVersions(toProto(e));
        }
        if (m.createdAtVersions() instanceof SequenceSource.Inline i) {
            b.setInlineCreatedAtVersions(ByteString.copyFrom(i.bytes()));
        } else if (m.createdAtVersions() instanceof SequenceSource.External e) {
            b.setExternalCreatedAtVersions(toProto(e));
        }
        for (DataOverlayFile o : f.overlays()) {
            b.addOverlays(toProto(o));
        }
        return b.build();
    }

    public static List<Fragment> fragments(List<DataFragment> ps, String context) throws CorruptTableException {
        List<Fragment> out = new ArrayList<>(ps.size());
        for (DataFragment p : ps) {
            out.add(fragment(p, context));
        }
        return out;
    }

    public static List<DataFragment> toProtos(List<Fragment> fs) {
        List<DataFragment> out = new ArrayList<>(fs.size());
        for (Fragment f : fs) {
            out.add(toProto(f));
        }
        return out;
    }

    // ---- BasePath -------------------------------------------------------------------------

    public static BasePath basePath(lance.table.BasePath p) {
        return new BasePath(p.getId(), p.hasName() ? p.getName() : null, p.getIsDatasetRoot(), p.getPath());
    }

    public static lance.table.BasePath toProto(BasePath b) {
        lance.table.BasePath.Builder p = lance.table.BasePath.newBuilder()
                .setId(b.id())
                .setIsDatasetRoot(b.isDatasetRoot())
                .setPath(b.path());
        if (b.name() != null) {
            p.setName(b.name());
        }
        return p.build();
    }

    // ---- Manifest -------------------------------------------------------------------------

    /**
     * Decodes a manifest message.
     *
     * @param indices the decoded index section, or null when the file has none
     * @param inlineTransaction the inline transaction blob, or null
     * @param path the manifest file, for error messages
     */
    public static Manifest manifest(
            lance.table.Manifest p, List<IndexMetadata> indices, byte[] inlineTransaction, String path)
            throws CorruptTableException {
        Map<String, byte[]> schemaMetadata = new LinkedHashMap<>();
        p.getSchemaMetadataMap().forEach((k, v) -> schemaMetadata.put(k, v.toByteArray()));
        List<IndexEntry> idx = new ArrayList<>();
        if (indices != null) {
            for (IndexMetadata m : indices) {
                idx.add(new IndexEntry(m));
            }
        }
        List<BasePath> bases = new ArrayList<>();
        for (lance.table.BasePath b : p.getBasePathsList()) {
            bases.add(basePath(b));
        }
        Manifest.Builder b = Manifest.builder()
                .version(p.getVersion())
                .schemaFields(p.getFieldsList())
                .schemaMetadata(schemaMetadata)
                .fragments(fragments(p.getFragmentsList(), "manifest " + path))
                .versionAuxData(p.getVersionAuxData())
                .indices(idx)
                .writeIndexSection(indices != null)
                .timestamp(
                        p.hasTimestamp()
                                ? Instant.ofEpochSecond(
                                        p.getTimestamp().getSeconds(),
                                        p.getTimestamp().getNanos())
                                : null)
                .tag(p.getTag())
                .readerFeatureFlags(p.getReaderFeatureFlags())
                .writerFeatureFlags(p.getWriterFeatureFlags())
                .maxFragmentId(
                        p.hasMaxFragmentId()
                                ? OptionalLong.of(Integer.toUnsignedLong(p.getMaxFragmentId()))
                                : OptionalLong.empty())
                .transactionFile(p.getTransactionFile())
                .nextRowId(p.getNextRowId())
                .config(p.getConfigMap())
                .basePaths(bases)
                .tableMetadata(p.getTableMetadataMap())
                .branch(p.hasBranch() ? p.getBranch() : null)
                .inlineTransaction(inlineTransaction);
        if (p.hasWriterVersion()) {
            lance.table.Manifest.WriterVersion w = p.getWriterVersion();
            b.writerVersion(new WriterVersion(
                    w.getLibrary(),
                    w.getVersion(),
                    w.hasPrerelease() ? w.getPrerelease() : null,
                    w.hasBuildMetadata() ? w.getBuildMetadata() : null));
        }
        if (p.hasDataFormat()) {
            b.dataFormat(new DataStorageFormat(
                    p.getDataFormat().getFileFormat(), p.getDataFormat().getVersion()));
        }
        return b.build();
    }

    /**
     * Encodes a manifest message.
     *
     * @param indexSectionPosition position of the index section blob, or -1 for none
     * @param transactionSectionPosition position of the inline transaction blob, or -1 for none
     */
    public static lance.table.Manifest toProto(Manifest m, long indexSectionPosition, long transactionSectionPosition) {
        lance.table.Manifest.Builder b = lance.table.Manifest.newBuilder()
                .addAllFields(m.schemaFields())
                .addAllFragments(toProtos(m.fragments()))
                .setVersion(m.version())
                .setVersionAuxData(m.versionAuxData())
                .setTag(m.tag())
                .setReaderFeatureFlags(m.readerFeatureFlags())
                .setWriterFeatureFlags(m.writerFeatureFlags())
                .setTransactionFile(m.transactionFile())
                .setNextRowId(m.nextRowId())
                .putAllConfig(m.config())
                .putAllTableMetadata(m.tableMetadata());
        m.schemaMetadata().forEach((k, v) -> b.putSchemaMetadata(k, ByteString.copyFrom(v)));
        if (indexSectionPosition >= 0) {
            b.setIndexSection(indexSectionPosition);
        }
        if (m.timestamp() != null) {
            b.setTimestamp(Timestamp.newBuilder()
                    .setSeconds(m.timestamp().getEpochSecond())
                    .setNanos(m.timestamp().getNano()));
        }
        m.maxFragmentId().ifPresent(v -> b.setMaxFragmentId((int) v));
        if (m.writerVersion() != null) {
            WriterVersion w = m.writerVersion();
            lance.table.Manifest.WriterVersion.Builder wb = lance.table.Manifest.WriterVersion.newBuilder()
                    .setLibrary(w.library())
                    .setVersion(w.version());
            if (w.prerelease() != null) {
                wb.setPrerelease(w.prerelease());
            }
            if (w.buildMetadata() != null) {
                wb.setBuildMetadata(w.buildMetadata());
            }
            b.setWriterVersion(wb);
        }
        if (m.dataFormat() != null) {
            b.setDataFormat(lance.table.Manifest.DataStorageFormat.newBuilder()
                    .setFileFormat(m.dataFormat().fileFormat())
                    .setVersion(m.dataFormat().version()));
        }
        for (BasePath bp : m.basePaths()) {
            b.addBasePaths(toProto(bp));
        }
        if (m.branch() != null) {
            b.setBranch(m.branch());
        }
        if (transactionSectionPosition >= 0) {
            b.setTransactionSection(transactionSectionPosition);
        }
        return b.build();
    }
}
