package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
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
 * Starts the official-SDK oracle ({@code dev.lanceflink.oracle.LanceOracle}, module
 * {@code it/lance-oracle}) in a separate JVM and returns its JSON answer. The SDK must never
 * share our classpath (its own Arrow build and a JNI library), so every call is a fork; JVM
 * start plus SDK load costs 1–2 s, which is why {@link #batch} runs many commands per fork.
 *
 * <p>The oracle's location comes from the system property {@code lf.oracle.buildDir} (set by
 * this module's surefire configuration to {@code lance-oracle/${lf.buildDir}}, relative to the
 * module directory): its {@code classes} directory plus the dependency list in
 * {@code oracle.classpath}, which the oracle's build writes before compiling.
 */
public final class OracleProcess {

    /** The property naming the oracle module's build directory. */
    public static final String BUILD_DIR_PROPERTY = "lf.oracle.buildDir";

    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(180);

    private final String classpath;
    private final Duration timeout;

    private OracleProcess(String classpath, Duration timeout) {
        this.classpath = classpath;
        this.timeout = timeout;
    }

    /** The oracle built by this Maven build (see the class comment). */
    public static OracleProcess fromBuild() {
        String dir = System.getProperty(BUILD_DIR_PROPERTY);
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("system property " + BUILD_DIR_PROPERTY + " is not set: "
                    + "run the interop tests through Maven (module it), or pass "
                    + "-D" + BUILD_DIR_PROPERTY + "=<path to it/lance-oracle/target>");
        }
        Path buildDir = Path.of(dir).toAbsolutePath().normalize();
        Path classes = buildDir.resolve("classes");
        Path classpathFile = buildDir.resolve("oracle.classpath");
        if (!Files.isDirectory(classes.resolve("dev/lanceflink/oracle")) || !Files.isRegularFile(classpathFile)) {
            throw new IllegalStateException("the oracle is not built in " + buildDir + " (need "
                    + "classes/dev/lanceflink/oracle and oracle.classpath): build module it/lance-oracle "
                    + "first, e.g. mvn -pl it -am test");
        }
        try {
            String deps =
                    Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
            return new OracleProcess(classes + File.pathSeparator + deps, DEFAULT_TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classpathFile, e);
        }
    }

    /** The same oracle with another per-fork timeout. */
    public OracleProcess withTimeout(Duration newTimeout) {
        return new OracleProcess(classpath, newTimeout);
    }

    /**
     * Runs one oracle command and returns its JSON document; a non-zero exit becomes an
     * {@link OracleException} carrying the oracle's error text.
     */
    public JsonNode run(String... args) {
        Result result = execute(List.of(args));
        if (result.exitCode() != 0) {
            throw new OracleException(result);
        }
        return result.json();
    }

    /** Runs one oracle command and returns exit code, JSON and stderr without judging them. */
    public Result execute(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classpath);
        command.add("dev.lanceflink.oracle.LanceOracle");
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putIfAbsent("RUST_BACKTRACE", "0");
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> stdout = drain(process.getInputStream());
            CompletableFuture<String> stderr = drain(process.getErrorStream());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                throw new OracleException("oracle " + args + " did not finish within " + timeout + "; stderr tail: "
                        + tail(stderr.getNow("")));
            }
            String out = stdout.join();
            String err = stderr.join();
            JsonNode json = null;
            if (!out.isBlank()) {
                try {
                    json = DumpComparator.MAPPER.readTree(out);
                } catch (IOException e) {
                    throw new OracleException("oracle " + args + " printed invalid JSON (exit " + process.exitValue()
                            + "): " + tail(out) + "; stderr tail: " + tail(err));
                }
            }
            return new Result(args, process.exitValue(), json, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the oracle JVM: " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OracleException("interrupted while waiting for the oracle " + args);
        }
    }

    /**
     * Runs several commands in one JVM ({@code oracle batch}); returns one JSON document per
     * command, in order. A failed command yields its {@code {"error": ...}} document here instead
     * of an exception, so callers can assert on expected failures; use {@link #requireOk} for the
     * others.
     */
    public List<JsonNode> batch(Path workDir, List<List<String>> commands) {
        ArrayNode list = DumpComparator.MAPPER.createArrayNode();
        for (List<String> c : commands) {
            ArrayNode argv = list.addArray();
            c.forEach(argv::add);
        }
        try {
            Files.createDirectories(workDir);
            Path file = Files.createTempFile(workDir, "oracle-batch-", ".json");
            Files.writeString(file, DumpComparator.MAPPER.writeValueAsString(list), StandardCharsets.UTF_8);
            JsonNode answer = run("batch", file.toString());
            List<JsonNode> results = new ArrayList<>();
            answer.get("results").forEach(results::add);
            if (results.size() != commands.size()) {
                throw new OracleException(
                        "oracle batch answered " + results.size() + " results for " + commands.size() + " commands");
            }
            return results;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the batch file in " + workDir, e);
        }
    }

    /** Returns {@code result} unless it is an oracle error document, which is thrown. */
    public static JsonNode requireOk(List<String> command, JsonNode result) {
        if (result.has("error")) {
            throw new OracleException(
                    "oracle " + command + " failed: " + result.get("error").asText());
        }
        return result;
    }

    /** Reads a child process stream to the end on another thread (shared with PylanceOracle). */
    static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "<unreadable: " + e.getMessage() + ">";
            }
        });
    }

    static String tail(String text) {
        String trimmed = text.strip();
        return trimmed.length() <= 2000 ? trimmed : "..." + trimmed.substring(trimmed.length() - 2000);
    }

    /** One finished oracle run. {@code json} is null when the process printed nothing. */
    public record Result(List<String> args, int exitCode, JsonNode json, String stderr) {

        /** The oracle's error text, or null on success. */
        public String error() {
            return json != null && json.has("error") ? json.get("error").asText() : null;
        }
    }

    /** The oracle failed or could not be run; the message carries its error text. */
    public static final class OracleException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OracleException(String message) {
            super(message);
        }

        OracleException(Result result) {
            super("oracle " + result.args() + " exited with " + result.exitCode() + ": "
                    + (result.error() != null
                            ? result.error()
                            : "no error document; stderr tail: " + tail(result.stderr())));
        }
    }
}
