package dev.lanceflink.it.bench;

import dev.lanceflink.it.peers.PeerRun;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Issue #17's peer benchmark: lance-flink against the connectors a Flink user would pick instead,
 * Apache Paimon (with its defaults and write-only) and Apache Iceberg, on the same workloads and
 * the same generated rows. Each system runs in a JVM of its own with its own Flink version and
 * its own dependencies ({@code it/peers/paimon}, {@code it/peers/iceberg}: standalone Maven
 * projects; ours: the it module's test class path), all started with the same JVM options; one
 * JVM per system and round, the systems' order rotating per round, so that a drifting machine load
 * does not favour one of them. Each runner warms up on small tables first, then runs every
 * workload once ({@code PeerWorkloads}, compiled into each runner from one source) and checks its
 * scans against the expected table state.
 *
 * <p>Prints the raw figures (medians of the rounds, with their range) and the ratios (ours /
 * peer, as speed: above 1 means lance-flink is faster or, for bytes, writes more) in Markdown and
 * writes them to {@code it/target/peers-report.md}. Run from the repository root through
 * {@code it/run-benchmarks.sh peers [--quick] [--runs N] [--sizes …] [--systems …] [--jfr]}.
 */
public final class PeerBenchmark {
    /** Full sizes: issue #17's table. */
    static final String FULL_SIZES = "1000000,128,200000,768,200000,200000";
    /** {@code --quick}: a tenth of them, one round. */
    static final String QUICK_SIZES = "100000,128,20000,768,20000,20000";
    /** Flink's own module opens for Java 17 (what its launch scripts pass), for every runner alike. */
    static final List<String> JVM_OPTIONS = List.of(
            "-Xmx6g",
            "-XX:MaxDirectMemorySize=4g",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    static final Path OUT = Path.of("it/target/peers");
    static final Path REPORT = Path.of("it/target/peers-report.md");

    /** One column of the report: a runner and how it is started. */
    record SystemSpec(String id, String title, String mainClass, String classPath, String variant) {}

    /** One row of the report: a result key, its label, and how it compares (higher is better unless noted). */
    record Metric(String key, String label, Kind kind) {}

    enum Kind {
        RATE,
        SECONDS,
        BYTES
    }

    private PeerBenchmark() {}

    public static void main(String[] argv) throws Exception {
        String sizes = FULL_SIZES;
        int runs = 3;
        boolean jfr = false;
        boolean keep = false;
        boolean threadCpu = false;
        long warmupUpdates = PeerRun.DEFAULT_WARMUP_UPDATES;
        List<String> only = null;
        String lanceKeyMap = "";
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--quick" -> {
                    sizes = QUICK_SIZES;
                    runs = 1;
                }
                case "--runs" -> runs = Integer.parseInt(argv[++i]);
                case "--sizes" -> sizes = argv[++i];
                case "--jfr" -> jfr = true;
                case "--keep" -> keep = true;
                case "--thread-cpu" -> threadCpu = true;
                case "--warmup-updates" -> warmupUpdates = Long.parseLong(argv[++i]);
                case "--systems" -> only = List.of(argv[++i].split(","));
                case "--lance-key-map" -> lanceKeyMap = argv[++i];
                default ->
                    throw new IllegalArgumentException("Unknown option '" + argv[i] + "'. Usage: "
                            + "it/run-benchmarks.sh peers [--quick] [--runs N] [--sizes appendRows,appendDim,updateRows,"
                            + "updateDim,updates,changes] [--systems lance,paimon-wo,paimon,iceberg] [--jfr] [--keep]");
            }
        }
        PeerRun.Sizes parsed = parseSizes(sizes);
        List<SystemSpec> columns = systems(lanceKeyMap);
        // Runs follow --systems' order (the first round's; later rounds rotate), the report the usual one.
        List<SystemSpec> systems = columns;
        if (only != null) {
            Map<String, SystemSpec> byId = new LinkedHashMap<>();
            columns.forEach(s -> byId.put(s.id(), s));
            for (String id : only) {
                if (!byId.containsKey(id)) {
                    throw new IllegalArgumentException("--systems names '" + id + "'; known: " + byId.keySet());
                }
            }
            systems = only.stream().distinct().map(byId::get).toList();
            List<SystemSpec> chosen = systems;
            columns = columns.stream().filter(chosen::contains).toList();
        }
        for (SystemSpec s : systems) {
            if (s.classPath() == null) {
                throw new IllegalStateException("The class path of " + s.title() + " is missing; run"
                        + " it/run-benchmarks.sh peers, which builds it/peers/* and writes it, or leave it out with"
                        + " --systems");
            }
        }
        Files.createDirectories(OUT.resolve("logs"));

        // results.get(system).get(key) = one value per round
        Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        Map<String, String> profiles = new LinkedHashMap<>();
        Map<String, String> threadProfiles = new LinkedHashMap<>();
        for (SystemSpec s : systems) {
            results.put(s.id(), new LinkedHashMap<>());
        }
        // With --jfr the profile comes from an extra round 0 whose figures are not counted: a
        // recording slows the job it watches: write-only Paimon's update job took 15 s and 9.5 CPU
        // seconds under it instead of 1.5 s and 1.4, which once made our cell updates look faster.
        for (int round = jfr ? 0 : 1; round <= runs; round++) {
            for (int k = 0; k < systems.size(); k++) {
                SystemSpec s = systems.get(Math.floorMod(k + round - 1, systems.size()));
                if (failures.containsKey(s.id())) {
                    continue;
                }
                Path jfrDir = round == 0 ? OUT.resolve("jfr").resolve(s.id()) : null;
                System.err.printf(
                        Locale.ROOT,
                        "[%s] round %d/%d%s: %s%n",
                        Instant.now(),
                        round,
                        runs,
                        round == 0 ? " (profiled, not counted)" : "",
                        s.title());
                try {
                    Map<String, String> r = runOnce(s, round, sizes, jfrDir, keep, threadCpu, warmupUpdates);
                    for (Map.Entry<String, String> e : r.entrySet()) {
                        if (e.getKey().endsWith(".jfr")) {
                            profiles.put(s.id(), e.getValue().replace("\\n", "\n"));
                        } else if (e.getKey().endsWith(".threads")) {
                            if (round > 0) { // the last counted round's
                                threadProfiles.put(s.id(), e.getValue().replace("\\n", "\n"));
                            }
                        } else if (round > 0) {
                            results.get(s.id())
                                    .computeIfAbsent(e.getKey(), x -> new ArrayList<>())
                                    .add(Double.parseDouble(e.getValue()));
                        }
                    }
                } catch (RuntimeException e) {
                    failures.put(s.id(), e.getMessage());
                    System.err.println("  failed: " + e.getMessage());
                }
                // Rewritten after every runner, so that a run cut short still leaves its figures.
                Files.writeString(
                        REPORT,
                        report(columns, results, failures, profiles, threadProfiles, parsed, runs, jfr, warmupUpdates));
            }
        }
        String report = report(columns, results, failures, profiles, threadProfiles, parsed, runs, jfr, warmupUpdates);
        Files.writeString(REPORT, report);
        System.out.println(report);
        System.out.println("(written to " + REPORT + "; runner logs in " + OUT.resolve("logs") + ")");
    }

    static PeerRun.Sizes parseSizes(String sizes) {
        return PeerRun.Args.parse(new String[] {"--dir", ".", "--sizes", sizes}).sizes();
    }

    /**
     * The runners; {@code lanceKeyMap} (a {@code 'sink.key-map'} value, or empty for the sink's
     * default) is passed to ours as its variant and selects the upsert sink's key map.
     */
    static List<SystemSpec> systems(String lanceKeyMap) throws IOException {
        String ours = "it/target/test-classes:it/target/classes:" + ourClassPath();
        String paimon = peerClassPath("paimon");
        String iceberg = peerClassPath("iceberg");
        return List.of(
                new SystemSpec(
                        "lance",
                        lanceKeyMap.isEmpty() ? "lance-flink" : "lance-flink (key map " + lanceKeyMap + ")",
                        "dev.lanceflink.it.peers.LancePeer",
                        ours,
                        lanceKeyMap),
                new SystemSpec(
                        "paimon-wo", "Paimon (write-only)", "dev.lanceflink.it.peers.PaimonPeer", paimon, "write-only"),
                new SystemSpec("paimon", "Paimon (defaults)", "dev.lanceflink.it.peers.PaimonPeer", paimon, "defaults"),
                new SystemSpec("iceberg", "Iceberg", "dev.lanceflink.it.peers.IcebergPeer", iceberg, ""));
    }

    /** The it module's test class path, without the log4j binding (the runners log through slf4j-simple). */
    private static String ourClassPath() throws IOException {
        Path f = Path.of("it/target/bench.classpath");
        if (!Files.exists(f)) {
            throw new IllegalStateException(f + " is missing; run it/run-benchmarks.sh peers, which writes it");
        }
        return Arrays.stream(Files.readString(f).trim().split(":"))
                .filter(e -> !e.contains("log4j-slf4j2-impl"))
                .collect(Collectors.joining(":"));
    }

    /** The runner class path of a peer project, or null when it was not built (only a selected system needs it). */
    private static String peerClassPath(String project) throws IOException {
        Path f = Path.of("it/peers", project, "target/peer.classpath");
        if (!Files.exists(f)) {
            return null;
        }
        return "it/peers/" + project + "/target/classes:" + Files.readString(f).trim();
    }

    /** Starts one runner JVM and returns its {@code @@peer} results; its output goes to a log file. */
    private static Map<String, String> runOnce(
            SystemSpec s, int round, String sizes, Path jfrDir, boolean keep, boolean threadCpu, long warmupUpdates)
            throws IOException, InterruptedException {
        Path dir = OUT.resolve("run-" + round).resolve(s.id()).toAbsolutePath(); // Paimon wants an absolute URI
        deleteTree(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(List.of("-cp", s.classPath(), s.mainClass(), "--dir", dir.toString(), "--sizes", sizes));
        if (!s.variant().isEmpty()) {
            cmd.addAll(List.of("--variant", s.variant()));
        }
        if (jfrDir != null) {
            cmd.addAll(List.of("--jfr", jfrDir.toString()));
        }
        if (threadCpu) {
            cmd.add("--thread-cpu");
        }
        if (warmupUpdates != PeerRun.DEFAULT_WARMUP_UPDATES) {
            cmd.addAll(List.of("--warmup-updates", Long.toString(warmupUpdates)));
        }
        Path log = OUT.resolve("logs").resolve(s.id() + "-round" + round + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Map<String, String> out = new LinkedHashMap<>();
        List<String> tail = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter w = new PrintWriter(Files.newBufferedWriter(log))) {
            String line;
            while ((line = r.readLine()) != null) {
                w.println(line);
                if (line.startsWith(PeerRun.RESULT_PREFIX)) {
                    String kv = line.substring(PeerRun.RESULT_PREFIX.length());
                    int sp = kv.indexOf(' ');
                    out.put(kv.substring(0, sp), kv.substring(sp + 1));
                    System.err.println("  " + kv.substring(0, Math.min(kv.length(), 120)));
                } else {
                    tail.add(line);
                    if (tail.size() > 400) {
                        tail.remove(0);
                    }
                }
            }
        }
        if (!p.waitFor(2, TimeUnit.HOURS)) {
            p.destroyForcibly();
            throw new IllegalStateException(s.title() + " did not finish within 2 hours; log: " + log);
        }
        if (!keep) {
            deleteTree(dir);
        }
        if (p.exitValue() != 0) {
            String cause = tail.stream()
                    .filter(l -> l.contains("Exception") || l.contains("Error"))
                    .reduce((a, b) -> b)
                    .orElse(tail.isEmpty() ? "" : tail.get(tail.size() - 1));
            throw new IllegalStateException(
                    s.title() + " exited with " + p.exitValue() + ": " + cause.trim() + " (log: " + log + ")");
        }
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    // ---- the report --------------------------------------------------------------------------------

    static List<Metric> metrics(PeerRun.Sizes z) {
        return List.of(
                new Metric("ceiling.rows_per_s", "generator into a blackhole sink (the ceiling), rows/s", Kind.RATE),
                new Metric(
                        "append.rows_per_s",
                        "append " + count(z.appendRows()) + " rows (id, name, age, score, " + z.appendDim()
                                + "-d vector), rows/s",
                        Kind.RATE),
                new Metric("append.table_bytes", "append table on disk", Kind.BYTES),
                new Metric(
                        "load.rows_per_s",
                        "load of the update table (" + count(z.updateRows()) + " rows, " + z.updateDim()
                                + "-d vector), rows/s",
                        Kind.RATE),
                new Metric(
                        "update.rows_per_s",
                        count(z.updates()) + " cell updates of `age` on the " + count(z.updateRows())
                                + "-row table, rows/s",
                        Kind.RATE),
                new Metric(
                        "update.wall_s",
                        "the update job's wall time (deployment and a sink's start-up, such as"
                                + " loading a key index, included), s",
                        Kind.SECONDS),
                new Metric(
                        "update.cpu_s",
                        "CPU time the runner's JVM used during the update job (all threads: tasks,"
                                + " checkpoints, JIT, GC), s",
                        Kind.SECONDS),
                new Metric("update.bytes_written", "bytes written by those updates", Kind.BYTES),
                new Metric("scan_full.s", "full scan after the updates, s", Kind.SECONDS),
                new Metric("scan_narrow.s", "scan of (id, age) after the updates, s", Kind.SECONDS),
                new Metric(
                        "stream.rows_per_s",
                        "streaming upsert of " + count(z.changes()) + " changes (10% inserts,"
                                + " 5% deletes, full rows) on the append table, rows/s",
                        Kind.RATE),
                new Metric("stream.wall_s", "the streaming job's wall time, s", Kind.SECONDS),
                new Metric("stream.bytes_written", "bytes written by the streaming upsert", Kind.BYTES));
    }

    static String report(
            List<SystemSpec> systems,
            Map<String, Map<String, List<Double>>> results,
            Map<String, String> failures,
            Map<String, String> profiles,
            Map<String, String> threadProfiles,
            PeerRun.Sizes z,
            int runs,
            boolean jfr,
            long warmupUpdates)
            throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("## Peer benchmark (issue #17)\n\n");
        b.append(String.format(
                Locale.ROOT,
                "%s; %d core(s) (%s), %s GB RAM; %s; %d round(s) per system (%s)."
                        + " lance-flink on Flink %s; Paimon %s on Flink %s; Iceberg %s on Flink %s.%n%n",
                Instant.now().toString().substring(0, 16).replace('T', ' '),
                Runtime.getRuntime().availableProcessors(),
                cpuModel(),
                memoryGb(),
                z.equals(parseSizes(QUICK_SIZES))
                        ? "quick sizes (--quick)"
                        : z.equals(parseSizes(FULL_SIZES)) ? "full sizes" : "sizes " + sizesText(z),
                runs,
                runs > 1 ? "medians, range in brackets" : "one run",
                pomProperty("pom.xml", "flink.version"),
                pomProperty("it/peers/paimon/pom.xml", "paimon.version"),
                pomProperty("it/peers/paimon/pom.xml", "flink.version"),
                pomProperty("it/peers/iceberg/pom.xml", "iceberg.version"),
                pomProperty("it/peers/iceberg/pom.xml", "flink.version")));
        b.append(String.format(
                Locale.ROOT,
                "Embedded MiniCluster per JVM (1 task manager, 2 slots), parallelism 2, a checkpoint every"
                        + " 1 s, generator of parallelism 1 in the job; rates from the job's first record to its end"
                        + " (last commit included), scans from building the source to the job's end, every scan checked"
                        + " against the expected rows. The warm-up before the measured run updates %d cells of a table"
                        + " of as many rows (--warmup-updates).%n%n",
                warmupUpdates));

        List<Metric> metrics = metrics(z);
        b.append("| workload |");
        systems.forEach(s -> b.append(' ').append(s.title()).append(" |"));
        b.append("\n|---|");
        systems.forEach(s -> b.append("---:|"));
        b.append('\n');
        for (Metric m : metrics) {
            b.append("| ").append(m.label()).append(" |");
            for (SystemSpec s : systems) {
                List<Double> v = results.get(s.id()).get(m.key());
                b.append(' ')
                        .append(v == null || v.isEmpty() ? "—" : cell(v, m.kind()))
                        .append(" |");
            }
            b.append('\n');
        }

        SystemSpec ours =
                systems.stream().filter(s -> s.id().equals("lance")).findFirst().orElse(null);
        List<SystemSpec> peers =
                systems.stream().filter(s -> !s.id().equals("lance")).toList();
        if (ours != null && !peers.isEmpty()) {
            b.append(
                    "\nRatios, lance-flink / peer (rates and scans as speed, above 1 = lance-flink faster; bytes: above"
                            + " 1 = lance-flink writes more):\n\n| workload |");
            peers.forEach(s -> b.append(" vs ").append(s.title()).append(" |"));
            b.append("\n|---|");
            peers.forEach(s -> b.append("---:|"));
            b.append('\n');
            for (Metric m : metrics) {
                if (m.key().startsWith("ceiling") || m.key().endsWith("table_bytes")) {
                    continue;
                }
                b.append("| ").append(m.label()).append(" |");
                Double o = median(results.get(ours.id()).get(m.key()));
                for (SystemSpec s : peers) {
                    Double p = median(results.get(s.id()).get(m.key()));
                    String r = "—";
                    if (o != null && p != null && o > 0 && p > 0) {
                        r = ratio(m.kind(), o, p);
                    }
                    b.append(' ').append(r).append(" |");
                }
                b.append('\n');
            }
            Double ceiling = median(results.get(ours.id()).get("ceiling.rows_per_s"));
            Double append = median(results.get(ours.id()).get("append.rows_per_s"));
            if (ceiling != null && append != null) {
                b.append(String.format(
                        Locale.ROOT,
                        "%nlance-flink's append reaches %.0f%% of its blackhole ceiling.%n",
                        100 * append / ceiling));
            }
        }
        if (!failures.isEmpty()) {
            b.append("\nFailed:\n\n");
            failures.forEach((id, msg) ->
                    b.append("- ").append(id).append(": ").append(msg).append('\n'));
        }
        if (jfr) {
            b.append(
                    "\n### Where the cell-update job's time goes (JFR CPU samples by thread group, top frames; an extra"
                            + " round 0, not counted in the figures above)\n");
            profiles.forEach((id, text) -> b.append("\n")
                    .append(id)
                    .append(":\n\n```\n")
                    .append(text.strip())
                    .append("\n```\n"));
        }
        if (!threadProfiles.isEmpty()) {
            b.append("\n### The cell-update job's CPU by thread (--thread-cpu, the last round)\n");
            threadProfiles.forEach((id, text) -> b.append("\n")
                    .append(id)
                    .append(":\n\n```\n")
                    .append(text.strip())
                    .append("\n```\n"));
        }
        return b.toString();
    }

    private static String cell(List<Double> v, Kind kind) {
        String median = format(median(v), kind);
        if (v.size() < 2) {
            return median;
        }
        double min = v.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return median + " [" + format(min, kind) + "–" + format(max, kind) + "]";
    }

    /** Ours against a peer's: speed for rates and seconds (above 1 = ours faster), plain for bytes. */
    static String ratio(Kind kind, double ours, double peer) {
        double r = kind == Kind.SECONDS ? peer / ours : ours / peer;
        return r >= 0.995 ? String.format(Locale.ROOT, "%.2fx", r) : String.format(Locale.ROOT, "%.2gx", r);
    }

    static Double median(List<Double> v) {
        if (v == null || v.isEmpty()) {
            return null;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static String format(double x, Kind kind) {
        return switch (kind) {
            case RATE ->
                x >= 10_000
                        ? String.format(Locale.ROOT, "%.0fk", x / 1000)
                        : String.format(Locale.ROOT, "%.1fk", x / 1000);
            case SECONDS -> x >= 10 ? String.format(Locale.ROOT, "%.1f", x) : String.format(Locale.ROOT, "%.2f", x);
            case BYTES ->
                x >= 1e9
                        ? String.format(Locale.ROOT, "%.2f GB", x / 1e9)
                        : x >= 1e6
                                ? String.format(Locale.ROOT, "%.2f MB", x / 1e6)
                                : String.format(Locale.ROOT, "%.1f KB", x / 1e3);
        };
    }

    private static String count(long n) {
        return n >= 1_000_000 && n % 1_000_000 == 0
                ? n / 1_000_000 + "M"
                : n >= 1000 && n % 1000 == 0 ? n / 1000 + "k" : String.valueOf(n);
    }

    private static String sizesText(PeerRun.Sizes z) {
        return z.appendRows() + "," + z.appendDim() + "," + z.updateRows() + "," + z.updateDim() + "," + z.updates()
                + "," + z.changes();
    }

    private static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown CPU");
        } catch (IOException | UncheckedIOException e) {
            return "unknown CPU";
        }
    }

    private static String memoryGb() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal:"))
                    .map(l -> l.replaceAll("\\D", ""))
                    .map(kb -> String.valueOf(Math.round(Long.parseLong(kb) / 1024.0 / 1024.0)))
                    .findFirst()
                    .orElse("?");
        } catch (IOException | UncheckedIOException e) {
            return "?";
        }
    }

    private static String pomProperty(String pom, String name) throws IOException {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(Path.of(pom)));
        return m.find() ? m.group(1) : "?";
    }
}
