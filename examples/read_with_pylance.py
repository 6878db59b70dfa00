#!/usr/bin/env python3
# doc-test: run by it/src/test/java/dev/lanceflink/it/interop/ReadWithPylanceExampleTest.java
"""Reads a table that lance-flink wrote, with pylance (current Lance), as a Python user would.

    python examples/read_with_pylance.py [table]      (default: quickstart-data/users.lance)

Tables with live data overlay files (what an UPDATE or an upsert writes) are readable by
pylance >= 9.1 when LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES is set; without it, Lance refuses
them (feature flag 64). `bin/lance-flink compact <table> --mode overlay-fold` folds the
overlays into the base files, after which every Lance reads the table; a sink with
'sink.update-mode' = 'rewrite-rows' never writes overlays.
"""

import os
import sys

import lance

OVERLAYS_VARIABLE = "LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES"


def main():
    uri = sys.argv[1] if len(sys.argv) > 1 else "quickstart-data/users.lance"
    try:
        ds = lance.dataset(uri)
    except Exception as e:  # Lance says why: missing table, or a feature this reader refuses
        if "Flags:" in str(e) and OVERLAYS_VARIABLE not in os.environ:
            print("%s has live data overlay files; set %s=1 to read them with pylance, or fold them"
                  " first: bin/lance-flink compact %s --mode overlay-fold" % (uri, OVERLAYS_VARIABLE, uri))
        else:
            print("cannot open %s: %s" % (uri, str(e).splitlines()[0]))
        return 1
    print("%s: version %d, %d rows, data storage version %s"
          % (uri, ds.version, ds.count_rows(), ds.data_storage_version))
    for v in ds.versions():
        print("  version %d  %s" % (v["version"], v["timestamp"]))
    columns = [c for c in ("id", "name", "age") if c in ds.schema.names] or None
    table = ds.to_table(columns=columns, limit=10)
    for row in table.to_pylist():
        print("  " + ", ".join("%s=%s" % (k, v) for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
