package dev.lanceflink.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.it.docs.DocSnippets.Kind;
import dev.lanceflink.it.docs.DocSnippets.Snippet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doc-test harness itself: what counts as marked, how paths are substituted, how output is compared. */
class DocSnippetsHarnessTest {

    @Test
    void blocksGetTheirLanguageMarkerAndIndentation(@TempDir Path dir) throws Exception {
        Path md = dir.resolve("doc.md");
        Files.writeString(
                md,
                String.join(
                        "\n",
                        "# Title",
                        "```sql",
                        "SELECT 1;",
                        "```",
                        "<!-- doc-test: skip (needs a Flink distribution) -->",
                        "",
                        "```bash",
                        "bin/sql-client.sh",
                        "```",
                        "- item",
                        "  ```sql",
                        "  SELECT 2;",
                        "  ```",
                        "```python",
                        "print(1)",
                        "```",
                        "<!-- doc-test: skip -->",
                        "```yaml",
                        "a: 1",
                        "```",
                        ""));
        List<Snippet> blocks = DocSnippets.blocks(md);
        assertThat(blocks)
                .extracting(Snippet::kind)
                .containsExactly(Kind.RUN, Kind.SKIP, Kind.RUN, Kind.UNMARKED, Kind.SKIP);
        assertThat(blocks.get(1).skipReason()).isEqualTo("needs a Flink distribution");
        assertThat(blocks.get(2).text()).isEqualTo("SELECT 2;\n");
        assertThat(blocks.get(2).line()).isEqualTo(11);
        assertThat(blocks.get(4).skipReason()).as("a skip without a reason").isEmpty();
    }

    @Test
    void onlyRelativePathsAndWarehousesAreResolved(@TempDir Path work) {
        DocRunner runner = new DocRunner(work);
        assertThat(runner.rewriteSql("WITH ('connector' = 'lance', 'path' = 'd/t.lance', 'other' = 'x.lance')"))
                .isEqualTo("WITH ('connector' = 'lance', 'path' = '" + work.resolve("d/t.lance")
                        + "', 'other' = 'x.lance')");
        assertThat(runner.rewriteSql("('warehouse' = 's3://bucket/w', 'path'='/abs/t.lance')"))
                .isEqualTo("('warehouse' = 's3://bucket/w', 'path'='/abs/t.lance')");
    }

    @Test
    void shellWordsFollowBashQuoting() {
        assertThat(DocRunner.shellWords("bin/lance-flink sql -e \"INSERT INTO t VALUES (1, 'a')\"  # comment"))
                .containsExactly("bin/lance-flink", "sql", "-e", "INSERT INTO t VALUES (1, 'a')");
        assertThat(DocRunner.shellWords("a 'b c' \"d \\\"e\\\"\" f\\ g")).containsExactly("a", "b c", "d \"e\"", "f g");
        assertThat(DocRunner.commandLines("# c\nbin/x a \\\n  b\n\nbin/y\n")).containsExactly("bin/x a    b", "bin/y");
    }

    @Test
    void jsonOutputMatchesWhenEveryFieldShownHasThatValue() throws Exception {
        ObjectMapper json = new ObjectMapper();
        var actual = json.readTree("{\"version\": 3, \"rows\": [{\"id\": 1, \"age\": 30}], \"extra\": true}");
        assertThat(DocSnippetsRunITCase.mismatch(json.readTree("{\"rows\": [{\"id\": 1}]}"), actual, "$"))
                .isNull();
        assertThat(DocSnippetsRunITCase.mismatch(json.readTree("{\"version\": 4}"), actual, "$"))
                .isEqualTo("$.version is 3, not 4");
        assertThat(DocSnippetsRunITCase.mismatch(json.readTree("{\"rows\": [{}, {}]}"), actual, "$"))
                .isEqualTo("$.rows is not an array of 2");
        assertThat(DocSnippetsRunITCase.mismatch(json.readTree("{\"missing\": 1}"), actual, "$"))
                .isEqualTo("$.missing is missing");
    }
}
