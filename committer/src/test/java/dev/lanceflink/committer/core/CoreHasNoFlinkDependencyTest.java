package dev.lanceflink.committer.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The commit logic must stay usable without Flink (CLI, compactor): no Flink import in core. */
class CoreHasNoFlinkDependencyTest {
    @Test
    void corePackageImportsNothingFromFlink() throws IOException {
        Path core = Path.of("src/main/java/dev/lanceflink/committer/core");
        assertThat(core).isDirectory();
        List<String> offenders;
        try (Stream<Path> files = Files.walk(core)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> read(p).contains("org.apache.flink"))
                    .map(p -> p.getFileName().toString())
                    .toList();
        }
        assertThat(offenders).isEmpty();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
