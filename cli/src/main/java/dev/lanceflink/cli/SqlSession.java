package dev.lanceflink.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.command.ResetOperation;
import org.apache.flink.table.operations.command.SetOperation;

/**
 * The state of one {@code bin/lance-flink sql} run: the session configuration that {@code SET}
 * and {@code RESET} change, and the table environment the statements run in (jobs on an
 * embedded MiniCluster, batch mode unless {@code execution.runtime-mode} says otherwise).
 *
 * <p>Configuration reaches jobs through the environment's {@code TableConfig}, which Flink
 * applies to every job it submits ({@code parallelism.default},
 * {@code execution.checkpointing.interval}, ...). The runtime mode and
 * {@code execution.state-recovery.*} are different: Flink picks the batch or streaming planner
 * when an environment is created, and reads the state to restore from the configuration the
 * environment was created with. So the environment is created at the first statement that needs
 * one (a script's leading {@code SET}s all apply), and a later change of those creates a new
 * environment that takes over the session's catalogs, the current catalog and database, and the
 * tables, views and functions of the built-in in-memory catalog. Temporary objects
 * ({@code CREATE TEMPORARY ...}) do not carry over; a note on stderr names them.
 */
final class SqlSession {
    private final Configuration config = new Configuration();
    private final PrintStream err;
    private TableEnvironmentInternal env;
    private Map<String, String> envOptions = Map.of();
    private static final String STATE_RECOVERY_PREFIX = "execution.state-recovery.";

    SqlSession(PrintStream err) {
        this.err = err;
        config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    }

    /** The environment, created with the session configuration on first use (see the class comment). */
    TableEnvironmentInternal environment() {
        Map<String, String> defining = environmentOptions();
        if (env == null) {
            env = create(config.get(ExecutionOptions.RUNTIME_MODE));
        } else if (!defining.equals(envOptions)) {
            TableEnvironmentInternal next = create(config.get(ExecutionOptions.RUNTIME_MODE));
            carryOver(env, next);
            env = next;
            StringBuilder options = new StringBuilder();
            defining.forEach((k, v) -> options.append(options.length() == 0 ? "" : ", ")
                    .append(k)
                    .append(" = ")
                    .append(v));
            err.println("[INFO] " + options + ": statements now run in a new environment with the same catalogs");
        }
        envOptions = defining;
        return env;
    }

    /** The current catalog, if the environment exists (never creates it). */
    Optional<String> currentCatalog() {
        return env == null ? Optional.empty() : Optional.of(env.getCurrentCatalog());
    }

    /**
     * The options fixed when an environment is created: the runtime mode (it selects the planner)
     * and {@code execution.state-recovery.*}, which Flink reads from the execution environment's
     * own configuration when it submits a job, not from the TableConfig.
     */
    private Map<String, String> environmentOptions() {
        Map<String, String> out = new TreeMap<>();
        config.toMap().forEach((k, v) -> {
            if (k.equals(ExecutionOptions.RUNTIME_MODE.key()) || k.startsWith(STATE_RECOVERY_PREFIX)) {
                out.put(k, v);
            }
        });
        return out;
    }

    private TableEnvironmentInternal create(RuntimeExecutionMode mode) {
        if (mode == RuntimeExecutionMode.AUTOMATIC) {
            throw new ValidationException("execution.runtime-mode 'automatic' is not supported by Flink SQL; "
                    + "SET 'execution.runtime-mode' = 'batch' or 'streaming'");
        }
        EnvironmentSettings settings =
                EnvironmentSettings.newInstance().withConfiguration(config).build();
        return (TableEnvironmentInternal) TableEnvironment.create(settings);
    }

    private static final Pattern SET = Pattern.compile(
            "(?is)\\s*SET(?:\\s+(?<key>'(?:[^']|'')*'|[^\\s=']+)\\s*=\\s*(?<value>'(?:[^']|'')*'|[^\\s']+))?\\s*");
    private static final Pattern RESET = Pattern.compile("(?is)\\s*RESET(?:\\s+(?<key>'(?:[^']|'')*'|[^\\s']+))?\\s*");

    /**
     * Applies {@code sql} if it is a plain SET or RESET statement, without creating the
     * environment (so a script's leading SETs choose how it is created); false otherwise.
     */
    boolean applyCommand(String sql) {
        Matcher set = SET.matcher(sql);
        if (set.matches()) {
            return applyCommand(
                    set.group("key") == null
                            ? new SetOperation()
                            : new SetOperation(unquote(set.group("key")), unquote(set.group("value"))));
        }
        Matcher reset = RESET.matcher(sql);
        if (reset.matches()) {
            return applyCommand(new ResetOperation(reset.group("key") == null ? null : unquote(reset.group("key"))));
        }
        return false;
    }

