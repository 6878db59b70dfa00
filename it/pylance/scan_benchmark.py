#!/usr/bin/env python3
"""Scan timings of pylance for the side-by-side scan benchmark (it/.../bench/ScanBenchmark).

Usage: scan_benchmark.py <uri> <version> <repeat> <columns>...
  columns: "*" for all columns, or a comma-separated list.

For each columns argument: one untimed scan (it also warms Lance's caches, as the Java side's
checking scan does), then <repeat> timed scans of the whole version into Arrow tables. Prints
one JSON document: {"scans": [{"columns", "rows", "value_sum", "wall_s": [...], "cpu_s": [...]}]}.
CPU is the process's (all of Lance's threads), wall is the elapsed time of the call.
Overlays are read only when LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES is set; the caller sets it.
"""

import json
import sys
import time

import pyarrow.compute as pc

import lance


def scan(ds, columns):
    table = ds.to_table(columns=columns)
    value_sum = None
    if "value" in table.column_names:
        value_sum = pc.sum(table.column("value")).as_py()
    return table.num_rows, value_sum


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    uri, version, repeat = argv[0], int(argv[1]), int(argv[2])
    ds = lance.dataset(uri, version=version)
    out = []
    for arg in argv[3:]:
        columns = None if arg == "*" else arg.split(",")
        rows, value_sum = scan(ds, columns)
        wall, cpu = [], []
        for _ in range(repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            scan(ds, columns)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        out.append({"columns": arg, "rows": rows, "value_sum": value_sum, "wall_s": wall, "cpu_s": cpu})
    print(json.dumps({"scans": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
