package dev.lanceflink.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanceflink.flink.testutil.SampleTable;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which metadata columns a {@link LanceSource} appends, in which order, and what it refuses. */
class LanceSourceMetadataColumnsTest {
    @TempDir
    Path dir;

    @Test
    void metadataColumnsFollowTheColumnsInTheOrderAsked() throws Exception {
        String uri = dir.resolve("t.lance").toString();
        SampleTable.write(uri);

        LanceSource s = LanceSource.builder(uri)
                .columns(List.of("id"))
                .metadataColumns(List.of("_rowid", "_rowaddr"))
                .build();

        assertThat(s.producedRowType().getFields())
                .extracting(RowType.RowField::getName)
                .containsExactly("id", "_rowid", "_rowaddr");
        assertThat(s.producedRowType().getTypeAt(1)).isEqualTo(new BigIntType(false));
        assertThat(s.spec().metadataColumns()).containsExactly(MetadataColumn.ROW_ID, MetadataColumn.ROW_ADDRESS);
        assertThat(s.spec().withRowAddress()).isTrue();

        // withRowAddress toggles only _rowaddr and keeps the rest.
        LanceSource noAddr = LanceSource.builder(uri)
                .columns(List.of("id"))
                .metadataColumns(List.of("_rowaddr", "_rowid"))
                .withRowAddress(false)
                .build();
        assertThat(noAddr.spec().metadataColumns()).containsExactly(MetadataColumn.ROW_ID);
    }

    @Test
    void unknownOrRepeatedMetadataColumnsAreRefused() {
        assertThatThrownBy(() -> LanceSource.builder("unused").metadataColumns(List.of("_rowidx")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unknown Lance metadata column '_rowidx'")
                .hasMessageContaining("[_rowaddr, _rowid]");
        assertThatThrownBy(() -> LanceSource.builder("unused").metadataColumns(List.of("_rowid", "_rowid")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("asked for twice");
    }
}
