package dev.lanceflink.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** One in-process run of {@code lance-flink sql}: its exit code, stdout and stderr (SqlCommandTest, SqlCommandITCase). */
record SqlRun(int code, String out, String err) {
    List<String> lines() {
        return out.lines().toList();
    }

    /** {@code sql} with statements on standard input (SqlCommand directly: never the test JVM's own stdin). */
    static SqlRun sqlFromStdin(String input, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] full = new String[args.length + 1];
        full[0] = "sql";
        System.arraycopy(args, 0, full, 1, args.length);
        int code = SqlCommand.run(
                full,
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new SqlRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static SqlRun sql(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] full = new String[args.length + 1];
        full[0] = "sql";
        System.arraycopy(args, 0, full, 1, args.length);
        int code = LanceFlinkCli.run(full, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new SqlRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
