package dev.lanceflink.txn;

import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Says what a concurrent {@code Merge} did, for conflict messages. Lance treats every Merge as
 * replacing the complete fragment list, so the operations it conflicts with cannot tell which
 * fragments it touched; the message can. Two very different commits are Merges: adding columns,
 * and this library's overlay-merge compaction (which swaps one fragment's overlays and leaves its
 * data files alone). The compaction names itself in {@link Transaction#COMPACTION_MODE_PROPERTY};
 * the effect on the fragments the conflicting operation changes is read from the Merge's list.
 */
final class MergeConflictText {
    private MergeConflictText() {}

    /** What the Merge was: a compaction (from its properties) or a column addition. */
    static String kind(Map<String, String> mergeProperties) {
        String mode = mergeProperties.get(Transaction.COMPACTION_MODE_PROPERTY);
        if (mode == null) {
            return "a Merge (it adds columns and carries the complete fragment list)";
        }
        String planned = mergeProperties.get(Transaction.COMPACTION_READ_VERSION_PROPERTY);
        return article(mode) + mode + " compaction by the lance-flink compactor"
                + (planned == null ? "" : " (planned on version " + planned + ")")
                + ", committed as a Merge of the complete fragment list";
    }

    /**
     * What the Merge did to the fragments {@code mine} changes.
     *
     * @param mineAsRead those of mine's fragments whose data files and overlays are known as mine
     *     read them (a Delete's updated fragments, a Rewrite's old fragments)
     * @param mineIds every fragment id mine changes
     */
    static String effect(
            Operation.Merge merge, String mineName, Collection<Fragment> mineAsRead, Collection<Long> mineIds) {
        Map<Long, Fragment> theirs = new HashMap<>();
        merge.fragments().forEach(f -> theirs.put(f.id(), f));
        Map<Long, Fragment> read = new HashMap<>();
        mineAsRead.forEach(f -> read.put(f.id(), f));
        TreeSet<Long> removed = new TreeSet<>();
        TreeSet<Long> filesReplaced = new TreeSet<>();
        TreeSet<Long> overlaysReplaced = new TreeSet<>();
        TreeSet<Long> unchanged = new TreeSet<>();
        TreeSet<Long> unknown = new TreeSet<>();
        for (long id : new TreeSet<>(mineIds)) {
            Fragment now = theirs.get(id);
            Fragment before = read.get(id);
            if (now == null) {
                removed.add(id);
            } else if (before == null) {
                unknown.add(id);
            } else if (!now.files().equals(before.files())) {
                filesReplaced.add(id);
            } else if (!now.overlays().equals(before.overlays())) {
                overlaysReplaced.add(id);
            } else {
                unchanged.add(id);
            }
        }
        List<String> parts = new ArrayList<>();
        if (!overlaysReplaced.isEmpty()) {
            parts.add("replaced the overlays of fragment(s) " + overlaysReplaced);
        }
        if (!filesReplaced.isEmpty()) {
            parts.add("replaced the data files of fragment(s) " + filesReplaced);
        }
        if (!removed.isEmpty()) {
            parts.add("dropped fragment(s) " + removed);
        }
        if (!unknown.isEmpty()) {
            parts.add("carried fragment(s) " + unknown + " along");
        }
        if (!unchanged.isEmpty()) {
            parts.add("left fragment(s) " + unchanged + " as this " + mineName + " read them");
        }
        if (parts.isEmpty()) {
            return "";
        }
        return "; of the fragments this " + mineName + " changes, it " + String.join(", ", parts);
    }

    /** The whole reason: what the Merge was, what it did to mine's fragments, and why that conflicts. */
    static String reason(
            Operation.Merge merge,
            Map<String, String> mergeProperties,
            String mineName,
            Collection<Fragment> mineAsRead,
            Collection<Long> mineIds) {
        String article = article(mineName);
        return "it was " + kind(mergeProperties) + effect(merge, mineName, mineAsRead, mineIds) + ". "
                + Character.toUpperCase(article.charAt(0)) + article.substring(1) + mineName
                + " is never rebased over a Merge (Lance's rule: the Merge's fragment list replaces the one this "
                + mineName + " was computed on)";
    }

    private static String article(String word) {
        return !word.isEmpty() && "aeiouAEIOU".indexOf(word.charAt(0)) >= 0 ? "an " : "a ";
    }
}
