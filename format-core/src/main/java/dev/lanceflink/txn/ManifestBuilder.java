package dev.lanceflink.txn;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.FeatureFlags;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.WriterVersion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Builds the manifest of version {@code current.version + 1} from the current manifest and a
 * transaction (table-format.md §9, transactions.md §3). Each operation kind has its own small
 * applier; this class does the steps common to all of them: id bookkeeping, sorting, dropping
 * fully tombstoned files, invariant checks, feature flags, writer version, timestamp and the
 * transaction references.
 */
public final class ManifestBuilder {

    /**
     * Settings of one build.
     *
     * @param timestamp commit time written into the manifest
     * @param transactionFile name of the {@code .txn} file written for this commit, or "" if none
     *     (then writer flag 32 is set and the transaction must be inline)
     * @param inlineTransaction whether to embed the transaction in the manifest file
     * @param dataFormatForNewTable data format of a table being created (ignored otherwise)
     * @param stableRowIdsForNewTable whether a table being created uses stable row ids
     * @param encodedTransaction the encoding ({@link TransactionCodec#encode}) of the transaction
     *     being built, to inline as it is, or null to encode it here: the commit loop already
     *     encoded it for the {@code .txn} file, and a {@code Merge} lists every fragment of the
     *     table, so a second encoding costs as much as serializing the manifest
     */
    public record Options(
            Instant timestamp,
            String transactionFile,
            boolean inlineTransaction,
            DataStorageFormat dataFormatForNewTable,
            boolean stableRowIdsForNewTable,
            byte[] encodedTransaction) {
        public Options {
            requireNonNull(timestamp, "timestamp is null");
            requireNonNull(transactionFile, "transactionFile is null");
            if (transactionFile.isEmpty() && !inlineTransaction) {
                throw new IllegalArgumentException("A commit must record its transaction in a .txn file, inline, or"
                        + " both; concurrent writers cannot check conflicts otherwise");
            }
        }

        /** Options that encode the transaction when it is inlined. */
        public Options(
                Instant timestamp,
                String transactionFile,
                boolean inlineTransaction,
                DataStorageFormat dataFormatForNewTable,
                boolean stableRowIdsForNewTable) {
            this(timestamp, transactionFile, inlineTransaction, dataFormatForNewTable, stableRowIdsForNewTable, null);
        }
    }

    private static final Map<Class<? extends Operation>, OperationApplier<?>> APPLIERS = Map.ofEntries(
            Map.entry(Operation.Append.class, new AppendApplier()),
            Map.entry(Operation.Delete.class, new DeleteApplier()),
            Map.entry(Operation.Update.class, new UpdateApplier()),
            Map.entry(Operation.Overwrite.class, new OverwriteApplier()),
            Map.entry(Operation.DataOverlay.class, new DataOverlayApplier()),
            Map.entry(Operation.Rewrite.class, new RewriteApplier()),
            Map.entry(Operation.ReserveFragments.class, new ReserveFragmentsApplier()),
            Map.entry(Operation.CreateIndex.class, new CreateIndexApplier()),
            Map.entry(Operation.Merge.class, new MergeApplier()),
            Map.entry(Operation.Project.class, new ProjectApplier()),
            Map.entry(Operation.UpdateConfig.class, new UpdateConfigApplier()),
            Map.entry(Operation.DataReplacement.class, new DataReplacementApplier()),
            Map.entry(Operation.UpdateBases.class, new UpdateBasesApplier()));

    private ManifestBuilder() {}

    /** Whether this library can build a manifest for {@code op}. */
    public static boolean supports(Operation op) {
        return APPLIERS.containsKey(op.getClass());
    }

