package dev.lanceflink.flink.catalog;

import dev.lanceflink.file.FileVersion;
import dev.lanceflink.flink.table.LanceConnectorOptions;
import dev.lanceflink.flink.table.LanceDynamicTableFactory;
import dev.lanceflink.flink.types.VectorDimensions;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.ObjectStores;
import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataStorageFormat;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import dev.lanceflink.txn.CommitOptions;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.TableCommitter;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogBaseTable;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'lance', 'warehouse' = 's3://bucket/lake')}: a
 * catalog whose databases are directories of a warehouse and whose tables are the Lance datasets
 * {@code <warehouse>/<database>/<table>.lance} in them (layout: {@link Warehouse}).
 *
 * <p>The catalog keeps no state of its own: a table's columns and primary key are its Lance
 * schema ({@link CatalogSchemas}), its comment and connector options are entries of the Lance
 * table config ({@code flink.comment}, {@code flink.option.<key>}), so tables written by other
 * Lance tools show up as they are and tables created here read everywhere. {@link #getTable}
 * returns a {@code 'connector' = 'lance'} table with {@code 'path'} and the catalog's
 * {@code storage.*} options, which the Lance table factory reads and writes.
 *
 * <p>Not supported (they fail with a {@link CatalogException} saying so): views, functions,
 * partitions, ALTER of databases and tables, RENAME, statistics updates.
 */
public final class LanceCatalog extends AbstractCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(LanceCatalog.class);
    /** Lance table config key of the table comment. */
    static final String CONFIG_COMMENT = "flink.comment";
    /** Lance table config key prefix of the connector options given at CREATE TABLE. */
    static final String CONFIG_OPTION_PREFIX = "flink.option.";
    /** Names usable as a directory on every store: no separators, no leading dot (markers, temp files). */
    private static final Pattern NAME = Pattern.compile("[^/\\\\.\\p{Cntrl}][^/\\\\\\p{Cntrl}]*");

    private static final String TEMPORARY_HINT =
            "; declare it in a CREATE TEMPORARY TABLE/VIEW/FUNCTION of the " + "session (default catalog) instead";

    private final String warehouseUri;
    private final Map<String, String> storageOptions;
    private Warehouse warehouse;

    /**
     * @param name the catalog name in the session
     * @param defaultDatabase database of statements that name none; created by {@link #open}
     * @param warehouseUri local directory, {@code file:} or {@code s3://bucket/prefix} URI
     * @param storageOptions object-store options (without the {@code storage.} prefix)
     */
    public LanceCatalog(String name, String defaultDatabase, String warehouseUri, Map<String, String> storageOptions) {
        super(name, defaultDatabase);
        this.warehouseUri = warehouseUri;
        this.storageOptions = Map.copyOf(storageOptions);
    }

    @Override
    public void open() throws CatalogException {
        try {
            warehouse = Warehouse.open(warehouseUri, storageOptions);
            checkName("database", getDefaultDatabase());
            if (!warehouse.databaseExists(getDefaultDatabase())) {
                warehouse.createDatabaseMarker(getDefaultDatabase(), new LanceDatabase(Map.of(), null).toMarker());
            }
        } catch (IOException | RuntimeException e) {
            throw new CatalogException(
                    "Cannot open the Lance catalog '" + getName() + "' on warehouse '" + warehouseUri + "': "
                            + e.getMessage(),
                    e);
        }
    }

    @Override
    public void close() throws CatalogException {
        if (warehouse != null) {
            try {
                warehouse.close();
            } catch (IOException e) {
                throw new CatalogException("Closing the warehouse " + warehouseUri + " failed: " + e.getMessage(), e);
            } finally {
                warehouse = null;
            }
        }
    }

    private Warehouse warehouse() {
        if (warehouse == null) {
            throw new CatalogException("The Lance catalog '" + getName() + "' is not open");
        }
        return warehouse;
    }

    /** The URI of the dataset behind {@code path}, whether it exists or not. */
    public String tableUri(ObjectPath path) {
        return warehouse().tableUri(path.getDatabaseName(), path.getObjectName());
    }

    // ---- databases ----------------------------------------------------------------------------

    @Override
    public List<String> listDatabases() throws CatalogException {
        return io("list the databases", () -> warehouse().listDatabases());
    }

    @Override
    public CatalogDatabase getDatabase(String databaseName) throws DatabaseNotExistException, CatalogException {
        if (!databaseExists(databaseName)) {
            throw new DatabaseNotExistException(getName(), databaseName);
        }
        return io(
                "read database " + databaseName,
                () -> warehouse()
                        .readDatabaseMarker(databaseName)
                        .map(m -> LanceDatabase.fromMarker(m, markerUri(databaseName)))
                        .orElseGet(() -> new LanceDatabase(Map.of(), null)));
    }

    private String markerUri(String database) {
        return warehouse().rootUri() + "/" + database + "/" + Warehouse.DATABASE_MARKER;
    }

    @Override
    public boolean databaseExists(String databaseName) throws CatalogException {
        return validName(databaseName)
                && io("check database " + databaseName, () -> warehouse().databaseExists(databaseName));
    }

    @Override
    public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
            throws DatabaseAlreadyExistException, CatalogException {
        checkName("database", name);
        boolean created = io(
                "create database " + name,
                () -> !warehouse().databaseExists(name)
                        && warehouse()
                                .createDatabaseMarker(
                                        name, LanceDatabase.of(database).toMarker()));
        if (!created && !ignoreIfExists) {
            throw new DatabaseAlreadyExistException(getName(), name);
        }
    }

    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
            throws DatabaseNotExistException, DatabaseNotEmptyException, CatalogException {
        if (!databaseExists(name)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new DatabaseNotExistException(getName(), name);
        }
        List<String> tables = io("list the tables of " + name, () -> warehouse().listTables(name));
        if (!tables.isEmpty() && !cascade) {
            throw new DatabaseNotEmptyException(getName(), name);
        }
        io("drop database " + name, () -> {
            for (String t : tables) {
                warehouse().deleteTable(name, t);
            }
            warehouse().deleteDatabaseMarker(name);
            return null;
        });
    }

    @Override
    public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("ALTER DATABASE", "drop and re-create the database to change its comment or properties");
    }

    // ---- tables -------------------------------------------------------------------------------

    @Override
    public List<String> listTables(String databaseName) throws DatabaseNotExistException, CatalogException {
        if (!databaseExists(databaseName)) {
            throw new DatabaseNotExistException(getName(), databaseName);
        }
        return io("list the tables of " + databaseName, () -> warehouse().listTables(databaseName));
    }

    @Override
    public List<String> listViews(String databaseName) throws DatabaseNotExistException, CatalogException {
        if (!databaseExists(databaseName)) {
            throw new DatabaseNotExistException(getName(), databaseName);
        }
        return List.of();
    }

    @Override
    public boolean tableExists(ObjectPath path) throws CatalogException {
        return validName(path.getDatabaseName())
                && validName(path.getObjectName())
                && io(
                        "check table " + path,
                        () -> warehouse().tableExists(path.getDatabaseName(), path.getObjectName()));
    }

    @Override
    public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException, CatalogException {
        return table(path, null);
    }

    /**
     * {@code FOR SYSTEM_TIME AS OF}: the table as the Lance version current at {@code timestamp}
     * (epoch milliseconds), through the factory's {@code 'as-of'} option.
     */
    @Override
    public CatalogBaseTable getTable(ObjectPath path, long timestamp) throws TableNotExistException, CatalogException {
        return table(path, timestamp);
    }

    private CatalogTable table(ObjectPath path, Long asOfMillis) throws TableNotExistException {
        if (!tableExists(path)) {
            throw new TableNotExistException(getName(), path);
        }
        String uri = tableUri(path);
        Manifest manifest = io("read table " + path + " at " + uri, () -> {
            try (ObjectStore store = ObjectStores.open(uri, storageOptions)) {
                return ManifestIO.read(store, VersionResolver.latest(store));
            }
        });
        FlinkView view = FlinkView.of(manifest.schema());
        if (!view.unreadable().isEmpty()) {
            LOG.warn(
                    "Table {} of catalog {}: columns {} are left out of the Flink schema: {}",
                    path,
                    getName(),
                    view.unreadable().keySet(),
                    view.unreadable().values());
        }
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", LanceDynamicTableFactory.IDENTIFIER);
        options.put(LanceConnectorOptions.PATH.key(), uri);
        storageOptions.forEach((k, v) -> options.put(LanceConnectorOptions.STORAGE_PREFIX + k, v));
        manifest.config().forEach((k, v) -> {
            if (k.startsWith(CONFIG_OPTION_PREFIX)) {
                options.put(k.substring(CONFIG_OPTION_PREFIX.length()), v);
            }
        });
        if (!view.vectorDimensions().isEmpty()) {
            // Derived from the stored fixed-size lists, so it is right even for tables made elsewhere.
            options.put(LanceConnectorOptions.VECTOR_DIMENSIONS.key(), view.vectorDimensions());
        }
        if (asOfMillis != null) {
            options.put(LanceConnectorOptions.AS_OF.key(), Long.toString(asOfMillis));
        }
        return CatalogTable.newBuilder()
                .schema(view.schema())
                .comment(manifest.config().get(CONFIG_COMMENT))
                .options(options)
                .build();
    }

    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException, CatalogException {
        if (!databaseExists(path.getDatabaseName())) {
            throw new DatabaseNotExistException(getName(), path.getDatabaseName());
        }
        checkName("table", path.getObjectName());
        if (table.getTableKind() != CatalogBaseTable.TableKind.TABLE || !(table instanceof CatalogTable t)) {
            throw unsupported(
                    "CREATE VIEW and materialized tables", "a Lance catalog holds Lance tables only" + TEMPORARY_HINT);
        }
        if (t.isPartitioned()) {
            throw unsupported("PARTITIONED BY", "Lance tables are not partitioned; create " + path + " without it");
        }
        if (t.getDistribution().isPresent()) {
            throw unsupported("DISTRIBUTED BY", "create " + path + " without it");
        }
        if (!(table instanceof ResolvedCatalogBaseTable<?> resolved)) {
            throw new CatalogException("Cannot create " + path + ": the planner passed an unresolved table "
                    + table.getClass().getName() + "; create tables through SQL or the Table API");
        }
        if (tableExists(path)) {
            if (ignoreIfExists) {
                return;
            }
            throw new TableAlreadyExistException(getName(), path);
        }
        Map<String, String> stored = storedOptions(path, t.getOptions());
        VectorDimensions dims = vectorDimensions(path, stored);
        CatalogSchemas.NewTable created = CatalogSchemas.newTable(
                path.toString(),
                resolved.getResolvedSchema(),
                dims,
                createFileVersion(path, stored),
                Boolean.parseBoolean(stored.getOrDefault(LanceConnectorOptions.CREATE_STABLE_ROW_IDS.key(), "false")));
        LanceSchema schema = created.schema();
        Map<String, String> config = new LinkedHashMap<>();
        stored.forEach((k, v) -> config.put(CONFIG_OPTION_PREFIX + k, v));
        if (t.getComment() != null && !t.getComment().isEmpty()) {
            config.put(CONFIG_COMMENT, t.getComment());
        }
        String uri = tableUri(path);
        try (ObjectStore store = ObjectStores.open(uri, storageOptions)) {
            // Version 1 with no fragments. One attempt only: if a concurrent CREATE published
            // version 1 first, the Overwrite must not replace it on a retry.
            // Its data storage version and row ids: as CatalogSchemas.newTable decided ('create.*' options).
            CommitOptions options = CommitOptions.defaults().withMaxAttempts(1);
            options = options.withNewTable(
                    options.namingScheme(),
                    DataStorageFormat.lance(created.fileVersion().label()),
                    created.stableRowIds());
            TableCommitter.commit(
                    store, Transaction.of(0, new Operation.Overwrite(List.of(), schema, config, List.of())), options);
        } catch (IOException e) {
            if (tableExists(path)) {
                if (ignoreIfExists) {
                    return;
                }
                throw new TableAlreadyExistException(getName(), path, e);
            }
            throw new CatalogException(
                    "Cannot create the Lance table " + path + " at " + uri + ": " + e.getMessage(), e);
        }
    }

    /**
     * The options a new table keeps: those of the table factory except the ones the catalog
     * decides ({@code connector}, {@code path}, {@code storage.*}) and the per-query time travel
     * options. Anything else is refused now rather than at the first query.
     */
    private static Map<String, String> storedOptions(ObjectPath path, Map<String, String> given) {
        LanceDynamicTableFactory factory = new LanceDynamicTableFactory();
        Set<String> allowed = new TreeSet<>();
        for (ConfigOption<?> o : factory.optionalOptions()) {
            allowed.add(o.key());
        }
        allowed.remove(LanceConnectorOptions.VERSION.key());
        allowed.remove(LanceConnectorOptions.AS_OF.key());
        Map<String, String> out = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        given.forEach((k, v) -> {
            if (k.equals("connector")) {
                if (!v.equals(LanceDynamicTableFactory.IDENTIFIER)) {
                    problems.add("'connector' = '" + v + "': tables of a Lance catalog are Lance tables; create "
                            + "other tables in another catalog");
                }
            } else if (k.equals(LanceConnectorOptions.PATH.key())) {
                problems.add("'path': the catalog places the table (in the database directory); leave it out");
            } else if (k.startsWith(LanceConnectorOptions.STORAGE_PREFIX)) {
                problems.add("'" + k + "': storage options are set on the catalog (CREATE CATALOG ... WITH)");
            } else if (k.equals(LanceConnectorOptions.VERSION.key()) || k.equals(LanceConnectorOptions.AS_OF.key())) {
                problems.add("'" + k + "': time travel is per query; use SELECT ... FROM t /*+ OPTIONS('" + k
                        + "' = '...') */ or FOR SYSTEM_TIME AS OF");
            } else if (!allowed.contains(k)) {
                problems.add("'" + k + "' is not an option of Lance tables (supported: " + allowed + ")");
            } else {
                out.put(k, v);
            }
        });
        if (!problems.isEmpty()) {
            throw new CatalogException("Cannot create " + path + ": " + String.join("; ", problems));
        }
        return out;
    }

    /** The table's {@code 'create.file-version'}, or null for the default. */
    private static FileVersion createFileVersion(ObjectPath path, Map<String, String> options) {
        String value = options.get(LanceConnectorOptions.CREATE_FILE_VERSION.key());
        if (value == null) {
            return null;
        }
        try {
            return FileVersion.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CatalogException(
                    "Cannot create " + path + ": '" + LanceConnectorOptions.CREATE_FILE_VERSION.key() + "' = '" + value
                            + "': " + e.getMessage(),
                    e);
        }
    }

    private static VectorDimensions vectorDimensions(ObjectPath path, Map<String, String> options) {
        String value = options.get(LanceConnectorOptions.VECTOR_DIMENSIONS.key());
        if (value == null) {
            return VectorDimensions.none();
        }
        try {
            Configuration c = Configuration.fromMap(Map.of(LanceConnectorOptions.VECTOR_DIMENSIONS.key(), value));
            return VectorDimensions.parse(c.get(LanceConnectorOptions.VECTOR_DIMENSIONS));
        } catch (IllegalArgumentException e) {
            throw new CatalogException(
                    "Cannot create " + path + ": 'vector-dimensions' = '" + value + "': " + e.getMessage()
                            + "; write e.g. 'embedding:768,image.clip:512'",
                    e);
        }
    }

    @Override
    public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException, CatalogException {
        if (!tableExists(path)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new TableNotExistException(getName(), path);
        }
        io("drop table " + path, () -> {
            warehouse().deleteTable(path.getDatabaseName(), path.getObjectName());
            return null;
        });
    }

    @Override
    public void renameTable(ObjectPath path, String newTableName, boolean ignoreIfNotExists) throws CatalogException {
        throw unsupported(
                "ALTER TABLE ... RENAME TO",
                "object stores cannot rename a dataset directory atomically; "
                        + "copy the table with CREATE TABLE ... AS SELECT and drop the old one");
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable newTable, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported(
                "ALTER TABLE",
                "the schema of a Lance table is its dataset's schema; change it with a "
                        + "Lance tool, the catalog shows the new schema at once");
    }

    // ---- not supported: partitions, functions, statistics -------------------------------------

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path) throws TableNotPartitionedException {
        throw new TableNotPartitionedException(getName(), path);
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
            throws TableNotPartitionedException {
        throw new TableNotPartitionedException(getName(), path);
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath path, List<Expression> filters)
            throws TableNotPartitionedException {
        throw new TableNotPartitionedException(getName(), path);
    }

    @Override
    public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec) throws PartitionNotExistException {
        throw new PartitionNotExistException(getName(), path, spec);
    }

    @Override
    public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) {
        return false;
    }

    @Override
    public void createPartition(
            ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfExists)
            throws CatalogException {
        throw unsupported("Partitions", "Lance tables are not partitioned");
    }

    @Override
    public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Partitions", "Lance tables are not partitioned");
    }

    @Override
    public void alterPartition(
            ObjectPath path, CatalogPartitionSpec spec, CatalogPartition newPartition, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Partitions", "Lance tables are not partitioned");
    }

    @Override
    public List<String> listFunctions(String dbName) throws DatabaseNotExistException {
        if (!databaseExists(dbName)) {
            throw new DatabaseNotExistException(getName(), dbName);
        }
        return List.of();
    }

    @Override
    public CatalogFunction getFunction(ObjectPath functionPath) throws FunctionNotExistException {
        throw new FunctionNotExistException(getName(), functionPath);
    }

    @Override
    public boolean functionExists(ObjectPath functionPath) {
        return false;
    }

    @Override
    public void createFunction(ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists)
            throws CatalogException {
        throw unsupported("CREATE FUNCTION", "the catalog stores tables only" + TEMPORARY_HINT);
    }

    @Override
    public void alterFunction(ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("ALTER FUNCTION", "the catalog stores tables only");
    }

    @Override
    public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists)
            throws FunctionNotExistException, CatalogException {
        if (!ignoreIfNotExists) {
            throw new FunctionNotExistException(getName(), functionPath);
        }
    }

    @Override
    public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public CatalogTableStatistics getPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getPartitionColumnStatistics(
            ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public void alterTableStatistics(
            ObjectPath tablePath, CatalogTableStatistics tableStatistics, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Table statistics (ANALYZE TABLE)", "Lance keeps row counts in its manifest");
    }

    @Override
    public void alterTableColumnStatistics(
            ObjectPath tablePath, CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Column statistics (ANALYZE TABLE)", "they are not stored in Lance tables");
    }

    @Override
    public void alterPartitionStatistics(
            ObjectPath tablePath,
            CatalogPartitionSpec partitionSpec,
            CatalogTableStatistics partitionStatistics,
            boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Partitions", "Lance tables are not partitioned");
    }

    @Override
    public void alterPartitionColumnStatistics(
            ObjectPath tablePath,
            CatalogPartitionSpec partitionSpec,
            CatalogColumnStatistics columnStatistics,
            boolean ignoreIfNotExists)
            throws CatalogException {
        throw unsupported("Partitions", "Lance tables are not partitioned");
    }

    // ---- helpers ------------------------------------------------------------------------------

    private CatalogException unsupported(String what, String why) {
        return new CatalogException(what + " is not supported by the Lance catalog '" + getName() + "': " + why);
    }

    private static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches() && !name.endsWith(Warehouse.TABLE_SUFFIX);
    }

    private void checkName(String kind, String name) {
        if (!validName(name)) {
            throw new CatalogException("'" + name + "' cannot name a " + kind + " of the Lance catalog '" + getName()
                    + "': it becomes a directory of the warehouse, so it must be non-empty, not start with '.', "
                    + "not end with '" + Warehouse.TABLE_SUFFIX + "', and contain no '/', '\\' or control characters");
        }
    }

    private interface IoAction<T> {
        T run() throws IOException;
    }

    private <T> T io(String what, IoAction<T> action) {
        try {
            return action.run();
        } catch (VersionNotFoundException e) {
            throw new CatalogException("Cannot " + what + ": it has no committed version (" + e.getMessage() + ")", e);
        } catch (IOException | RuntimeException e) {
            if (e instanceof CatalogException c) {
                throw c;
            }
            throw new CatalogException(
                    "Cannot " + what + " in the Lance catalog '" + getName() + "' (warehouse " + warehouseUri + "): "
                            + e.getMessage(),
                    e);
        }
    }
}
