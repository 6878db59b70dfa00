package dev.lanceflink.table;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/**
 * Where a fragment's serialized row-id or row-version sequence lives: inline in the manifest, or
 * in a range of another file ({@code ExternalFile}). The bytes are a serialized
 * {@code RowIdSequence} / {@code RowDatasetVersionSequence} without length prefix; see
 * {@code dev.lanceflink.rowid}.
 */
public sealed interface SequenceSource {

    record Inline(byte[] bytes) implements SequenceSource {
        public Inline {
            bytes = requireNonNull(bytes, "bytes is null").clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Inline i && Arrays.equals(bytes, i.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "Inline[" + bytes.length + " bytes]";
        }
    }

    /** @param path relative to the dataset root */
    record External(String path, long offset, long size) implements SequenceSource {
        public External {
            requireNonNull(path, "path is null");
        }
    }
}
