package dev.lanceflink.oracle;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.WriteParams;

/**
 * Command-line oracle around the official Lance Java SDK: writes, deletes from, dumps and
 * inspects datasets so that interop tests can compare our implementation with the reference
 * one. It runs in its own JVM (the SDK brings its own Arrow and a JNI library) and prints exactly
 * one JSON document on stdout; diagnostics of the SDK go to stderr.
 *
 * <pre>
 * write    &lt;uri&gt; --schema schema.json --rows rows.json [--mode create|append|overwrite]
 *          [--data-storage-version 2.0|2.1|2.2] [--max-rows-per-file N]
 *          [--max-rows-per-group N] [--stable-row-ids] [--storage-option k=v]...
 * delete   &lt;uri&gt; --filter "&lt;SQL predicate&gt;" [--storage-option k=v]...
 * dump     &lt;uri&gt; [--version N] [--order-by col] [--with-row-id] [--storage-option k=v]...
 * versions &lt;uri&gt; [--storage-option k=v]...
 * inspect  &lt;uri&gt; [--version N] [--storage-option k=v]...
 * bench-sink-rows &lt;uri&gt; --rows N --commits N [--keys N] [--first-append-id N]
 *          (see SinkBenchCommand)
 * churn    &lt;uri&gt; --first-id N [--rows-per-round N] [--rounds N] [--delete-mod N]
 *          [--pause-ms N] [--stop-file path]   (see ChurnCommand)
 * batch    &lt;commands.json&gt;    (a JSON array of argument arrays, run in order in this JVM)
 * </pre>
 *
 * <p>Exit codes: 0 success (for {@code batch}: every command was attempted, failures are inside
 * {@code results}), 1 the SDK or the input failed ({@code {"error": ..., "exception": ...}}),
 * 2 wrong command line ({@code {"error": ..., "usage": ...}}).
 */
public final class LanceOracle {

    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private static final String USAGE =
            "write|delete|dump|versions|inspect|bench-write|bench-scan|bench-update|bench-sink-rows|churn|batch <target> "
                    + "[options]; see it/README.md";
    private static final Set<String> STORAGE = Set.of("storage-option");

    private LanceOracle() {}

