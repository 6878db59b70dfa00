package dev.lanceflink.maintenance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lanceflink.io.ObjectInfo;
import dev.lanceflink.io.ObjectStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lance's named references under {@code _refs/}: tags ({@code _refs/tags/<name>.json}, JSON with
 * at least {@code "version"}) and branches ({@code _refs/branches/<name>.json}).
 */
final class TableRefs {
    static final String TAGS_DIR = "_refs/tags";
    static final String BRANCHES_DIR = "_refs/branches";
    private static final String JSON_SUFFIX = ".json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private TableRefs() {}

    /**
     * Every tag and the version it points at. Tags of any branch count: keeping a version a tag
     * may mean costs space, deleting one it does mean breaks the tag.
     *
     * @throws CleanupAbortedException if a tag file cannot be read or has no version
     */
    static Map<String, Long> tags(ObjectStore store) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        Iterator<ObjectInfo> it = store.list(TAGS_DIR);
        while (it.hasNext()) {
            ObjectInfo info = it.next();
            if (!info.name().endsWith(JSON_SUFFIX)) {
                continue;
            }
            String name = info.name().substring(0, info.name().length() - JSON_SUFFIX.length());
            String where = store.rootUri() + "/" + info.path();
            JsonNode node;
            try {
                node = JSON.readTree(new String(store.readAll(info.path()), StandardCharsets.UTF_8));
            } catch (FileNotFoundException e) {
                continue; // deleted while listing: the tag no longer exists
            } catch (IOException e) {
                throw new CleanupAbortedException(
                        "Tag file " + where + " is not valid JSON (" + e.getMessage()
                                + "); cleanup cannot tell which version the tag keeps, so it deletes nothing. Repair or"
                                + " delete the tag first",
                        e);
            }
            JsonNode version = node == null ? null : node.get("version");
            if (version == null || !version.canConvertToLong() || version.asLong() < 1) {
                throw new CleanupAbortedException("Tag file " + where + " has no positive \"version\" field ("
                        + node + "); cleanup cannot tell which version the tag keeps, so it deletes nothing."
                        + " Repair or delete the tag first");
            }
            out.put(name, version.asLong());
        }
        return out;
    }

    /**
     * Refuses tables with branches: a branch under {@code tree/<name>/} keeps its own versions and
     * may reference this table's files through a base path, which this cleanup does not follow.
     */
    static void refuseBranches(ObjectStore store) throws IOException {
        Iterator<ObjectInfo> it = store.list(BRANCHES_DIR);
        while (it.hasNext()) {
            ObjectInfo info = it.next();
            if (info.name().endsWith(JSON_SUFFIX)) {
                throw new CleanupAbortedException("Table " + store.rootUri() + " has branch "
                        + info.name().substring(0, info.name().length() - JSON_SUFFIX.length()) + " ("
                        + info.path() + "). Branches may use files of this table through base paths, and this"
                        + " cleanup does not follow them, so it deletes nothing. Use Lance's cleanup_old_versions,"
                        + " which handles branch lineage, or delete the branch first");
            }
        }
    }
}
