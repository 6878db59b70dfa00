package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import dev.lanceflink.schema.LanceSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import lance.file.Field;

/**
 * One version of a table: the decoded content of a {@code _versions/*.manifest} file (the
 * {@code Manifest} message plus its index section and inline transaction blob).
 *
 * <p>Immutable. Build new versions with {@link #toBuilder()}; {@link ManifestIO} reads and
 * writes the file layout. Fields that only describe the file they were read from
 * ({@code index_section}, {@code transaction_section} positions) are not part of the model: they
 * are recomputed when the file is written.
 */
public final class Manifest {
    private final long version;
    // The protobuf field type stays qualified: a bare "Field" reads as Arrow's everywhere else.
    private final List<Field> schemaFields;
    private final Map<String, byte[]> schemaMetadata;
    private final List<Fragment> fragments;
    private final long versionAuxData;
    private final List<IndexEntry> indices;
    private final boolean writeIndexSection;
    private final Instant timestamp;
    private final String tag;
    private final long readerFeatureFlags;
    private final long writerFeatureFlags;
    private final OptionalLong maxFragmentId;
    private final String transactionFile;
    private final WriterVersion writerVersion;
    private final long nextRowId;
    private final DataStorageFormat dataFormat;
    private final Map<String, String> config;
    private final List<BasePath> basePaths;
    private final Map<String, String> tableMetadata;
    private final String branch;
    private final byte[] inlineTransaction;
    /**
     * Fragments by id, built on the first {@link #fragment} look-up of a manifest with many
     * fragments: the upsert sink looks up a fragment per changed key (thousands per checkpoint),
     * and a linear search made that cost grow with the table's fragment count.
     */
    private volatile Map<Long, Fragment> fragmentsById;

    private Manifest(Builder b) {
        this.version = b.version;
        this.schemaFields = List.copyOf(b.schemaFields);
        Map<String, byte[]> sm = new LinkedHashMap<>();
        b.schemaMetadata.forEach((k, v) -> sm.put(k, v.clone()));
        this.schemaMetadata = Collections.unmodifiableMap(sm);
        this.fragments = List.copyOf(b.fragments);
        this.versionAuxData = b.versionAuxData;
        this.indices = List.copyOf(b.indices);
        this.writeIndexSection = b.writeIndexSection || !b.indices.isEmpty();
        this.timestamp = b.timestamp;
        this.tag = requireNonNull(b.tag, "tag is null");
        this.readerFeatureFlags = b.readerFeatureFlags;
        this.writerFeatureFlags = b.writerFeatureFlags;
        this.maxFragmentId = b.maxFragmentId;
        this.transactionFile = requireNonNull(b.transactionFile, "transactionFile is null");
        this.writerVersion = b.writerVersion;
        this.nextRowId = b.nextRowId;
        this.dataFormat = b.dataFormat;
        this.config = Collections.unmodifiableMap(new LinkedHashMap<>(b.config));
        this.basePaths = List.copyOf(b.basePaths);
        this.tableMetadata = Collections.unmodifiableMap(new LinkedHashMap<>(b.tableMetadata));
        this.branch = b.branch;
        this.inlineTransaction = b.inlineTransaction == null ? null : b.inlineTransaction.clone();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.version = version;
        b.schemaFields = new ArrayList<>(schemaFields);
        b.schemaMetadata = new LinkedHashMap<>(schemaMetadata);
        b.fragments = new ArrayList<>(fragments);
        b.versionAuxData = versionAuxData;
        b.indices = new ArrayList<>(indices);
        b.writeIndexSection = writeIndexSection;
        b.timestamp = timestamp;
        b.tag = tag;
        b.readerFeatureFlags = readerFeatureFlags;
        b.writerFeatureFlags = writerFeatureFlags;
        b.maxFragmentId = maxFragmentId;
        b.transactionFile = transactionFile;
        b.writerVersion = writerVersion;
        b.nextRowId = nextRowId;
        b.dataFormat = dataFormat;
        b.config = new LinkedHashMap<>(config);
        b.basePaths = new ArrayList<>(basePaths);
        b.tableMetadata = new LinkedHashMap<>(tableMetadata);
        b.branch = branch;
        b.inlineTransaction = inlineTransaction;
        return b;
    }

    /** The table version (first version of a table is 1). */
    public long version() {
        return version;
    }

    /** The schema, flattened in pre-order as stored ({@code Manifest.fields}). */
    public List<Field> schemaFields() {
        return schemaFields;
    }

