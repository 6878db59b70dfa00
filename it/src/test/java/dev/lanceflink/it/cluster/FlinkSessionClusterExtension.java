package dev.lanceflink.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A {@link FlinkSessionCluster} for JUnit 5 tests: running before the first test, its logs
 * printed to stderr (the test's surefire output) when a test fails, stopped at the end.
 * Starting a cluster costs 15-30 s on a 2-core machine, so there are two kinds:
 *
 * <ul>
 *   <li>{@link #shared()}: one cluster with the default options for every test class of the
 *       test run that uses it, stopped when the run ends. Tests on it must tell their jobs apart
 *       by job id, not by cluster-wide counts.
 *   <li>{@link #FlinkSessionClusterExtension(UnaryOperator) new ...(options)}: a cluster of the
 *       test class's own, e.g. with a connector jar in {@code lib/}, stopped after its last test.
 * </ul>
 *
 * <pre>{@code
 * @RegisterExtension
 * static final FlinkSessionClusterExtension FLINK =
 *     new FlinkSessionClusterExtension(builder -> builder.addLibJar(connectorJar));
 *
 * @Test
 * void runsSql() throws Exception {
 *   CliResult r = FLINK.cluster().runSqlClient(script, Duration.ofMinutes(2));
 *   assertThat(r.sqlErrors()).isEmpty();
 * }
 * }</pre>
 */
public final class FlinkSessionClusterExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(FlinkSessionClusterExtension.class);

    private final UnaryOperator<FlinkSessionCluster.Builder> options;
    private final boolean shared;
    private RunningCluster running;

    /** A cluster of this test class, with builder {@code options} applied to the defaults. */
    public FlinkSessionClusterExtension(UnaryOperator<FlinkSessionCluster.Builder> options) {
        this(options, false);
    }

    private FlinkSessionClusterExtension(UnaryOperator<FlinkSessionCluster.Builder> options, boolean shared) {
        this.options = options;
        this.shared = shared;
    }

    /** The one cluster with default options that all test classes of the run share. */
    public static FlinkSessionClusterExtension shared() {
        return new FlinkSessionClusterExtension(builder -> builder, true);
    }

    /** The running cluster. */
    public FlinkSessionCluster cluster() {
        if (running == null) {
            throw new IllegalStateException("the Flink session cluster is not running: register the"
                    + " extension on a static field with @RegisterExtension, it starts before all tests");
        }
        return running.cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (shared) {
            // The root store closes its AutoCloseable values when the whole test run ends.
            running = context.getRoot()
                    .getStore(NAMESPACE)
                    .getOrComputeIfAbsent("shared-cluster", key -> start(options), RunningCluster.class);
        } else {
            running = start(options);
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (running != null) {
            System.err.println("Test " + context.getDisplayName() + " failed; logs of the Flink session"
                    + " cluster in " + running.workDir + ":");
            running.cluster.dumpLogs(System.err);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (!shared && running != null) {
            running.close();
        }
        running = null;
    }

    private static RunningCluster start(UnaryOperator<FlinkSessionCluster.Builder> options) {
        Path workDir = null;
        try {
            workDir = Files.createTempDirectory("flink-session-cluster-");
            FlinkSessionCluster cluster =
                    options.apply(FlinkSessionCluster.builder(workDir)).start();
            return new RunningCluster(workDir, cluster);
        } catch (IOException e) {
            RunningCluster.deleteRecursively(workDir);
            throw new UncheckedIOException("cannot start the Flink session cluster", e);
        } catch (RuntimeException e) {
            RunningCluster.deleteRecursively(workDir);
            throw e;
        }
    }

    /** A started cluster and its work directory, removed together. */
    private record RunningCluster(Path workDir, FlinkSessionCluster cluster) implements AutoCloseable {

        @Override
        public void close() {
            try {
                cluster.close();
            } finally {
                deleteRecursively(workDir);
            }
        }

        static void deleteRecursively(Path dir) {
            if (dir == null || !Files.exists(dir)) {
                return;
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                System.err.println("cannot delete the Flink cluster directory " + dir + ": " + e);
            }
        }
    }
}
