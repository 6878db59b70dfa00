package dev.lanceflink.flink.table;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.NotADatasetException;
import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.catalog.CatalogSchemas;
import dev.lanceflink.flink.sink.KeyMapMode;
import dev.lanceflink.flink.sink.UpdateMode;
import dev.lanceflink.flink.sink.maintenance.MaintenanceSettings;
import dev.lanceflink.flink.types.LanceTypeException;
import dev.lanceflink.flink.types.TypeCompatibility;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.schema.LanceField;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'lance'}: Lance tables in Flink SQL.
 *
 * <pre>
 * CREATE TABLE items (id BIGINT NOT NULL, name STRING, embedding ARRAY&lt;FLOAT&gt;,
 *                     addr BIGINT METADATA FROM '_rowaddr' VIRTUAL)
 * WITH ('connector' = 'lance', 'path' = 's3://bucket/items.lance',
 *       'storage.aws_region' = 'eu-west-1');
 * </pre>
 *
 * <p>Reads: columns are matched to the table's columns by name; a declaration may have fewer
 * columns than the table. The version is pinned when a query is planned ({@code 'version'},
 * {@code 'as-of'}, or the latest), and the declared types are checked against that version's
 * schema.
 *
 * <p>Writes ({@code INSERT INTO}, {@code UPDATE}, {@code DELETE}) always change the latest
 * version, so they refuse {@code 'version'} and {@code 'as-of'}. A declaration may list any of
 * the table's columns, in any order, with the stored types ({@link LanceWriteSchemaCheck}): new
 * rows get NULL in the others, updates leave them alone. When the path holds no table, the first
 * write creates it from the declaration ({@code 'create.*'} options); reads then fail, saying so.
 *
 * <p>Options are validated by Flink's {@link FactoryUtil}: an unknown key fails the statement with
 * the list of supported ones; {@code storage.*} keys pass through to the object store.
 */
