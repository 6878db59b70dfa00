package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Current Lance as its users run it: {@code it/pylance/pylance_oracle.py} on pylance (pinned in
 * {@code it/pylance/requirements.txt}) in the virtual environment that this module's build
 * makes ({@code lf.pylanceVenv}). Every call is its own Python process printing one JSON
 * document in the dump conventions of {@code it/README.md}.
 *
 * <p>Released Lance reads and writes data overlay files only with
 * {@code LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES} set: {@link #withOverlays()} sets it,
 * {@link #fromBuild()} leaves it unset (and removes it if the test JVM inherited it), so a
 * test says which Lance user it plays.
 */
public final class PylanceOracle {

    /** The system property naming the venv directory (relative to the it module). */
    public static final String VENV_PROPERTY = "lf.pylanceVenv";
    /** The variable released Lance needs before it touches data overlay files. */
    public static final String OVERLAYS_VARIABLE = "LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES";

    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    private final Path python;
    private final Path script;
    private final boolean overlays;

    private PylanceOracle(Path python, Path script, boolean overlays) {
        this.python = python;
        this.script = script;
        this.overlays = overlays;
    }

    /** pylance from this build's venv, overlays not enabled (as a default Lance user runs it). */
    public static PylanceOracle fromBuild() {
        String venv = System.getProperty(VENV_PROPERTY);
        if (venv == null || venv.isBlank()) {
            throw new IllegalStateException("system property " + VENV_PROPERTY + " is not set: run the"
                    + " pylance interop tests through Maven (module it), which installs pylance first");
        }
        Path dir = Path.of(venv).toAbsolutePath().normalize();
        Path python = dir.resolve("bin/python");
        Path script = Path.of("pylance/pylance_oracle.py").toAbsolutePath().normalize();
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no pylance environment in " + dir + ": run mvn -pl it"
                    + " generate-test-resources (it runs pylance/setup-venv.sh)");
        }
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("cannot find " + script + " (tests run from the it module)");
        }
        return new PylanceOracle(python, script, false);
    }

    /** The same oracle with {@value #OVERLAYS_VARIABLE} set. */
    public PylanceOracle withOverlays() {
        return new PylanceOracle(python, script, true);
    }

    /** Runs one command; a non-zero exit throws with pylance's error text. */
    public JsonNode run(String... args) {
        Result r = execute(List.of(args));
        if (r.exitCode() != 0) {
            throw new AssertionError("pylance " + List.of(args) + " exited with " + r.exitCode() + ": "
                    + (r.error() != null ? r.error() : "no error document; stderr: " + OracleProcess.tail(r.stderr())));
        }
        return r.json();
    }

    /**
     * Runs several commands in one Python process; one document per command, failures as
     * {@code {"error"}} documents.
     */
    public List<JsonNode> batch(Path workDir, List<List<String>> commands) {
        ArrayNode list = DumpComparator.MAPPER.createArrayNode();
        for (List<String> c : commands) {
            ArrayNode argv = list.addArray();
            c.forEach(argv::add);
        }
        try {
            Files.createDirectories(workDir);
            Path file = Files.createTempFile(workDir, "pylance-batch-", ".json");
            Files.writeString(file, DumpComparator.MAPPER.writeValueAsString(list), StandardCharsets.UTF_8);
            List<JsonNode> results = new ArrayList<>();
            run("batch", file.toString()).get("results").forEach(results::add);
            return results;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs one command and returns exit code, JSON and stderr without judging them. */
    public Result execute(List<String> args) {
        Output output = runPython(script, args);
        JsonNode json = null;
        if (!output.stdout().isBlank()) {
            try {
                json = DumpComparator.MAPPER.readTree(output.stdout());
            } catch (IOException e) {
                throw new AssertionError(
                        "pylance " + args + " printed invalid JSON: " + OracleProcess.tail(output.stdout())
                                + "; stderr: " + OracleProcess.tail(output.stderr()),
                        e);
            }
        }
        return new Result(args, output.exitCode(), json, output.stderr());
    }

    /** Runs any Python script in this environment (an example a user would run). */
    public Output runPython(Path pythonScript, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(python.toString());
        command.add(pythonScript.toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (overlays) {
            builder.environment().put(OVERLAYS_VARIABLE, "1");
        } else {
            builder.environment().remove(OVERLAYS_VARIABLE);
        }
        builder.environment().put("RUST_BACKTRACE", "0");
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> out = OracleProcess.drain(process.getInputStream());
            CompletableFuture<String> err = OracleProcess.drain(process.getErrorStream());
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("pylance " + args + " did not finish within " + TIMEOUT);
            }
            return new Output(process.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + python, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for pylance " + args);
        }
    }

    /**
     * Compares our dump with pylance's and adds the difference (or pylance's error) to
     * {@code failures} instead of throwing, so a test reports every version that differs. pylance
     * declares {@code _rowaddr} nullable although it is never null, where we declare it NOT NULL:
     * the values are compared, not that flag.
     */
    public static void collectDifference(List<String> failures, String what, JsonNode ours, JsonNode pylance) {
        if (pylance.has("error")) {
            failures.add(what + ": pylance failed: " + pylance.get("error").asText());
            return;
        }
        for (JsonNode column : pylance.get("schema")) {
            if (column.get("name").asText().equals("_rowaddr")) {
                ((ObjectNode) column).put("nullable", false);
            }
        }
        try {
            DumpComparator.exact().assertSame(what, ours, pylance);
        } catch (AssertionError e) {
            failures.add(e.getMessage());
        }
    }

    /** What a Python process printed. */
    public record Output(int exitCode, String stdout, String stderr) {}

    /** One finished run; {@code json} is null when nothing was printed. */
    public record Result(List<String> args, int exitCode, JsonNode json, String stderr) {

        /** pylance's error text, or null on success. */
        public String error() {
            return json != null && json.has("error") ? json.get("error").asText() : null;
        }
    }
}
