package dev.lanceflink.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.flink.table.LanceConnectorOptions;
import dev.lanceflink.flink.table.LanceDynamicTableFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.SqlParserException;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.SinkModifyOperation;
import org.apache.flink.table.operations.StatementSetOperation;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/**
 * {@code bin/lance-flink sql [-f script.sql | -e 'stmt; stmt'] [--format table|json]}: runs
 * Flink SQL statements, one after the other, on an embedded MiniCluster ({@link SqlSession}).
 *
 * <p>Output contract: each SELECT prints its whole result on stdout, with {@code --format json}
 * as one line holding one JSON array of row objects (values as {@code dump} prints them,
 * {@link RowJson}); with {@code --format table} (the default) as a text table. INSERT and other
 * jobs are waited for. Everything else (SET echoes, job ids, results of SHOW/DESCRIBE/EXPLAIN in
 * JSON mode, logs) goes to stderr. The first failing statement stops the run: stdout gets
 * {@code {"error": "..."}} and the exit code is 1; a wrong command line exits with 2 and
 * {@code {"error": "... (lance-flink sql --help)"}}.
 */
final class SqlCommand {
    enum Format {
        TABLE,
        JSON
    }

    /** The parsed command line ({@link SqlCommandLine}): the script text, where it came from, and the output format. */
    record Arguments(String script, String source, Format format) {}

    private final Format format;
    private final OutputStream out;
    private final PrintStream err;
    private final SqlSession session;

    SqlCommand(Format format, OutputStream out, PrintStream err) {
        this.format = format;
        this.out = out;
        this.err = err;
        this.session = new SqlSession(err);
    }

    /** Runs {@code sql ...} (args[0] is "sql") with statements from -f, -e or {@code in}; returns the exit code. */
    static int run(String[] args, InputStream in, OutputStream out, PrintStream err) {
        if (Arrays.stream(args).skip(1).anyMatch(LanceFlinkCli::isHelp)) {
            return LanceFlinkCli.printHelp(out, SqlCommandLine.usage(), err);
        }
        Arguments arguments;
        try {
            arguments = SqlCommandLine.parse(args);
        } catch (UsageException e) {
            printError(out, err, e.getMessage(), true);
            return LanceFlinkCli.EXIT_USAGE;
        }
        if (arguments.script() == null) {
            if (System.console() != null) {
                // A person at a terminal: a prompt that runs each statement when its ';' is typed.
                return SqlPrompt.runOnSystemTerminal(new SqlCommand(arguments.format(), out, err), err);
            }
            try {
                arguments = new Arguments(
                        new String(in.readAllBytes(), StandardCharsets.UTF_8), "stdin", arguments.format());
            } catch (IOException e) {
                printError(out, err, "cannot read statements from standard input: " + LanceFlinkCli.message(e), false);
                return LanceFlinkCli.EXIT_FAILED;
            }
            if (arguments.script().isBlank()) {
                printError(
                        out,
                        err,
                        "no statements: give -f script.sql, -e 'statement; ...' or statements on" + " standard input",
                        true);
                return LanceFlinkCli.EXIT_USAGE;
            }
        }
        return new SqlCommand(arguments.format(), out, err).runScript(arguments);
    }

    private int runScript(Arguments arguments) {
        List<SqlScriptSplitter.Statement> statements = SqlScriptSplitter.split(arguments.script());
        int index = 0;
        for (SqlScriptSplitter.Statement s : statements) {
            index++;
            String where = "statement " + index + " ("
                    + (arguments.source().equals("-e") ? "" : arguments.source() + ", ") + "line " + s.line() + ")";
            Optional<String> failure = run(s.sql(), where);
            if (failure.isPresent()) {
                printError(out, err, where + ": " + failure.get(), false);
                return LanceFlinkCli.EXIT_FAILED;
            }
        }
        return LanceFlinkCli.EXIT_OK;
    }

