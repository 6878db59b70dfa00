package dev.lanceflink.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The engine-neutral core must stay usable without Flink (e.g. from a Spark job or a CLI). */
class CoreHasNoFlinkImportsTest {
    @Test
    void noCoreSourceImportsFlink() throws Exception {
        Path core = Path.of("src/main/java/dev/lanceflink/compactor/core");
        assertThat(core).isDirectory();
        try (Stream<Path> files = Files.list(core)) {
            List<String> offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("import org.apache.flink");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(p -> p.getFileName().toString())
                    .toList();
            assertThat(offenders).isEmpty();
        }
    }
}
