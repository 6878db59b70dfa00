package dev.lanceflink.flink.table;

import dev.lanceflink.testkit.users.UsersTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** What the SQL tests of this package share: the worked example's table and result collection. */
final class SqlTestSupport {
    /** The spec's worked {@code users} table: {@code id BIGINT NOT NULL, name STRING, age INT}. */
    static final Schema USERS = UsersTable.EXAMPLE_SCHEMA;

    private SqlTestSupport() {}

    /** The rows {@code sql} returns, each as {@link Row#toString()} ({@code +I[1, Alice, 30]}), in order. */
    static List<String> rows(TableEnvironment t, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql(sql).collect()) {
            it.forEachRemaining(r -> out.add(r.toString()));
        }
        return out;
    }
}
