package dev.lanceflink.it.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.dataset.Dataset;
import dev.lanceflink.dataset.WriteMode;
import dev.lanceflink.dataset.WriteParams;
import dev.lanceflink.read.ScanOptions;
import dev.lanceflink.read.Scanner;
import dev.lanceflink.txn.Operation;
import dev.lanceflink.txn.Transaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The {@code (id int64, name utf8, age int32, score float64)} table of {@link SinkChangelog}:
 * created from model rows, read back and compared with the expected rows cell by cell, on any
 * store; shared by the sink tests, including those where another writer (the Java SDK, pylance)
 * commits to the same table.
 */
public final class SinkTables {
  public static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(new ArrowType.Utf8()), null),
      new Field("age", FieldType.nullable(new ArrowType.Int(32, true)), null),
      new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

  private SinkTables() {}

  /** Creates the table at {@code uri} holding {@code rows}, in fragments of {@code rowsPerFile} rows. */
  public static void create(String uri, Map<Long, SinkChangelog.Row> rows, long rowsPerFile) throws Exception {
    create(uri, Map.of(), rows, rowsPerFile);
  }

  /** As {@link #create(String, Map, long)} on any store ({@code storage} = Lance storage options). */
  public static void create(String uri, Map<String, String> storage, Map<Long, SinkChangelog.Row> rows,
      long rowsPerFile) throws Exception {
    try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
      root.allocateNew();
      int i = 0;
      for (Map.Entry<Long, SinkChangelog.Row> e : rows.entrySet()) {
        SinkChangelog.Row r = e.getValue();
        ((BigIntVector) root.getVector("id")).setSafe(i, e.getKey());
        if (r.name() == null) {
          ((VarCharVector) root.getVector("name")).setNull(i);
        } else {
          ((VarCharVector) root.getVector("name")).setSafe(i, r.name().getBytes(StandardCharsets.UTF_8));
        }
        if (r.age() == null) {
          ((IntVector) root.getVector("age")).setNull(i);
        } else {
          ((IntVector) root.getVector("age")).setSafe(i, r.age());
        }
        if (r.score() == null) {
          ((Float8Vector) root.getVector("score")).setNull(i);
        } else {
          ((Float8Vector) root.getVector("score")).setSafe(i, r.score());
        }
        i++;
      }
      root.setRowCount(i);
      Dataset.write(uri, storage, List.of(root), SCHEMA,
          WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFile)).close();
    }
  }

  /** Every live row of the latest version by id; fails on an id that appears twice. */
  public static TreeMap<Long, SinkChangelog.Row> read(String uri) throws Exception {
    return read(uri, Map.of());
  }

  /** As {@link #read(String)} on any store. */
  public static TreeMap<Long, SinkChangelog.Row> read(String uri, Map<String, String> storage) throws Exception {
    TreeMap<Long, SinkChangelog.Row> rows = new TreeMap<>();
    try (Dataset ds = Dataset.open(uri, storage); Scanner s = ds.scan(ScanOptions.all())) {
      while (s.hasNext()) {
        try (VectorSchemaRoot b = s.next()) {
          BigIntVector id = (BigIntVector) b.getVector("id");
          VarCharVector name = (VarCharVector) b.getVector("name");
          IntVector age = (IntVector) b.getVector("age");
          Float8Vector score = (Float8Vector) b.getVector("score");
          for (int i = 0; i < b.getRowCount(); i++) {
            SinkChangelog.Row row = new SinkChangelog.Row(
                name.isNull(i) ? null : new String(name.get(i), StandardCharsets.UTF_8),
                age.isNull(i) ? null : age.get(i), score.isNull(i) ? null : score.get(i));
            assertThat(rows.put(id.get(i), row)).as("id %s appears twice", id.get(i)).isNull();
          }
        }
      }
    }
    return rows;
  }

  /** Every live row equals {@code expected}'s, cell by cell; no id twice, none missing, none extra. */
  public static void assertEquals(String uri, Map<String, String> storage, TreeMap<Long, SinkChangelog.Row> expected,
      String what) throws Exception {
    TreeMap<Long, SinkChangelog.Row> actual = read(uri, storage);
    List<String> diffs = new ArrayList<>();
    TreeSet<Long> ids = new TreeSet<>(expected.keySet());
    ids.addAll(actual.keySet());
    for (Long id : ids) {
      if (!SinkChangelog.same(expected.get(id), actual.get(id)) && diffs.size() < 20) {
        diffs.add("id " + id + ": expected " + expected.get(id) + ", table has " + actual.get(id));
      }
    }
    assertThat(diffs).as("rows differing from %s (first 20)", what).isEmpty();
    assertThat(actual).hasSameSizeAs(expected);
  }

  /**
   * Counts the table's versions after the first that lack the sink's commit marker (the other
   * writer's commits) into {@code seen}, polling until stopped: the sink's source waits on it so
   * that both writers demonstrably interleave.
   */
  public static final class ForeignCommitWatcher implements AutoCloseable {
    private final AtomicBoolean watching = new AtomicBoolean(true);
    private final Thread thread;

    public ForeignCommitWatcher(String uri, Map<String, String> storage, AtomicInteger seen) {
      this(uri, storage, seen, new AtomicInteger());
    }

    /**
     * Also counts into {@code rewritesAmidSink} the other writer's compactions ({@code Rewrite}
     * versions) that land after the sink's first commit: a source can hold its last change until
     * one has, so that rows demonstrably move under the running sink however fast it is.
     */
    public ForeignCommitWatcher(String uri, Map<String, String> storage, AtomicInteger seen,
        AtomicInteger rewritesAmidSink) {
      seen.set(0);
      rewritesAmidSink.set(0);
      thread = new Thread(() -> watch(uri, storage, seen, rewritesAmidSink), "foreign-commit-watcher");
      thread.setDaemon(true);
      thread.start();
    }

    private void watch(String uri, Map<String, String> storage, AtomicInteger seen, AtomicInteger rewritesAmidSink) {
      long checked = 1;
      int count = 0;
      boolean sinkCommitted = false;
      while (watching.get()) {
        try (Dataset ds = Dataset.open(uri, storage)) {
          for (long v = checked + 1; v <= ds.version(); v++) {
            try (Dataset at = ds.checkoutVersion(v)) {
              Optional<Transaction> txn = at.transaction();
              boolean foreign = txn.map(t -> !t.properties().containsKey(CommitMarker.COMMIT_USER_KEY)).orElse(false);
              if (foreign) {
                seen.set(++count);
                if (sinkCommitted && txn.get().operation() instanceof Operation.Rewrite) {
                  rewritesAmidSink.incrementAndGet();
                }
              } else if (txn.isPresent()) {
                sinkCommitted = true;
              }
            }
            checked = v;
          }
        } catch (Exception e) {
          // A version being published right now may not be readable yet; look again next round.
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      watching.set(false);
      thread.join(10_000);
    }
  }
}
