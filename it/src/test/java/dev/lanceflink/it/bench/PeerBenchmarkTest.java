package dev.lanceflink.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.it.bench.PeerBenchmark.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peer benchmark's report arithmetic (not the benchmark: that runs outside the test suite). */
class PeerBenchmarkTest {
    @Test
    void mediansOfOddAndEvenRounds() {
        assertThat(PeerBenchmark.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(PeerBenchmark.median(List.of(4.0, 1.0))).isEqualTo(2.5);
        assertThat(PeerBenchmark.median(List.of())).isNull();
    }

    @Test
    void ratiosAreSpeedsForRatesAndSecondsAndPlainForBytes() {
        assertThat(PeerBenchmark.ratio(Kind.RATE, 40_000, 20_000)).isEqualTo("2.00x");
        assertThat(PeerBenchmark.ratio(Kind.SECONDS, 2.0, 6.0)).isEqualTo("3.00x"); // ours 3x faster
        assertThat(PeerBenchmark.ratio(Kind.BYTES, 172_000, 59_000_000)).isEqualTo("0.0029x");
        assertThat(PeerBenchmark.ratio(Kind.RATE, 62, 100)).isEqualTo("0.62x");
    }

    @Test
    void figuresAreFormattedForTheReadme() {
        assertThat(PeerBenchmark.format(136_400, Kind.RATE)).isEqualTo("136k");
        assertThat(PeerBenchmark.format(2_718, Kind.RATE)).isEqualTo("2.7k");
        assertThat(PeerBenchmark.format(27.7, Kind.SECONDS)).isEqualTo("27.7");
        assertThat(PeerBenchmark.format(1.104, Kind.SECONDS)).isEqualTo("1.10");
        assertThat(PeerBenchmark.format(510_000, Kind.BYTES)).isEqualTo("510.0 KB");
        assertThat(PeerBenchmark.format(566e6, Kind.BYTES)).isEqualTo("566.00 MB");
    }

    @Test
    void quickAndFullSizesAreValid() {
        assertThat(PeerBenchmark.parseSizes(PeerBenchmark.FULL_SIZES).appendRows())
                .isEqualTo(1_000_000);
        assertThat(PeerBenchmark.parseSizes(PeerBenchmark.QUICK_SIZES).updates())
                .isEqualTo(20_000);
    }
}