    public static void main(String[] args) {
        // Anything the SDK or a library prints must not corrupt the JSON document on stdout.
        PrintStream stdout = System.out;
        System.setOut(System.err);
        ObjectNode result;
        int exit;
        try (BufferAllocator allocator = new RootAllocator()) {
            OracleCommands commands = new OracleCommands(allocator);
            List<String> argv = List.of(args);
            if (!argv.isEmpty() && argv.get(0).equals("batch")) {
                result = batch(
                        commands, OracleArgs.parse(argv, Set.of(), Set.of()).target());
            } else {
                result = run(commands, argv);
            }
            exit = 0;
        } catch (OracleArgs.UsageException e) {
            result = DumpFormat.NODES.objectNode().put("error", e.getMessage()).put("usage", USAGE);
            exit = 2;
        } catch (Throwable e) {
            result = errorJson(e);
            exit = 1;
        }
        try {
            stdout.write(JSON.writer()
                    .without(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                    .writeValueAsBytes(result));
            stdout.write('\n');
            stdout.flush();
        } catch (IOException e) {
            exit = 1;
        }
        System.exit(exit);
    }

    /** Runs the commands of a batch file in order; each result or error lands in "results". */
    private static ObjectNode batch(OracleCommands commands, String file) throws IOException {
        JsonNode list = JSON.readTree(Files.readString(Path.of(file), StandardCharsets.UTF_8));
        if (!list.isArray()) {
            throw new OracleArgs.UsageException("batch: " + file + " must hold a JSON array of argument arrays");
        }
        ObjectNode out = DumpFormat.NODES.objectNode();
        ArrayNode results = out.putArray("results");
        for (JsonNode entry : list) {
            List<String> argv = new ArrayList<>();
            if (!entry.isArray()) {
                throw new OracleArgs.UsageException("batch: every entry must be an argument array, got " + entry);
            }
            entry.forEach(a -> argv.add(a.asText()));
            if (!argv.isEmpty() && argv.get(0).equals("batch")) {
                throw new OracleArgs.UsageException("batch: batches do not nest");
            }
            try {
                results.add(run(commands, argv));
            } catch (OracleArgs.UsageException e) {
                results.add(DumpFormat.NODES
                        .objectNode()
                        .put("error", e.getMessage())
                        .put("usage", USAGE));
            } catch (Throwable e) {
                results.add(errorJson(e));
            }
        }
        return out;
    }

    private static ObjectNode run(OracleCommands commands, List<String> argv) throws Exception {
        String command = argv.isEmpty() ? "" : argv.get(0);
        switch (command) {
            case "write": {
                OracleArgs a = OracleArgs.parse(
                        argv,
                        Set.of("stable-row-ids"),
                        union(
                                STORAGE,
                                Set.of(
                                        "schema",
                                        "rows",
                                        "mode",
                                        "data-storage-version",
                                        "max-rows-per-file",
                                        "max-rows-per-group")));
                Schema schema = readSchema(Path.of(a.required("schema")));
                JsonNode rows = JSON.readTree(Files.readString(Path.of(a.required("rows")), StandardCharsets.UTF_8));
                if (rows.isObject() && rows.has("rows")) {
                    rows = rows.get("rows");
                }
                return commands.write(
                        a.target(),
                        schema,
                        rows,
                        mode(a.value("mode")),
                        storageVersion(a.value("data-storage-version")),
                        intOption(a, "max-rows-per-file"),
                        intOption(a, "max-rows-per-group"),
                        a.flag("stable-row-ids"),
                        a.keyValues("storage-option"));
            }
            case "delete": {
                OracleArgs a = OracleArgs.parse(argv, Set.of(), union(STORAGE, Set.of("filter")));
                return commands.delete(a.target(), a.required("filter"), a.keyValues("storage-option"));
            }
            case "dump": {
                OracleArgs a =
                        OracleArgs.parse(argv, Set.of("with-row-id"), union(STORAGE, Set.of("version", "order-by")));
                return commands.dump(
                        a.target(),
                        a.longValue("version"),
                        a.value("order-by"),
                        a.flag("with-row-id"),
                        a.keyValues("storage-option"));
            }
            case "versions": {
                OracleArgs a = OracleArgs.parse(argv, Set.of(), STORAGE);
                return commands.versions(a.target(), a.keyValues("storage-option"));
            }
            case "inspect": {
                OracleArgs a = OracleArgs.parse(argv, Set.of(), union(STORAGE, Set.of("version")));
                return commands.inspect(a.target(), a.longValue("version"), a.keyValues("storage-option"));
            }
            case "bench-write": {
                OracleArgs a = OracleArgs.parse(
                        argv, Set.of("append"), union(STORAGE, Set.of("rows", "batch-rows", "data-storage-version")));
                return new BenchCommands(commands.allocator())
                        .write(
                                a.target(),
                                intOption(a, "rows"),
                                a.value("batch-rows") == null ? 65536 : intOption(a, "batch-rows"),
                                storageVersion(a.value("data-storage-version")),
                                a.flag("append"),
                                a.keyValues("storage-option"));
            }
            case "bench-scan": {
                OracleArgs a = OracleArgs.parse(argv, Set.of(), union(STORAGE, Set.of("repeat")));
                return new BenchCommands(commands.allocator())
                        .scan(
                                a.target(),
                                a.value("repeat") == null ? 3 : intOption(a, "repeat"),
                                a.keyValues("storage-option"));
            }
            case "bench-update": {
                OracleArgs a = OracleArgs.parse(argv, Set.of(), union(STORAGE, Set.of("rows", "every", "phase")));
                if (a.value("rows") == null) {
                    throw new OracleArgs.UsageException("bench-update: --rows (the table's row count) is required");
                }
                return new BenchCommands(commands.allocator())
                        .update(
                                a.target(),
                                intOption(a, "rows"),
                                a.value("every") == null ? 100 : intOption(a, "every"),
                                a.value("phase") == null
                                        ? 0
                                        : a.longValue("phase").intValue(),
                                a.keyValues("storage-option"));
            }
            case "bench-sink-rows": {
                OracleArgs a = OracleArgs.parse(
                        argv, Set.of(), union(STORAGE, Set.of("rows", "commits", "keys", "first-append-id")));
                if (a.value("rows") == null || a.value("commits") == null) {
                    throw new OracleArgs.UsageException("bench-sink-rows: --rows and --commits are required");
                }
                return new SinkBenchCommand(commands.allocator())
                        .run(
                                a.target(),
                                intOption(a, "rows"),
                                intOption(a, "commits"),
                                intOption(a, "keys"),
                                a.value("first-append-id") == null ? 0 : a.longValue("first-append-id"),
                                a.keyValues("storage-option"));
            }
            case "churn": {
                OracleArgs a = OracleArgs.parse(
                        argv,
                        Set.of(),
                        union(
                                STORAGE,
                                Set.of("first-id", "rows-per-round", "rounds", "delete-mod", "pause-ms", "stop-file")));
                if (a.value("first-id") == null) {
                    throw new OracleArgs.UsageException("churn: --first-id (the first id the SDK appends) is required");
                }
                return new ChurnCommand(commands.allocator())
                        .run(
                                a.target(),
                                a.longValue("first-id"),
                                a.value("rows-per-round") == null ? 100 : intOption(a, "rows-per-round"),
                                a.value("rounds") == null ? 1000 : intOption(a, "rounds"),
                                a.value("delete-mod") == null ? 7 : intOption(a, "delete-mod"),
                                a.value("pause-ms") == null ? 0 : a.longValue("pause-ms"),
                                a.value("stop-file") == null ? null : Path.of(a.value("stop-file")),
                                a.keyValues("storage-option"));
            }
            default:
                throw new OracleArgs.UsageException(
                        command.isEmpty() ? "missing command" : "unknown command '" + command + "'");
        }
    }

    /**
     * Reads schema.json: a JSON array of {@code {"name","type","nullable"}} (nullable defaults to
     * true), or any object with such a {@code schema} array (e.g. a dump).
     */
    static Schema readSchema(Path file) throws IOException {
        JsonNode node = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        if (node.isObject() && node.has("schema")) {
            node = node.get("schema");
        }
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException(
                    file + ": expected a non-empty JSON array of " + "{\"name\", \"type\", \"nullable\"} objects");
        }
        List<Field> fields = new ArrayList<>();
        int i = 0;
        for (JsonNode column : node) {
            JsonNode name = column.get("name");
            JsonNode type = column.get("type");
            if (name == null || !name.isTextual() || type == null || !type.isTextual()) {
                throw new IllegalArgumentException(
                        file + ", column " + i + ": \"name\" and \"type\" must be strings, got " + column);
            }
            JsonNode nullable = column.get("nullable");
            fields.add(TypeGrammar.parseField(
                    name.textValue(), type.textValue(), nullable == null || nullable.asBoolean()));
            i++;
        }
        return new Schema(fields);
    }

