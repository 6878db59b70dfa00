package dev.lanceflink.flink.sink;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A pinned read version belongs to changes at row addresses; the other modes refuse it. */
class LanceSinkBuilderReadVersionTest {
    @Test
    void theAppendSinkRefusesAReadVersion() {
        LanceSinkBuilder b = LanceSinkBuilder.forTable("/data/t.lance").readVersion(4);
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("readVersion(4) is for changes at row addresses read from that version (modes ROW_ADDRESS"
                        + " and DELETE_BY_ROW_ADDRESS); mode APPEND writes against the latest version of /data/t.lance."
                        + " Remove readVersion or change the mode");
    }

    @Test
    void aNegativeReadVersionIsRefused() {
        assertThatThrownBy(() -> LanceSinkBuilder.forTable("/data/t.lance").readVersion(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("readVersion must not be negative (0 = none), got -1");
    }
}
