package dev.lanceflink.txn;

import dev.lanceflink.table.DataFile;
import dev.lanceflink.table.Fragment;
import java.util.ArrayList;
import java.util.List;

/**
 * Project (drop or rename columns): the new schema; data files none of whose fields remain are
 * dropped; indices on dropped fields go.
 */
final class ProjectApplier implements OperationApplier<Operation.Project> {
    @Override
    public void apply(ManifestDraft d, Operation.Project op) {
        d.schema = op.schema();
        List<Fragment> out = new ArrayList<>(d.fragments.size());
        for (Fragment f : d.fragments) {
            List<DataFile> keep = new ArrayList<>();
            for (DataFile file : f.files()) {
                boolean any = false;
                for (int i = 0; i < file.fieldCount() && !any; i++) {
                    any = d.schema.fieldById(file.fieldId(i)).isPresent();
                }
                if (any) {
                    keep.add(file);
                }
            }
            out.add(f.withFiles(keep));
        }
        d.fragments = out;
        d.indices = new ArrayList<>(
                d.indices.stream().filter(e -> MergeApplier.fieldsExist(d, e)).toList());
    }
}