    private static WriteParams.WriteMode mode(String mode) {
        if (mode == null) {
            return WriteParams.WriteMode.CREATE;
        }
        return switch (mode) {
            case "create" -> WriteParams.WriteMode.CREATE;
            case "append" -> WriteParams.WriteMode.APPEND;
            case "overwrite" -> WriteParams.WriteMode.OVERWRITE;
            default ->
                throw new OracleArgs.UsageException(
                        "write: --mode must be create, append or " + "overwrite, got '" + mode + "'");
        };
    }

    private static String storageVersion(String version) {
        if (version == null
                || Set.of("2.0", "2.1", "2.2", "stable", "legacy", "next").contains(version.toLowerCase(Locale.ROOT))) {
            return version;
        }
        throw new OracleArgs.UsageException("write: --data-storage-version must be 2.0, 2.1, 2.2, "
                + "stable, legacy or next, got '" + version + "'");
    }

    private static Integer intOption(OracleArgs a, String name) {
        Long value = a.longValue(name);
        if (value == null) {
            return null;
        }
        if (value <= 0 || value > Integer.MAX_VALUE) {
            throw new OracleArgs.UsageException(
                    a.command + ": --" + name + " must be a positive 32-bit integer, got " + value);
        }
        return value.intValue();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        HashSet<String> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static ObjectNode errorJson(Throwable e) {
        StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
                message.append(" (caused by: ").append(cause.getMessage()).append(')');
            }
        }
        return DumpFormat.NODES
                .objectNode()
                .put("error", message.toString())
                .put("exception", e.getClass().getName());
    }
}
