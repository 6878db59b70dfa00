package dev.lanceflink.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The HTTP requests that opening and scanning a table cost on S3, counted below the store by
 * {@link RequestCounter}. Exact counts: a change in them is a change in what users pay per
 * query, so it must be deliberate.
 */
class S3ScanRequestsTest {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(new ArrowType.Utf8()), null)));

    private final RequestCounter counter = new RequestCounter();

    private static VectorSchemaRoot rows(BufferAllocator allocator, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector name = (VarCharVector) root.getVector("name");
        for (int i = 0; i < n; i++) {
            id.setSafe(i, i);
            name.setSafe(i, ("name-" + i).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        return root;
    }

    @Test
    void openingAndScanningATableOfFourFilesCostsKnownRequests() throws Exception {
        String uri = S3TestClients.freshUri(S3.server(), "scan-requests");
        try (BufferAllocator allocator = new RootAllocator();
                S3ObjectStore store = S3TestClients.open(uri, S3.server().config(), counter, null)) {
            try (VectorSchemaRoot r = rows(allocator, 400)) {
                Dataset.write(
                        store,
                        allocator,
                        List.of(r),
                        SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100));
            }
            counter.reset();
            long rows = 0;
            try (Dataset ds = Dataset.open(store, allocator)) {
                // GET of the version hint (no HEAD first: a missing hint is a 404 of the GET),
                // HEAD of the hinted manifest and of the next version (absent: the hinted one is the
                // latest), then one ranged GET of the manifest, whose tail holds all of it; its size
                // is known from the HEAD. Before: 4 HEAD + 2 GET.
                assertThat(counter.snapshot())
                        .isEqualTo(Map.of("HeadObject", 2, "GetObject", 2, RequestCounter.RANGED_GET, 1));
                counter.reset();
                assertThat(ds.fragments()).hasSize(4);
                try (Scanner s = ds.scan(ScanOptions.all())) {
                    while (s.hasNext()) {
                        try (VectorSchemaRoot b = s.next()) {
                            rows += b.getRowCount();
                        }
                    }
                }
            }
            // 5 ranged GETs per two-column file: the tail with footer and metadata, and the
            // pages. No HEAD: the manifest records each file's size (DataFile.file_size_bytes) and
            // the first GET brings the ETag that pins the others. Before: 4 HEAD + 20 GET.
            assertThat(counter.snapshot()).isEqualTo(Map.of("GetObject", 20, RequestCounter.RANGED_GET, 20));
            assertThat(counter.total()).isEqualTo(20);
            assertThat(rows).isEqualTo(400);
        }
    }
}
