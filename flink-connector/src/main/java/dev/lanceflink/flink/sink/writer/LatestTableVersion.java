package dev.lanceflink.flink.sink.writer;

import dev.lanceflink.committer.core.TableLocation;
import dev.lanceflink.io.ObjectStore;
import dev.lanceflink.table.Manifest;
import dev.lanceflink.table.ManifestIO;
import dev.lanceflink.table.VersionNotFoundException;
import dev.lanceflink.table.VersionResolver;
import java.io.IOException;

/** The latest version of the table a sink writer writes to, which must exist (its schema is the record layout). */
public final class LatestTableVersion {
    private LatestTableVersion() {}

    public static Manifest read(ObjectStore store, TableLocation table) throws IOException {
        try {
            return ManifestIO.read(store, VersionResolver.latest(store));
        } catch (VersionNotFoundException e) {
            throw new IOException(
                    "The Lance sink writes to an existing table, but " + table + " has no versions."
                            + " Create the table (with its schema) first",
                    e);
        }
    }
}
