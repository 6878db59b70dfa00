package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The picocli command lines: what they accept beyond the old parsers' tests, and their help. */
class CommandLinesTest {

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LanceFlinkCli.run(args, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void argumentsStartingWithAtAreTakenLiterallyNotReadAsArgumentFiles(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("args"), "--limit 5");
        CliArguments dump = CliArguments.parse(new String[] {"dump", "@" + file});
        assertThat(dump.uri()).isEqualTo("@" + file);
        assertThat(dump.limit()).isEqualTo(-1);
        assertThat(SqlCommandLine.parse(new String[] {"sql", "-e", "@" + file}).script())
                .isEqualTo("@" + file);
    }

    @Test
    void sqlStatementsMayStartWithACommentAndMissingValuesAreNamedAsTyped() {
        String script = "-- make it\nSELECT 1";
        SqlCommand.Arguments a = SqlCommandLine.parse(new String[] {"sql", "--format", "json", "-e", script});
        assertThat(a.script()).isEqualTo(script);
        assertThat(a.source()).isEqualTo("-e");
        assertThat(a.format()).isEqualTo(SqlCommand.Format.JSON);
        assertThat(SqlCommandLine.parse(new String[] {"sql"}).source()).isEqualTo("stdin");
        assertThatThrownBy(() -> SqlCommandLine.parse(new String[] {"sql", "--format", "json", "-e"}))
                .isInstanceOf(UsageException.class)
                .hasMessage("option -e needs a value");
        assertThatThrownBy(() -> SqlCommandLine.parse(new String[] {"sql", "--execute"}))
                .isInstanceOf(UsageException.class)
                .hasMessage("option --execute needs a value");
    }

    @Test
    void optionsMayPrecedeTheUri() {
        CliArguments a = CliArguments.parse(new String[] {"dump", "--limit", "3", "/t", "--columns", "id"});
        assertThat(a.uri()).isEqualTo("/t");
        assertThat(a.limit()).isEqualTo(3);
        assertThat(a.columns()).containsExactly("id");
    }

    @Test
    void topLevelHelpListsEveryCommandAndEveryCommandHasPlainTextHelp() {
        Set<String> commands = LanceFlinkCli.commandLine().getSubcommands().keySet();
        assertThat(commands).containsExactly("dump", "inspect", "versions", "compact", "sql");
        Run top = run("--help");
        assertThat(top.code()).isZero();
        for (String command : commands) {
            assertThat(top.out()).containsPattern("(?m)^  " + command + " +\\S");
            Run help = run(command, "--help");
            assertThat(help.code()).as(command).isZero();
            assertThat(help.out())
                    .as(command)
                    .startsWith("lance-flink " + command + " ")
                    .contains("-h, --help")
                    .doesNotStartWith("{");
        }
    }

    @Test
    void helpStaysPlainTextWhenColoursAreForced() {
        String before = System.getProperty("picocli.ansi");
        System.setProperty("picocli.ansi", "true");
        try {
            for (List<String> args : List.of(
                    List.of("--help"),
                    List.of("dump", "--help"),
                    List.of("sql", "--help"),
                    List.of("compact", "--help"))) {
                Run help = run(args.toArray(String[]::new));
                assertThat(help.code()).as(args.toString()).isZero();
                assertThat(help.out()).as(args.toString()).doesNotContain("\u001B[");
            }
        } finally {
            if (before == null) {
                System.clearProperty("picocli.ansi");
            } else {
                System.setProperty("picocli.ansi", before);
            }
        }
    }

    @Test
    void helpAnywhereAfterTheCommandWinsOverOtherArguments() {
        Run sql = run("sql", "-e", "SELECT 1", "--help");
        assertThat(sql.code()).isZero();
        assertThat(sql.out()).startsWith("lance-flink sql [-f script.sql");
        Run dump = run("dump", "/t", "--bogus", "-h");
        assertThat(dump.code()).isZero();
        assertThat(dump.out()).startsWith("lance-flink dump <uri>");
    }

    @Test
    void aUsageErrorPrintsOneJsonLineAndTheCommandsUsageOnStderr() {
        Run r = run("inspect", "/t", "--columns", "a");
        assertThat(r.code()).isEqualTo(LanceFlinkCli.EXIT_USAGE);
        assertThat(r.out())
                .isEqualTo("{\"error\":\"inspect: unknown option '--columns' (accepted: --storage-option,"
                        + " --version) (lance-flink --help)\"}\n");
        assertThat(r.err()).startsWith("lance-flink inspect <uri>");
        Run unknown = run("show");
        assertThat(unknown.err()).startsWith("lance-flink <command>");
    }
}
