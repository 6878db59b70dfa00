package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Manifest#fragment}: the same answers with few fragments (linear search) and many (an index). */
class ManifestFragmentLookupTest {

    private static Fragment fragment(long id, long rows) {
        return Fragment.of(
                id, List.of(new DataFile("f" + id + ".lance", new int[] {0}, new int[] {0}, 2, 1, 10)), rows);
    }

    @ParameterizedTest(name = "{0} fragments")
    @ValueSource(ints = {0, 1, 8, 9, 500})
    void findsEveryFragmentByIdInListOrderAndNothingElse(int n) {
        List<Fragment> fragments = new ArrayList<>();
        // Not sorted by id, as after a compaction that put new fragments where the old ones were.
        for (int i = 0; i < n; i++) {
            fragments.add(fragment((i * 7L) % (n + 3) + 1000L * (i % 2), i + 1));
        }
        Manifest m = Manifest.builder().fragments(fragments).build();
        for (Fragment f : fragments) {
            assertThat(m.fragment(f.id())).containsSame(f);
        }
        assertThat(m.fragment(-1)).isEmpty();
        assertThat(m.fragment(999_999)).isEmpty();
    }

    @Test
    void aDuplicateIdFindsTheFirstAsTheLinearSearchDid() {
        List<Fragment> fragments = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            fragments.add(fragment(i, 1));
        }
        Fragment first = fragment(5, 100);
        fragments.set(3, first);
        Manifest m = Manifest.builder().fragments(fragments).build();
        assertThat(m.fragment(5)).containsSame(first);
    }
}
