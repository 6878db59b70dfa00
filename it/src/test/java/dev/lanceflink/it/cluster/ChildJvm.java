package dev.lanceflink.it.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starting and stopping the child JVMs of {@link FlinkSessionCluster}: the {@code java} of the
 * running JDK ({@code java.home}, as Flink's scripts use {@code JAVA_HOME}), output to a file
 * (a pipe nobody drains would block a chatty process), and stopping that takes the process's own
 * children with it.
 */
public final class ChildJvm {

    private ChildJvm() {}

    /** The {@code java} launcher of the JDK running the tests. */
    public static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * {@code java <jvmOptions> -classpath <classpath> <mainClass> <args>}.
     */
    public static List<String> command(List<String> jvmOptions, String classpath, String mainClass, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        cmd.addAll(jvmOptions);
        cmd.add("-classpath");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    /**
     * Starts {@code command} in {@code workDir} with {@code env} added to this process's
     * environment; stdout goes to {@code stdout}, stderr to {@code stderr} (the same file when
     * both are equal).
     */
    public static Process start(List<String> command, Path workDir, Map<String, String> env, Path stdout, Path stderr)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
        pb.environment().putAll(env);
        pb.redirectOutput(stdout.toFile());
        if (stdout.equals(stderr)) {
            pb.redirectErrorStream(true);
        } else {
            pb.redirectError(stderr.toFile());
        }
        Process process = pb.start();
        process.getOutputStream().close(); // no input: a read of stdin sees end of file at once
        return process;
    }

    /**
     * Stops {@code process} and all its descendants: SIGTERM first (Flink's shutdown hooks then
     * release ports and delete their temporary directories), SIGKILL for whatever is still alive
     * after {@code grace}.
     */
    static void stopTree(Process process, Duration grace) {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : tree) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    h.onExit().get(left, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception timedOutOrFailed) {
                // killed below
            }
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last {@code lines} lines of a text file, or a note saying why there are none. */
    public static String tail(Path file, int lines) {
        if (!Files.isRegularFile(file)) {
            return "(" + file.getFileName() + " does not exist)\n";
        }
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            int from = Math.max(0, all.size() - lines);
            StringBuilder sb = new StringBuilder();
            if (from > 0) {
                sb.append("(... ")
                        .append(from)
                        .append(" earlier lines of ")
                        .append(file.getFileName())
                        .append(")\n");
            }
            for (String l : all.subList(from, all.size())) {
                sb.append(l).append('\n');
            }
            return sb.toString();
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")\n";
        }
    }

    /** A file's whole text, or empty when it does not exist. */
    static String read(Path file) throws IOException {
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
