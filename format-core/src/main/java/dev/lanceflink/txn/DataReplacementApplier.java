package dev.lanceflink.txn;

import dev.lanceflink.table.CorruptTableException;
import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.DataOverlayFile;
import dev.lanceflink.table.Fragment;
import dev.lanceflink.table.IndexEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * DataReplacement: in each target fragment the data file with exactly the new file's field ids
 * (and file version) is swapped for the new file; if the fragment had no file for those fields
 * (an all-NULL column) the new file is added. Indices on those fields stop covering the fragment.
 *
 * <p>The new file holds values computed from what the writer read, so it supersedes only the
 * overlays it saw: those with {@code committed_version} at or before the transaction's read
 * version get the replaced fields' slots tombstoned (an overlay left with only tombstones is
 * removed, overlays.md §7.4). Overlays committed after the read version were written concurrently
 * and keep shadowing the new values, as in Lance (pylance 14 does the same).
 */
final class DataReplacementApplier implements OperationApplier<Operation.DataReplacement> {
    @Override
    public void apply(ManifestDraft d, Operation.DataReplacement op) throws CorruptTableException {
        Set<Integer> replacedFields = new HashSet<>();
        Set<Long> targets = new HashSet<>();
        for (Operation.DataReplacementGroup g : op.replacements()) {
            Fragment cur = d.requireFragment(g.fragmentId(), "DataReplacement");
            DataFile nf = g.newFile();
            Set<Integer> fields = new HashSet<>();
            for (int i = 0; i < nf.fieldCount(); i++) {
                fields.add(nf.fieldId(i));
            }
            replacedFields.addAll(fields);
            targets.add(g.fragmentId());
            List<DataFile> files = new ArrayList<>(cur.files());
            boolean swapped = false;
            for (int i = 0; i < files.size() && !swapped; i++) {
                DataFile old = files.get(i);
                if (Arrays.equals(old.fields(), nf.fields())
                        && old.fileMajorVersion() == nf.fileMajorVersion()
                        && old.fileMinorVersion() == nf.fileMinorVersion()) {
                    files.set(
                            i,
                            new DataFile(
                                    nf.path(),
                                    old.fields(),
                                    old.columnIndices(),
                                    old.fileMajorVersion(),
                                    old.fileMinorVersion(),
                                    nf.fileSizeBytes(),
                                    nf.baseId()));
                    swapped = true;
                }
            }
            if (!swapped) {
                for (DataFile old : files) {
                    for (int i = 0; i < old.fieldCount(); i++) {
                        if (fields.contains(old.fieldId(i))) {
                            throw new IllegalArgumentException("DataReplacement: fragment " + g.fragmentId()
                                    + " stores field " + old.fieldId(i) + " in " + old.path() + " together with other"
                                    + " fields; a replacement file must cover exactly the fields of an existing file");
                        }
                    }
                }
                files.add(nf);
            }
            List<DataOverlayFile> overlays = new ArrayList<>(cur.overlays().size());
            for (DataOverlayFile o : cur.overlays()) {
                if (Long.compareUnsigned(o.committedVersion(), d.readVersion) > 0) {
                    overlays.add(o); // committed after the writer read: not superseded
                    continue;
                }
                DataOverlayFile tombstoned = new DataOverlayFile(
                        o.dataFile().withTombstoned(fields::contains), o.coverage(), o.committedVersion());
                if (!tombstoned.dataFile().isFullyTombstoned()) {
                    overlays.add(tombstoned);
                }
            }
            d.replaceFragment(cur.withFiles(files).withOverlays(overlays));
        }
        List<IndexEntry> out = new ArrayList<>(d.indices.size());
        for (IndexEntry e : d.indices) {
            boolean affected = false;
            for (int f : e.fields()) {
                affected |= replacedFields.contains(f);
            }
            out.add(affected ? e.withoutFragments(targets) : e);
        }
        d.indices = out;
    }
}
