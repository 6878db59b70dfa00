package dev.lanceflink.it.maintenance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.compactor.CompactorMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs the compaction CLI ({@link CompactorMain#run}) against one table on its own thread, again
 * and again, alternating {@code overlay-merge} and {@code overlay-fold}, until {@link #stop()}:
 * what an operator's scheduled compaction does while a streaming sink writes the table. Triggers
 * are set low (2 overlays per fragment) so that nearly every run finds work; tasks run on engine
 * threads. Every run's JSON summary is kept for the test's assertions.
 */
final class CompactorLoop implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> MODES = List.of("overlay-merge", "overlay-fold");

    /** One CLI run: its mode, exit code, JSON summary on stdout and progress on stderr. */
    record Run(String mode, int exitCode, JsonNode summary, String stderr) {
        String status() {
            return summary.path("status").asText("");
        }

        int committedVersions() {
            return summary.path("committedVersions").size();
        }
    }

    private final String uri;
    private final Map<String, String> storage;
    private final List<Run> runs = new CopyOnWriteArrayList<>();
    private final Set<String> modesCommitted = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private final long pauseMillis;
    private volatile boolean stopped;
    private volatile Throwable crashed;

    CompactorLoop(String uri, Map<String, String> storage) {
        this(uri, storage, 50);
    }

    /**
     * Pausing {@code pauseMillis} between runs: a long soak run sets it so that the loop does what
     * a frequently scheduled job does rather than take the machine (and the lease) all the time.
     */
    CompactorLoop(String uri, Map<String, String> storage, long pauseMillis) {
        this.uri = uri;
        this.storage = Map.copyOf(storage);
        this.pauseMillis = pauseMillis;
        this.thread = new Thread(this::loop, "compactor-loop");
        this.thread.setDaemon(true);
    }

    CompactorLoop start() {
        thread.start();
        return this;
    }

    /** Runs one CLI invocation in {@code mode} on the calling thread and records it. */
    Run runOnce(String mode) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                uri,
                "--mode",
                mode,
                "--engine",
                "threads",
                "--parallelism",
                "2",
                "--min-overlays",
                "2",
                "--min-overlay-bytes-ratio",
                "0",
                "--min-version-gap",
                "0",
                "--max-replan-rounds",
                "5"));
        storage.forEach((k, v) -> {
            args.add("--storage-option");
            args.add(k + "=" + v);
        });
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = CompactorMain.run(args.toArray(String[]::new), o, e);
        }
        String stdout = out.toString(StandardCharsets.UTF_8).trim();
        JsonNode summary = stdout.isEmpty() ? JSON.createObjectNode() : JSON.readTree(stdout);
        Run run = new Run(mode, code, summary, err.toString(StandardCharsets.UTF_8));
        runs.add(run);
        if (run.committedVersions() > 0) {
            modesCommitted.add(mode);
        }
        return run;
    }

    private void loop() {
        try {
            for (int i = 0; !stopped; i++) {
                runOnce(MODES.get(i % MODES.size()));
                Thread.sleep(pauseMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            crashed = t;
        }
    }

    /** True once both modes have committed at least one version. */
    boolean bothModesCommitted() {
        return modesCommitted.containsAll(MODES);
    }

    /** Stops after the run in progress and waits for it; rethrows what crashed the loop itself. */
    List<Run> stop() throws Exception {
        stopped = true;
        thread.join(120_000);
        if (thread.isAlive()) {
            throw new AssertionError("The compactor loop on " + uri + " did not finish its run within 120 s");
        }
        if (crashed != null) {
            throw new AssertionError(
                    "The compactor loop on " + uri + " crashed (not a CLI failure: the CLI"
                            + " reports those as exit codes)",
                    crashed);
        }
        return List.copyOf(runs);
    }

    @Override
    public void close() throws Exception {
        if (!stopped) {
            stop();
        }
    }
}
