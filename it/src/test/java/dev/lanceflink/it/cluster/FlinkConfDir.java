package dev.lanceflink.it.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Writes a Flink 2.x configuration directory the way a distribution's {@code conf/} looks:
 * {@code config.yaml} (flat keys, the format Flink 2 reads; {@code flink-conf.yaml} is gone),
 * {@code log4j.properties} for the JobManager and TaskManager processes and
 * {@code log4j-cli.properties} for the command-line client. Every process logs into the file
 * named by its {@code log.file} system property, which is how Flink's scripts wire logging.
 */
public final class FlinkConfDir {

    /** The name of the configuration file Flink 2 reads from {@code --configDir}. */
    public static final String CONFIG_FILE = "config.yaml";

    /** Logging of the JobManager and TaskManager (Flink's {@code conf/log4j.properties}). */
    public static final String LOG4J_PROCESS = "log4j.properties";

    /** Logging of {@code bin/flink} (Flink's {@code conf/log4j-cli.properties}). */
    public static final String LOG4J_CLI = "log4j-cli.properties";

    /**
     * The JVM options a Flink 2 distribution's {@code config.yaml} ships as
     * {@code env.java.opts.all}: Flink's RPC, serializers and the table planner reflect into these
     * JDK packages on Java 17. {@code java.nio} is also what Arrow needs in user code.
     */
    public static final List<String> DISTRIBUTION_JAVA_OPTS = List.of(
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
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

    /** Values YAML reads back as the same plain string (no quoting needed). */
    private static final Pattern PLAIN_SCALAR = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./=: -]*");

    /** One JVM option of an option list: dashes, then no YAML indicator or space. */
    private static final Pattern JVM_OPTION = Pattern.compile("-+[A-Za-z0-9_./][A-Za-z0-9_./=:,+-]*");

    private static final String LOG4J_TEMPLATE = """
      # Written by FlinkSessionCluster (integration tests): one log file per process, named by
      # the log.file system property as in Flink's own scripts.
      monitorInterval = 0
      rootLogger.level = INFO
      rootLogger.appenderRef.file.ref = FileAppender
      logger.pekko.name = org.apache.pekko
      logger.pekko.level = INFO
      logger.netty.name = org.apache.flink.shaded.netty4
      logger.netty.level = WARN
      logger.zookeeper.name = org.apache.zookeeper
      logger.zookeeper.level = WARN
      appender.file.name = FileAppender
      appender.file.type = File
      appender.file.append = false
      appender.file.fileName = ${sys:log.file}
      appender.file.layout.type = PatternLayout
      appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
      """;

    private FlinkConfDir() {}

    /**
     * Creates {@code confDir} (if needed) and writes the three files; {@code config} is written in
     * its iteration order, one {@code key: value} line per entry.
     */
    public static void write(Path confDir, Map<String, String> config) throws IOException {
        Files.createDirectories(confDir);
        Files.writeString(confDir.resolve(CONFIG_FILE), renderConfig(config), StandardCharsets.UTF_8);
        Files.writeString(confDir.resolve(LOG4J_PROCESS), LOG4J_TEMPLATE, StandardCharsets.UTF_8);
        Files.writeString(confDir.resolve(LOG4J_CLI), LOG4J_TEMPLATE, StandardCharsets.UTF_8);
    }

    /**
     * Renders {@code config} as Flink 2 {@code config.yaml} text: flat dotted keys, values as plain
     * scalars where YAML reads them back unchanged, single-quoted otherwise (so a value with
     * {@code ": "}, {@code " #"} or a leading indicator character stays one string).
     */
    public static String renderConfig(Map<String, String> config) {
        StringBuilder yaml =
                new StringBuilder("# Flink configuration written by FlinkSessionCluster (integration tests).\n");
        for (Map.Entry<String, String> e : config.entrySet()) {
            String key = e.getKey();
            if (key.isEmpty() || !PLAIN_SCALAR.matcher(key).matches() || key.contains(":") || key.contains(" ")) {
                throw new IllegalArgumentException("Not a Flink configuration key: '" + key
                        + "' (expected dotted words such as taskmanager.numberOfTaskSlots)");
            }
            if (e.getValue() == null) {
                throw new IllegalArgumentException("Flink configuration key '" + key + "' has no value");
            }
            yaml.append(key).append(": ").append(scalar(e.getValue())).append('\n');
        }
        return yaml.toString();
    }

    /** A value as a YAML scalar that reads back as exactly {@code value}. */
    static String scalar(String value) {
        boolean plain = PLAIN_SCALAR.matcher(value).matches()
                && !value.contains(": ")
                && !value.endsWith(":")
                && !value.endsWith(" ")
                && !value.contains(" #")
                && !value.equalsIgnoreCase("null");
        if (plain || isDashOptionList(value)) {
            return value;
        }
        return "'" + value.replace("'", "''") + "'";
    }

    /**
     * JVM option lists such as {@code --add-opens=java.base/java.nio=ALL-UNNAMED -Dx=y}: a leading
     * dash followed by another non-space character is a plain scalar in YAML, and this is how
     * Flink's own {@code config.yaml} writes {@code env.java.opts.all}.
     */
    private static boolean isDashOptionList(String value) {
        return Arrays.stream(value.split(" ", -1))
                .allMatch(t -> JVM_OPTION.matcher(t).matches() && !t.endsWith(":"));
    }
}