    private static String unquote(String text) {
        return text.startsWith("'") ? text.substring(1, text.length() - 1).replace("''", "'") : text;
    }

    /** Applies a SET or RESET; returns false for any other operation. */
    boolean applyCommand(Operation operation) {
        if (operation instanceof SetOperation set) {
            if (set.getKey().isEmpty()) {
                Map<String, String> all = new TreeMap<>(config.toMap());
                err.println("[INFO] session configuration:");
                all.forEach((k, v) -> err.println("  '" + k + "' = '" + v + "'"));
                return true;
            }
            String key = set.getKey().get();
            String given = set.getValue().orElse("");
            String value = key.equals(ExecutionOptions.RUNTIME_MODE.key())
                    ? runtimeMode(given).name()
                    : given;
            config.setString(key, value);
            if (env != null
                    && !key.equals(ExecutionOptions.RUNTIME_MODE.key())
                    && !key.startsWith(STATE_RECOVERY_PREFIX)) {
                env.getConfig().set(key, value);
            }
            err.println("[INFO] '" + key + "' = '" + value + "'");
            return true;
        }
        if (operation instanceof ResetOperation reset) {
            Optional<String> key = reset.getKey();
            List<String> keys = key.map(List::of).orElseGet(() -> List.copyOf(config.keySet()));
            for (String k : keys) {
                config.removeKey(k);
                if (env != null) {
                    env.getConfig().getConfiguration().removeKey(k);
                }
            }
            if (!config.containsKey(ExecutionOptions.RUNTIME_MODE.key())) {
                // The session default, not Flink's (streaming).
                config.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
            }
            err.println("[INFO] reset " + key.map(k -> "'" + k + "'").orElse("all session options"));
            return true;
        }
        return false;
    }

    private static RuntimeExecutionMode runtimeMode(String value) {
        try {
            return RuntimeExecutionMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    "'execution.runtime-mode' = '" + value + "' is not a runtime mode; use " + "'batch' or 'streaming'",
                    e);
        }
    }

    /** Moves catalogs and the built-in catalog's objects to a new environment (see the class comment). */
    private void carryOver(TableEnvironmentInternal from, TableEnvironmentInternal to) {
        CatalogManager source = from.getCatalogManager();
        CatalogManager target = to.getCatalogManager();
        String builtIn = source.getBuiltInCatalogName();
        for (String name : source.listCatalogs()) {
            Catalog catalog = source.getCatalog(name).orElseThrow();
            if (name.equals(builtIn)) {
                copyCatalogObjects(
                        catalog,
                        target.getCatalog(target.getBuiltInCatalogName()).orElseThrow());
            } else {
                target.registerCatalog(name, catalog);
            }
        }
        target.setCurrentCatalog(source.getCurrentCatalog());
        target.setCurrentDatabase(source.getCurrentDatabase());
        Set<String> temporary = new TreeSet<>(source.listTemporaryTables());
        temporary.addAll(source.listTemporaryViews());
        if (!temporary.isEmpty()) {
            err.println("[WARN] temporary tables and views " + temporary + " are not carried over to the new "
                    + "environment; declare them again (or SET the runtime mode before creating them)");
        }
    }

    private static void copyCatalogObjects(Catalog from, Catalog to) {
        try {
            for (String db : from.listDatabases()) {
                if (!to.databaseExists(db)) {
                    to.createDatabase(db, from.getDatabase(db), true);
                }
                for (String table : from.listTables(db)) { // views included
                    ObjectPath path = new ObjectPath(db, table);
                    if (!to.tableExists(path)) {
                        to.createTable(path, from.getTable(path), true);
                    }
                }
                for (String function : from.listFunctions(db)) {
                    ObjectPath path = new ObjectPath(db, function);
                    if (!to.functionExists(path)) {
                        to.createFunction(path, from.getFunction(path), true);
                    }
                }
            }
        } catch (DatabaseNotExistException
                | DatabaseAlreadyExistException
                | TableNotExistException
                | TableAlreadyExistException
                | FunctionNotExistException
                | FunctionAlreadyExistException e) {
            throw new IllegalStateException(
                    "Cannot move the built-in catalog to the new environment: " + e.getMessage(), e);
        }
    }
}
