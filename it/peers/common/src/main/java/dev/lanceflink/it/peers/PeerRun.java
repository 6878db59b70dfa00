package dev.lanceflink.it.peers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * What a runner JVM is told and what it answers, without Flink (shared by every runner): the
 * sizes on the command line, results as {@code @@peer key value} lines on stdout that the
 * orchestrator ({@code PeerBenchmark}) collects, bytes of files, and JFR recordings summarized by
 * thread.
 */
public final class PeerRun {
    /** Prefix of the result lines the orchestrator reads; everything else on stdout is log. */
    public static final String RESULT_PREFIX = "@@peer ";
    /** Rows of the warm-up's update table and its cell updates unless {@code --warmup-updates} says. */
    public static final long DEFAULT_WARMUP_UPDATES = 5_000;

    /**
     * The sizes of one run: {@code appendRows} rows of {@code appendDim}-d vectors appended,
     * {@code updateRows} rows of {@code updateDim}-d vectors loaded and {@code updates} cells of
     * {@code age} updated, {@code changes} streamed changes on the append table.
     */
    public record Sizes(long appendRows, int appendDim, long updateRows, int updateDim, long updates, long changes) {
        public Sizes {
            if (updates > updateRows || changes > appendRows) {
                throw new IllegalArgumentException("The updates (" + updates + ") must not exceed the update table's rows ("
                        + updateRows + ") and the changes (" + changes + ") not the append table's (" + appendRows
                        + "): each key is changed at most once");
            }
        }

        /** Small sizes that load every class and JIT the hot paths before the measured run. */
        public Sizes warmup() {
            return warmup(DEFAULT_WARMUP_UPDATES);
        }

        /**
         * The warm-up's sizes with {@code warmupUpdates} rows in its update table and as many
         * cell updates (at most the measured run's): 5,000 leave much of a sink's update path to
         * be compiled during the measured job (our runner's C2 compiler threads took a third of
         * that job's CPU time).
         */
        public Sizes warmup(long warmupUpdates) {
            return new Sizes(Math.min(appendRows, 20_000), appendDim, Math.min(updateRows, warmupUpdates), updateDim,
                    Math.min(updates, warmupUpdates), Math.min(changes, 5_000));
        }
    }