    /**
     * Runs one statement; a failure is reported on stderr ({@code where} names the statement) and
     * its message returned.
     */
    Optional<String> run(String sql, String where) {
        try {
            execute(sql);
            return Optional.empty();
        } catch (RuntimeException | IOException e) {
            // Failures Flink reports in its own internal terms get a line that says what to do instead.
            Optional<String> known = StatementFailures.planningFailed(e, sql, session.currentCatalog());
            String message = known.orElseGet(() -> e instanceof JobFailedException ? e.getMessage() : describe(e));
            err.println("lance-flink sql: " + where + " failed: " + message);
            if (known.isEmpty() && unexpected(e) || System.getenv("LANCE_FLINK_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return Optional.of(message);
        }
    }

    private void execute(String sql) throws IOException {
        if (session.applyCommand(sql)) {
            return;
        }
        TableEnvironmentInternal env = session.environment();
        List<Operation> operations = env.getParser().parse(sql);
        for (Operation op : operations) {
            if (session.applyCommand(op)) {
                continue;
            }
            // A SET of the runtime mode may have replaced the environment since the parse.
            env = session.environment();
            boolean modifies = op instanceof ModifyOperation || op instanceof StatementSetOperation;
            // Before the submission, so that the job's first commit is not taken for an earlier one.
            CommitProgress progress = modifies ? CommitProgress.before(lanceTables(op), err) : null;
            TableResult result;
            try {
                result = env.executeInternal(op);
            } catch (RuntimeException e) {
                if (progress != null) {
                    progress.finish("failed");
                }
                throw e;
            }
            if (op instanceof QueryOperation) {
                printResult(result, out, format);
            } else if (op instanceof ModifyOperation || op instanceof StatementSetOperation) {
                Optional<String> job =
                        result.getJobClient().map(c -> c.getJobID().toString());
                if (job.isEmpty()) {
                    progress.finish("done");
                    // A DELETE the connector executed itself (pushed down): no Flink job ran.
                    err.println("[INFO] OK (done by the connector, no Flink job): " + firstLine(sql));
                    continue;
                }
                err.println("[INFO] job " + job.get() + " submitted: " + firstLine(sql));
                progress.start(job.get());
                // Ctrl-C ends the JVM while the job runs: the summary still says what was committed.
                Thread summaryOnExit = new Thread(() -> progress.finish("interrupted"), "lance-flink-progress-summary");
                Runtime.getRuntime().addShutdownHook(summaryOnExit);
                try {
                    awaitJob(result, op);
                } catch (RuntimeException e) {
                    progress.finish("failed");
                    throw e;
                } finally {
                    removeHook(summaryOnExit);
                }
                progress.finish("finished");
                err.println("[INFO] job " + job.get() + " finished: " + firstLine(sql));
            } else if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
                // SHOW, DESCRIBE, EXPLAIN...: on stdout as a table for people; stderr in JSON mode, whose
                // stdout holds SELECT results only.
                printResult(result, format == Format.JSON ? err : out, Format.TABLE);
            } else {
                err.println("[INFO] OK: " + firstLine(sql));
            }
        }
    }

    /** The Lance tables that {@code op} writes ({@code connector} = 'lance'), where they live. */
    static List<TableLocation> lanceTables(Operation op) {
        List<ModifyOperation> sinks = op instanceof StatementSetOperation set
                ? set.getOperations()
                : op instanceof ModifyOperation single ? List.of(single) : List.of();
        List<TableLocation> out = new ArrayList<>();
        for (ModifyOperation sink : sinks) {
            if (sink instanceof SinkModifyOperation s) {
                Map<String, String> options =
                        s.getContextResolvedTable().getTable().getOptions();
                String path = options.get(LanceConnectorOptions.PATH.key());
                if (LanceDynamicTableFactory.IDENTIFIER.equals(options.get("connector")) && path != null) {
                    Map<String, String> storage = new TreeMap<>();
                    options.forEach((k, v) -> {
                        if (k.startsWith(LanceConnectorOptions.STORAGE_PREFIX)) {
                            storage.put(k.substring(LanceConnectorOptions.STORAGE_PREFIX.length()), v);
                        }
                    });
                    TableLocation location = new TableLocation(path, storage);
                    if (!out.contains(location)) {
                        out.add(location);
                    }
                }
            }
        }
        return out;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs (or ran) and prints the summary.
        }
    }

    private static void awaitJob(TableResult result, Operation op) {
        try {
            result.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the job", e);
        } catch (ExecutionException e) {
            throw new JobFailedException(StatementFailures.jobFailed(op, e.getCause() == null ? e : e.getCause()), e);
        }
    }