    /**
     * Builds the next manifest.
     *
     * @param current the latest manifest, or null when the transaction creates the table
     * @param txn the transaction, already rebased onto {@code current}; its {@code read_version}
     *     is the version its writer read (at most {@code current}'s)
     * @throws IllegalArgumentException if the operation is not supported or invalid
     * @throws IllegalStateException if the result would violate a table invariant
     */
    public static Manifest build(Manifest current, Transaction txn, Options options) throws CorruptTableException {
        Operation op = txn.operation();
        if (current == null && !(op instanceof Operation.Overwrite)) {
            throw new IllegalArgumentException(
                    "The table does not exist yet; only an Overwrite can create it, not " + op.name());
        }
        OperationApplier<Operation> applier = applierFor(op);
        long newVersion = current == null ? 1 : current.version() + 1;
        if (newVersion < 0) {
            throw new IllegalStateException("Version " + Long.toUnsignedString(newVersion)
                    + " would set the detached-version bit; the table has run out of versions");
        }
        ManifestDraft d = new ManifestDraft(current, newVersion, options.stableRowIdsForNewTable());
        if (current != null && Long.compareUnsigned(txn.readVersion(), current.version()) > 0) {
            throw new IllegalArgumentException("Transaction " + txn.uuid() + " read version " + txn.readVersion()
                    + ", which is newer than the version " + current.version() + " it is committed on");
        }
        d.readVersion = txn.readVersion();
        applier.apply(d, op);
        return finish(d, txn, options);
    }

    /**
     * Builds the manifest of a {@link Operation.Restore}: the content of {@code restored} (fragments,
     * schema, indices, config, metadata) as version {@code current.version + 1}. The fragment-id
     * high-water mark and {@code next_row_id} keep the higher of both versions, so ids handed out
     * after the restored version are never reused.
     */
    public static Manifest buildRestore(Manifest current, Manifest restored, Transaction txn, Options options) {
        if (!(txn.operation() instanceof Operation.Restore r) || r.version() != restored.version()) {
            throw new IllegalArgumentException("buildRestore needs a Restore transaction for version "
                    + restored.version() + ", got " + txn.operation());
        }
        ManifestDraft d = new ManifestDraft(restored, current.version() + 1, false);
        d.reservedMaxFragmentId =
                Math.max(d.reservedMaxFragmentId, current.maxFragmentId().orElse(-1));
        d.nextRowId = Math.max(d.nextRowId, current.nextRowId());
        return finish(d, txn, options);
    }

    @SuppressWarnings("unchecked")
    private static OperationApplier<Operation> applierFor(Operation op) {
        OperationApplier<?> a = APPLIERS.get(op.getClass());
        if (a == null) {
            throw new IllegalArgumentException("Committing a " + op.name() + " operation is not supported by this"
                    + " library (Restore goes through buildRestore; supported here: Append, Delete, Update, Overwrite, DataOverlay, Rewrite,"
                    + " ReserveFragments, CreateIndex, Merge, Project, UpdateConfig, DataReplacement, UpdateBases)");
        }
        return (OperationApplier<Operation>) a;
    }

