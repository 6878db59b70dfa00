package dev.lanceflink.it.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.it.docs.DocSnippets.Kind;
import dev.lanceflink.it.docs.DocSnippets.Snippet;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's Java snippets compile against this build: each becomes the body of a method
 * whose parameters are the streams the text says a program has ({@code rowDataStream},
 * {@code changelogStream}: {@code DataStream<RowData>}), with the imports a program using the
 * sink needs. Compiled with the test's class path.
 */
class DocJavaSnippetsTest {

    private static final String HEADER = String.join(
            "\n",
            "import dev.lanceflink.flink.sink.KeyMapMode;",
            "import dev.lanceflink.flink.sink.LanceSinkBuilder;",
            "import dev.lanceflink.flink.sink.LanceSinkMode;",
            "import dev.lanceflink.flink.sink.OverlayShape;",
            "import dev.lanceflink.flink.sink.UpdateMode;",
            "import java.util.Map;",
            "import org.apache.flink.streaming.api.datastream.DataStream;",
            "import org.apache.flink.table.data.RowData;",
            "");

    @Test
    void javaSnippetsCompile(@TempDir Path dir) throws Exception {
        List<Snippet> java =
                DocSnippets.all().stream().filter(s -> s.kind() == Kind.COMPILE).toList();
        assertThat(java).as("Java snippets in the README").isNotEmpty();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        for (Snippet s : java) {
            String name = "Snippet" + java.indexOf(s); // line numbers repeat across files
            Path source = dir.resolve(name + ".java");
            Files.writeString(
                    source,
                    HEADER + "class " + name + " {\n"
                            + "  static void snippet(DataStream<RowData> rowDataStream, DataStream<RowData> changelogStream)"
                            + " throws Exception {\n" + s.text() + "  }\n}\n");
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int code = compiler.run(
                    null,
                    null,
                    diagnostics,
                    "-proc:none",
                    "-d",
                    dir.toString(),
                    "-cp",
                    System.getProperty("java.class.path") + File.pathSeparator + testClasspath(),
                    source.toString());
            assertThat(code)
                    .as(s.where() + " does not compile:\n" + s.text() + "\n"
                            + diagnostics.toString(StandardCharsets.UTF_8))
                    .isZero();
        }
    }

    /** The test class path as surefire passes it (java.class.path may hold only its booter jar). */
    private static String testClasspath() {
        return System.getProperty("surefire.test.class.path", "");
    }
}
