"""Writes the rows of an Arrow IPC file as a Lance dataset with pylance, as a Lance user would.

Usage: pylance_bytes.py <rows.arrow> <dataset uri> <data storage version>

Used by the bytes benchmark (it/run-benchmarks.sh bytes): the Java side generates the rows once,
writes them with our writer and hands the same Arrow file to this script, then measures both
datasets' data files with its own reader. One file per dataset (no row limit is reached), so the
comparison is file against file. Prints {"seconds": wall seconds of write_dataset}.
"""
import json
import sys
import time

import lance
import pyarrow.ipc as ipc


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, uri, version = argv[1], argv[2], argv[3]
    with ipc.open_file(source) as f:
        table = f.read_all()
    start = time.perf_counter()
    lance.write_dataset(table, uri, data_storage_version=version, max_rows_per_file=1 << 30)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "rows": table.num_rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