    /**
     * A runner's command line: {@code --dir D --sizes a,ad,u,ud,n,c [--jfr DIR] [--no-warmup] [--variant V]
     * [--thread-cpu] [--warmup-updates N]}; {@code --thread-cpu} reports the update job's CPU per
     * thread group ({@link ThreadCpu}), {@code --warmup-updates} sizes the warm-up's cell updates
     * ({@link Sizes#warmup(long)}).
     */
    public record Args(
            Path dir, Sizes sizes, Path jfrDir, boolean warmup, String variant, boolean threadCpu, long warmupUpdates) {
        public static Args parse(String[] args) {
            Path dir = null;
            Sizes sizes = null;
            Path jfr = null;
            boolean warmup = true;
            String variant = "";
            boolean threadCpu = false;
            long warmupUpdates = DEFAULT_WARMUP_UPDATES;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--dir" -> dir = Path.of(args[++i]);
                    case "--sizes" -> {
                        String[] s = args[++i].split(",");
                        if (s.length != 6) {
                            throw new IllegalArgumentException("--sizes takes appendRows,appendDim,updateRows,updateDim,"
                                    + "updates,changes; got " + args[i]);
                        }
                        sizes = new Sizes(Long.parseLong(s[0]), Integer.parseInt(s[1]), Long.parseLong(s[2]),
                                Integer.parseInt(s[3]), Long.parseLong(s[4]), Long.parseLong(s[5]));
                    }
                    case "--jfr" -> jfr = Path.of(args[++i]);
                    case "--no-warmup" -> warmup = false;
                    case "--variant" -> variant = args[++i];
                    case "--thread-cpu" -> threadCpu = true;
                    case "--warmup-updates" -> warmupUpdates = Long.parseLong(args[++i]);
                    default -> throw new IllegalArgumentException("Unknown runner argument '" + args[i]
                            + "'; expected --dir, --sizes, --jfr, --no-warmup, --variant, --thread-cpu or"
                            + " --warmup-updates");
                }
            }
            if (dir == null || sizes == null) {
                throw new IllegalArgumentException("A runner needs --dir and --sizes");
            }
            return new Args(dir, sizes, jfr, warmup, variant, threadCpu, warmupUpdates);
        }
    }

    private PeerRun() {}

    public static void result(String key, double value) {
        System.out.println(RESULT_PREFIX + key + " " + String.format(Locale.ROOT, "%.6f", value));
        System.out.flush();
    }

    public static void note(String key, String text) {
        System.out.println(RESULT_PREFIX + key + " " + text.replace('\n', ' '));
        System.out.flush();
    }

    // ---- files -------------------------------------------------------------------------------------

    /** Every regular file under {@code dir} with its size. */
    public static Map<Path, Long> files(Path dir) {
        Map<Path, Long> out = new HashMap<>();
        if (!Files.exists(dir)) {
            return out;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).forEach(p -> {
                try {
                    out.put(p, Files.size(p));
                } catch (IOException e) {
                    // removed while walking (a writer's temporary file): not part of the table
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    public static long bytes(Path dir) {
        return files(dir).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Bytes of the files under {@code dir} that were not there before, plus the growth of files
     * that were (every system writes new files; a grown file would be a log appended to).
     */
    public static long bytesWrittenSince(Map<Path, Long> before, Path dir) {
        long sum = 0;
        for (Map.Entry<Path, Long> e : files(dir).entrySet()) {
            Long old = before.get(e.getKey());
            sum += old == null ? e.getValue() : Math.max(0, e.getValue() - old);
        }
        return sum;
    }

    // ---- CPU per thread ----------------------------------------------------------------------------

    /**
     * CPU time per thread of this JVM over a job, from {@code /proc/self/task} (Linux), so that
     * what JFR's execution samples do not show is counted too: the JIT compiler threads, the
     * garbage collector's, and native code. A daemon samples every thread's user + system time
     * every {@value #SAMPLE_MILLIS} ms and keeps the last value per thread, so threads that end
     * with the job (Flink's task threads) count up to their last sample; what they used after it
     * is reported as the rest of the process's CPU time. Threads are grouped by their name (as
     * the kernel keeps it: the first 15 characters) without trailing numbers.
     */
    public static final class ThreadCpu implements AutoCloseable {
        static final long SAMPLE_MILLIS = 100;
        private static final Path TASKS = Path.of("/proc/self/task");
        private final Map<String, long[]> first = new HashMap<>();
        private final Map<String, long[]> last = new HashMap<>();
        private final Map<String, String> names = new HashMap<>();
        private final long processCpuStart;
        private final Thread sampler;
        private volatile boolean running = true;

        private ThreadCpu(long processCpuNanos) {
            this.processCpuStart = processCpuNanos;
            sample(first);
            sampler = new Thread(
                    () -> {
                        while (running) {
                            sample(last);
                            try {
                                Thread.sleep(SAMPLE_MILLIS);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "peer-thread-cpu");
            sampler.setDaemon(true);
            sampler.start();
        }

        /** Starts sampling; {@code processCpuNanos} is the process's CPU time now. */
        public static ThreadCpu start(long processCpuNanos) {
            return new ThreadCpu(processCpuNanos);
        }

        private synchronized void sample(Map<String, long[]> into) {
            try (Stream<Path> tasks = Files.list(TASKS)) {
                tasks.forEach(t -> {
                    try {
                        String stat = Files.readString(t.resolve("stat"));
                        int open = stat.indexOf('(');
                        int close = stat.lastIndexOf(')');
                        String[] f = stat.substring(close + 2).split(" ");
                        // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name.
                        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                        String tid = t.getFileName().toString();
                        names.put(tid, stat.substring(open + 1, close));
                        into.put(tid, new long[] {ticks});
                    } catch (IOException | RuntimeException e) {
                        // the thread ended while listed
                    }
                });
            } catch (IOException e) {
                // no /proc: nothing to report
            }
        }

        /**
         * Stops sampling and summarizes: CPU seconds per thread group, largest first, and the
         * rest of the process's CPU time ({@code processCpuNanos} now) that no sample saw.
         */
        public synchronized String stop(long processCpuNanos, int groups) {
            running = false;
            sampler.interrupt();
            sample(last);
            double tick = 0.01; // USER_HZ: 100 on Linux
            Map<String, Double> byGroup = new HashMap<>();
            double seen = 0;
            for (Map.Entry<String, long[]> e : last.entrySet()) {
                long[] before = first.get(e.getKey());
                double s = (e.getValue()[0] - (before == null ? 0 : before[0])) * tick;
                if (s <= 0) {
                    continue;
                }
                String g = names.get(e.getKey()).replaceAll("[-#\\s]?\\d+$", "");
                byGroup.merge(g, s, Double::sum);
                seen += s;
            }
            double total = (processCpuNanos - processCpuStart) / 1e9;
            List<Map.Entry<String, Double>> sorted = new ArrayList<>(byGroup.entrySet());
            sorted.sort(Map.Entry.<String, Double>comparingByValue().reversed());
            StringBuilder out = new StringBuilder();
            out.append(String.format(Locale.ROOT, "%.2f CPU s in the process, by thread (/proc, %d ms samples)%n",
                    total, SAMPLE_MILLIS));
            for (Map.Entry<String, Double> e : sorted.subList(0, Math.min(groups, sorted.size()))) {
                out.append(String.format(Locale.ROOT, "  %6.2f s  %s%n", e.getValue(), e.getKey()));
            }
            double others = sorted.stream().skip(groups).mapToDouble(Map.Entry::getValue).sum();
            out.append(String.format(Locale.ROOT, "  %6.2f s  (other threads)%n", others));
            out.append(String.format(Locale.ROOT, "  %6.2f s  (threads that ended after their last sample)%n", Math.max(0, total - seen)));
            return out.toString();
        }

        @Override
        public void close() {
            running = false;
            sampler.interrupt();
        }
    }

    // ---- JFR ---------------------------------------------------------------------------------------

    /** Starts a recording with the JDK's "profile" settings (execution samples every 10 ms). */
    public static Recording startJfr() {
        try {
            Recording r = new Recording(Configuration.getConfiguration("profile"));
            r.start();
            return r;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start a JFR recording: " + e.getMessage(), e);
        }
    }

    /**
     * Stops {@code r}, writes it to {@code file} and summarizes its CPU samples: per thread group
     * (Flink's task threads without their subtask suffix, so both writers count as one), the share
     * of samples and the methods on top of the stack.
     */
    public static String stopJfr(Recording r, Path file, int threads, int frames) {
        try {
            r.stop();
            Files.createDirectories(file.getParent());
            r.dump(file);
            r.close();
            Map<String, Map<String, Integer>> byThread = new HashMap<>();
            int total = 0;
            try (RecordingFile in = new RecordingFile(file)) {
                while (in.hasMoreEvents()) {
                    RecordedEvent e = in.readEvent();
                    if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null
                            || e.getThread("sampledThread") == null) {
                        continue;
                    }
                    String thread = threadGroup(e.getThread("sampledThread").getJavaName());
                    List<RecordedFrame> stack = e.getStackTrace().getFrames();
                    String top = stack.isEmpty() ? "?" : frame(stack.get(0));
                    byThread.computeIfAbsent(thread, t -> new HashMap<>()).merge(top, 1, Integer::sum);
                    total++;
                }
            }
            StringBuilder out = new StringBuilder();
            out.append(String.format(Locale.ROOT, "%d CPU samples in %s%n", total, file));
            List<Map.Entry<String, Map<String, Integer>>> groups = new ArrayList<>(byThread.entrySet());
            groups.sort(Comparator.comparingInt((Map.Entry<String, Map<String, Integer>> g) -> -sum(g.getValue())));
            for (Map.Entry<String, Map<String, Integer>> g : groups.subList(0, Math.min(threads, groups.size()))) {
                int n = sum(g.getValue());
                out.append(String.format(Locale.ROOT, "  %5.1f%%  %s%n", 100.0 * n / Math.max(1, total), g.getKey()));
                List<Map.Entry<String, Integer>> tops = new ArrayList<>(g.getValue().entrySet());
                tops.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
                for (Map.Entry<String, Integer> f : tops.subList(0, Math.min(frames, tops.size()))) {
                    out.append(String.format(Locale.ROOT, "          %5.1f%%  %s%n", 100.0 * f.getValue() / n,
                            f.getKey()));
                }
            }
            return out.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write or read the JFR recording " + file, e);
        }
    }

    private static int sum(Map<String, Integer> m) {
        return m.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** "Writer: x (2/2)#0" and "Writer: x (1/2)#0" are one group; pool threads lose their numbers. */
    static String threadGroup(String name) {
        if (name == null) {
            return "?";
        }
        String g = name.replaceAll(" \\(\\d+/\\d+\\)(#\\d+)?$", "").replaceAll("file:\\S*/", "<table>/");
        g = g.replaceAll("[-#]?\\d+$", "");
        return g.length() > 110 ? g.substring(0, 110) + "…" : g;
    }

    private static String frame(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }
}
