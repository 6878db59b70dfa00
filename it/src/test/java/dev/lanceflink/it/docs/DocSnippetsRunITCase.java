package dev.lanceflink.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.it.docs.DocSnippets.Kind;
import dev.lanceflink.it.docs.DocSnippets.Snippet;
import dev.lanceflink.testkit.flink.MiniClusters;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every runnable snippet of the documentation as written ({@link DocSnippets}): the sql blocks
 * through {@code bin/lance-flink sql -f}, the shell blocks' {@code bin/lance-flink} commands, and
 * {@code examples/*.sql}, each document's snippets in document order in one fresh working
 * directory (a later block may read the tables an earlier one wrote, as a reader following the
 * text would), with the path substitution of {@link DocRunner}. Each must exit 0; a block followed
 * by an output block must print that output. All jobs share one MiniCluster.
 */
class DocSnippetsRunITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(2);

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    @TestFactory
    List<DynamicNode> everyRunnableSnippetRunsAsWritten() {
        Map<Path, List<Snippet>> byFile = DocSnippets.all().stream()
                .collect(Collectors.groupingBy(Snippet::file, LinkedHashMap::new, Collectors.toList()));
        List<DynamicNode> documents = new ArrayList<>();
        byFile.forEach((file, snippets) -> {
            DocRunner runner = new DocRunner(work.resolve(file.toString().replace('/', '_')));
            List<DynamicNode> tests = new ArrayList<>();
            for (Iterator<Snippet> it = snippets.iterator(); it.hasNext(); ) {
                Snippet s = it.next();
                if (s.kind() != Kind.RUN) {
                    continue;
                }
                int index = snippets.indexOf(s);
                Snippet output =
                        index + 1 < snippets.size() && snippets.get(index + 1).kind() == Kind.OUTPUT
                                ? snippets.get(index + 1)
                                : null;
                tests.add(DynamicTest.dynamicTest(s.where() + " " + s.section(), () -> run(runner, s, output)));
            }
            if (!tests.isEmpty()) {
                documents.add(DynamicContainer.dynamicContainer(file.toString(), tests));
            }
        });
        assertThat(documents).as("documents with runnable snippets").isNotEmpty();
        return documents;
    }

    private static void run(DocRunner runner, Snippet s, Snippet output) throws Exception {
        String stdout;
        if (s.isScriptFile() && !s.isSql()) {
            stdout = ShellScript.run(runner, s);
        } else if (s.isSql()) {
            DocRunner.Run r = runner.sql(s.text(), "snippets/" + s.file().getFileName() + "-" + s.line() + ".sql");
            assertThat(r.exitCode()).as(s.where() + ": " + r.describe()).isZero();
            stdout = r.stdout();
        } else {
            stdout = null;
            for (String line : DocRunner.commandLines(s.text())) {
                List<String> words = DocRunner.shellWords(line);
                assertThat(words)
                        .as(s.where() + ": a line the doc tests cannot run (mark the block): " + line)
                        .isNotEmpty()
                        .first()
                        .isIn("bin/lance-flink", "java");
                if (words.get(0).equals("java")) {
                    stdout = ShellScript.javaCommand(runner, words, s.where() + ": " + line);
                    continue;
                }
                DocRunner.Run r = runner.command(words.subList(1, words.size()));
                assertThat(r.exitCode())
                        .as(s.where() + ": " + line + "\n" + r.describe())
                        .isZero();
                stdout = r.stdout();
            }
        }
        if (output != null) {
            assertOutput(output, stdout, s);
        }
    }

    /** Text: equal after trimming each line's end; json: every field shown has that value. */
    private static void assertOutput(Snippet expected, String actual, Snippet of) throws IOException {
        if (expected.language().equals("json")) {
            JsonNode want = JSON.readTree(expected.text());
            JsonNode got = JSON.readTree(actual);
            assertThat(mismatch(want, got, "$"))
                    .as(of.where() + ": output shown at " + expected.where() + "; actual:\n" + actual)
                    .isNull();
        } else {
            assertThat(trimLines(actual))
                    .as(of.where() + ": output shown at " + expected.where())
                    .isEqualTo(trimLines(expected.text()));
        }
    }

    /** The first place where {@code got} lacks or differs from a value of {@code want}, or null. */
    static String mismatch(JsonNode want, JsonNode got, String at) {
        if (got == null || got.isMissingNode()) {
            return at + " is missing";
        }
        if (want.isObject()) {
            if (!got.isObject()) {
                return at + " is not an object";
            }
            for (Iterator<Map.Entry<String, JsonNode>> f = want.fields(); f.hasNext(); ) {
                Map.Entry<String, JsonNode> e = f.next();
                String m = mismatch(e.getValue(), got.get(e.getKey()), at + "." + e.getKey());
                if (m != null) {
                    return m;
                }
            }
            return null;
        }
        if (want.isArray()) {
            if (!got.isArray() || got.size() != want.size()) {
                return at + " is not an array of " + want.size();
            }
            for (int i = 0; i < want.size(); i++) {
                String m = mismatch(want.get(i), got.get(i), at + "[" + i + "]");
                if (m != null) {
                    return m;
                }
            }
            return null;
        }
        return want.equals(got) ? null : at + " is " + got + ", not " + want;
    }

    private static String trimLines(String text) {
        return text.lines()
                .map(String::stripTrailing)
                .collect(Collectors.joining("\n"))
                .strip();
    }
}
