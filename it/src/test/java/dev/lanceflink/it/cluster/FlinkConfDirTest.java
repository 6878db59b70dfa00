package dev.lanceflink.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlinkConfDirTest {

    @TempDir
    Path dir;

    @Test
    void writesConfigInOrderWithPlainAndQuotedScalars() throws Exception {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.address", "localhost");
        config.put("rest.port", "41234");
        config.put("cluster.registration.error-delay", "1 s");
        config.put("io.tmp.dirs", "/tmp/a b/c");
        config.put("env.java.opts.all", "--add-opens=java.base/java.nio=ALL-UNNAMED -XX:+UseSerialGC");
        config.put("pipeline.name", "a: b # c");
        config.put("x.quote", "it's");
        config.put("x.null", "null");
        config.put("x.empty", "");

        FlinkConfDir.write(dir, config);

        assertThat(Files.readString(dir.resolve("config.yaml"), StandardCharsets.UTF_8))
                .isEqualTo("""
        # Flink configuration written by FlinkSessionCluster (integration tests).
        jobmanager.rpc.address: localhost
        rest.port: 41234
        cluster.registration.error-delay: 1 s
        io.tmp.dirs: /tmp/a b/c
        env.java.opts.all: --add-opens=java.base/java.nio=ALL-UNNAMED -XX:+UseSerialGC
        pipeline.name: 'a: b # c'
        x.quote: 'it''s'
        x.null: 'null'
        x.empty: ''
        """);
        assertThat(Files.readString(dir.resolve("log4j.properties"), StandardCharsets.UTF_8))
                .contains("appender.file.fileName = ${sys:log.file}", "rootLogger.level = INFO");
        assertThat(dir.resolve("log4j-cli.properties")).isRegularFile();
    }

    @Test
    void distributionJavaOptsAreOnePlainScalar() {
        String opts = String.join(" ", FlinkConfDir.DISTRIBUTION_JAVA_OPTS);
        assertThat(FlinkConfDir.scalar(opts)).isEqualTo(opts);
        assertThat(FlinkConfDir.DISTRIBUTION_JAVA_OPTS)
                .contains("--add-opens=java.base/java.nio=ALL-UNNAMED")
                .hasSize(20);
    }

    @Test
    void optionListWithAColonAtATokenEndIsQuoted() {
        assertThat(FlinkConfDir.scalar("-Da=b: -Dc=d")).isEqualTo("'-Da=b: -Dc=d'");
        assertThat(FlinkConfDir.scalar("- x")).isEqualTo("'- x'");
    }

    @Test
    void rejectsMalformedKeysAndMissingValues() {
        Map<String, String> badKey = new LinkedHashMap<>();
        badKey.put("rest port", "1");
        assertThatThrownBy(() -> FlinkConfDir.renderConfig(badKey))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Not a Flink configuration key: 'rest port' (expected dotted words such as"
                        + " taskmanager.numberOfTaskSlots)");
        Map<String, String> noValue = new LinkedHashMap<>();
        noValue.put("rest.port", null);
        assertThatThrownBy(() -> FlinkConfDir.renderConfig(noValue))
                .hasMessage("Flink configuration key 'rest.port' has no value");
    }
}