    /** The table schema with field ids and schema metadata. */
    public LanceSchema schema() {
        Map<String, ByteString> md = new LinkedHashMap<>();
        schemaMetadata.forEach((k, v) -> md.put(k, ByteString.copyFrom(v)));
        return LanceSchema.fromProto(schemaFields, md);
    }

    /** Arrow schema-level metadata (values are UTF-8 bytes). */
    public Map<String, byte[]> schemaMetadata() {
        Map<String, byte[]> copy = new LinkedHashMap<>();
        schemaMetadata.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    /** All fragments, sorted by id. */
    public List<Fragment> fragments() {
        return fragments;
    }

    /** The fragment with {@code id}, if present. */
    public Optional<Fragment> fragment(long id) {
        if (fragments.size() <= LINEAR_FRAGMENT_LOOKUP) {
            for (Fragment f : fragments) {
                if (f.id() == id) {
                    return Optional.of(f);
                }
            }
            return Optional.empty();
        }
        Map<Long, Fragment> index = fragmentsById;
        if (index == null) {
            index = new HashMap<>(fragments.size() * 2);
            for (Fragment f : fragments) {
                index.putIfAbsent(f.id(), f); // the first of a (corrupt) duplicate id, as the linear search
            }
            fragmentsById = index;
        }
        return Optional.ofNullable(index.get(id));
    }

    /** Up to this many fragments a linear search is as fast as building and probing an index. */
    private static final int LINEAR_FRAGMENT_LOOKUP = 8;

    public long versionAuxData() {
        return versionAuxData;
    }

    /** Every index segment of this version (the full index section). */
    public List<IndexEntry> indices() {
        return indices;
    }

    /** Whether the file carries an index section (Lance omits it when there was never an index). */
    public boolean hasIndexSection() {
        return writeIndexSection;
    }

    /** Commit time, or null when the manifest has none. */
    public Instant timestamp() {
        return timestamp;
    }

    /** Version tag ("" = none). */
    public String tag() {
        return tag;
    }

    public long readerFeatureFlags() {
        return readerFeatureFlags;
    }

    public long writerFeatureFlags() {
        return writerFeatureFlags;
    }

    /** True when the table uses stable row ids (reader flag 2). */
    public boolean usesStableRowIds() {
        return (readerFeatureFlags & FeatureFlags.STABLE_ROW_IDS) != 0;
    }

    /** The stored high-water mark of fragment ids; empty when no fragment was ever created. */
    public OptionalLong maxFragmentId() {
        return maxFragmentId;
    }

    /**
     * The id the next new fragment gets: one past the stored high-water mark, or one past the
     * largest existing fragment id for manifests without one, or 0 for an empty table.
     */
    public long nextFragmentId() {
        long max = -1;
        if (maxFragmentId.isPresent()) {
            max = maxFragmentId.getAsLong();
        }
        for (Fragment f : fragments) {
            max = Math.max(max, f.id());
        }
        return max + 1;
    }

    /** Name of this version's transaction file under {@code _transactions/}, or "". */
    public String transactionFile() {
        return transactionFile;
    }

    /** The writer library, or null for very old manifests. */
    public WriterVersion writerVersion() {
        return writerVersion;
    }

    /** Next unused stable row id. */
    public long nextRowId() {
        return nextRowId;
    }

    /** The data file format of the table, or null for very old manifests. */
    public DataStorageFormat dataFormat() {
        return dataFormat;
    }

    /** Table configuration ({@code lance.*} keys reserved). */
    public Map<String, String> config() {
        return config;
    }

    public List<BasePath> basePaths() {
        return basePaths;
    }

    /** Free-form table metadata, inherited by later versions. */
    public Map<String, String> tableMetadata() {
        return tableMetadata;
    }

    /** Branch name, or null for main. */
    public String branch() {
        return branch;
    }

    /** The serialized inline {@code Transaction} blob, if the manifest carries one. */
    public Optional<byte[]> inlineTransaction() {
        return Optional.ofNullable(inlineTransaction).map(byte[]::clone);
    }

    /** Rows visible to readers (physical rows minus deleted rows, over all fragments). */
    public long countLiveRows() {
        long n = 0;
        for (Fragment f : fragments) {
            n += f.liveRows();
        }
        return n;
    }

    /**
     * The largest field id ever assigned: the maximum over the schema and every data file's
     * {@code fields} (the id of a dropped column may survive only in old files and must never be
     * reused). -1 for an empty table without schema.
     */
    public int maxFieldId() {
        int max = -1;
        for (Field f : schemaFields) {
            max = Math.max(max, f.getId());
        }
        for (Fragment fr : fragments) {
            for (DataFile d : fr.files()) {
                for (int i = 0; i < d.fieldCount(); i++) {
                    max = Math.max(max, d.fieldId(i));
                }
            }
            for (DataOverlayFile o : fr.overlays()) {
                for (int i = 0; i < o.dataFile().fieldCount(); i++) {
                    max = Math.max(max, o.dataFile().fieldId(i));
                }
            }
        }
        return max;
    }

    /** True if any fragment has a non-empty overlay list. */
    public boolean hasOverlays() {
        for (Fragment f : fragments) {
            if (!f.overlays().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "Manifest[version=" + version + ", fragments=" + fragments.size() + ", indices=" + indices.size()
                + ", format=" + dataFormat + ", flags=r" + readerFeatureFlags + "/w" + writerFeatureFlags + "]";
    }

    /** Mutable builder; unset fields take proto3 defaults. */
    public static final class Builder {
        private long version;
        private List<Field> schemaFields = new ArrayList<>();
        private Map<String, byte[]> schemaMetadata = new LinkedHashMap<>();
        private List<Fragment> fragments = new ArrayList<>();
        private long versionAuxData;
        private List<IndexEntry> indices = new ArrayList<>();
        private boolean writeIndexSection;
        private Instant timestamp;
        private String tag = "";
        private long readerFeatureFlags;
        private long writerFeatureFlags;
        private OptionalLong maxFragmentId = OptionalLong.empty();
        private String transactionFile = "";
        private WriterVersion writerVersion;
        private long nextRowId;
        private DataStorageFormat dataFormat;
        private Map<String, String> config = new LinkedHashMap<>();
        private List<BasePath> basePaths = new ArrayList<>();
        private Map<String, String> tableMetadata = new LinkedHashMap<>();
        private String branch;
        private byte[] inlineTransaction;

        private Builder() {}

        public Builder version(long v) {
            this.version = v;
            return this;
        }

        public Builder schemaFields(List<Field> v) {
            this.schemaFields = new ArrayList<>(v);
            return this;
        }

        /** Sets the schema fields and schema metadata from {@code schema}. */
        public Builder schema(LanceSchema schema) {
            this.schemaFields = new ArrayList<>(schema.toProto());
            this.schemaMetadata = new LinkedHashMap<>();
            schema.rawMetadata().forEach((k, v) -> this.schemaMetadata.put(k, v.toByteArray()));
            return this;
        }

        public Builder schemaMetadata(Map<String, byte[]> v) {
            this.schemaMetadata = new LinkedHashMap<>(v);
            return this;
        }

        public Builder fragments(List<Fragment> v) {
            this.fragments = new ArrayList<>(v);
            return this;
        }

        public Builder versionAuxData(long v) {
            this.versionAuxData = v;
            return this;
        }

        /** The full index list; a non-empty list always writes an index section. */
        public Builder indices(List<IndexEntry> v) {
            this.indices = new ArrayList<>(v);
            return this;
        }

        /** Forces an (possibly empty) index section, as Lance writes once a table had an index. */
        public Builder writeIndexSection(boolean v) {
            this.writeIndexSection = v;
            return this;
        }

        public Builder timestamp(Instant v) {
            this.timestamp = v;
            return this;
        }

        public Builder tag(String v) {
            this.tag = v;
            return this;
        }

        public Builder readerFeatureFlags(long v) {
            this.readerFeatureFlags = v;
            return this;
        }

        public Builder writerFeatureFlags(long v) {
            this.writerFeatureFlags = v;
            return this;
        }

        public Builder maxFragmentId(OptionalLong v) {
            this.maxFragmentId = requireNonNull(v);
            return this;
        }

        public Builder transactionFile(String v) {
            this.transactionFile = v;
            return this;
        }

        public Builder writerVersion(WriterVersion v) {
            this.writerVersion = v;
            return this;
        }

        public Builder nextRowId(long v) {
            this.nextRowId = v;
            return this;
        }

        public Builder dataFormat(DataStorageFormat v) {
            this.dataFormat = v;
            return this;
        }

        public Builder config(Map<String, String> v) {
            this.config = new LinkedHashMap<>(v);
            return this;
        }

        public Builder basePaths(List<BasePath> v) {
            this.basePaths = new ArrayList<>(v);
            return this;
        }

        public Builder tableMetadata(Map<String, String> v) {
            this.tableMetadata = new LinkedHashMap<>(v);
            return this;
        }

        public Builder branch(String v) {
            this.branch = v;
            return this;
        }

        /** The serialized transaction to embed inline, or null for none. */
        public Builder inlineTransaction(byte[] v) {
            this.inlineTransaction = v;
            return this;
        }

        public Manifest build() {
            return new Manifest(this);
        }
    }
}
