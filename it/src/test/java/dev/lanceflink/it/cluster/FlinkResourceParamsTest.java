package dev.lanceflink.it.cluster;

import static dev.lanceflink.it.cluster.FlinkResourceParams.Command.GET_JM_RESOURCE_PARAMS;
import static dev.lanceflink.it.cluster.FlinkResourceParams.Command.GET_TM_RESOURCE_PARAMS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FlinkResourceParamsTest {

    @Test
    void parsesTheTwoResultLinesAndSkipsLogging() {
        String output = """
        INFO  [] - Loading configuration property: taskmanager.numberOfTaskSlots, 2
        BASH_JAVA_UTILS_EXEC_RESULT:-Xmx691221298 -Xms691221298 -XX:MaxDirectMemorySize=382520526 -XX:MaxMetaspaceSize=268435456
        INFO  [] - The derived from fraction network memory (106.250mb (111411200 bytes)) ...
        BASH_JAVA_UTILS_EXEC_RESULT:-D taskmanager.memory.network.min=114085070b -D taskmanager.cpu.cores=2.0 -D external-resources=none
        """;

        FlinkResourceParams p = FlinkResourceParams.parse(GET_TM_RESOURCE_PARAMS, output);

        assertThat(p.jvmOptions())
                .containsExactly(
                        "-Xmx691221298",
                        "-Xms691221298",
                        "-XX:MaxDirectMemorySize=382520526",
                        "-XX:MaxMetaspaceSize=268435456");
        assertThat(p.dynamicProperties())
                .containsExactly(
                        "-D",
                        "taskmanager.memory.network.min=114085070b",
                        "-D",
                        "taskmanager.cpu.cores=2.0",
                        "-D",
                        "external-resources=none");
    }

    @Test
    void anEmptyDynamicLineIsNoProperties() {
        FlinkResourceParams p = FlinkResourceParams.parse(
                GET_JM_RESOURCE_PARAMS, "BASH_JAVA_UTILS_EXEC_RESULT:-Xmx100\nBASH_JAVA_UTILS_EXEC_RESULT:\n");
        assertThat(p.jvmOptions()).containsExactly("-Xmx100");
        assertThat(p.dynamicProperties()).isEmpty();
    }

    @Test
    void missingResultLinesFailWithTheWholeOutput() {
        String output = "ERROR [] - Failed to compute JVM parameters: task heap memory is negative\n";
        assertThatThrownBy(() -> FlinkResourceParams.parse(GET_TM_RESOURCE_PARAMS, output))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("BashJavaUtils GET_TM_RESOURCE_PARAMS printed 0 result lines (prefix"
                        + " BASH_JAVA_UTILS_EXEC_RESULT:), expected 2 (JVM options, dynamic properties); check"
                        + " the memory settings in config.yaml. Its output:\n" + output);
    }

    @Test
    void malformedDynamicPropertiesAreRejected() {
        assertThatThrownBy(() -> FlinkResourceParams.parse(
                        GET_JM_RESOURCE_PARAMS,
                        "BASH_JAVA_UTILS_EXEC_RESULT:-Xmx1\nBASH_JAVA_UTILS_EXEC_RESULT:-D a=1 -D b\n"))
                .hasMessage("BashJavaUtils GET_JM_RESOURCE_PARAMS printed dynamic properties that are not"
                        + " '-D key=value' pairs at token 2: '-D a=1 -D b'");
    }
}
