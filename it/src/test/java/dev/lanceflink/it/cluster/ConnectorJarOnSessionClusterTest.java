package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.testkit.users.UsersTable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #6's acceptance test: the shaded connector jar ({@code
 * lance-flink-connector-<version>-shaded.jar}) works when dropped into a Flink distribution's
 * {@code lib/}. A session cluster of this class has the jar on the classpath of its JobManager,
 * TaskManager and SQL client, exactly as {@code bin/start-cluster.sh} and {@code
 * bin/sql-client.sh} would put it there; SQL scripts then insert, select, update and delete in
 * Lance tables that format-core created, on the local file system and on S3 (S3Proxy), and the
 * tables are checked with format-core again.
 *
 * <p>The jar is found through the system property {@value #JAR_PROPERTY}, else where the
 * flink-connector module's package phase writes it (see {@link #connectorJar()}); run with
 * {@code mvn verify} (or at least {@code package}), not {@code mvn test}.
 */
class ConnectorJarOnSessionClusterTest {

    static final String JAR_PROPERTY = "lf.connectorJar";

    /** Packages of the connector's dependencies and the names they must have inside the jar. */
    private static final List<String> RELOCATED = List.of(
            "org/apache/arrow/",
            "com/google/flatbuffers/",
            "com/google/protobuf/",
            "org/roaringbitmap/",
            "com/fasterxml/jackson/",
            "io/airlift/compress/",
            "software/amazon/",
            "org/apache/hc/",
            "org/apache/commons/codec/",
            "org/reactivestreams/");

    private static final String SHADED = "dev/lanceflink/shaded/";

    private static final Schema USERS = UsersTable.EXAMPLE_SCHEMA;
    private static final String WRITE_JOB = "insert-into_default_catalog.default_database.users";

    @RegisterExtension
    static final FlinkSessionClusterExtension FLINK = new FlinkSessionClusterExtension(
            builder -> builder.addLibJar(connectorJar()).startupTimeout(Duration.ofMinutes(4)));

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @TempDir
    Path dir;

    @Test
    void theJarBundlesNoFlinkAndOnlyRelocatedDependencies() throws IOException {
        List<String> classes = new ArrayList<>();
        try (ZipFile jar = new ZipFile(connectorJar().toFile())) {
            jar.stream()
                    .map(ZipEntry::getName)
                    .filter(n -> n.endsWith(".class"))
                    .forEach(classes::add);

            // Flink, SLF4J and log4j come from the distribution's lib/.
            assertThat(classes)
                    .noneMatch(n -> n.startsWith("org/apache/flink/"))
                    .noneMatch(n -> n.startsWith("org/slf4j/"))
                    .noneMatch(n -> n.startsWith("org/apache/logging/"));
            // Every class is ours, a relocated dependency, or the Lance format's protobuf messages
            // (package lance.*, kept: the format code compares protobuf type names with strings).
            assertThat(classes)
                    .allMatch(
                            n -> n.startsWith("dev/lanceflink/") || n.startsWith("lance/"),
                            "is under dev/lanceflink/ or lance/");
            for (String pkg : RELOCATED) {
                assertThat(classes)
                        .as("classes relocated from " + pkg)
                        .anyMatch(n -> n.startsWith(SHADED + pkg))
                        .noneMatch(n -> n.startsWith(pkg));
            }
            assertThat(classes)
                    .contains(
                            "dev/lanceflink/flink/table/LanceDynamicTableFactory.class",
                            "dev/lanceflink/flink/catalog/LanceCatalogFactory.class",
                            "dev/lanceflink/committer/flink/LanceCommitter.class",
                            "dev/lanceflink/dataset/Dataset.class",
                            "dev/lanceflink/s3/S3ObjectStoreProvider.class",
                            "lance/table/Manifest.class",
                            // Arrow loads its allocation manager by a class-name string that relocation rewrites.
                            SHADED + "org/apache/arrow/memory/unsafe/DefaultAllocationManagerFactory.class",
                            SHADED + "software/amazon/awssdk/services/s3/S3Client.class");
            assertThat(jar.stream().map(ZipEntry::getName)).noneMatch(n -> n.startsWith("META-INF/versions/"));

            // Service registrations survive the merge, the SDK's under their relocated names.
            assertThat(serviceLines(jar, "org.apache.flink.table.factories.Factory"))
                    .containsExactlyInAnyOrder(
                            "dev.lanceflink.flink.table.LanceDynamicTableFactory",
                            "dev.lanceflink.flink.catalog.LanceCatalogFactory");
            assertThat(serviceLines(jar, "dev.lanceflink.io.ObjectStoreProvider"))
                    .containsExactly("dev.lanceflink.s3.S3ObjectStoreProvider");
            String sdk = "dev.lanceflink.shaded.software.amazon.awssdk.";
            assertThat(serviceLines(jar, sdk + "http.SdkHttpService"))
                    .containsExactly(sdk + "http.apache5.Apache5SdkHttpService");
            assertThat(jar.getEntry("META-INF/services/software.amazon.awssdk.http.SdkHttpService"))
                    .isNull();
        }
    }

    @Test
    void sqlInsertSelectUpdateAndDeleteRunOnTheClusterWithTheJarInLib() throws Exception {
        String uri = dir.resolve("users.lance").toString();
        writeUsers(uri);
        Path script = Files.writeString(dir.resolve("users.sql"), """
        SET 'execution.runtime-mode' = 'batch';
        SET 'table.dml-sync' = 'true';
        CREATE TABLE users (id BIGINT NOT NULL, name STRING, age INT)
          WITH ('connector' = 'lance', 'path' = '%s');
        INSERT INTO users VALUES (3, 'cat', 39), (4, 'dan', 22), (5, CAST(NULL AS STRING), 51);
        SELECT id, name, age, 'row-of-users' AS tag FROM users;
        UPDATE users SET age = age + 1 WHERE id IN (2, 4);
        DELETE FROM users WHERE name = 'cat';
        """.formatted(uri));

        FlinkSessionCluster cluster = FLINK.cluster();
        CliResult run = cluster.runSqlClient(script, Duration.ofMinutes(5));

        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.sqlErrors()).as(run.describe()).isEmpty();
        // The SELECT ran on the cluster (the source reading the table), before UPDATE and DELETE.
        assertThat(run.stdout())
                .as(run.describe())
                .containsPattern("\\|\\s+1 \\|\\s+ann \\|\\s+29 \\|\\s+row-of-users \\|")
                .containsPattern("\\|\\s+2 \\|\\s+bob \\|\\s+18 \\|\\s+row-of-users \\|")
                .containsPattern("\\|\\s+3 \\|\\s+cat \\|\\s+39 \\|\\s+row-of-users \\|")
                .containsPattern("\\|\\s+4 \\|\\s+dan \\|\\s+22 \\|\\s+row-of-users \\|")
                .containsPattern("\\|\\s+5 \\|\\s+<NULL> \\|\\s+51 \\|\\s+row-of-users \\|");
        assertThat(run.stdout().lines().filter(l -> l.contains("row-of-users |")))
                .hasSize(5);

        // INSERT and UPDATE were batch jobs of the cluster (Flink names both after the sink
        // table), which has the jar in lib/ and no other jar of ours.
        List<JsonNode> writes = new ArrayList<>();
        for (JsonNode job : cluster.rest("/jobs/overview").path("jobs")) {
            if (job.path("name").asText().equals(WRITE_JOB)) {
                writes.add(job);
            }
        }
        assertThat(writes).as("jobs named " + WRITE_JOB).hasSize(2).allSatisfy(job -> {
            assertThat(job.path("jobType").asText()).isEqualTo("BATCH");
            assertThat(job.path("state").asText()).isEqualTo("FINISHED");
        });
        List<String> classpath = new ArrayList<>();
        cluster.rest("/jobmanager/environment").path("classpath").forEach(entry -> classpath.add(entry.asText()));
        assertThat(classpath.stream().filter(e -> e.contains("lance-flink")))
                .containsExactly(connectorJar().toString());

        // Version 1 from format-core, 2 from the INSERT, 3 from the UPDATE (a job on the cluster
        // writing one overlay of column age into each of the two fragments), 4 from the DELETE
        // (pushed down to Lance, run by the SQL client).
        try (Dataset users = Dataset.open(uri, Map.of())) {
            assertThat(users.version()).isEqualTo(4);
            assertThat(users.fragments().stream().map(f -> f.overlays().size())).containsExactly(1, 1);
            assertThat(rows(users)).containsExactlyInAnyOrder("1|ann|29", "2|bob|19", "4|dan|23", "5|null|51");
        }
    }

    /**
     * The relocated AWS SDK and Apache HTTP client at work: an INSERT into a table on S3 (S3Proxy
     * on loopback) opens the table in the SQL client, writes the data files on the TaskManager and
     * commits the manifest, all through the SDK classes and resources (endpoint and default
     * configuration files, found under their relocated paths) inside the jar.
     */
    @Test
    void sqlInsertIntoATableOnS3UsesTheRelocatedAwsSdk() throws Exception {
        String bucket = S3.server().createBucket("connector-jar");
        String uri = "s3://" + bucket + "/users-" + System.nanoTime() + ".lance";
        Map<String, String> storage = S3.server().storageOptions();
        writeUsers(uri, storage);
        String storageOptions = storage.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> ", 'storage." + e.getKey() + "' = '" + e.getValue() + "'")
                .collect(Collectors.joining());
        Path script = Files.writeString(dir.resolve("s3-users.sql"), """
        SET 'execution.runtime-mode' = 'batch';
        SET 'table.dml-sync' = 'true';
        CREATE TABLE s3_users (id BIGINT NOT NULL, name STRING, age INT)
          WITH ('connector' = 'lance', 'path' = '%s'%s);
        INSERT INTO s3_users VALUES (7, 'gus', 70), (8, 'hal', 80);
        """.formatted(uri, storageOptions));

        CliResult run = FLINK.cluster().runSqlClient(script, Duration.ofMinutes(5));

        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.sqlErrors()).as(run.describe()).isEmpty();
        try (Dataset users = Dataset.open(uri, storage)) {
            assertThat(users.version()).isEqualTo(2);
            assertThat(rows(users)).containsExactlyInAnyOrder("1|ann|29", "2|bob|18", "7|gus|70", "8|hal|80");
        }
    }

    /** Version 1 of the table: two rows written with format-core. */
    private static void writeUsers(String uri) throws IOException {
        writeUsers(uri, Map.of());
    }

    private static void writeUsers(String uri, Map<String, String> storage) throws IOException {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(USERS, allocator)) {
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector name = (VarCharVector) root.getVector("name");
            IntVector age = (IntVector) root.getVector("age");
            id.setSafe(0, 1);
            name.setSafe(0, "ann".getBytes(StandardCharsets.UTF_8));
            age.setSafe(0, 29);
            id.setSafe(1, 2);
            name.setSafe(1, "bob".getBytes(StandardCharsets.UTF_8));
            age.setSafe(1, 18);
            root.setRowCount(2);
            Dataset.write(uri, storage, List.of(root), USERS, WriteParams.of(WriteMode.CREATE))
                    .close();
        }
        try (Dataset created = Dataset.open(uri, storage)) {
            assertThat(created.version()).isEqualTo(1);
        }
    }

    /** Every row of the table as "id|name|age". */
    static List<String> rows(Dataset ds) throws IOException {
        List<String> rows = new ArrayList<>();
        try (Scanner scanner = ds.scan(ScanOptions.all())) {
            while (scanner.hasNext()) {
                try (VectorSchemaRoot batch = scanner.next()) {
                    BigIntVector id = (BigIntVector) batch.getVector("id");
                    VarCharVector name = (VarCharVector) batch.getVector("name");
                    IntVector age = (IntVector) batch.getVector("age");
                    for (int r = 0; r < batch.getRowCount(); r++) {
                        rows.add(id.get(r) + "|"
                                + (name.isNull(r) ? "null" : new String(name.get(r), StandardCharsets.UTF_8))
                                + "|" + (age.isNull(r) ? "null" : Integer.toString(age.get(r))));
                    }
                }
            }
        }
        return rows;
    }

    private static List<String> serviceLines(ZipFile jar, String service) throws IOException {
        ZipEntry entry = jar.getEntry("META-INF/services/" + service);
        assertThat(entry)
                .as("META-INF/services/" + service + " in " + jar.getName())
                .isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
        }
    }

    /**
     * The shaded connector jar: the system property {@value #JAR_PROPERTY} if set, else the one
     * file {@code lance-flink-connector-*-shaded.jar} in {@code ../flink-connector/<build dir>}
     * relative to this module's directory (the test's working directory), where the build dir is
     * the system property {@code lf.buildDir}, else the parent of the cluster's lib directory
     * ({@code <build dir>/flink-cluster-lib}), else {@code target}.
     */
    static Path connectorJar() {
        String property = System.getProperty(JAR_PROPERTY);
        if (property != null && !property.isBlank()) {
            Path jar = Path.of(property).toAbsolutePath().normalize();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("the shaded connector jar " + jar + " (system property "
                        + JAR_PROPERTY + ") does not exist: the flink-connector module's package phase"
                        + " builds it, so run the it tests with mvn verify (or mvn package), not mvn test");
            }
            return jar;
        }
        Path buildDir = Path.of("..", "flink-connector", buildDirName())
                .toAbsolutePath()
                .normalize();
        List<Path> jars;
        try (Stream<Path> files = Files.list(buildDir)) {
            jars = files.filter(p -> p.getFileName().toString().matches("lance-flink-connector-.*-shaded\\.jar"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            jars = List.of();
        }
        if (jars.size() != 1) {
            throw new IllegalStateException("expected one lance-flink-connector-<version>-shaded.jar"
                    + " in " + buildDir + ", found " + jars + ": the flink-connector module's package phase"
                    + " builds it (mvn verify or mvn package), or pass -D" + JAR_PROPERTY + "=<jar>");
        }
        return jars.get(0);
    }

    private static String buildDirName() {
        String buildDir = System.getProperty("lf.buildDir");
        if (buildDir != null && !buildDir.isBlank()) {
            return buildDir;
        }
        String lib = System.getProperty(FlinkSessionCluster.LIB_PROPERTY);
        if (lib != null && !lib.isBlank() && Path.of(lib).getParent() != null) {
            return Path.of(lib).getParent().toString();
        }
        return "target";
    }
}
