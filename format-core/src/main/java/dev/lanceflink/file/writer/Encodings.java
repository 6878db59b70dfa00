package dev.lanceflink.file.writer;

import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import com.google.protobuf.Message;
import lance.encodings.ArrayEncoding;
import lance.encodings.Buffer;
import lance.encodings.ColumnEncoding;
import lance.encodings.Nullable;
import lance.encodings21.CompressiveEncoding;
import lance.encodings21.FixedSizeList;
import lance.encodings21.Flat;
import lance.encodings21.Variable;

/**
 * Protobuf helpers for encodings. Lance stores every page and column encoding as a
 * {@code google.protobuf.Any} whose type URL is {@code /<full message name>} (leading slash, no
 * domain), exactly as its own writer does.
 */
final class Encodings {
    static final String PAGE_LAYOUT_URL = "/lance.encodings21.PageLayout";
    static final String ARRAY_ENCODING_URL = "/lance.encodings.ArrayEncoding";
    static final String COLUMN_ENCODING_URL = "/lance.encodings.ColumnEncoding";

    private Encodings() {}

    static byte[] any(String typeUrl, Message value) {
        return Any.newBuilder()
                .setTypeUrl(typeUrl)
                .setValue(value.toByteString())
                .build()
                .toByteArray();
    }

    /** {@code ColumnEncoding{values: Empty}}, the only column encoding Lance accepts for plain columns. */
    static byte[] plainColumnEncoding() {
        return any(
                COLUMN_ENCODING_URL,
                ColumnEncoding.newBuilder()
                        .setValues(Empty.getDefaultInstance())
                        .build());
    }

    static CompressiveEncoding flat(long bits) {
        return CompressiveEncoding.newBuilder()
                .setFlat(Flat.newBuilder().setBitsPerValue(bits))
                .build();
    }

    static CompressiveEncoding variable(int offsetBits) {
        return CompressiveEncoding.newBuilder()
                .setVariable(Variable.newBuilder().setOffsets(flat(offsetBits)))
                .build();
    }

    static CompressiveEncoding fixedSizeList(long dimension, long itemBits, boolean hasValidity) {
        return CompressiveEncoding.newBuilder()
                .setFixedSizeList(FixedSizeList.newBuilder()
                        .setItemsPerValue(dimension)
                        .setHasValidity(hasValidity)
                        .setValues(flat(itemBits)))
                .build();
    }

    // ---- 2.0 ArrayEncoding helpers (qualified: lance.encodings and lance.encodings21 share names like Flat)

    static ArrayEncoding flat20(long bits, int bufferIndex) {
        return ArrayEncoding.newBuilder()
                .setFlat(lance.encodings.Flat.newBuilder()
                        .setBitsPerValue(bits)
                        .setBuffer(
                                Buffer.newBuilder().setBufferIndex(bufferIndex).setBufferType(Buffer.BufferType.page)))
                .build();
    }

    static ArrayEncoding noNull(ArrayEncoding values) {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder()
                        .setNoNulls(Nullable.NoNull.newBuilder().setValues(values)))
                .build();
    }

    static ArrayEncoding someNull(ArrayEncoding validity, ArrayEncoding values) {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder()
                        .setSomeNulls(Nullable.SomeNull.newBuilder()
                                .setValidity(validity)
                                .setValues(values)))
                .build();
    }

    static ArrayEncoding allNull() {
        return ArrayEncoding.newBuilder()
                .setNullable(Nullable.newBuilder().setAllNulls(Nullable.AllNull.getDefaultInstance()))
                .build();
    }
}
