package dev.lanceflink.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * A real S3 server for tests: S3Proxy ({@code org.gaul:s3proxy}, jar-with-dependencies) started
 * as a child JVM with its filesystem-nio2 backend, path-style, on a random free port bound to
 * 127.0.0.1, with its data in a fresh directory that {@link #close} deletes.
 *
 * <p>S3Proxy's {@code If-None-Match: *} is atomic (it publishes with link(2)); its
 * {@code If-Match} is not atomic under concurrency, so tests must not race compare-and-swap on it.
 *
 * <p>The jar is found through the system property {@code lf.s3proxy.jar} (s3-store's pom copies
 * it into the build directory) or else in the local Maven repository, where any module's build
 * that ran s3-store's {@code generate-test-resources} phase has put it.
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String ACCESS_KEY = "lance-test-key";
    public static final String SECRET_KEY = "lance-test-secret";
    public static final String DEFAULT_VERSION = "4.1.0";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path runDir;
    private final Path log;
    private final URI endpoint;
    private final S3Client adminClient;
    private final Thread shutdownHook;

    private S3ProxyServer(Process process, Path runDir, Path log, URI endpoint) {
        this.process = process;
        this.runDir = runDir;
        this.log = log;
        this.endpoint = endpoint;
        this.adminClient = S3ClientFactory.newClient(config());
        this.shutdownHook = new Thread(process::destroyForcibly, "s3proxy-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts a server and waits until it answers a signed request. */
    public static S3ProxyServer start() throws IOException {
        Path jar = locateJar();
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a random port can be taken between probe and bind
            try {
                return startOnce(jar, freePort());
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    private static S3ProxyServer startOnce(Path jar, int port) throws IOException {
        Path base = Path.of(System.getProperty("lf.s3proxy.runRoot", System.getProperty("java.io.tmpdir")));
        Files.createDirectories(base);
        Path runDir = Files.createTempDirectory(base, "s3proxy-");
        Path data = Files.createDirectories(runDir.resolve("data"));
        Path conf = runDir.resolve("s3proxy.conf");
        URI endpoint = URI.create("http://127.0.0.1:" + port);
        Files.writeString(
                conf,
                String.join(
                        "\n",
                        "s3proxy.endpoint=" + endpoint,
                        "s3proxy.authorization=aws-v2-or-v4",
                        "s3proxy.identity=" + ACCESS_KEY,
                        "s3proxy.credential=" + SECRET_KEY,
                        "jclouds.provider=filesystem-nio2",
                        "jclouds.filesystem.basedir=" + data.toAbsolutePath(),
                        ""),
                StandardCharsets.UTF_8);
        Path log = runDir.resolve("s3proxy.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(
                        java,
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-jar",
                        jar.toString(),
                        "--properties",
                        conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!p.isAlive()) {
                String tail = tail(log);
                deleteRecursively(runDir);
                throw new IOException("S3Proxy exited with status " + p.exitValue() + " during start-up on port " + port
                        + "; log tail:\n" + tail);
            }
            if (answers(endpoint)) {
                break;
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                String tail = tail(log);
                deleteRecursively(runDir);
                throw new IOException(
                        "S3Proxy did not answer on " + endpoint + " within " + START_TIMEOUT + "; log tail:\n" + tail);
            }
            sleep(100);
        }
        S3ProxyServer server = new S3ProxyServer(p, runDir, log, endpoint);
        try {
            server.adminClient.listBuckets(); // signed request: the server is really ready
        } catch (SdkException e) {
            server.close();
            throw new IOException(
                    "S3Proxy on " + endpoint + " answered but a signed ListBuckets failed: " + e.getMessage(), e);
        }
        return server;
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    /** The S3Proxy jar: {@code -Dlf.s3proxy.jar}, else the local Maven repository. */
    static Path locateJar() throws IOException {
        String configured = System.getProperty("lf.s3proxy.jar");
        if (configured != null && Files.isRegularFile(Path.of(configured))) {
            return Path.of(configured);
        }
        String version = System.getProperty("lf.s3proxy.version", DEFAULT_VERSION);
        Path repo = Path.of(System.getProperty(
                "maven.repo.local",
                Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
        Path inRepo = repo.resolve(
                Path.of("org", "gaul", "s3proxy", version, "s3proxy-" + version + "-jar-with-dependencies.jar"));
        if (Files.isRegularFile(inRepo)) {
            return inRepo;
        }
        throw new IOException("S3Proxy jar not found (looked at " + (configured == null ? "" : configured + " and ")
                + inRepo + "). Run the tests through Maven (mvn test), whose s3-store build fetches "
                + "org.gaul:s3proxy:" + version + ":jar:jar-with-dependencies from Maven Central");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Whether the HTTP server answers at all (anonymous requests get 403, which is enough). */
    private static boolean answers(URI endpoint) {
        try {
            HttpURLConnection c = (HttpURLConnection) endpoint.toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            int status = c.getResponseCode();
            c.disconnect();
            return status > 0;
        } catch (IOException e) {
            return false;
        }
    }

    public URI endpoint() {
        return endpoint;
    }

    /** Lance storage options that reach this server. */
    public Map<String, String> storageOptions() {
        return Map.of(
                S3StoreConfig.ENDPOINT,
                endpoint.toString(),
                S3StoreConfig.REGION,
                "us-east-1",
                S3StoreConfig.ACCESS_KEY_ID,
                ACCESS_KEY,
                S3StoreConfig.SECRET_ACCESS_KEY,
                SECRET_KEY,
                S3StoreConfig.ALLOW_HTTP,
                "true",
                S3StoreConfig.VIRTUAL_HOSTED_STYLE,
                "false");
    }

    /** A store configuration for this server (default tuning). */
    public S3StoreConfig config() {
        return S3StoreConfig.fromOptions(storageOptions());
    }

    /** A client with full access, for test setup and inspection. */
    public S3Client client() {
        return adminClient;
    }

    /** Creates a bucket (no error if it exists) and returns its name. */
    public String createBucket(String name) {
        try {
            adminClient.createBucket(b -> b.bucket(name));
        } catch (BucketAlreadyOwnedByYouException e) {
            // already there
        }
        return name;
    }

    /** Keys under a prefix, straight from the server (for checks that nothing else is there). */
    public List<String> keys(String bucket, String prefix) {
        return adminClient.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
                .map(o -> o.key())
                .toList();
    }

    /** Multipart uploads started and neither completed nor aborted under a prefix. */
    public List<String> pendingUploads(String bucket, String prefix) {
        return adminClient.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads().stream()
                .map(u -> u.key() + "#" + u.uploadId())
                .toList();
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() {
        adminClient.close();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down
        }
        try {
            deleteRecursively(runDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete S3Proxy's run directory " + runDir, e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("Interrupted while waiting for S3Proxy to start");
        }
    }
}