    private static Manifest finish(ManifestDraft d, Transaction txn, ManifestBuilder.Options options) {
        List<Fragment> fragments = new ArrayList<>(d.fragments.size());
        Set<Long> ids = new HashSet<>();
        boolean hasDeletions = false;
        boolean hasOverlays = false;
        long maxId = d.reservedMaxFragmentId;
        for (Fragment f : d.fragments) {
            if (!ids.add(f.id())) {
                throw new IllegalStateException("Fragment id " + f.id() + " occurs twice in the new manifest");
            }
            Fragment.checkFitsU32(f.id());
            List<DataFile> live = new ArrayList<>(f.files().size());
            for (DataFile file : f.files()) {
                if (!file.isFullyTombstoned()) {
                    live.add(file);
                }
            }
            Fragment kept = live.size() == f.files().size() ? f : f.withFiles(live);
            kept.checkOverlayOrder();
            if (d.stableRowIds && kept.rowIdMeta().rowIds() == null) {
                throw new IllegalStateException("Fragment " + kept.id() + " has no row ids, but the table uses stable"
                        + " row ids: every fragment must carry them");
            }
            hasDeletions |= kept.deletionFile() != null;
            hasOverlays |= !kept.overlays().isEmpty();
            maxId = Math.max(maxId, kept.id());
            fragments.add(kept);
        }
        fragments.sort(Comparator.comparingLong(Fragment::id));

        DataStorageFormat format = dataFormat(d, txn, fragments, options);
        if (format != null) {
            checkDataFileVersions(fragments, format);
        }

        boolean skipTxnFile = options.transactionFile().isEmpty();
        FeatureFlags.Words flags = FeatureFlags.compute(
                hasDeletions, d.stableRowIds, !d.config.isEmpty(), !d.basePaths.isEmpty(), skipTxnFile, hasOverlays);
        Manifest.Builder b = Manifest.builder()
                .version(d.newVersion)
                .schema(d.schema)
                .fragments(fragments)
                .indices(d.indices)
                .writeIndexSection(d.writeIndexSection)
                .timestamp(options.timestamp())
                .tag(txn.tag())
                .readerFeatureFlags(flags.reader())
                .writerFeatureFlags(flags.writer())
                .maxFragmentId(maxId < 0 ? OptionalLong.empty() : OptionalLong.of(maxId))
                .transactionFile(options.transactionFile())
                .writerVersion(WriterVersion.thisLibrary())
                .nextRowId(d.nextRowId)
                .dataFormat(format)
                .config(d.config)
                .basePaths(d.basePaths)
                .tableMetadata(d.tableMetadata)
                .branch(d.current == null ? null : d.current.branch());
        if (options.inlineTransaction()) {
            byte[] encoded = options.encodedTransaction();
            b.inlineTransaction(encoded != null ? encoded : TransactionCodec.encode(txn));
        }
        return b.build();
    }

    /**
     * Every data file must use the table's data format (Lance rejects mixed versions). 2.0 files
     * may carry (2, 0) or the footer's (0, 3).
     */
    /**
     * The new manifest's data format. An existing table keeps its own, except that an Overwrite
     * takes the version its data files were written in (a table may be overwritten into another
     * file version, and the writer, not a commit option's default, knows which); an Overwrite
     * without files keeps the table's. A new table takes its files' version too, else the
     * commit options'.
     */
    private static DataStorageFormat dataFormat(
            ManifestDraft d, Transaction txn, List<Fragment> fragments, Options options) {
        boolean existing = d.current != null && d.current.dataFormat() != null;
        if (existing && !(txn.operation() instanceof Operation.Overwrite)) {
            return d.current.dataFormat();
        }
        for (Fragment f : fragments) {
            for (DataFile file : f.files()) {
                if (file.fileMajorVersion() == 2) {
                    return DataStorageFormat.lance(file.fileMajorVersion() + "." + file.fileMinorVersion());
                }
                if (file.fileMajorVersion() == 0 && file.fileMinorVersion() == 3) {
                    return DataStorageFormat.lance("2.0"); // 2.0 files carry the legacy numbers 0.3
                }
            }
        }
        return existing ? d.current.dataFormat() : options.dataFormatForNewTable();
    }

    private static void checkDataFileVersions(List<Fragment> fragments, DataStorageFormat format) {
        if (format.version().startsWith("0.")) {
            return; // legacy tables: file versions are not checked
        }
        int[] mm = format.majorMinor();
        for (Fragment f : fragments) {
            for (DataFile file : f.files()) {
                boolean ok = (file.fileMajorVersion() == mm[0] && file.fileMinorVersion() == mm[1])
                        || (mm[0] == 2 && mm[1] == 0 && file.fileMajorVersion() == 0 && file.fileMinorVersion() == 3);
                if (!ok) {
                    throw new IllegalStateException("Fragment " + f.id() + ": data file " + file.path() + " is format "
                            + file.fileMajorVersion() + "." + file.fileMinorVersion()
                            + " but the table's data format is "
                            + format.version() + "; all data files of a table must use the same format version");
                }
            }
        }
    }
}
