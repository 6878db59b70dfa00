package dev.lanceflink.txn;

import dev.lanceflink.schema.LanceSchema;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;

/** Small builders shared by the transaction tests. */
final class TxnFixtures {
    private TxnFixtures() {}

    static Path dataset(String name) throws Exception {
        URL url = TxnFixtures.class.getResource("/fixtures/lance-7.0.0/" + name + ".lance");
        if (url == null) {
            throw new IllegalStateException("fixture " + name + " is not on the test classpath");
        }
        return Path.of(url.toURI());
    }

    /** A two-column schema (id int64 = 0, name string = 1). */
    static LanceSchema schema() {
        return LanceSchema.fromProto(
                List.of(
                        lance.file.Field.newBuilder()
                                .setName("id")
                                .setId(0)
                                .setParentId(-1)
                                .setLogicalType("int64")
                                .build(),
                        lance.file.Field.newBuilder()
                                .setName("name")
                                .setId(1)
                                .setParentId(-1)
                                .setLogicalType("string")
                                .setNullable(true)
                                .build()),
                java.util.Map.of());
    }

    /** A fabricated 2.1 fragment with id 0 (unassigned) holding both fields. */
    static Fragment fragment(String file, long rows) {
        return Fragment.of(
                0, List.of(new DataFile(file + ".lance", new int[] {0, 1}, new int[] {0, 1}, 2, 1, 100 + rows)), rows);
    }
}
