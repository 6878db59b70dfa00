package dev.lanceflink.oracle;

import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hands one populated {@link VectorSchemaRoot} to the SDK as an {@link ArrowReader}.
 *
 * <p>Why not an IPC round trip: buffers read back from an Arrow IPC stream are only 8-byte
 * aligned, and the SDK's Rust side panics (aborting the whole JVM) when it imports a
 * decimal128 column that is not 16-byte aligned. Loading the root's own buffers keeps the
 * allocator's alignment.
 */
final class SingleBatchReader extends ArrowReader {

    private final VectorSchemaRoot source;
    private boolean consumed;

    SingleBatchReader(VectorSchemaRoot source, BufferAllocator allocator) {
        super(allocator);
        this.source = source;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
        ensureInitialized();
        if (consumed || source.getRowCount() == 0) {
            return false;
        }
        consumed = true;
        try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
            loadRecordBatch(batch);
        }
        return true;
    }

    @Override
    public long bytesRead() {
        return 0;
    }

    @Override
    protected void closeReadSource() {
        // The source root belongs to the caller.
    }

    @Override
    protected Schema readSchema() {
        return source.getSchema();
    }
}
