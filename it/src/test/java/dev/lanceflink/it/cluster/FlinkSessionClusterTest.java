package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture's own rules, without a running cluster (CompactionJobSubmissionTest runs one).
 */
class FlinkSessionClusterTest {

    @TempDir
    Path dir;

    @Test
    void libClasspathIsEveryJarSortedByNameWithTheExtraJarsMergedIn() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.writeString(lib.resolve("flink-runtime-2.3.0.jar"), "");
        Files.writeString(lib.resolve("commons-io-2.15.1.jar"), "");
        Files.writeString(lib.resolve("README.txt"), "");
        Path connector = Files.writeString(
                Files.createDirectories(dir.resolve("connector")).resolve("lance-flink-connector.jar"), "");

        String classpath = FlinkSessionCluster.libClasspath(lib, List.of(connector));

        assertThat(classpath.split(File.pathSeparator))
                .containsExactly(
                        lib.resolve("commons-io-2.15.1.jar").toString(),
                        lib.resolve("flink-runtime-2.3.0.jar").toString(),
                        connector.toString());
    }

    @Test
    void aJarNamedLikeOneInLibOrNotAJarIsRefused() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.writeString(lib.resolve("a.jar"), "");
        Path other =
                Files.writeString(Files.createDirectories(dir.resolve("other")).resolve("a.jar"), "");
        assertThatThrownBy(() -> FlinkSessionCluster.libClasspath(lib, List.of(other)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("two jars named a.jar for lib/: " + lib.resolve("a.jar") + " and " + other);
        assertThatThrownBy(() -> FlinkSessionCluster.libClasspath(lib, List.of(dir.resolve("x.zip"))))
                .hasMessage("extra lib jar " + dir.resolve("x.zip") + " is not a .jar file");
    }

    @Test
    void portsAndDirectoriesCannotBeOverridden() {
        assertThatThrownBy(() -> FlinkSessionCluster.builder(dir.resolve("c"))
                        .libDir(Files.createDirectories(dir.resolve("lib")))
                        .config("rest.port", "8081")
                        .start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("config key 'rest.port' is set by the fixture (ports, addresses and directories"
                        + " are chosen at start)");
    }

    @Test
    void slotCountIsBounded() {
        assertThatThrownBy(() -> FlinkSessionCluster.builder(dir).taskSlots(0))
                .hasMessage("taskSlots must be between 1 and 8 on a test machine, got 0");
    }

    @Test
    void freeLoopbackPortsAreDistinct() throws Exception {
        int[] ports = FlinkSessionCluster.freeLoopbackPorts(4);
        assertThat(ports).hasSize(4).doesNotHaveDuplicates();
        assertThat(java.util.Arrays.stream(ports)).allMatch(p -> p > 0 && p < 65536);
    }

    /** Flink's check of the memory settings runs before any process starts; its words get through. */
    @Test
    void memorySettingsThatDoNotAddUpFailWithFlinksExplanation() {
        assertThatThrownBy(() -> FlinkSessionCluster.builder(dir.resolve("c"))
                        .config("taskmanager.memory.process.size", "300m")
                        .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("BashJavaUtils GET_TM_RESOURCE_PARAMS exited with code 1; its" + " output:\n")
                .hasMessageContaining("TaskManager memory configuration failed: Sum of configured JVM"
                        + " Metaspace (256.000mb (268435456 bytes)) and JVM Overhead (192.000mb (201326592"
                        + " bytes)) exceed configured Total Process Memory (300.000mb (314572800 bytes)).");
    }
}
