package dev.lanceflink.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import lance.encodings21.RepDefLayer;
import org.junit.jupiter.api.Test;

class NestedStructureTest {

    private static LeafLevels levels(RepDefLayers layers, short[] rep, short[] def) {
        LeafLevels l = new LeafLevels(rep != null, 4);
        short[] d = def.clone();
        layers.canonicalize(d, 0, d.length);
        l.append(rep, d, 0, d.length);
        return l;
    }

    @Test
    void canonicalCodesFollowTheLayers() {
        RepDefLayers l = RepDefLayers.of(List.of(
                RepDefLayer.REPDEF_NULLABLE_ITEM,
                RepDefLayer.REPDEF_ALL_VALID_ITEM,
                RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST));
        assertThat(l.maxRep()).isEqualTo(1);
        assertThat(l.maxDef()).isEqualTo(3);
        assertThat(l.canonical(0)).isEqualTo((short) 0);
        assertThat(l.canonical(1)).isEqualTo((short) 1); // leaf null
        assertThat(l.canonical(2)).isEqualTo((short) 5); // list (layer 2) null
        assertThat(l.canonical(3)).isEqualTo((short) 6); // list empty
        assertThat(l.visible(1)).isTrue();
        assertThat(l.visible(5)).isFalse();
        assertThatThrownBy(() -> l.canonical(4)).hasMessageContaining("larger than the page's maximum 3");
    }

    @Test
    void nullableIntInsideNullableStruct() {
        // s: struct (nullable) { a: int32 (nullable) }: rows {a:1}, {a:null}, null
        RepDefLayers l = RepDefLayers.of(List.of(RepDefLayer.REPDEF_NULLABLE_ITEM, RepDefLayer.REPDEF_NULLABLE_ITEM));
        NestedStructure s =
                NestedStructure.assemble(levels(l, null, new short[] {0, 1, 2}), new boolean[] {false, false});
        assertThat(s.count(0)).isEqualTo(3);
        assertThat(s.count(1)).isEqualTo(3);
        assertThat(new boolean[] {s.valid(0, 0), s.valid(0, 1), s.valid(0, 2)}).containsExactly(true, true, false);
        assertThat(new boolean[] {s.valid(1, 0), s.valid(1, 1), s.valid(1, 2)}).containsExactly(true, false, false);
    }

    @Test
    void listOfNullableIntsWithNullAndEmptyLists() {
        // [[1, null], null, [], [2]]
        RepDefLayers l =
                RepDefLayers.of(List.of(RepDefLayer.REPDEF_NULLABLE_ITEM, RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST));
        short[] rep = {1, 0, 1, 1, 1};
        short[] def = {0, 1, 2, 3, 0};
        NestedStructure s = NestedStructure.assemble(levels(l, rep, def), new boolean[] {true, false});
        assertThat(s.count(0)).isEqualTo(4);
        assertThat(s.offsets(0)).startsWith(0, 2, 2, 2, 3);
        assertThat(new boolean[] {s.valid(0, 0), s.valid(0, 1), s.valid(0, 2), s.valid(0, 3)})
                .containsExactly(true, false, true, true);
        assertThat(s.count(1)).isEqualTo(3);
        assertThat(new boolean[] {s.valid(1, 0), s.valid(1, 1), s.valid(1, 2)}).containsExactly(true, false, true);
    }

    @Test
    void listOfLists() {
        // [[[1], [2, 3]], [[]], [[4]]] with rep levels numbered 2 (row) .. 0
        RepDefLayers l = RepDefLayers.of(List.of(
                RepDefLayer.REPDEF_ALL_VALID_ITEM,
                RepDefLayer.REPDEF_EMPTYABLE_LIST,
                RepDefLayer.REPDEF_ALL_VALID_LIST));
        short[] rep = {2, 1, 0, 2, 2};
        short[] def = {0, 0, 0, 1, 0};
        NestedStructure s = NestedStructure.assemble(levels(l, rep, def), new boolean[] {true, true, false});
        assertThat(s.count(0)).isEqualTo(3);
        assertThat(s.offsets(0)).startsWith(0, 2, 3, 4);
        assertThat(s.count(1)).isEqualTo(4);
        assertThat(s.offsets(1)).startsWith(0, 1, 3, 3, 4);
        assertThat(s.count(2)).isEqualTo(4);
    }

    @Test
    void readMustStartAtARow() {
        RepDefLayers l = RepDefLayers.of(List.of(RepDefLayer.REPDEF_ALL_VALID_ITEM, RepDefLayer.REPDEF_ALL_VALID_LIST));
        assertThatThrownBy(() -> NestedStructure.assemble(
                        levels(l, new short[] {0, 1}, new short[] {0, 0}), new boolean[] {true, false}))
                .hasMessageContaining("did not start at a row boundary");
    }
}
