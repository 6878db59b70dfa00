package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interactive prompt of {@code sql}, on JLine's dumb terminal (what it gets when no real one is known). */
class SqlPromptTest {
    @TempDir
    Path dir;

    @Test
    void runsEachStatementWhenItsSemicolonIsTypedAndGoesOnAfterAFailure() throws Exception {
        String typed = "SET 'a' = 'x;y';\n"
                + "SET\n"
                + "  'b' -- a comment; not the end\n"
                + "  = '2'; SET 'c' = '3'\n"
                + ";\n"
                + "SELECT * FROM no_such_table;\n"
                + "SHOW CATALOGS;\n"
                + "SET 'd' = '4';\n";
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path history = dir.resolve("history");
        int code;
        try (Terminal terminal = TerminalBuilder.builder()
                .system(false)
                .dumb(true)
                .type("dumb")
                .streams(new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8)), screen)
                .encoding(StandardCharsets.UTF_8)
                .build()) {
            code = SqlPrompt.run(
                    terminal,
                    history,
                    new SqlCommand(SqlCommand.Format.TABLE, out, new PrintStream(err, true, StandardCharsets.UTF_8)));
        }
        String errText = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(errText).isZero();
        assertThat(errText)
                .containsSubsequence(
                        "[INFO] 'a' = 'x;y'",
                        "[INFO] 'b' = '2'",
                        "[INFO] 'c' = '3'",
                        "lance-flink sql: statement 4 failed: ",
                        "no_such_table",
                        "[INFO] 'd' = '4'");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("default_catalog");
        String shown = screen.toString(StandardCharsets.UTF_8);
        assertThat(shown).contains(SqlPrompt.PROMPT).contains(SqlPrompt.CONTINUATION);
        assertThat(Files.readString(history)).contains("SET 'a' = 'x;y';").contains("SHOW CATALOGS;");
    }

    @Test
    void quitEndsTheSessionAndLeavesTheRestUnread() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (Terminal terminal = TerminalBuilder.builder()
                .system(false)
                .dumb(true)
                .type("dumb")
                .streams(
                        new ByteArrayInputStream(
                                "SET 'a' = '1'; quit;\nSET 'b' = '2';\n".getBytes(StandardCharsets.UTF_8)),
                        new ByteArrayOutputStream())
                .encoding(StandardCharsets.UTF_8)
                .build()) {
            code = SqlPrompt.run(
                    terminal,
                    dir.resolve("h"),
                    new SqlCommand(
                            SqlCommand.Format.TABLE,
                            new ByteArrayOutputStream(),
                            new PrintStream(err, true, StandardCharsets.UTF_8)));
        }
        assertThat(code).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("'a' = '1'").doesNotContain("'b'");
    }
}
