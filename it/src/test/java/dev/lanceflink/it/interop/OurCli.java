package dev.lanceflink.it.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.cli.LanceFlinkCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Our side of an interop comparison: {@code bin/lance-flink} run in-process (same code as the
 * shaded jar, no JVM start), its stdout parsed with the dump comparator's exact-decimal mapper.
 */
public final class OurCli {

    private OurCli() {}

    /** One finished CLI run. */
    public record Result(int exitCode, JsonNode json) {

        /** The error text, or null on success. */
        public String error() {
            return json.has("error") ? json.get("error").asText() : null;
        }
    }

    /** Runs the CLI and returns exit code and document without judging them. */
    public static Result execute(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(args.toArray(String[]::new), out, System.err);
        try {
            return new Result(code, DumpComparator.MAPPER.readTree(out.toString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("lance-flink " + args + " printed invalid JSON", e);
        }
    }

    /** Runs the CLI; a non-zero exit fails with the CLI's error text. */
    public static JsonNode run(String... args) {
        Result result = execute(List.of(args));
        if (result.exitCode() != 0) {
            throw new AssertionError(
                    "lance-flink " + List.of(args) + " exited with " + result.exitCode() + ": " + result.error());
        }
        return result.json();
    }
}