    /** A failed job, its message complete (the cause stays for LANCE_FLINK_DEBUG). */
    private static final class JobFailedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        JobFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Reads a result completely (applying retractions of a streaming query) and prints it. */
    private static void printResult(TableResult result, OutputStream target, Format format) throws IOException {
        ResolvedSchema schema = result.getResolvedSchema();
        List<String> names = schema.getColumnNames();
        List<LogicalType> types = schema.getColumns().stream()
                .map(Column::getDataType)
                .map(t -> t.getLogicalType())
                .toList();
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                apply(rows, it.next());
            }
        } catch (Exception e) {
            if (e instanceof IOException io) {
                throw io;
            }
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getMessage(), e);
        }
        RowJson json = new RowJson(names, types);
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        if (format == Format.JSON) {
            try (JsonGenerator g = Json.FACTORY.createGenerator(buffer)) {
                g.writeStartArray();
                for (Row row : rows) {
                    json.writeRow(g, row);
                }
                g.writeEndArray();
            }
            buffer.write('\n');
        } else {
            List<List<String>> cells = new ArrayList<>();
            for (Row row : rows) {
                cells.add(RowJson.cellTexts(json, row));
            }
            buffer.write(TextTable.render(names, cells).getBytes(StandardCharsets.UTF_8));
        }
        buffer.writeTo(target);
        target.flush();
    }

    /** Materializes a changelog: inserts add a row, retractions remove an equal one. */
    private static void apply(List<Row> rows, Row change) {
        RowKind kind = change.getKind();
        change.setKind(RowKind.INSERT);
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            rows.add(change);
        } else {
            int at = rows.lastIndexOf(change);
            if (at >= 0) {
                rows.remove(at);
            }
        }
    }

    /**
     * A failure that is not about the statements (a bug, here or in Flink): its stack trace goes
     * to stderr. Flink's own statement errors (parse, validation, table and job failures), I/O
     * errors and the exceptions of this project (anywhere in the chain) carry complete messages.
     */
    private static boolean unexpected(Throwable e) {
        return ours(e) == null
                && !(e instanceof TableException
                        || e instanceof ValidationException
                        || e instanceof SqlParserException
                        || e instanceof IOException
                        || e instanceof IllegalArgumentException
                        || e instanceof IllegalStateException);
    }

    /** The statement as a progress line names it: comments dropped, whitespace collapsed, at most 100 characters. */
    static String firstLine(String sql) {
        String text = sql.replaceAll("(?s)/\\*.*?\\*/", " ")
                .lines()
                .map(l -> l.strip().startsWith("--") ? "" : l)
                .collect(Collectors.joining(" "))
                .replaceAll("\\s+", " ")
                .strip();
        return text.length() > 100 ? text.substring(0, 97) + "..." : text;
    }

    /**
     * The message of a failure: the outermost message, plus the innermost cause's when it says
     * something else (Flink wraps job failures, and the root cause is the one that tells what
     * went wrong with the table). An exception of this project in the chain is what it says
     * alone: its message is written to be complete, while Flink's wrappers around it ("Failed to
     * fetch next result") and the causes it keeps for the record (a store's bare "object not
     * found") would bury it.
     */
    static String describe(Throwable e) {
        Throwable ours = ours(e);
        if (ours != null) {
            return LanceFlinkCli.message(ours);
        }
        String top = LanceFlinkCli.message(e);
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root == e) {
            return top;
        }
        String rootText = root.getMessage();
        return rootText != null && top.contains(rootText.strip())
                ? top
                : top + " (cause: " + LanceFlinkCli.message(root) + ")";
    }

    /** The outermost exception of this project in the chain of {@code e}, or null. */
    private static Throwable ours(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass().getName().startsWith("dev.lanceflink.")) {
                return t;
            }
        }
        return null;
    }

    private static void printError(OutputStream out, PrintStream err, String message, boolean withUsage) {
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            try (JsonGenerator g = Json.FACTORY.createGenerator(buffer)) {
                g.writeStartObject();
                g.writeStringField("error", withUsage ? message + " (lance-flink sql --help)" : message);
                g.writeEndObject();
            }
            buffer.write('\n');
            buffer.writeTo(out);
            out.flush();
        } catch (IOException e) {
            err.println("lance-flink sql: cannot write the error to stdout: " + e);
        } catch (UncheckedIOException e) {
            err.println("lance-flink sql: cannot write the error to stdout: " + e.getCause());
        }
    }
}
