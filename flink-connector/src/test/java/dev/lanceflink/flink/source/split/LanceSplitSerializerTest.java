package dev.lanceflink.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.flink.source.enumerator.LanceEnumeratorState;
import dev.lanceflink.flink.source.enumerator.LanceEnumeratorStateSerializer;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class LanceSplitSerializerTest {

    @Test
    void splitWithProgressRoundTrips() throws IOException {
        LanceSplit s = new LanceSplit(7, 3, 100, 200, 150, 42);
        byte[] bytes = LanceSplitSerializer.INSTANCE.serialize(s);
        assertThat(bytes).hasSize(48);
        assertThat(LanceSplitSerializer.INSTANCE.deserialize(1, bytes)).isEqualTo(s);
        assertThat(s.splitId()).isEqualTo("v7-f3-100-200");
    }

    @Test
    void stateTracksResumePosition() {
        LanceSplitState state = new LanceSplitState(LanceSplit.of(1, 0, 0, 10));
        state.emitted(2);
        state.emitted(5);
        assertThat(state.toSplit()).isEqualTo(new LanceSplit(1, 0, 0, 10, 6, 2));
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        LanceEnumeratorStateSerializer ser = new LanceEnumeratorStateSerializer();
        LanceEnumeratorState st =
                new LanceEnumeratorState(List.of(LanceSplit.of(2, 0, 0, 5), LanceSplit.of(2, 1, 0, 9)));
        assertThat(ser.deserialize(1, ser.serialize(st))).isEqualTo(st);
        assertThatThrownBy(() -> ser.deserialize(1, new byte[] {0, 0, 0, 1}))
                .hasMessageContaining("1 splits announced, 0 bytes follow");
        assertThatThrownBy(() -> LanceSplitSerializer.INSTANCE.deserialize(9, new byte[48]))
                .hasMessageContaining("version 9");
    }

    @Test
    void inconsistentSplitIsRejected() {
        assertThatThrownBy(() -> new LanceSplit(1, 0, 5, 4, 5, 0)).hasMessageContaining("range [5, 4)");
    }
}
