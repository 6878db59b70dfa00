"""What one small UPDATE costs pylance in bytes: writes a table of (id int64, age int32), then
commits one DataOverlay of `age` at the given physical offsets of fragment 0, and prints the
sizes of what that commit wrote as one JSON object. UpdateMetadataSizeTest runs the same update
with our writer and compares. Needs LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES.

usage: overlay_update_sizes.py <table-uri> <rows> <file-version> <offsets-file>
(offsets-file: one physical offset per line; the value written at the i-th is 100 + i % 50)
"""
import json
import os
import sys
import uuid

import lance
import pyarrow as pa


def files(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = os.path.getsize(p)
    return out


def main():
    uri, rows, version, offsets_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    offsets = [int(line) for line in open(offsets_file) if line.strip()]
    table = pa.table({"id": pa.array(range(rows), pa.int64()),
                      "age": pa.array([i % 90 for i in range(rows)], pa.int32())})
    ds = lance.write_dataset(table, uri, data_storage_version=version, max_rows_per_file=rows)
    before = files(uri)
    # A name as long as the data file names Lance generates (50 characters), as the manifest and
    # transactions carry it: a short name here would flatter pylance by its length.
    name = (uuid.uuid4().hex + uuid.uuid4().hex)[:50] + ".lance"
    with lance.file.LanceFileWriter(os.path.join(uri, "data", name), version=version) as w:
        w.write_batch(pa.table({"age": pa.array([100 + i % 50 for i in range(len(offsets))], pa.int32())}))
    minor = int(version.split(".")[1])
    data_file = lance.fragment.DataFile(name, [ds.lance_schema.field("age").id()], [0], 2, minor)
    op = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
        0, [lance.LanceOperation.DataOverlayFile(data_file, offsets)])])
    lance.LanceDataset.commit(uri, op, read_version=ds.version)
    after = files(uri)
    new = {p: s for p, s in after.items() if p not in before}
    print(json.dumps({
        "overlay_data_bytes": sum(s for p, s in new.items() if p.startswith("data/")),
        "transaction_bytes": sum(s for p, s in new.items() if p.startswith("_transactions/")),
        "manifest_bytes": sum(s for p, s in new.items() if p.endswith(".manifest")),
        "manifest_bytes_before": sum(s for p, s in before.items() if p.endswith(".manifest")),
    }))


if __name__ == "__main__":
    main()
