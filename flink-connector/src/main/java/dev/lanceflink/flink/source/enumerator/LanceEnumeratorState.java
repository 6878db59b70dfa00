package dev.lanceflink.flink.source.enumerator;

import dev.lanceflink.flink.source.split.LanceSplit;
import java.util.List;

/** The splits not yet handed to any reader (splits being read are in the readers' state). */
public record LanceEnumeratorState(List<LanceSplit> pendingSplits) {
    public LanceEnumeratorState {
        pendingSplits = List.copyOf(pendingSplits);
    }
}
