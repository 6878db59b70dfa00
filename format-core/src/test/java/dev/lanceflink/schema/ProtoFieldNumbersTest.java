package dev.lanceflink.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import lance.table.DataFragment;
import lance.table.DataOverlayFile;
import lance.table.DeletionFile;
import lance.table.EncodedU64Array;
import lance.table.Manifest;
import lance.table.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Pins the field numbers, types and presence of the table-format messages whose numbering is
 * easy to get wrong (gaps, out-of-order numbers, oneof members, proto3 {@code optional}). Values
 * come from the format spec; the fixtures tests check the rest against real Lance output.
 */
class ProtoFieldNumbersTest {

    @ParameterizedTest(name = "{0}.{1} = {2}")
    @CsvSource({
        // message, field, number, type, presence (true = has...() exists), oneof ("" = none)
        "Manifest, schema_metadata, 5, MESSAGE, false, ''",
        "Manifest, index_section, 6, UINT64, true, ''",
        "Manifest, max_fragment_id, 11, UINT32, true, ''",
        "Manifest, writer_version, 13, MESSAGE, true, ''",
        "Manifest, base_paths, 18, MESSAGE, false, ''",
        "Manifest, table_metadata, 19, MESSAGE, false, ''",
        "Manifest, branch, 20, STRING, true, ''",
        "Manifest, transaction_section, 21, UINT64, true, ''",
        "DataFragment, deletion_file, 3, MESSAGE, true, ''",
        "DataFragment, physical_rows, 4, UINT64, false, ''",
        "DataFragment, inline_row_ids, 5, BYTES, true, row_id_sequence",
        "DataFragment, external_row_ids, 6, MESSAGE, true, row_id_sequence",
        "DataFragment, inline_last_updated_at_versions, 7, BYTES, true, last_updated_at_version_sequence",
        "DataFragment, inline_created_at_versions, 9, BYTES, true, created_at_version_sequence",
        "DataFragment, overlays, 11, MESSAGE, false, ''",
        "DataFile, column_indices, 3, INT32, false, ''",
        "DataFile, base_id, 7, UINT32, true, ''",
        "DataOverlayFile, data_file, 1, MESSAGE, true, ''",
        "DataOverlayFile, shared_offset_bitmap, 2, BYTES, true, coverage",
        "DataOverlayFile, committed_version, 3, UINT64, false, ''",
        "DataOverlayFile, field_coverage, 4, MESSAGE, true, coverage",
        "DeletionFile, num_deleted_rows, 4, UINT64, false, ''",
        "DeletionFile, base_id, 7, UINT32, true, ''",
        "IndexMetadata, fragment_bitmap, 5, BYTES, false, ''",
        "IndexMetadata, created_at, 8, UINT64, true, ''",
        "EncodedU64Array.U64Array, values, 2, BYTES, false, ''",
        "U64Segment, array, 5, MESSAGE, true, segment",
        "Transaction, transaction_properties, 4, MESSAGE, false, ''",
        "Transaction, append, 100, MESSAGE, true, operation",
        "Transaction, data_replacement, 111, MESSAGE, true, operation",
        "Transaction, data_overlay, 115, MESSAGE, true, operation",
        "Transaction.Update, update_mode, 7, ENUM, false, ''",
        "Transaction.Update, inserted_rows, 8, MESSAGE, true, ''",
        "Transaction.Update, updated_fragment_offsets, 9, MESSAGE, false, ''",
        "Transaction.UpdateMapEntry, value, 2, STRING, true, ''",
        "Transaction.UpdateConfig, config_updates, 6, MESSAGE, true, ''",
        "Transaction.UpdateConfig, field_metadata_updates, 9, MESSAGE, false, ''",
        "Transaction.DataOverlayGroup, overlays, 2, MESSAGE, false, ''",
        "Field, metadata, 10, MESSAGE, false, ''",
        "Field, unenforced_primary_key_position, 13, UINT32, false, ''",
        "Field, unenforced_clustering_key_position, 15, UINT32, false, ''",
        "FileDescriptor, length, 2, UINT64, false, ''",
        "Schema, metadata, 5, MESSAGE, false, ''",
    })
    void fieldIsNumberedAsUpstream(
            String message, String field, int number, FieldDescriptor.Type type, boolean presence, String oneof) {
        Descriptor d = descriptor(message);
        FieldDescriptor f = d.findFieldByName(field);
        assertThat(f).as("%s.%s exists", message, field).isNotNull();
        assertThat(f.getNumber()).isEqualTo(number);
        assertThat(f.getType()).isEqualTo(type);
        assertThat(f.hasPresence()).isEqualTo(presence);
        if (oneof.isEmpty()) {
            assertThat(f.getRealContainingOneof()).isNull();
        } else {
            assertThat(f.getRealContainingOneof().getName()).isEqualTo(oneof);
        }
    }

    private static Descriptor descriptor(String message) {
        String[] parts = message.split("\\.");
        Descriptor d;
        switch (parts[0]) {
            case "Manifest":
                d = Manifest.getDescriptor();
                break;
            case "DataFragment":
                d = DataFragment.getDescriptor();
                break;
            case "DataOverlayFile":
                d = DataOverlayFile.getDescriptor();
                break;
            case "DeletionFile":
                d = DeletionFile.getDescriptor();
                break;
            case "EncodedU64Array":
                d = EncodedU64Array.getDescriptor();
                break;
            case "Transaction":
                d = Transaction.getDescriptor();
                break;
            case "Field":
                d = lance.file.Field.getDescriptor();
                break;
            case "FileDescriptor":
                d = lance.file.FileDescriptor.getDescriptor();
                break;
            case "Schema":
                d = lance.file.Schema.getDescriptor();
                break;
            default:
                d = Manifest.getDescriptor().getFile().findMessageTypeByName(parts[0]);
                if (d == null) {
                    d = lance.table.RowIdsProtos.getDescriptor().findMessageTypeByName(parts[0]);
                }
        }
        for (int i = 1; i < parts.length; i++) {
            d = d.findNestedTypeByName(parts[i]);
        }
        return d;
    }
}
