package dev.lanceflink.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CliArgumentsTest {

    @Test
    void parsesEveryDumpOption() {
        CliArguments a = CliArguments.parse(new String[] {
            "dump",
            "s3://b/t.lance",
            "--version",
            "3",
            "--columns",
            "id, name",
            "--order-by",
            "name,id",
            "--limit",
            "10",
            "--with-row-address",
            "--filter",
            "id > 5",
            "--storage-option",
            "region=eu-west-1",
            "--storage-option",
            "endpoint=http://x:9000"
        });
        assertThat(a.command()).isEqualTo("dump");
        assertThat(a.uri()).isEqualTo("s3://b/t.lance");
        assertThat(a.version()).isEqualTo(3L);
        assertThat(a.columns()).containsExactly("id", "name");
        assertThat(a.orderBy()).containsExactly("name", "id");
        assertThat(a.limit()).isEqualTo(10);
        assertThat(a.withRowAddress()).isTrue();
        assertThat(a.filter()).isEqualTo("id > 5");
        assertThat(a.storageOptions())
                .containsExactly(Map.entry("region", "eu-west-1"), Map.entry("endpoint", "http://x:9000"));
    }

    @Test
    void defaultsMeanLatestVersionAllColumnsScanOrder() {
        CliArguments a = CliArguments.parse(new String[] {"versions", "/t"});
        assertThat(a.version()).isNull();
        assertThat(a.columns()).isNull();
        assertThat(a.orderBy()).isEmpty();
        assertThat(a.limit()).isEqualTo(-1);
        assertThat(a.filter()).isNull();
    }

    @Test
    void wrongCommandLinesNameTheProblem() {
        List<List<String>> cases = List.of(
                List.of(),
                List.of("show", "/t"),
                List.of("dump"),
                List.of("dump", "--limit", "3"),
                List.of("dump", "/t", "--limit"),
                List.of("dump", "/t", "--limit", "ten"),
                List.of("dump", "/t", "--limit", "-1"),
                List.of("dump", "/t", "--version", "0"),
                List.of("dump", "/t", "--columns", "a,,b"),
                List.of("dump", "/t", "--storage-option", "novalue"),
                List.of("inspect", "/t", "--columns", "a"),
                List.of("dump", "/t", "--limit", "1", "--limit", "2"));
        List<String> expected = List.of(
                "no command given; expected one of dump, inspect, versions, compact, sql",
                "unknown command 'show'; expected one of dump, inspect, versions, compact, sql",
                "dump: the table URI is missing (dump <uri> ...)",
                "dump: the table URI is missing (dump <uri> ...)",
                "dump: option --limit needs a value",
                "dump: --limit needs an integer, got 'ten'",
                "dump: --limit must be at least 0, got -1",
                "dump: --version must be at least 1, got 0",
                "dump: --columns needs comma-separated column names, got 'a,,b'",
                "dump: --storage-option needs key=value, got 'novalue'",
                "inspect: unknown option '--columns' (accepted: --storage-option, --version)",
                "dump: option --limit is given twice");
        for (int i = 0; i < cases.size(); i++) {
            String[] args = cases.get(i).toArray(String[]::new);
            assertThatThrownBy(() -> CliArguments.parse(args))
                    .as(cases.get(i).toString())
                    .isInstanceOf(UsageException.class)
                    .hasMessage(expected.get(i));
        }
    }
}
