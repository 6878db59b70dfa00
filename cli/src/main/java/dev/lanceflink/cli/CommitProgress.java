package dev.lanceflink.cli;

import static java.util.Objects.requireNonNull;

import dev.lanceflink.committer.core.CommitMarker;
import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.TableFiles;
import dev.lanceflink.txn.TableHistory;
import dev.lanceflink.txn.Transaction;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Progress of the Lance sinks of one running statement, read from the tables themselves: one
 * line per version the statement's job committed, and a summary when it ends (or is stopped).
 *
 * <p>The tables are the source because they are what a commit is: a version whose transaction
 * carries the sink's commit marker ({@link CommitMarker}) with the job's id. A poller probes the
 * next version of each table (one HEAD request while nothing happens), reads the new manifest and
 * compares it with the previous one. Versions of other writers (a compaction, the sink's in-job
 * maintenance) are passed over silently. The figures of a commit:
 * <ul>
 *   <li>rows appended: the physical rows of fragments the version added;
 *   <li>cells and overlay files: the data overlay files the version added and the cells they cover;
 *   <li>rows deleted: rows the version marked deleted or removed with their fragment;
 *   <li>lag: the commit's timestamp minus the newest modification time of the data and overlay
 *       files it added, i.e. how long the checkpoint's last written data waited to become visible
 *       (checkpoint completion plus the commit; absent when the version added no files).
 * </ul>
 */
final class CommitProgress implements AutoCloseable {
    /** How often the tables are probed for a new version. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(500);
    /** Versions each table's history keeps: the walk only moves forward. */
    private static final int HISTORY_CAPACITY = 8;
    /** At most this many files are asked for their modification time per version (for the lag). */
    private static final int MAX_LAG_PROBES = 64;

    /** What one commit changed. */
    record Figures(long rowsAppended, long cells, int overlayFiles, long rowsDeleted) {
        Figures plus(Figures o) {
            return new Figures(
                    rowsAppended + o.rowsAppended,
                    cells + o.cells,
                    overlayFiles + o.overlayFiles,
                    rowsDeleted + o.rowsDeleted);
        }
    }

    private final PrintStream err;
    private final List<Watched> tables = new ArrayList<>();
    private volatile String jobId;
    private Thread poller;
    private boolean finished;

    private CommitProgress(PrintStream err) {
        this.err = err;
    }

    /**
     * Notes the current version of each table; call before the job is submitted, so that no commit
     * of it is missed. Tables that cannot be opened are left out (with a note), never failing the
     * statement.
     */
    static CommitProgress before(List<TableLocation> locations, PrintStream err) {
        CommitProgress progress = new CommitProgress(err);
        for (TableLocation location : locations) {
            try {
                progress.tables.add(new Watched(location));
            } catch (IOException | RuntimeException e) {
                err.println("[WARN] no commit progress for " + location + ": " + LanceFlinkCli.message(e));
            }
        }
        return progress;
    }

    /** Starts reporting the commits of {@code job}. */
    synchronized void start(String job) {
        this.jobId = requireNonNull(job, "job is null");
        if (tables.isEmpty()) {
            return;
        }
        poller = new Thread(
                () -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            poll();
                            Thread.sleep(POLL_INTERVAL.toMillis());
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "lance-flink-commit-progress");
        poller.setDaemon(true);
        poller.start();
    }

    /** Reads every version committed since the last poll and prints the job's commits. */
    synchronized void poll() {
        if (jobId == null || finished) {
            return;
        }
        for (Watched table : tables) {
            try {
                table.readNewVersions(jobId, err);
            } catch (IOException | RuntimeException e) {
                // Progress is informational: a failed read is tried again at the next poll.
                if (!table.warned) {
                    err.println(
                            "[WARN] cannot read the progress of " + table.location + ": " + LanceFlinkCli.message(e));
                    table.warned = true;
                }
            }
        }
    }

