package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Maven user's first program: a plain project (no shading, none of our build's dependency
 * management) that depends on the installed {@code lance-flink-connector} and the Flink modules
 * the README lists, runs a Lance catalog's CREATE TABLE / INSERT / UPDATE / SELECT and a
 * DataStream upsert into the same table, started with nothing but the documented JVM flag.
 * Maven resolves the class path exactly as for that user, so mismatched transitive versions (a
 * Jackson databind newer than its core, say) fail here as they would there.
 */
class MavenUserProjectTest {

    private static final String VERSION = System.getProperty("lf.projectVersion", "0.1.0-SNAPSHOT");
    private static final String FLINK_VERSION = System.getProperty("lf.flinkVersion", "2.3.0");

    @Test
    void aPlainMavenProjectRunsSqlAndADataStreamUpsert(@TempDir Path dir) throws Exception {
        requireInstalledConnectorIsThisBuild();
        Files.writeString(dir.resolve("pom.xml"), pom(), StandardCharsets.UTF_8);
        Path source =
                Files.createDirectories(dir.resolve("src/main/java/example")).resolve("FirstProgram.java");
        try (var in = MavenUserProjectTest.class.getResourceAsStream("/maven-user/FirstProgram.java.txt")) {
            Files.write(source, in.readAllBytes());
        }

        Path cpFile = dir.resolve("classpath.txt");
        Process resolve = new ProcessBuilder(
                        "mvn",
                        "-B",
                        "-ntp",
                        "-q",
                        "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath",
                        "-Dmdep.outputFile=" + cpFile,
                        "-Dmdep.includeScope=runtime")
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String resolveLog = new String(resolve.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(resolve.waitFor(10, TimeUnit.MINUTES)).isTrue();
        assertThat(resolve.exitValue())
                .as("mvn dependency:build-classpath: %s", resolveLog)
                .isZero();
        String classpath = Files.readString(cpFile, StandardCharsets.UTF_8).strip();

        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int compiled = javac.run(
                null, null, null, "-d", classes.toString(), "-cp", classpath, "--release", "17", source.toString());
        assertThat(compiled).as("javac of the user's program").isZero();

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED", // the one flag the README documents
                "-cp",
                classes + File.pathSeparator + classpath,
                "example.FirstProgram",
                dir.resolve("warehouse").toString()));
        Process run = new ProcessBuilder(command).redirectErrorStream(false).start();
        var stderr = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(run.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        String stdout = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(run.exitValue())
                .as("the user's program; stdout:%n%s%nstderr:%n%s", stdout, stderr.join())
                .isZero();
        assertThat(stdout)
                .contains("after SQL: 1,Alice,30 2,Bob,26")
                .contains("after upsert: 1,Alice,31 2,Bob,26 3,Carol,40");
    }

    /**
     * The program must run against this build's connector, not an older one in the local
     * repository: the README's test command installs the modules before this one is tested.
     */
    private static void requireInstalledConnectorIsThisBuild() throws Exception {
        String name = "lance-flink-connector-" + VERSION + ".jar";
        Path built = Path.of("../flink-connector/target", name).toAbsolutePath().normalize();
        Path repo = Path.of(System.getProperty(
                "maven.repo.local",
                Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
        Path installed = repo.resolve("dev/lanceflink/lance-flink-connector")
                .resolve(VERSION)
                .resolve(name);
        assertThat(built).as("the connector jar of this build").exists();
        assertThat(installed)
                .as("the installed connector; run the README's test command (mvn install)")
                .exists();
        assertThat(sha256(installed))
                .as("the installed connector (%s) is not this build's (%s): run mvn install", installed, built)
                .isEqualTo(sha256(built));
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static String pom() {
        StringBuilder deps = new StringBuilder();
        dependency(deps, "dev.lanceflink", "lance-flink-connector", VERSION);
        for (String flink : List.of(
                "flink-streaming-java",
                "flink-clients",
                "flink-table-api-java-bridge",
                "flink-table-planner-loader",
                "flink-table-runtime")) {
            dependency(deps, "org.apache.flink", flink, FLINK_VERSION);
        }
        dependency(deps, "org.slf4j", "slf4j-simple", "2.0.17");
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>first-lance-flink-program</artifactId>
          <version>1</version>
          <dependencies>
        %s  </dependencies>
        </project>
        """.formatted(deps);
    }

    private static void dependency(StringBuilder out, String group, String artifact, String version) {
        out.append("    <dependency><groupId>")
                .append(group)
                .append("</groupId><artifactId>")
                .append(artifact)
                .append("</artifactId><version>")
                .append(version)
                .append("</version></dependency>\n");
    }
}
