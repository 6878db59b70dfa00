package dev.lanceflink.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real Flink session cluster on loopback for integration tests, started the way a Flink
 * distribution's {@code bin/start-cluster.sh} starts one: a JobManager process
 * ({@code StandaloneSessionClusterEntrypoint}) and a TaskManager process
 * ({@code TaskManagerRunner}), each a child JVM with {@code --configDir} pointing at a generated
 * {@code conf/}, JVM memory options computed by Flink's {@code BashJavaUtils}, and a classpath of
 * every jar in the cluster's {@code lib/}. Jobs go in through {@link #runFlinkCli} (Flink's
 * {@code CliFrontend}, i.e. {@code bin/flink}), {@link #runSqlClient} ({@code bin/sql-client.sh
 * -f}) or the REST API ({@link #rest}).
 *
 * <p>No Flink distribution can be downloaded in this build, so {@code lib/} is assembled from
 * Maven artifacts: the {@code it} module's build copies Flink's runtime, client, streaming,
 * table and log4j jars with all their dependencies into {@code ${lf.buildDir}/flink-cluster-lib}
 * (system property {@value #LIB_PROPERTY}); {@link Builder#addLibJar} adds more jars, as a user
 * drops a connector jar into {@code lib/}.
 *
 * <p>Layout under the work directory: {@code conf/}, {@code log/} (a {@code .log} and an
 * {@code .out} per process; {@code .log}, {@code .out} and {@code .err} per CLI run),
 * {@code tmp/} ({@code io.tmp.dirs}, blobs, web uploads) and an empty {@code plugins/}. The jars
 * of {@code lib/} are used where they are. Every port is a free loopback port chosen at start;
 * every address is {@code localhost}.
 *
 * <p>Sized for CI (2 cores, small memory): JobManager 1 GiB process size, TaskManager 1.5 GiB
 * with 64 MiB managed memory and 128 MiB task off-heap memory (Arrow buffers of user code), 2
 * slots by default, JVMs tuned to start quickly ({@link #QUICK_START_JVM_OPTS}). Jobs fail
 * instead of restarting ({@code restart-strategy.type: none}) so a broken job surfaces at once.
 */
public final class FlinkSessionCluster implements AutoCloseable {

    /** The system property naming the directory with the cluster's lib jars. */
    public static final String LIB_PROPERTY = "lf.flinkClusterLib";

    /**
     * The system property naming the directory with the SQL client's jars (a distribution's
     * {@code opt/flink-sql-client*.jar} and {@code opt/flink-sql-gateway*.jar}, plus
     * flink-sql-gateway-api, flink-json and flink-python, which lib/ lacks); only
     * {@link #runSqlClient} puts them on a classpath.
     */
    public static final String SQL_CLIENT_PROPERTY = "lf.flinkSqlClientLib";

    static final String JOBMANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    static final String TASKMANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    static final String CLI_MAIN = "org.apache.flink.client.cli.CliFrontend";
    static final String SQL_CLIENT_MAIN = "org.apache.flink.table.client.SqlClient";
    static final String SQL_GATEWAY_MAIN = "org.apache.flink.table.gateway.SqlGateway";

    private static final Duration STOP_GRACE = Duration.ofSeconds(15);
    private static final Duration DEFAULT_CLI_TIMEOUT = Duration.ofMinutes(3);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path home;
    private final Map<String, String> config;
    private final String classpath;
    private final String sqlClientClasspath;
    private final int restPort;
    private final HttpClient http;
    private final AtomicInteger cliRuns = new AtomicInteger();
    private Process jobManager;
    private Process taskManager;
    private Thread shutdownHook;

    private FlinkSessionCluster(
            Path home, Map<String, String> config, String classpath, String sqlClientClasspath, int restPort) {
        this.home = home;
        this.config = config;
        this.classpath = classpath;
        this.sqlClientClasspath = sqlClientClasspath;
        this.restPort = restPort;
        this.http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    /**
     * A builder for a cluster living in {@code workDir} (created if missing; use a fresh
     * directory, e.g. a JUnit {@code @TempDir}).
     */
    public static Builder builder(Path workDir) {
        return new Builder(workDir);
    }

    /** Options of a cluster; {@link #start()} starts it. */
    public static final class Builder {
        private final Path workDir;
        private Path libDir;
        private Path sqlClientDir;
        private final List<Path> extraJars = new ArrayList<>();
        private int taskSlots = 2;
        private final Map<String, String> extraConfig = new LinkedHashMap<>();
        private Duration startupTimeout = Duration.ofSeconds(120);

        private Builder(Path workDir) {
            this.workDir = workDir;
        }

        /** The directory whose jars form {@code lib/}; default: property {@value #LIB_PROPERTY}. */
        public Builder libDir(Path dir) {
            this.libDir = dir;
            return this;
        }

        /**
         * The directory with the SQL client's jars; default: property {@value #SQL_CLIENT_PROPERTY}
         * (optional: without it, {@link #runSqlClient} is unavailable).
         */
        public Builder sqlClientDir(Path dir) {
            this.sqlClientDir = dir;
            return this;
        }

        /**
         * Puts one more jar into {@code lib/}, on the classpath of the JobManager, the TaskManager
         * and the CLI, as a connector jar dropped into a distribution's {@code lib/}.
         */
        public Builder addLibJar(Path jar) {
            extraJars.add(jar);
            return this;
        }

        /** {@code taskmanager.numberOfTaskSlots} of the one TaskManager (1 to 8; default 2). */
        public Builder taskSlots(int slots) {
            if (slots < 1 || slots > 8) {
                throw new IllegalArgumentException(
                        "taskSlots must be between 1 and 8 on a test machine," + " got " + slots);
            }
            this.taskSlots = slots;
            return this;
        }

        /**
         * Sets or overrides one {@code config.yaml} entry (e.g. {@code env.java.opts.taskmanager},
         * {@code execution.checkpointing.interval}). Ports, addresses and directories are the
         * fixture's and cannot be overridden; JVM flags for every process belong in
         * {@code env.java.opts.all}, which then must keep {@link FlinkConfDir#DISTRIBUTION_JAVA_OPTS}.
         */
        public Builder config(String key, String value) {
            extraConfig.put(key, value);
            return this;
        }

        /** How long {@link #start()} waits for the TaskManager to register (default 120 s). */
        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        /**
         * Writes {@code conf/}, starts the JobManager and TaskManager and returns once the REST API
         * reports one registered TaskManager with all its slots.
         *
         * @throws IllegalStateException if a process exits or the cluster is not ready in time; the
         *     message has the tail of every log, and the whole logs go to stderr
         */
        public FlinkSessionCluster start() throws IOException {
            Path lib = libDir != null ? libDir : defaultLibDir();
            Path home = workDir.toAbsolutePath().normalize();
            Files.createDirectories(home);
            String classpath = libClasspath(lib, extraJars);
            for (String dir : List.of("log", "tmp", "tmp/web", "plugins")) {
                Files.createDirectories(home.resolve(dir));
            }
            int[] ports = freeLoopbackPorts(4);
            Map<String, String> config = new LinkedHashMap<>();
            config.put("jobmanager.rpc.address", "localhost");
            config.put("jobmanager.rpc.port", Integer.toString(ports[0]));
            config.put("jobmanager.bind-host", "localhost");
            config.put("jobmanager.memory.process.size", "1024m");
            config.put("jobmanager.execution.failover-strategy", "region");
            config.put("taskmanager.host", "localhost");
            config.put("taskmanager.bind-host", "localhost");
            config.put("taskmanager.rpc.port", Integer.toString(ports[3]));
            config.put("taskmanager.numberOfTaskSlots", Integer.toString(taskSlots));
            config.put("taskmanager.memory.process.size", "1536m");
            config.put("taskmanager.memory.managed.size", "64m");
            config.put("taskmanager.memory.task.off-heap.size", "128m");
            config.put("parallelism.default", "1");
            config.put("rest.address", "localhost");
            config.put("rest.bind-address", "localhost");
            config.put("rest.port", Integer.toString(ports[1]));
            config.put("blob.server.port", Integer.toString(ports[2]));
            config.put("io.tmp.dirs", home.resolve("tmp").toString());
            config.put("web.tmpdir", home.resolve("tmp/web").toString());
            config.put("env.log.dir", home.resolve("log").toString());
            config.put("restart-strategy.type", "none");
            // The SQL client runs scripts (-f), where only the tableau result mode can show a query.
            config.put("sql-client.execution.result-mode", "tableau");
            // The TaskManager may start before the JobManager listens; retry its registration every
            // second instead of Flink's 10 s error delay, which would dominate the startup time.
            config.put("cluster.registration.error-delay", "1 s");
            config.put("cluster.registration.max-timeout", "5 s");
            config.put(
                    "env.java.opts.all",
                    String.join(" ", FlinkConfDir.DISTRIBUTION_JAVA_OPTS) + " "
                            + String.join(" ", QUICK_START_JVM_OPTS));
            for (Map.Entry<String, String> e : extraConfig.entrySet()) {
                String key = e.getKey();
                if (FIXED_KEYS.contains(key)) {
                    throw new IllegalArgumentException("config key '" + key + "' is set by the fixture"
                            + " (ports, addresses and directories are chosen at start)");
                }
                config.put(key, e.getValue());
            }
            FlinkConfDir.write(home.resolve("conf"), config);
            Path sqlDir = sqlClientDir;
            if (sqlDir == null && System.getProperty(SQL_CLIENT_PROPERTY) != null) {
                sqlDir = Path.of(System.getProperty(SQL_CLIENT_PROPERTY));
            }
            String sqlClasspath = sqlDir == null || !Files.isDirectory(sqlDir)
                    ? null
                    : classpath + File.pathSeparator + libClasspath(sqlDir, List.of());
            FlinkSessionCluster cluster = new FlinkSessionCluster(home, config, classpath, sqlClasspath, ports[1]);
            try {
                cluster.startProcesses();
                cluster.awaitReady(taskSlots, startupTimeout);
            } catch (IOException | RuntimeException e) {
                cluster.dumpLogs(System.err);
                cluster.close();
                throw e;
            }
            return cluster;
        }
    }

    /**
     * Added to {@code env.java.opts.all} (as a user would add JVM flags): the client compiler only
     * and the serial collector. The processes live for seconds on a 2-core machine shared with the
     * build, where C2 compilation and parallel GC threads only compete for the cores; this halves
     * the time until the TaskManager has registered.
     */
    public static final List<String> QUICK_START_JVM_OPTS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static final List<String> FIXED_KEYS = List.of(
            "jobmanager.rpc.address",
            "jobmanager.rpc.port",
            "jobmanager.bind-host",
            "taskmanager.host",
            "taskmanager.bind-host",
            "taskmanager.rpc.port",
            "taskmanager.numberOfTaskSlots",
            "rest.address",
            "rest.bind-address",
            "rest.port",
            "blob.server.port",
            "io.tmp.dirs",
            "web.tmpdir",
            "env.log.dir");

    private static Path defaultLibDir() {
        String dir = System.getProperty(LIB_PROPERTY);
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("system property " + LIB_PROPERTY + " is not set: run the"
                    + " cluster tests through Maven (module it, which copies the Flink jars), or pass -D"
                    + LIB_PROPERTY + "=<path to it/target/flink-cluster-lib>");
        }
        Path lib = Path.of(dir).toAbsolutePath().normalize();
        boolean hasRuntime;
        try (Stream<Path> files = Files.list(lib)) {
            hasRuntime = files.anyMatch(p -> p.getFileName().toString().matches("flink-runtime-.*\\.jar"));
        } catch (IOException e) {
            hasRuntime = false;
        }
        if (!hasRuntime) {
            throw new IllegalStateException("no flink-runtime jar in " + lib + ": the it module's"
                    + " generate-test-resources phase copies the cluster's jars there (e.g. mvn -pl it -am"
                    + " test)");
        }
        return lib;
    }

    /**
     * The classpath Flink's {@code config.sh} builds from a distribution's {@code lib/}: every jar
     * in it, sorted by file name; here {@code lib/} is the jars of {@code libDir} plus
     * {@code extraJars}. (The jars are referenced where they are, not linked or copied: 140 MB per
     * cluster, and JUnit's {@code @TempDir} warns about every link that leaves it.)
     */
    static String libClasspath(Path libDir, List<Path> extraJars) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(libDir)) {
            files.filter(p -> p.getFileName().toString().endsWith(".jar")).forEach(jars::add);
        }
        for (Path jar : extraJars) {
            if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
                throw new IllegalArgumentException("extra lib jar " + jar.toAbsolutePath() + " is not a .jar file");
            }
            jars.add(jar.toAbsolutePath().normalize());
        }
        jars.sort(Comparator.comparing((Path p) -> p.getFileName().toString()));
        for (int i = 1; i < jars.size(); i++) {
            if (jars.get(i).getFileName().equals(jars.get(i - 1).getFileName())) {
                throw new IllegalArgumentException("two jars named "
                        + jars.get(i).getFileName() + " for lib/: " + jars.get(i - 1) + " and " + jars.get(i));
            }
        }
        List<String> paths = new ArrayList<>(jars.size());
        for (Path jar : jars) {
            paths.add(jar.toAbsolutePath().normalize().toString());
        }
        return String.join(File.pathSeparator, paths);
    }

    /** {@code n} distinct ports that were free on the loopback interface a moment ago. */
    static int[] freeLoopbackPorts(int n) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }

    private Path conf() {
        return home.resolve("conf");
    }

    private Path log(String name) {
        return home.resolve("log").resolve(name);
    }

    /** The JVM options of {@code env.java.opts.all} and {@code env.java.opts.<role>}. */
    private List<String> javaOpts(String role) {
        List<String> opts = new ArrayList<>();
        for (String key : List.of("env.java.opts.all", "env.java.opts." + role)) {
            String v = config.get(key);
            if (v != null && !v.isBlank()) {
                opts.addAll(Arrays.asList(v.trim().split("\\s+")));
            }
        }
        return opts;
    }

    private List<String> logSettings(String logName, String log4jFile) {
        String log4j = "file:" + conf().resolve(log4jFile);
        return List.of(
                "-Dlog.file=" + log(logName), "-Dlog4j.configuration=" + log4j, "-Dlog4j.configurationFile=" + log4j);
    }

    private Map<String, String> environment() {
        return Map.of(
                "FLINK_CONF_DIR",
                conf().toString(),
                "FLINK_PLUGINS_DIR",
                home.resolve("plugins").toString(),
                "FLINK_LOG_DIR",
                home.resolve("log").toString());
    }

    /** Runs BashJavaUtils for both processes (in parallel), then starts both processes. */
    private void startProcesses() throws IOException {
        CompletableFuture<FlinkResourceParams> jm =
                CompletableFuture.supplyAsync(() -> resourceParams(FlinkResourceParams.Command.GET_JM_RESOURCE_PARAMS));
        CompletableFuture<FlinkResourceParams> tm =
                CompletableFuture.supplyAsync(() -> resourceParams(FlinkResourceParams.Command.GET_TM_RESOURCE_PARAMS));
        FlinkResourceParams jmParams;
        FlinkResourceParams tmParams;
        try {
            jmParams = jm.join();
            tmParams = tm.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
        shutdownHook = new Thread(this::stopProcesses, "flink-session-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);

        List<String> jmJvm = new ArrayList<>(jmParams.jvmOptions());
        jmJvm.addAll(javaOpts("jobmanager"));
        jmJvm.addAll(logSettings("flink-standalonesession.log", FlinkConfDir.LOG4J_PROCESS));
        List<String> jmArgs = new ArrayList<>(jmParams.dynamicProperties());
        jmArgs.addAll(List.of("--configDir", conf().toString()));
        jobManager = ChildJvm.start(
                ChildJvm.command(jmJvm, classpath, JOBMANAGER_MAIN, jmArgs),
                home,
                environment(),
                log("flink-standalonesession.out"),
                log("flink-standalonesession.out"));

        List<String> tmJvm = new ArrayList<>(tmParams.jvmOptions());
        tmJvm.addAll(javaOpts("taskmanager"));
        tmJvm.addAll(logSettings("flink-taskexecutor.log", FlinkConfDir.LOG4J_PROCESS));
        List<String> tmArgs = new ArrayList<>(List.of("--configDir", conf().toString()));
        tmArgs.addAll(tmParams.dynamicProperties());
        taskManager = ChildJvm.start(
                ChildJvm.command(tmJvm, classpath, TASKMANAGER_MAIN, tmArgs),
                home,
                environment(),
                log("flink-taskexecutor.out"),
                log("flink-taskexecutor.out"));
    }

    /** BashJavaUtils in a child JVM on the cluster's classpath, as Flink's scripts run it. */
    private FlinkResourceParams resourceParams(FlinkResourceParams.Command command) {
        Path out = log("bash-java-utils-" + command.name().toLowerCase(java.util.Locale.ROOT) + ".out");
        List<String> cmd = ChildJvm.command(
                QUICK_START_JVM_OPTS,
                classpath,
                FlinkResourceParams.MAIN_CLASS,
                List.of(command.name(), "--configDir", conf().toString()));
        try {
            Process p = ChildJvm.start(cmd, home, environment(), out, out);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                ChildJvm.stopTree(p, Duration.ofSeconds(1));
                throw new IllegalStateException(
                        "BashJavaUtils " + command + " did not finish in 60 s:\n" + ChildJvm.tail(out, 50));
            }
            String output = ChildJvm.read(out);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        "BashJavaUtils " + command + " exited with code " + p.exitValue() + "; its output:\n" + output);
            }
            return FlinkResourceParams.parse(command, output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run BashJavaUtils " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running BashJavaUtils " + command, e);
        }
    }

    private void awaitReady(int slots, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            checkAlive("while starting");
            try {
                JsonNode overview = rest("/overview");
                last = overview.toString();
                if (overview.path("taskmanagers").asInt() >= 1
                        && overview.path("slots-total").asInt() >= slots) {
                    return;
                }
            } catch (IOException notListeningYet) {
                last = notListeningYet.toString();
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Flink cluster", e);
            }
        }
        throw new IllegalStateException("the Flink session cluster in " + home + " did not report a"
                + " registered TaskManager with " + slots + " slots within " + timeout.toSeconds()
                + " s (last GET " + restUrl() + "/overview: " + last + ")\n" + logTails());
    }

    /**
     * Fails when the JobManager or TaskManager process has exited.
     *
     * @throws IllegalStateException naming the process, its exit code and the tails of the logs
     */
    public void checkAlive(String when) {
        for (Process p : new Process[] {jobManager, taskManager}) {
            if (p != null && !p.isAlive()) {
                String name = p == jobManager
                        ? "JobManager (StandaloneSessionClusterEntrypoint)"
                        : "TaskManager (TaskManagerRunner)";
                throw new IllegalStateException("the Flink " + name + " process exited with code " + p.exitValue() + " "
                        + when + "\n" + logTails());
            }
        }
    }

    /** {@code http://localhost:<rest.port>}. */
    public String restUrl() {
        return "http://localhost:" + restPort;
    }

    /** {@code localhost:<rest.port>}, the value of {@code flink run -m}. */
    public String restAddress() {
        return "localhost:" + restPort;
    }

    /** The REST port of the JobManager. */
    public int restPort() {
        return restPort;
    }

    /** The configuration directory ({@code FLINK_CONF_DIR}). */
    public Path confDir() {
        return conf();
    }

    /** The directory of all process and CLI logs. */
    public Path logDir() {
        return home.resolve("log");
    }

    /** The classpath of the JobManager, TaskManager and CLI processes (the jars of lib/). */
    public String classpath() {
        return classpath;
    }

    /** The configuration as written to {@code config.yaml}. */
    public Map<String, String> config() {
        return Map.copyOf(config);
    }

    /**
     * GET on the JobManager's REST API, e.g. {@code rest("/jobs/overview")}.
     *
     * @throws IOException if the request fails or the status is not 200 (with the response body)
     */
    public JsonNode rest(String path) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(restUrl() + path))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during GET " + request.uri(), e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + request.uri() + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** {@link #runFlinkCli(Duration, String...)} with a 3-minute timeout. */
    public CliResult runFlinkCli(String... args) throws IOException {
        return runFlinkCli(DEFAULT_CLI_TIMEOUT, args);
    }

    /**
     * Runs Flink's command-line frontend with {@code args} in a child JVM, exactly as
     * {@code bin/flink <args>} does: {@code FLINK_CONF_DIR} is this cluster's {@code conf/} (whose
     * {@code rest.address}/{@code rest.port} point at it, so {@code -m} is optional), the
     * classpath is {@code lib/}, the JVM options are {@code env.java.opts.all} and
     * {@code env.java.opts.client}, and logging goes to {@code log/flink-client-<n>.log}. E.g.
     * {@code runFlinkCli("run", "-m", cluster.restAddress(), jobJar, "arg")} or
     * {@code runFlinkCli("list")}.
     *
     * @throws IllegalStateException if the frontend does not exit within {@code timeout}
     */
    public CliResult runFlinkCli(Duration timeout, String... args) throws IOException {
        return runClient("bin/flink", "flink-client", classpath, CLI_MAIN, List.of(args), timeout);
    }

    /**
     * Runs Flink's SQL client on a script, as {@code bin/sql-client.sh -f <script>} does: embedded
     * mode (an in-process SQL gateway whose jobs go to this cluster through {@code rest.address}
     * and {@code rest.port}), classpath {@code lib/} plus the SQL client's jars, logging to
     * {@code log/sql-client-<n>.log} (and its history to {@code log/}, not the home directory).
     * Statements print their results on stdout. The client stops at the first statement that
     * fails, printing {@code [ERROR]} on stdout, but exits with 0 all the same: check
     * {@link CliResult#sqlErrors()}. An {@code INSERT} returns once submitted unless the script
     * sets {@code SET 'table.dml-sync' = 'true';}.
     *
     * @throws IllegalStateException if the cluster was built without the SQL client's jars, or the
     *     client does not exit within {@code timeout}
     */
    public CliResult runSqlClient(Path script, Duration timeout) throws IOException {
        return runSqlClient(timeout, "-f", script.toAbsolutePath().toString());
    }

    /**
     * Runs Flink's SQL client as {@code bin/sql-client.sh <args>} does (see
     * {@link #runSqlClient(Path, Duration)}), e.g. {@code runSqlClient(timeout, "-j", jar, "-f",
     * script)}, or {@code runSqlClient(timeout, "gateway", "--endpoint", address, "-f", script)}
     * for a client of a running SQL gateway ({@link #startSqlGateway}).
     */
    public CliResult runSqlClient(Duration timeout, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args));
        // bin/sql-client.sh appends the client's own jar, and the history file is kept in log/.
        all.addAll(List.of("--history", log("sql-client.history").toString(), "--jar", sqlClientJar()));
        return runClient("bin/sql-client.sh", "sql-client", requireSqlClientClasspath(), SQL_CLIENT_MAIN, all, timeout);
    }

    private String requireSqlClientClasspath() {
        if (sqlClientClasspath == null) {
            throw new IllegalStateException("this cluster has no SQL client jars (system property "
                    + SQL_CLIENT_PROPERTY + " = " + System.getProperty(SQL_CLIENT_PROPERTY) + "): the it"
                    + " module's generate-test-resources phase copies them, or use Builder.sqlClientDir");
        }
        return sqlClientClasspath;
    }

    private String sqlClientJar() {
        String cp = requireSqlClientClasspath();
        return Arrays.stream(cp.split(File.pathSeparator))
                .filter(p -> Path.of(p).getFileName().toString().startsWith("flink-sql-client"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no flink-sql-client jar on " + cp));
    }

    /**
     * Starts Flink's SQL gateway as {@code bin/sql-gateway.sh start} does: a JVM running
     * {@code SqlGateway} with this cluster's {@code conf/} (so its jobs go to this cluster), the
     * classpath of {@code lib/} plus the gateway's jars, and its REST endpoint on a free loopback
     * port ({@code -Dsql-gateway.endpoint.rest.port}); returns once {@code /v1/info} answers. Stop
     * it with {@link SqlGatewayProcess#close()}.
     */
    public SqlGatewayProcess startSqlGateway(Duration timeout) throws IOException {
        String cp = requireSqlClientClasspath();
        int port = freeLoopbackPorts(1)[0];
        List<String> jvm = new ArrayList<>(javaOpts("sql-gateway"));
        jvm.addAll(logSettings("flink-sql-gateway.log", FlinkConfDir.LOG4J_PROCESS));
        Path out = log("flink-sql-gateway.out");
        Process p = ChildJvm.start(
                ChildJvm.command(
                        jvm,
                        cp,
                        SQL_GATEWAY_MAIN,
                        List.of(
                                "-Dsql-gateway.endpoint.rest.address=localhost",
                                "-Dsql-gateway.endpoint.rest.bind-address=localhost",
                                "-Dsql-gateway.endpoint.rest.port=" + port)),
                home,
                environment(),
                out,
                out);
        SqlGatewayProcess gateway = new SqlGatewayProcess(p, port, http);
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer yet";
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("the SQL gateway exited with code " + p.exitValue() + "\n"
                        + ChildJvm.tail(out, 60) + ChildJvm.tail(log("flink-sql-gateway.log"), 60));
            }
            try {
                gateway.get("/v1/info");
                return gateway;
            } catch (IOException notListeningYet) {
                last = notListeningYet.toString();
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                gateway.close();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the SQL gateway", e);
            }
        }
        gateway.close();
        throw new IllegalStateException("the SQL gateway did not answer on port " + port + " within "
                + timeout.toSeconds() + " s (" + last + ")\n" + ChildJvm.tail(log("flink-sql-gateway.log"), 60));
    }

    /** One client JVM (CLI frontend, SQL client) with output and log files of its own. */
    private CliResult runClient(
            String what, String logName, String cp, String mainClass, List<String> args, Duration timeout)
            throws IOException {
        int n = cliRuns.incrementAndGet();
        Path stdout = log(logName + "-" + n + ".out");
        Path stderr = log(logName + "-" + n + ".err");
        Path logFile = log(logName + "-" + n + ".log");
        List<String> jvm = new ArrayList<>(javaOpts("client"));
        jvm.addAll(logSettings(logFile.getFileName().toString(), FlinkConfDir.LOG4J_CLI));
        Process p = ChildJvm.start(ChildJvm.command(jvm, cp, mainClass, args), home, environment(), stdout, stderr);
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                ChildJvm.stopTree(p, Duration.ofSeconds(5));
                throw new IllegalStateException(what + " " + String.join(" ", args) + " did not finish"
                        + " within " + timeout.toSeconds() + " s\n--- stdout ---\n" + ChildJvm.tail(stdout, 80)
                        + "--- stderr ---\n" + ChildJvm.tail(stderr, 80) + "--- client log ---\n"
                        + ChildJvm.tail(logFile, 80));
            }
        } catch (InterruptedException e) {
            ChildJvm.stopTree(p, Duration.ofSeconds(1));
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + what, e);
        }
        return new CliResult(p.exitValue(), ChildJvm.read(stdout), ChildJvm.read(stderr));
    }

    /** The last 60 lines of every file in {@code log/}. */
    public String logTails() {
        StringBuilder sb = new StringBuilder();
        for (Path f : logFiles()) {
            sb.append("===== ")
                    .append(f.getFileName())
                    .append(" (tail) =====\n")
                    .append(ChildJvm.tail(f, 60));
        }
        return sb.toString();
    }

    /** Prints every file in {@code log/} to {@code out}, e.g. after a failed test. */
    public void dumpLogs(PrintStream out) {
        for (Path f : logFiles()) {
            out.println("===== " + f + " =====");
            try {
                out.print(ChildJvm.read(f));
            } catch (IOException e) {
                out.println("(cannot read: " + e + ")");
            }
        }
        out.flush();
    }

    private List<Path> logFiles() {
        try (Stream<Path> files = Files.list(logDir())) {
            return files.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Stops the TaskManager, then the JobManager, with all their child processes. */
    @Override
    public void close() {
        stopProcesses();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException jvmAlreadyShuttingDown) {
                // the hook runs (or ran) stopProcesses itself
            }
            shutdownHook = null;
        }
    }

    private synchronized void stopProcesses() {
        ChildJvm.stopTree(taskManager, STOP_GRACE);
        ChildJvm.stopTree(jobManager, STOP_GRACE);
    }
}
