package dev.lanceflink.committer.core;

import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.Manifest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Names of the data files the upsert sink writes, and how rows in them are found again.
 *
 * <p>A row the sink inserts gets its row address only when its fragment is committed (Lance
 * assigns fragment ids at commit). Until then the sink's key map records the row as (file id,
 * offset): the file id is a random 64-bit number that starts the data file's name
 * ({@code <16 hex digits>-<checkpoint, subtask, attempt>.lance}), so any later manifest maps it
 * back to the fragment that holds the file, whoever committed it and whenever.
 */
public final class PendingFiles {
    private PendingFiles() {}

    /** The data file name (no directory) for {@code fileId}; {@code tag} says who wrote it. */
    public static String fileName(long fileId, String tag) {
        if (fileId == 0) {
            throw new IllegalArgumentException("file id 0 is reserved for committed rows");
        }
        return HexFormat.of().toHexDigits(fileId) + "-" + tag + ".lance";
    }

    /** The file id at the start of a data file name, or 0 if the name is not one of ours. */
    public static long fileIdOf(String fileName) {
        int slash = fileName.lastIndexOf('/');
        String name = fileName.substring(slash + 1);
        if (name.length() < 18 || name.charAt(16) != '-') {
            return 0;
        }
        String digits = name.substring(0, 16);
        // fileName writes lowercase digits only; a name in any other form is not one of ours.
        if (!digits.chars().allMatch(c -> HexFormat.isHexDigit(c) && !Character.isUpperCase(c))) {
            return 0;
        }
        return HexFormat.fromHexDigitsToLong(digits);
    }

    /** File id → the fragment of {@code manifest} whose first data file carries it. */
    public static Map<Long, Fragment> index(Manifest manifest) {
        Map<Long, Fragment> byFile = new HashMap<>();
        for (Fragment f : manifest.fragments()) {
            if (f.files().isEmpty()) {
                continue;
            }
            DataFile first = f.files().get(0);
            long id = fileIdOf(first.path());
            if (id != 0) {
                byFile.put(id, f);
            }
        }
        return byFile;
    }
}
