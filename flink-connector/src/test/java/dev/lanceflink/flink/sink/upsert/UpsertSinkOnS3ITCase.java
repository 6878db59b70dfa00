package dev.lanceflink.flink.sink.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.flink.sink.FaultyStoreProvider;
import dev.lanceflink.flink.sink.LanceSinkBuilder;
import dev.lanceflink.flink.sink.LanceSinkMode;
import dev.lanceflink.s3.S3ProxyExtension;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.testkit.flink.JobEnvironments;
import dev.lanceflink.testkit.flink.MiniClusters;
import dev.lanceflink.testkit.users.UsersChangelog;
import dev.lanceflink.testkit.users.UsersChangelog.Mix;
import dev.lanceflink.testkit.users.UsersTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upsert sink on a real S3 server (S3Proxy on loopback, started by the test): a changelog
 * over a table that already holds keys ends equal to the model, with updates as overlays, also
 * with injected writer failures that restore from checkpoints; 200,000 changes over 10,000 keys
 * with 21 injected failures (writers, committer before and after publishing, lost responses).
 */
class UpsertSinkOnS3ITCase {
    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusters.oneTaskManager(3);

    @Test
    void twoHundredThousandChangesWithTwentyFailuresOnS3EndEqualToTheModel() throws Exception {
        String bucket = S3.server().createBucket("upsert-faults-" + System.nanoTime());
        String uri = "s3://" + bucket + "/tables/users.lance";
        Map<String, String> storage = S3.server().storageOptions();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(5_000);
        UsersTable.create(uri, storage, initial, 1_700);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(2026, 200_000, 10_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        FaultyStoreProvider.reset();
        UpsertSinkITCase.WRITER_FAILURES.set(6);
        FaultyStoreProvider.FAULTS.failNextPublications(5);
        FaultyStoreProvider.FAULTS.loseNextResponses(5);
        FaultyStoreProvider.FAULTS.crashAfterNextPublications(5);

        StreamExecutionEnvironment env = JobEnvironments.streaming(3, 500, 60, Duration.ofMillis(20), null);
        LanceSinkBuilder.forTable("faulty://" + uri)
                .storageOptions(storage)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(2_000)
                .uidSuffix("s3-upsert-faults")
                .commitRetries(2)
                .commitRetryBackoff(Duration.ZERO)
                .sinkTo(env.fromSequence(0, UpsertSinkITCase.ChangeAt.sequenceEnd())
                        .setParallelism(1)
                        .map(new UpsertSinkITCase.ChangeAt(100, 25_000))
                        .setParallelism(1)
                        .returns(RowData.class));
        env.execute("200k upserts on S3 with failures");

        assertThat(UpsertSinkITCase.WRITER_FAILURES.get()).isZero();
        assertThat(FaultyStoreProvider.FAULTS.injected()).isEqualTo(15);
        UsersTable.assertLatestEquals(uri, storage, m.model);
        try (Dataset ds = Dataset.open(uri, storage)) {
            long physical = ds.manifest().fragments().stream()
                    .mapToLong(Fragment::physicalRows)
                    .sum();
            assertThat(physical).as("rows written only for new keys").isLessThanOrEqualTo(initial.size() + m.inserts);
            assertThat(physical - m.model.size())
                    .as("rows hidden by deletion vectors")
                    .isLessThanOrEqualTo(m.deletes);
        }
    }

    @Test
    void aMillionAppendedRowsLandExactlyOnceOnS3() throws Exception {
        String bucket = S3.server().createBucket("append-" + System.nanoTime());
        String uri = "s3://" + bucket + "/tables/events.lance";
        Map<String, String> storage = S3.server().storageOptions();
        UsersTable.create(uri, storage, new TreeMap<>(), 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(3); // the cluster has 3 slots
        env.enableCheckpointing(1_000);
        LanceSinkBuilder.forTable(uri)
                .storageOptions(storage)
                .rowsPerFile(250_000)
                .uidSuffix("s3-append")
                .sinkTo(env.fromSequence(1, 1_000_000)
                        .map(id -> (RowData) org.apache.flink.table.data.GenericRowData.of(
                                id,
                                org.apache.flink.table.data.StringData.fromString("e" + id),
                                (int) (id % 100),
                                id / 2.0))
                        .returns(RowData.class));
        env.execute("a million rows into S3");

        try (Dataset ds = Dataset.open(uri, storage)) {
            assertThat(ds.countRows()).isEqualTo(1_000_000);
            java.util.BitSet seen = new java.util.BitSet(1_000_001);
            long duplicates = 0;
            try (dev.lanceflink.read.Scanner sc =
                    ds.scan(dev.lanceflink.read.ScanOptions.all().withColumns(List.of("id")))) {
                while (sc.hasNext()) {
                    try (org.apache.arrow.vector.VectorSchemaRoot b = sc.next()) {
                        org.apache.arrow.vector.BigIntVector id = (org.apache.arrow.vector.BigIntVector) b.getVector(0);
                        for (int i = 0; i < b.getRowCount(); i++) {
                            int v = (int) id.get(i);
                            duplicates += seen.get(v) ? 1 : 0;
                            seen.set(v);
                        }
                    }
                }
            }
            assertThat(duplicates).isZero();
            assertThat(seen.cardinality()).isEqualTo(1_000_000);
            assertThat(seen.get(0)).isFalse();
        }
    }

    @Test
    void upsertChangelogOnS3EndsEqualToTheModel() throws Exception {
        String bucket = S3.server().createBucket("upsert-" + System.nanoTime());
        String uri = "s3://" + bucket + "/tables/users.lance";
        Map<String, String> storage = S3.server().storageOptions();
        TreeMap<Long, UsersTable.Row> initial = Mix.SINK_TESTS.initialRows(2_000);
        UsersTable.create(uri, storage, initial, 700);
        UsersChangelog m = new UsersChangelog(initial, Mix.SINK_TESTS).generate(11, 30_000, 4_000, false);
        UpsertSinkITCase.CHANGES = m.changes;
        UpsertSinkITCase.WRITER_FAILURES.set(3);

        StreamExecutionEnvironment env = JobEnvironments.streaming(2, 300, 10, Duration.ofMillis(20), null);
        LanceSinkBuilder.forTable(uri)
                .storageOptions(storage)
                .mode(LanceSinkMode.UPSERT)
                .primaryKey("id")
                .rowsPerFile(1000)
                .uidSuffix("s3-upsert")
                .sinkTo(env.fromSequence(0, UpsertSinkITCase.ChangeAt.sequenceEnd())
                        .setParallelism(1)
                        .map(new UpsertSinkITCase.ChangeAt(30, 4_000))
                        .setParallelism(1)
                        .returns(RowData.class));
        env.execute("upsert on S3");

        assertThat(UpsertSinkITCase.WRITER_FAILURES.get()).isZero();
        UsersTable.assertLatestEquals(uri, storage, m.model);
        try (Dataset ds = Dataset.open(uri, storage)) {
            long physical = ds.manifest().fragments().stream()
                    .mapToLong(Fragment::physicalRows)
                    .sum();
            assertThat(physical).isLessThanOrEqualTo(initial.size() + m.inserts);
            assertThat(ds.manifest().fragments().stream()
                            .mapToLong(f -> f.overlays().size())
                            .sum())
                    .isPositive();
            // Checkpoints with new rows, deletions and overlays commit them as one Update.
            assertThat(ds.versions().stream().map(v -> v.operation()).distinct().toList())
                    .containsAnyOf("Update", "DataOverlay");
        }
        assertThat(List.of(m.updates, m.deletes)).allSatisfy(n -> assertThat(n).isPositive());
    }
}