public final class LanceDynamicTableFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {
    public static final String IDENTIFIER = "lance";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(LanceConnectorOptions.PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                LanceConnectorOptions.VERSION,
                LanceConnectorOptions.AS_OF,
                LanceConnectorOptions.SCAN_BATCH_SIZE,
                LanceConnectorOptions.SCAN_ROWS_PER_SPLIT,
                LanceConnectorOptions.SCAN_FILTER_PUSH_DOWN_ENABLED,
                LanceConnectorOptions.VECTOR_DIMENSIONS,
                LanceConnectorOptions.SINK_ROWS_PER_FILE,
                LanceConnectorOptions.SINK_BATCH_ROWS,
                LanceConnectorOptions.SINK_COMMIT_RETRIES,
                LanceConnectorOptions.SINK_COMMIT_RETRY_BACKOFF,
                LanceConnectorOptions.SINK_ALLOW_RESTORE_FROM_OLDER_STATE,
                LanceConnectorOptions.SINK_UID_SUFFIX,
                LanceConnectorOptions.SINK_UPDATE_MODE,
                LanceConnectorOptions.SINK_KEY_MAP,
                LanceConnectorOptions.SINK_KEY_MAP_MAX_MEMORY,
                FactoryUtil.SINK_PARALLELISM,
                LanceConnectorOptions.CREATE_FILE_VERSION,
                LanceConnectorOptions.CREATE_STABLE_ROW_IDS,
                LanceConnectorOptions.SINK_MAINTENANCE_ENABLED,
                LanceConnectorOptions.SINK_MAINTENANCE_CHECK_EVERY_COMMITS,
                LanceConnectorOptions.SINK_MAINTENANCE_CHECK_INTERVAL,
                LanceConnectorOptions.SINK_MAINTENANCE_MERGE_MAX_OVERLAYS,
                LanceConnectorOptions.SINK_MAINTENANCE_MERGE_MAX_OVERLAY_BYTES,
                LanceConnectorOptions.SINK_MAINTENANCE_MERGE_HARD_MAX_OVERLAYS,
                LanceConnectorOptions.SINK_MAINTENANCE_FOLD_MIN_COVERAGE,
                LanceConnectorOptions.SINK_MAINTENANCE_FOLD_QUIET_PERIOD,
                LanceConnectorOptions.SINK_MAINTENANCE_CLEANUP_ENABLED,
                LanceConnectorOptions.SINK_MAINTENANCE_RETAIN_VERSIONS,
                LanceConnectorOptions.SINK_MAINTENANCE_RETAIN_MIN_AGE,
                LanceConnectorOptions.SINK_MAINTENANCE_CLEANUP_GRACE,
                LanceConnectorOptions.SINK_MAINTENANCE_LEASE_TIMEOUT,
                LanceConnectorOptions.SINK_MAINTENANCE_PARALLELISM,
                LanceConnectorOptions.SINK_MAINTENANCE_MAX_FRAGMENTS_PER_RUN,
                LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_ENABLED,
                LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_TARGET_ROWS,
                LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_SMALL_ROWS,
                LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_MIN_DELETED_RATIO,
                LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_MIN_FRAGMENTS);
    }

    // ---- source -------------------------------------------------------------------------------

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(LanceConnectorOptions.STORAGE_PREFIX);
        ReadableConfig options = helper.getOptions();
        String uri = options.get(LanceConnectorOptions.PATH);
        Map<String, String> storage = storageOptions(context.getCatalogTable().getOptions());
        Optional<Long> version = options.getOptional(LanceConnectorOptions.VERSION);
        Optional<Instant> asOf =
                options.getOptional(LanceConnectorOptions.AS_OF).map(LanceDynamicTableFactory::instant);
        if (version.isPresent() && asOf.isPresent()) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + " sets both 'version' and 'as-of'"
                    + "; time travel takes one of them");
        }
        options.getOptional(LanceConnectorOptions.VECTOR_DIMENSIONS).ifPresent(VectorDimensions::parse);
        int batchSize = options.get(LanceConnectorOptions.SCAN_BATCH_SIZE);
        long rowsPerSplit = options.get(LanceConnectorOptions.SCAN_ROWS_PER_SPLIT);
        if (batchSize < 1 || rowsPerSplit < 1) {
            throw new ValidationException("'scan.batch-size' and 'scan.rows-per-split' must be positive, got "
                    + batchSize + " and " + rowsPerSplit);
        }
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<String> physical = new ArrayList<>();
        try (Dataset latest = Dataset.open(uri, storage)) {
            Dataset at = version.isPresent()
                    ? latest.checkoutVersion(version.get())
                    : asOf.isPresent() ? latest.checkoutAsOf(asOf.get()) : latest;
            for (Column c : schema.getColumns()) {
                if (!c.isPhysical()) {
                    continue;
                }
                LanceField f = storedColumn(context, uri, at, c.getName());
                TypeCompatibility.checkReadable(c.getName(), c.getDataType().getLogicalType(), f.toArrow());
                physical.add(c.getName());
            }
            return new LanceDynamicTableSource(
                    new LanceTableConfig(
                            uri,
                            storage,
                            at.version(),
                            batchSize,
                            rowsPerSplit,
                            version.isPresent() || asOf.isPresent(),
                            options.get(LanceConnectorOptions.SCAN_FILTER_PUSH_DOWN_ENABLED)),
                    physical,
                    at.manifest());
        } catch (LanceTypeException e) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw cannotOpen(context, uri, e);
        }
    }

    // ---- sink ---------------------------------------------------------------------------------

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(LanceConnectorOptions.STORAGE_PREFIX);
        ReadableConfig options = helper.getOptions();
        String table = context.getObjectIdentifier().asSummaryString();
        for (ConfigOption<?> timeTravel : List.of(LanceConnectorOptions.VERSION, LanceConnectorOptions.AS_OF)) {
            if (options.getOptional(timeTravel).isPresent()) {
                throw new ValidationException("Table " + table + " sets '" + timeTravel.key() + "' (time travel), "
                        + "but INSERT INTO and DELETE always change the latest version; write through a table "
                        + "declared without '" + timeTravel.key() + "'");
            }
        }
        options.getOptional(LanceConnectorOptions.VECTOR_DIMENSIONS).ifPresent(VectorDimensions::parse);
        createFileVersion(table, options); // a wrong value fails every write, not only the first
        LanceSinkConfig config = sinkConfig(
                table, options, storageOptions(context.getCatalogTable().getOptions()));
        RowType declared = (RowType) context.getPhysicalRowDataType().getLogicalType();
        try (Dataset latest = Dataset.open(config.uri(), config.storageOptions())) {
            for (RowType.RowField c : declared.getFields()) {
                LanceField f = storedColumn(context, config.uri(), latest, c.getName());
                // The declaration describes the table as for reads (a DELETE filters on these types);
                // whether its rows can be appended is checked when an INSERT is planned.
                TypeCompatibility.checkReadable(c.getName(), c.getType().copy(true), f.toArrow());
            }
            Schema stored = latest.schema().toArrow();
            List<String> primaryKey = context.getCatalogTable()
                    .getResolvedSchema()
                    .getPrimaryKey()
                    .map(k -> k.getColumns())
                    .orElse(List.of());
            return new LanceDynamicTableSink(
                    table,
                    config,
                    declared,
                    stored,
                    primaryKey,
                    FileVersion.parse(latest.manifest().dataFormat().version()),
                    latest.manifest().usesStableRowIds(),
                    null);
        } catch (LanceTypeException e) {
            throw new ValidationException("Table " + table + ": " + e.getMessage(), e);
        } catch (NotADatasetException e) {
            return newTableSink(context, table, config, declared, options);
        } catch (IOException e) {
            throw cannotOpen(context, config.uri(), e);
        }
    }

    /**
     * The sink of a table whose path holds no Lance table yet: its first write creates one with
     * the declared physical columns and primary key, as the Lance catalog would
     * ({@link CatalogSchemas#newTable}: types, 'vector-dimensions', data storage version).
     */
    private static LanceDynamicTableSink newTableSink(
            Context context, String table, LanceSinkConfig config, RowType declared, ReadableConfig options) {
        ResolvedSchema all = context.getCatalogTable().getResolvedSchema();
        // Computed and metadata columns, and watermarks, belong to the declaration, not the table.
        ResolvedSchema physical = new ResolvedSchema(
                all.getColumns().stream().filter(Column::isPhysical).toList(),
                List.of(),
                all.getPrimaryKey().orElse(null));
        VectorDimensions dims = options.getOptional(LanceConnectorOptions.VECTOR_DIMENSIONS)
                .map(VectorDimensions::parse)
                .orElse(VectorDimensions.none());
        CatalogSchemas.NewTable created;
        try {
            created = CatalogSchemas.newTable(
                    table,
                    physical,
                    dims,
                    createFileVersion(table, options),
                    options.get(LanceConnectorOptions.CREATE_STABLE_ROW_IDS));
        } catch (CatalogException e) {
            throw new ValidationException(
                    "There is no Lance table at '" + config.uri() + "' for table " + table
                            + ", and its first write cannot create one: " + e.getMessage(),
                    e);
        }
        List<String> primaryKey = all.getPrimaryKey().map(k -> k.getColumns()).orElse(List.of());
        return new LanceDynamicTableSink(
                table,
                config,
                declared,
                created.schema().toArrow(),
                primaryKey,
                created.fileVersion(),
                created.stableRowIds(),
                created);
    }

    /** {@code 'create.file-version'}, or null for the default of {@link CatalogSchemas#newTable}. */
    private static FileVersion createFileVersion(String table, ReadableConfig options) {
        Optional<String> value = options.getOptional(LanceConnectorOptions.CREATE_FILE_VERSION);
        try {
            return value.map(FileVersion::parse).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    "Table " + table + " sets '" + LanceConnectorOptions.CREATE_FILE_VERSION.key() + "' = '"
                            + value.get() + "': " + e.getMessage(),
                    e);
        }
    }

    private static LanceSinkConfig sinkConfig(String table, ReadableConfig options, Map<String, String> storage) {
        long rowsPerFile = options.get(LanceConnectorOptions.SINK_ROWS_PER_FILE);
        int batchRows = options.get(LanceConnectorOptions.SINK_BATCH_ROWS);
        int retries = options.get(LanceConnectorOptions.SINK_COMMIT_RETRIES);
        Duration backoff = options.get(LanceConnectorOptions.SINK_COMMIT_RETRY_BACKOFF);
        Integer parallelism = options.getOptional(FactoryUtil.SINK_PARALLELISM).orElse(null);
        positive(LanceConnectorOptions.SINK_ROWS_PER_FILE, rowsPerFile);
        positive(LanceConnectorOptions.SINK_BATCH_ROWS, batchRows);
        positive(LanceConnectorOptions.SINK_COMMIT_RETRIES, retries);
        if (parallelism != null) {
            positive(FactoryUtil.SINK_PARALLELISM, parallelism);
        }
        long keyMapMaxMemory = options.getOptional(LanceConnectorOptions.SINK_KEY_MAP_MAX_MEMORY)
                .map(MemorySize::getBytes)
                .orElse(0L); // 0: the default, a quarter of the heap
        if (options.getOptional(LanceConnectorOptions.SINK_KEY_MAP_MAX_MEMORY).isPresent()) {
            positive(LanceConnectorOptions.SINK_KEY_MAP_MAX_MEMORY, keyMapMaxMemory);
        }
        if (backoff.isNegative()) {
            throw new ValidationException("'" + LanceConnectorOptions.SINK_COMMIT_RETRY_BACKOFF.key()
                    + "' must not be negative, got " + backoff);
        }
        String uidSuffix =
                options.getOptional(LanceConnectorOptions.SINK_UID_SUFFIX).orElse(null);
        if (uidSuffix != null && uidSuffix.isBlank()) {
            throw new ValidationException("'" + LanceConnectorOptions.SINK_UID_SUFFIX.key() + "' must not be blank");
        }
        return new LanceSinkConfig(
                options.get(LanceConnectorOptions.PATH),
                storage,
                rowsPerFile,
                batchRows,
                retries,
                backoff,
                options.get(LanceConnectorOptions.SINK_ALLOW_RESTORE_FROM_OLDER_STATE),
                uidSuffix,
                parallelism,
                updateMode(table, options.get(LanceConnectorOptions.SINK_UPDATE_MODE)),
                keyMap(table, options.get(LanceConnectorOptions.SINK_KEY_MAP)),
                keyMapMaxMemory,
                maintenance(table, options));
    }

    /** The {@code sink.maintenance.*} options; a value out of range fails the statement, naming the option. */
    static MaintenanceSettings maintenance(String table, ReadableConfig o) {
        try {
            return new MaintenanceSettings(
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_ENABLED),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_CHECK_EVERY_COMMITS),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_CHECK_INTERVAL),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_MERGE_MAX_OVERLAYS),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_MERGE_MAX_OVERLAY_BYTES)
                            .getBytes(),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_FOLD_MIN_COVERAGE),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_FOLD_QUIET_PERIOD),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_CLEANUP_ENABLED),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_RETAIN_VERSIONS),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_RETAIN_MIN_AGE),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_CLEANUP_GRACE),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_LEASE_TIMEOUT),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_PARALLELISM),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_MAX_FRAGMENTS_PER_RUN),
                    new MaintenanceSettings.FragmentCompaction(
                            o.get(LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_ENABLED),
                            o.get(LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_TARGET_ROWS),
                            o.get(LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_SMALL_ROWS),
                            o.get(LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_MIN_DELETED_RATIO),
                            o.get(LanceConnectorOptions.SINK_MAINTENANCE_FRAGMENTS_MIN_FRAGMENTS)),
                    o.get(LanceConnectorOptions.SINK_MAINTENANCE_MERGE_HARD_MAX_OVERLAYS));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Table " + table + ": " + e.getMessage(), e);
        }
    }

    private static UpdateMode updateMode(String table, String value) {
        return UpdateMode.ofOptionValue(value)
                .orElseThrow(() -> new ValidationException("Table " + table + " sets '"
                        + LanceConnectorOptions.SINK_UPDATE_MODE.key() + "' = '" + value
                        + "', which is not an update mode;"
                        + " use '" + UpdateMode.OVERLAY.optionValue() + "' (data overlay files, the default) or '"
                        + UpdateMode.REWRITE_ROWS.optionValue()
                        + "' (delete and re-append updated rows, readable by every"
                        + " Lance release)"));
    }

    private static KeyMapMode keyMap(String table, String value) {
        return KeyMapMode.ofOptionValue(value)
                .orElseThrow(() -> new ValidationException("Table " + table + " sets '"
                        + LanceConnectorOptions.SINK_KEY_MAP.key() + "' = '" + value + "', which is not a key map mode;"
                        + " use '" + KeyMapMode.IN_MEMORY.optionValue() + "' (a heap map built from the table at start,"
                        + " the default) or '" + KeyMapMode.KEYED_STATE.optionValue() + "' (Flink keyed state)"));
    }

    private static void positive(ConfigOption<?> option, long value) {
        if (value < 1) {
            throw new ValidationException("'" + option.key() + "' must be positive, got " + value);
        }
    }

    // ---- shared -------------------------------------------------------------------------------

    private static LanceField storedColumn(Context context, String uri, Dataset at, String name) {
        return at.schema()
                .fieldByName(name)
                .orElseThrow(() -> new ValidationException("Column '" + name
                        + "' of table " + context.getObjectIdentifier() + " does not exist in version " + at.version()
                        + " of the Lance table at " + uri + "; its columns are "
                        + at.schema().fields().stream().map(LanceField::name).toList()));
    }

    private static ValidationException cannotOpen(Context context, String uri, IOException e) {
        if (e instanceof NotADatasetException) {
            return new ValidationException(
                    "There is no Lance table at '" + uri + "' for table "
                            + context.getObjectIdentifier() + " (" + e.getMessage() + "); reading needs one. A write"
                            + " (INSERT INTO) creates it, with the declared columns",
                    e);
        }
        return new ValidationException(
                "Cannot open the Lance table at '" + uri + "' for table " + context.getObjectIdentifier() + ": "
                        + e.getMessage(),
                e);
    }

    /** The {@code storage.*} options with the prefix removed. */
    static Map<String, String> storageOptions(Map<String, String> tableOptions) {
        Map<String, String> out = new HashMap<>();
        tableOptions.forEach((k, v) -> {
            if (k.startsWith(LanceConnectorOptions.STORAGE_PREFIX)) {
                out.put(k.substring(LanceConnectorOptions.STORAGE_PREFIX.length()), v);
            }
        });
        return out;
    }

    static Instant instant(String text) {
        String t = text.trim();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            return Instant.ofEpochMilli(Long.parseLong(t));
        }
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeParseException e) {
            throw new ValidationException(
                    "'as-of' = '" + text + "' is not an instant: write ISO-8601 with an offset, "
                            + "e.g. '2026-11-29T21:00:00Z', or epoch milliseconds",
                    e);
        }
    }
}
