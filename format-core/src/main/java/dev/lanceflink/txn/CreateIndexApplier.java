package dev.lanceflink.txn;

import dev.lanceflink.table.IndexEntry;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/** CreateIndex: removes the listed segments and any with a new segment's uuid, then adds the new ones. */
final class CreateIndexApplier implements OperationApplier<Operation.CreateIndex> {
    @Override
    public void apply(ManifestDraft d, Operation.CreateIndex op) {
        Set<UUID> drop = new HashSet<>();
        op.removedIndices().forEach(e -> drop.add(e.uuid()));
        op.newIndices().forEach(e -> drop.add(e.uuid()));
        d.indices.removeIf(e -> drop.contains(e.uuid()));
        for (IndexEntry e : op.newIndices()) {
            d.indices.add(e);
        }
        d.writeIndexSection = true;
    }
}
