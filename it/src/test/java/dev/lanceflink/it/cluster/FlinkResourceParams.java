package dev.lanceflink.it.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM options and dynamic configuration of a JobManager or TaskManager process, as Flink's
 * {@code org.apache.flink.runtime.util.bash.BashJavaUtils} derives them from the memory settings
 * in {@code config.yaml} ({@code GET_JM_RESOURCE_PARAMS} / {@code GET_TM_RESOURCE_PARAMS}).
 *
 * <p>Flink's start scripts run BashJavaUtils before every process and pass its answer on: the
 * first result line ({@code -Xmx... -Xms... -XX:MaxDirectMemorySize=...}) to the JVM, the second
 * ({@code -D taskmanager.memory.task.heap.size=...b -D ...}) to the entrypoint. A TaskManager
 * started without the second line refuses to start (its memory components must all be set), so
 * the fixture does exactly what the scripts do.
 *
 * @param jvmOptions options for the {@code java} command line
 * @param dynamicProperties arguments for the entrypoint, {@code -D key=value} pairs as tokens
 */
public record FlinkResourceParams(List<String> jvmOptions, List<String> dynamicProperties) {

    /** The prefix BashJavaUtils puts before each result line; other lines are its logging. */
    public static final String RESULT_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";

    /** The BashJavaUtils main class. */
    public static final String MAIN_CLASS = "org.apache.flink.runtime.util.bash.BashJavaUtils";

    /** Which process the parameters are for; the names are BashJavaUtils' commands. */
    public enum Command {
        GET_JM_RESOURCE_PARAMS,
        GET_TM_RESOURCE_PARAMS
    }

    public FlinkResourceParams {
        jvmOptions = List.copyOf(jvmOptions);
        dynamicProperties = List.copyOf(dynamicProperties);
    }

    /**
     * Parses BashJavaUtils' output for {@code command}: exactly two result lines (JVM options, then
     * dynamic properties) among any logging lines.
     *
     * @throws IllegalStateException if the output does not have that shape; the message carries
     *     the whole output, which holds BashJavaUtils' own explanation (e.g. a memory size that
     *     does not add up)
     */
    public static FlinkResourceParams parse(Command command, String output) {
        List<String> results = new ArrayList<>(2);
        for (String line : output.split("\\R")) {
            int at = line.indexOf(RESULT_PREFIX);
            if (at >= 0) {
                results.add(line.substring(at + RESULT_PREFIX.length()).trim());
            }
        }
        if (results.size() != 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " printed " + results.size()
                    + " result lines (prefix " + RESULT_PREFIX + "), expected 2 (JVM options, dynamic"
                    + " properties); check the memory settings in config.yaml. Its output:\n" + output);
        }
        List<String> dynamic = tokens(results.get(1));
        for (int i = 0; i < dynamic.size(); i += 2) {
            if (!dynamic.get(i).equals("-D")
                    || i + 1 >= dynamic.size()
                    || dynamic.get(i + 1).indexOf('=') <= 0) {
                throw new IllegalStateException("BashJavaUtils " + command + " printed dynamic properties"
                        + " that are not '-D key=value' pairs at token " + i + ": '" + results.get(1) + "'");
            }
        }
        return new FlinkResourceParams(tokens(results.get(0)), dynamic);
    }

    private static List<String> tokens(String line) {
        return line.isEmpty() ? List.of() : Arrays.asList(line.split("\\s+"));
    }
}