    /**
     * Stops polling after reading the last commits, and prints the summary: {@code how} says how
     * the statement ended ("finished", "failed", "interrupted"). Only the first call prints.
     */
    void finish(String how) {
        Thread running;
        synchronized (this) {
            running = poller;
            poller = null;
        }
        if (running != null) {
            running.interrupt();
            try {
                running.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (finished) {
                return;
            }
            poll();
            finished = true;
            if (jobId != null) {
                for (Watched table : tables) {
                    err.println(table.summary(jobId, how));
                }
                err.flush();
            }
            for (Watched table : tables) {
                try {
                    table.store.close();
                } catch (IOException | RuntimeException e) {
                    // Nothing was written through it; a failed close loses nothing.
                }
            }
        }
    }

    @Override
    public void close() {
        finish("finished");
    }

    /** The commit line for {@code version} of {@code table}. */
    static String commitLine(String table, long version, long checkpoint, Figures f, Optional<Duration> lag) {
        return "[INFO] commit " + table + " version " + version + " checkpoint " + checkpoint + ": "
                + f.rowsAppended() + " rows appended, " + f.cells() + " cells in " + f.overlayFiles()
                + " overlay files, " + f.rowsDeleted() + " rows deleted, lag "
                + lag.map(CommitProgress::seconds).orElse("-");
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3fs", d.toNanos() / 1e9);
    }

    /**
     * What {@code current} changed relative to {@code previous} (null for a table that did not
     * exist): see the class comment.
     */
    static Figures figures(Manifest previous, Manifest current) throws IOException {
        Map<Long, Fragment> before = new HashMap<>();
        if (previous != null) {
            for (Fragment f : previous.fragments()) {
                before.put(f.id(), f);
            }
        }
        long appended = 0;
        long cells = 0;
        int overlayFiles = 0;
        long deleted = 0;
        Map<Long, Fragment> after = new HashMap<>();
        for (Fragment f : current.fragments()) {
            after.put(f.id(), f);
            Fragment old = before.get(f.id());
            if (old == null) {
                appended += f.physicalRows();
            } else {
                deleted += Math.max(0, f.numDeletedRows() - old.numDeletedRows());
            }
            for (DataOverlayFile overlay : f.overlays()) {
                if (overlay.committedVersion() == current.version()) {
                    overlayFiles++;
                    cells += overlay.cellCount();
                }
            }
        }
        for (Fragment old : before.values()) {
            if (!after.containsKey(old.id())) {
                deleted += old.liveRows();
            }
        }
        return new Figures(appended, cells, overlayFiles, deleted);
    }

    /**
     * The commit's timestamp minus the newest modification time among the data and overlay files
     * {@code current} added (empty if it added none, or the store does not tell).
     */
    static Optional<Duration> lag(ObjectStore store, Manifest previous, Manifest current) throws IOException {
        Map<Long, Fragment> before = new HashMap<>();
        if (previous != null) {
            previous.fragments().forEach(f -> before.put(f.id(), f));
        }
        TableFiles files = TableFiles.of(store, current);
        long newest = 0;
        int probes = 0;
        for (Fragment f : current.fragments()) {
            List<TableFiles.StoredFile> added = new ArrayList<>();
            if (!before.containsKey(f.id())) {
                for (DataFile d : f.files()) {
                    added.add(files.dataFile(f.id(), d));
                }
            }
            for (DataOverlayFile overlay : f.overlays()) {
                if (overlay.committedVersion() == current.version()) {
                    added.add(files.overlayFile(f.id(), overlay));
                }
            }
            for (TableFiles.StoredFile file : added) {
                if (probes++ >= MAX_LAG_PROBES) {
                    break;
                }
                newest = Math.max(
                        newest,
                        file.store()
                                .head(file.path())
                                .map(i -> i.lastModifiedMillis())
                                .orElse(0L));
            }
        }
        if (newest == 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(Math.max(0, current.timestamp().toEpochMilli() - newest)));
    }

    /** One table: the last version read, and the job's commits so far. */
    private static final class Watched {
        final TableLocation location;
        final ObjectStore store;
        /**
         * The versions read, with their transactions; walked forward from the last one, each
         * version once, so the cache keeps only a few (a running job's transactions may be large).
         */
        final TableHistory history;

        Manifest last;
        long lastVersion;
        boolean warned;
        int commits;
        long firstVersion = -1;
        long lastCommitted = -1;
        long firstCheckpoint = -1;
        long lastCheckpoint = -1;
        Figures total = new Figures(0, 0, 0, 0);
        Optional<Duration> lastLag = Optional.empty();

        Watched(TableLocation location) throws IOException {
            this.location = location;
            this.store = location.open();
            this.history = new TableHistory(store, HISTORY_CAPACITY);
            // 0 if not created yet: the statement's first commit creates it.
            lastVersion = history.latestVersion();
            last = lastVersion == 0
                    ? null
                    : history.load(lastVersion)
                            .map(TableHistory.Loaded::manifest)
                            .orElse(null);
        }

        void readNewVersions(String jobId, PrintStream err) throws IOException {
            while (true) {
                Optional<TableHistory.Loaded> next = history.load(lastVersion + 1);
                if (next.isEmpty()) {
                    return;
                }
                Manifest current = next.get().manifest();
                Optional<CommitMarker> marker = next.get()
                        .committed()
                        .transaction()
                        .map(Transaction::properties)
                        .flatMap(p ->
                                CommitMarker.fromProperties(p, "version " + current.version() + " of " + location));
                if (marker.isPresent() && marker.get().jobId().equals(jobId)) {
                    Figures f = figures(last, current);
                    Optional<Duration> lag = lag(store, last, current);
                    err.println(commitLine(
                            location.uri(), current.version(), marker.get().checkpointId(), f, lag));
                    err.flush();
                    commits++;
                    total = total.plus(f);
                    if (firstVersion < 0) {
                        firstVersion = current.version();
                        firstCheckpoint = marker.get().checkpointId();
                    }
                    lastCommitted = current.version();
                    lastCheckpoint = marker.get().checkpointId();
                    lastLag = lag;
                }
                last = current;
                lastVersion = current.version();
            }
        }

        String summary(String jobId, String how) {
            String head = "[INFO] job " + jobId + " " + how + ": " + commits + " commits to " + location.uri();
            if (commits == 0) {
                return head;
            }
            return head + " (versions " + firstVersion + ".." + lastCommitted + ", checkpoints " + firstCheckpoint
                    + ".." + lastCheckpoint + "): " + total.rowsAppended() + " rows appended, " + total.cells()
                    + " cells in " + total.overlayFiles() + " overlay files, " + total.rowsDeleted()
                    + " rows deleted, last lag "
                    + lastLag.map(CommitProgress::seconds).orElse("-");
        }
    }
}
