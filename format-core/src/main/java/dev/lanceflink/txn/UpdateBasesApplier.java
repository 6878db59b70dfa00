package dev.lanceflink.txn;

import dev.lanceflink.table.BasePath;

/** UpdateBases: registers new base paths; id 0 means "assign max id + 1" (at least 1). */
final class UpdateBasesApplier implements OperationApplier<Operation.UpdateBases> {
    @Override
    public void apply(ManifestDraft d, Operation.UpdateBases op) {
        int next = 1;
        for (BasePath b : d.basePaths) {
            next = Math.max(next, b.id() + 1);
        }
        for (BasePath b : op.newBases()) {
            for (BasePath existing : d.basePaths) {
                if (existing.path().equals(b.path())
                        || (b.name() != null && b.name().equals(existing.name()))
                        || (b.id() != 0 && b.id() == existing.id())) {
                    throw new IllegalArgumentException("UpdateBases: base path " + b.path() + " (id " + b.id()
                            + ", name " + b.name() + ") clashes with existing base " + existing.path() + " (id "
                            + existing.id() + ")");
                }
            }
            BasePath added = b.id() == 0 ? new BasePath(next, b.name(), b.isDatasetRoot(), b.path()) : b;
            next = Math.max(next, added.id() + 1);
            d.basePaths.add(added);
        }
    }
}
