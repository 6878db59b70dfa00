package dev.lanceflink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.io.StoreBackedSuite;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Manifests read back from a real store: the version in the name must match the content, and a
 * manifest larger than the first tail read takes a second ranged read. Encoding and decoding are
 * tested against the Lance fixtures in {@link ManifestIOTest}.
 *
 * <p>Runs locally as {@link ManifestStoreTest} and on S3 as s3-store's {@code S3ManifestStoreTest}.
 */
public abstract class ManifestStoreSuite extends StoreBackedSuite {

    @Test
    void readDetectsVersionNameMismatch() throws Exception {
        ObjectStore store = newStore();
        store.put(ManifestNamingScheme.V2.path(3), ManifestIO.serialize(ManifestIOTest.richManifest()));
        assertThatThrownBy(() -> ManifestIO.read(store, ManifestLocation.of(3, ManifestNamingScheme.V2)))
                .isInstanceOf(CorruptTableException.class)
                .hasMessageContaining("is named for version 3 but contains version 9");
    }

    @Test
    void readsLargeManifestWithSecondRangedRead() throws Exception {
        List<Fragment> frags = new java.util.ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            frags.add(Fragment.of(
                    i,
                    List.of(new DataFile(
                            "file-number-" + i + "-abcdefghijklmnopqrstuvwxyz.lance",
                            new int[] {0, 1, 2},
                            new int[] {0, 1, 2},
                            2,
                            1,
                            1000 + i)),
                    10));
        }
        Manifest m = ManifestIOTest.richManifest().toBuilder()
                .version(2)
                .fragments(frags)
                .build();
        byte[] bytes = ManifestIO.serialize(m);
        assertThat(bytes.length).isGreaterThan(ManifestIO.TAIL_READ);
        ObjectStore store = newStore();
        store.put(ManifestNamingScheme.V2.path(2), bytes);
        Manifest back = ManifestIO.read(store, ManifestLocation.of(2, ManifestNamingScheme.V2));
        assertThat(back.fragments()).isEqualTo(frags);
        assertThat(back.inlineTransaction()).isPresent();
    }
}
