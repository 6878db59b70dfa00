#!/usr/bin/env python3
"""The pylance oracle: current Lance (pylance, pinned in requirements.txt) as a command-line
program for the interop tests. Each call is its own process and prints one JSON document on
stdout; Lance's own logging goes to stderr.

Values follow the dump conventions of it/README.md ("Dump format"), exactly as
`bin/lance-flink dump` and the Java SDK oracle print them, so dumps compare cell by cell.

Commands (uri = a table directory or URI; every command takes `--storage-option k=v`, passed to
Lance as storage_options, e.g. the S3 endpoint and keys):
  dump <uri> [--version N] [--with-row-id] [--with-row-address] [--filter SQL] [--columns a,b]
                                       (--columns may name _row_created_at_version and
                                       _row_last_updated_at_version, the row lineage columns)
  dump-all <uri>                       every version's dump: {"versions": [dump, ...]}
  versions <uri>                       {"latest_version", "versions": [{"version", "operation"}]}
  validate <uri> [--version N]         {"valid": true} or an error
  take <uri> --row-ids 1,2 | --row-addresses 1,2 [--version N]
  ops <uri> <ops.json>                 a JSON array of operations applied in order (delete,
                                       update, merge_insert, compact, add_columns, append,
                                       scalar_index, vector_index; stale_delete, stale_overlay,
                                       stale_replacement commit on an older read_version; query
                                       and nearest answer from the current version):
                                       {"results": [...]}
  scenario <name> <dir>                builds a named table history (see SCENARIOS) and prints
                                       {"uri", "versions": [dump of each version]}
  churn <uri> --first-id N [--rows-per-round 40] [--rounds 1000] [--delete-mod 7] [--pause-ms 0]
        [--stop-file path]             a concurrent writer: per round an append, a delete and a
                                       DataOverlay commit (see cmd_churn), each logged:
                                       {"ops": [{"op", "round", ..., "version" | "error"}],
                                        "appends_committed", "deletes_committed",
                                        "overlays_committed", "failed_attempts"}
  batch <file.json>                    a JSON array of argument arrays, run in this process:
                                       {"results": [document or {"error"}, ...]}

Overlays are read and written only when LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES is set in the
environment, as released Lance requires; the caller decides.

Exit codes: 0 success; 1 Lance or the input failed ({"error", "exception"}); 2 usage.
"""

import datetime
import decimal
import json
import os
import sys
import traceback

import numpy as np
import pyarrow as pa

import lance


# ---------------------------------------------------------------------------------------------
# Rendering (the dump conventions)


class Raw(str):
    """A JSON number already rendered as text (floats and decimals keep exact digits)."""


def _json(value, out):
    if value is None:
        out.append("null")
    elif isinstance(value, Raw):
        out.append(str(value))
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for k, v in value.items():
            if not first:
                out.append(",")
            first = False
            out.append(json.dumps(str(k), ensure_ascii=False))
            out.append(":")
            _json(v, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _json(v, out)
        out.append("]")
    elif isinstance(value, float):
        out.append(json.dumps(value))
    else:
        raise TypeError("cannot render %r" % (value,))


def to_json(value):
    out = []
    _json(value, out)
    return "".join(out)


def _plain(text):
    # numpy's positional form ends with "." for integral values; the convention wants ".0".
    return text + "0" if text.endswith(".") else text


def _float(value, width):
    if value is None:
        return None
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    typed = np.float32(value) if width == 32 else np.float64(value)
    return Raw(_plain(np.format_float_positional(typed, unique=True, trim="k")))


def _civil(days):
    """Proleptic Gregorian (year, month, day) of a day count since 1970-01-01."""
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def _year(y):
    # As java.time prints years: 4 digits within 0000-9999, a sign outside.
    if 0 <= y <= 9999:
        return "%04d" % y
    return ("+%d" % y) if y > 9999 else ("-%04d" % -y)


def _date(days):
    y, m, d = _civil(days)
    return "%s-%02d-%02d" % (_year(y), m, d)


_PER_SECOND = {"s": 1, "ms": 1000, "us": 1000000, "ns": 1000000000}
_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _fraction(fraction, unit):
    digits = _DIGITS[unit]
    return ("." + str(fraction).rjust(digits, "0")) if digits else ""


def _timestamp(value, unit, zoned):
    per = _PER_SECOND[unit]
    seconds, fraction = divmod(value, per)
    days, secs = divmod(seconds, 86400)
    text = "%sT%02d:%02d:%02d" % (_date(days), secs // 3600, secs // 60 % 60, secs % 60)
    return text + _fraction(fraction, unit) + ("Z" if zoned else "")


def _time(value, unit):
    per = _PER_SECOND[unit]
    seconds, fraction = divmod(value, per)
    return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60) + _fraction(fraction, unit)


def _valid(arr):
    if arr.null_count == 0:
        return [True] * len(arr)
    return arr.is_valid().to_pylist()


def render(arr):
    """The dump values of every slot of a (non-chunked) Arrow array."""
    t = arr.type
    n = len(arr)
    if pa.types.is_dictionary(t):
        return render(arr.dictionary_decode())
    if pa.types.is_struct(t):
        valid = _valid(arr)
        children = [render(c) for c in arr.flatten()]
        names = [t.field(i).name for i in range(t.num_fields)]
        return [dict(zip(names, (c[i] for c in children))) if valid[i] else None for i in range(n)]
    if pa.types.is_map(t):
        valid = _valid(arr)
        offsets = arr.offsets.to_pylist()
        keys = render(arr.keys)
        items = render(arr.items)
        return [[{"key": keys[j], "value": items[j]} for j in range(offsets[i], offsets[i + 1])]
                if valid[i] else None for i in range(n)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        valid = _valid(arr)
        offsets = arr.offsets.to_pylist()
        values = render(arr.values)
        return [values[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(n)]
    if pa.types.is_fixed_size_list(t):
        valid = _valid(arr)
        size = t.list_size
        values = render(arr.values)
        base = arr.offset * size
        return [values[base + i * size: base + (i + 1) * size] if valid[i] else None for i in range(n)]
    if pa.types.is_floating(t):
        width = 64 if pa.types.is_float64(t) else 32
        if pa.types.is_float16(t):
            arr = arr.cast(pa.float32())
        return [_float(v, width) for v in arr.to_pylist()]
    if pa.types.is_decimal(t):
        quantum = decimal.Decimal(1).scaleb(-t.scale)
        return [None if v is None else Raw(format(v.quantize(quantum), "f")) for v in arr.to_pylist()]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if v is None else "0x" + v.hex() for v in arr.to_pylist()]
    if pa.types.is_date32(t):
        return [None if v is None else _date(v) for v in arr.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if v is None else _date(v // 86400000) for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_timestamp(t):
        zoned = t.tz is not None
        return [None if v is None else _timestamp(v, t.unit, zoned) for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        ints = arr.cast(pa.int32() if pa.types.is_time32(t) else pa.int64())
        return [None if v is None else _time(v, t.unit) for v in ints.to_pylist()]
    if pa.types.is_null(t):
        return [None] * n
    return arr.to_pylist()


def type_name(t):
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_integer(t):
        return ("int" if pa.types.is_signed_integer(t) else "uint") + str(t.bit_width)
    if pa.types.is_float16(t):
        return "float16"
    if pa.types.is_float32(t):
        return "float32"
    if pa.types.is_float64(t):
        return "float64"
    if pa.types.is_string(t):
        return "utf8"
    if pa.types.is_large_string(t):
        return "large_utf8"
    if pa.types.is_binary(t):
        return "binary"
    if pa.types.is_large_binary(t):
        return "large_binary"
    if pa.types.is_fixed_size_binary(t):
        return "fixed_size_binary[%d]" % t.byte_width
    if pa.types.is_date32(t):
        return "date32"
    if pa.types.is_date64(t):
        return "date64"
    if pa.types.is_timestamp(t):
        return "timestamp[%s%s]" % (t.unit, ", tz=" + t.tz if t.tz is not None else "")
    if pa.types.is_time32(t):
        return "time32[%s]" % t.unit
    if pa.types.is_time64(t):
        return "time64[%s]" % t.unit
    if pa.types.is_decimal(t):
        return "decimal%d(%d, %d)" % (t.bit_width, t.precision, t.scale)
    if pa.types.is_dictionary(t):
        return type_name(t.value_type)
    if pa.types.is_map(t):
        return "map<%s, %s>" % (_element(t.key_field), _element(t.item_field))
    if pa.types.is_list(t):
        return "list<%s>" % _element(t.value_field)
    if pa.types.is_large_list(t):
        return "large_list<%s>" % _element(t.value_field)
    if pa.types.is_fixed_size_list(t):
        return "fixed_size_list<%s, %d>" % (_element(t.value_field), t.list_size)
    if pa.types.is_struct(t):
        return "struct<%s>" % ", ".join(
            "%s: %s" % (t.field(i).name, _element(t.field(i))) for i in range(t.num_fields))
    return str(t)


def _element(field):
    return type_name(field.type) + ("" if field.nullable else " not null")


def dump_table(table, version):
    table = table.combine_chunks()
    columns = [render(table.column(i).chunk(0) if table.column(i).num_chunks
                      else pa.array([], table.schema.field(i).type))
               for i in range(table.num_columns)]
    names = table.schema.names
    rows = [dict(zip(names, (c[r] for c in columns))) for r in range(table.num_rows)]
    return {
        "version": version,
        "schema": [{"name": f.name, "type": type_name(f.type), "nullable": f.nullable} for f in table.schema],
        "num_rows": table.num_rows,
        "rows": rows,
    }


# ---------------------------------------------------------------------------------------------
# Commands


# The storage options of the command being run (--storage-option k=v, e.g. S3 credentials and
# endpoint); every open, write and commit of that command passes them on.
_STORAGE = {}


def _open(uri, version=None):
    return lance.dataset(uri, version=version, storage_options=_STORAGE or None)


def _opt(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 >= len(args):
            raise UsageError("%s needs a value" % name)
        return args[i + 1]
    return default


def _ds_dump(ds, with_row_id=False, with_row_address=False, flt=None, columns=None):
    table = ds.to_table(columns=columns, with_row_id=with_row_id, with_row_address=with_row_address, filter=flt,
                        scan_in_order=True)
    # pylance puts the metadata columns last, as our dump does (_rowaddr there too).
    return dump_table(table, ds.version)


def cmd_dump(args):
    v = _opt(args, "--version")
    ds = _open(args[0], int(v) if v is not None else None)
    columns = _opt(args, "--columns")
    return _ds_dump(ds, "--with-row-id" in args, "--with-row-address" in args, _opt(args, "--filter"),
                    columns.split(",") if columns else None)


def cmd_dump_all(args):
    ds = _open(args[0])
    out = []
    for v in ds.versions():
        out.append(_ds_dump(_open(args[0], v["version"])))
    return {"versions": out}


def cmd_versions(args):
    ds = _open(args[0])
    versions = []
    for v in ds.versions():
        versions.append({"version": v["version"]})
    return {"latest_version": ds.latest_version, "versions": versions}


def cmd_validate(args):
    v = _opt(args, "--version")
    ds = _open(args[0], int(v) if v is not None else None)
    ds.validate()
    return {"valid": True, "version": ds.version}


def cmd_take(args):
    """Rows by stable row id (--row-ids; the address when the table has none) or by address."""
    v = _opt(args, "--version")
    ds = _open(args[0], int(v) if v is not None else None)
    if "--row-ids" in args:
        table = ds._take_rows([int(x) for x in _opt(args, "--row-ids").split(",")])
    else:
        addresses = _opt(args, "--row-addresses")
        table = ds.to_table(filter="_rowaddr IN (%s)" % addresses, scan_in_order=True)
    return dump_table(table, ds.version)


def cmd_scenario(args):
    import pylance_scenarios
    name, directory = args[0], args[1]
    uri = pylance_scenarios.build(name, directory)
    ds = _open(uri)
    dumps = [_ds_dump(_open(uri, v["version"])) for v in ds.versions()]
    return {"uri": uri, "versions": dumps}


def _op(uri, op):
    """One operation of `ops`: changes the table (a new version) or queries it."""
    kind = op["op"]
    ds = _open(uri)
    if kind == "delete":
        ds.delete(op["filter"])
    elif kind == "update":
        ds.update(op["values"], where=op.get("where"))
    elif kind == "merge_insert":
        source = pa.Table.from_pylist(op["rows"], schema=ds.schema)
        ds.merge_insert(op["on"]).when_matched_update_all().when_not_matched_insert_all().execute(source)
    elif kind == "compact":
        ds.optimize.compact_files(target_rows_per_fragment=op.get("target_rows_per_fragment", 1024 * 1024),
                                  materialize_deletions_threshold=op.get("materialize_deletions_threshold", 0.1))
    elif kind == "add_columns":
        ds.add_columns(op["columns"])
    elif kind == "append":
        lance.write_dataset(pa.Table.from_pylist(op["rows"], schema=ds.schema), uri, mode="append",
                            storage_options=_STORAGE or None)
    elif kind == "scalar_index":
        ds.create_scalar_index(op["column"], index_type=op.get("index_type", "BTREE"))
    elif kind == "vector_index":
        ds.create_index(op["column"], index_type=op.get("index_type", "IVF_PQ"),
                        num_partitions=op.get("num_partitions", 2), num_sub_vectors=op.get("num_sub_vectors", 2))
    elif kind == "query":
        table = ds.to_table(filter=op.get("filter"), columns=op.get("columns"), with_row_id=False)
        return {"op": kind, "version": ds.version, "dump": dump_table(table, ds.version),
                "plan": ds.scanner(filter=op.get("filter"), columns=op.get("columns")).explain_plan()}
    elif kind == "nearest":
        nearest = {"column": op["column"], "q": op["q"], "k": op.get("k", 1)}
        if "nprobes" in op:
            nearest["nprobes"] = op["nprobes"]
        table = ds.to_table(nearest=nearest, columns=op.get("columns"))
        return {"op": kind, "version": ds.version, "dump": dump_table(table.drop_columns(["_distance"]), ds.version)}
    elif kind in ("stale_delete", "stale_overlay", "stale_replacement"):
        return _stale_commit(uri, op)
    else:
        raise UsageError("unknown op %r" % kind)
    return {"op": kind, "version": _open(uri).version}


def _stale_commit(uri, op):
    """A commit computed from an older version (`read_version`), as a writer that read before a
    concurrent commit landed: Lance checks it against every version since and rebases it or
    refuses it. {"op", "version"} when it committed, {"op", "conflict"} when Lance refused it.
    stale_delete: delete the rows matching `filter` from fragment `fragment`. stale_overlay: set
    `column` (default age) of the rows `ids` (one fragment) to `age` with a dense overlay.
    stale_replacement: a DataReplacement of `column` in fragment `fragment` (a column stored alone
    in its own data file) with `values`, one per physical row; with "stage": true the file is only
    written and {"op", "data_file": {"path", "fields", "column_indices", "file_major_version",
    "file_minor_version"}} describes it, for another writer to commit."""
    import uuid
    kind = op["op"]
    old = _open(uri, op["read_version"])
    if kind == "stale_replacement":
        column = op["column"]
        version = old.data_storage_version
        minor = int(version.split(".")[1]) if "." in version else 0
        name = "stale-%s.lance" % uuid.uuid4().hex
        with lance.file.LanceFileWriter(uri.rstrip("/") + "/data/" + name, version=version,
                                        storage_options=_STORAGE or None) as w:
            w.write_batch(pa.table({column: pa.array(op["values"], old.schema.field(column).type)}))
        field_id = old.lance_schema.field(column).id()
        if op.get("stage"):
            return {"op": kind, "data_file": {"path": name, "fields": [field_id], "column_indices": [0],
                                              "file_major_version": 2, "file_minor_version": minor}}
        data_file = lance.fragment.DataFile(name, [field_id], [0], 2, minor)
        operation = lance.LanceOperation.DataReplacement(
            [lance.LanceOperation.DataReplacementGroup(op["fragment"], data_file)])
    elif kind == "stale_delete":
        meta = old.get_fragment(op["fragment"]).delete(op["filter"])
        operation = lance.LanceOperation.Delete(
            updated_fragments=[] if meta is None else [meta],
            deleted_fragment_ids=[op["fragment"]] if meta is None else [], predicate=op["filter"])
    else:
        quoted = ",".join(str(i) for i in op["ids"])
        found = old.to_table(columns=["id"], filter="id IN (%s)" % quoted, with_row_address=True)
        addrs = sorted(found.column("_rowaddr").to_pylist())
        fragments = {a >> 32 for a in addrs}
        if len(fragments) != 1 or len(addrs) != len(op["ids"]):
            raise UsageError("stale_overlay: ids %s are not all in one fragment of version %d" % (op["ids"],
                                                                                               old.version))
        version = old.data_storage_version
        minor = int(version.split(".")[1]) if "." in version else 0
        name = "stale-%s.lance" % uuid.uuid4().hex
        with lance.file.LanceFileWriter(uri.rstrip("/") + "/data/" + name, version=version,
                                        storage_options=_STORAGE or None) as w:
            column = op.get("column", "age")
            w.write_batch(pa.table({column: pa.array([op["age"]] * len(addrs), old.schema.field(column).type)}))
        data_file = lance.fragment.DataFile(name, [old.lance_schema.field(column).id()], [0], 2, minor)
        operation = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
            fragments.pop(), [lance.LanceOperation.DataOverlayFile(data_file, [a & 0xFFFFFFFF for a in addrs])])])
    try:
        committed = lance.LanceDataset.commit(uri, operation, read_version=old.version,
                                              storage_options=_STORAGE or None)
    except Exception as e:  # Lance's CommitConflictError and its kin: the refusal is the result
        if "onflict" not in type(e).__name__ and "conflict" not in str(e).lower():
            raise
        return {"op": kind, "conflict": "%s: %s" % (type(e).__name__, str(e).split("\n")[0])}
    return {"op": kind, "version": committed.version}


def cmd_ops(args):
    """ops <uri> <ops.json>: operations in order; {"results": [{"op", "version", ...}]}."""
    with open(args[1], encoding="utf-8") as f:
        ops = json.load(f)
    return {"results": [_op(args[0], op) for op in ops]}


# ---------------------------------------------------------------------------------------------
# churn: current Lance as a concurrent writer


def churn_age(row_id, round_no):
    """The age a churn overlay of round `round_no` gives row `row_id` (the tests replay it)."""
    return (row_id * 7 + round_no * 13) % 100_000


def churn_overlay_ids(round_no, first, rows, delete_mod, live_rounds):
    """Rows a churn round overlays: about a sixth of the previous round's rows and every ninth row
    of round `round_no // 2`, so some rows get several overlays over time (the newest wins).
    Only rows of rounds whose append committed, never rows that round's delete removes."""
    ids = set()
    for source, keep in ((round_no - 1, lambda i: i % 6 == round_no % 6), (round_no // 2, lambda i: i % 9 == 0)):
        if source < 0 or source == round_no or source not in live_rounds:
            continue
        lo = first + source * rows
        ids.update(i for i in range(lo, lo + rows) if keep(i) and i % delete_mod != 0)
    return sorted(ids)


def _churn_rows(schema, lo, hi):
    ids = list(range(lo, hi))
    return pa.table({
        "id": pa.array(ids, schema.field("id").type),
        "name": pa.array(["py-%d" % i for i in ids], schema.field("name").type),
        "age": pa.array([i % 100 for i in ids], schema.field("age").type),
        "score": pa.array([i / 4.0 for i in ids], schema.field("score").type),
    }, schema=schema)


def _churn_overlay(uri, ids, round_no):
    """One DataOverlay commit setting `age` of `ids`: one dense overlay file per fragment, at the
    rows' physical offsets in the version read; Lance rebases it over concurrent commits."""
    import uuid
    ds = _open(uri)
    quoted = ",".join(str(i) for i in ids)
    found = ds.to_table(columns=["id"], filter="id IN (%s)" % quoted, with_row_address=True)
    by_fragment = {}
    for row_id, addr in zip(found.column("id").to_pylist(), found.column("_rowaddr").to_pylist()):
        by_fragment.setdefault(addr >> 32, []).append((addr & 0xFFFFFFFF, row_id))
    if len(found) != len(ids):
        raise RuntimeError("churn: %d of the %d rows to overlay are in version %d" % (len(found), len(ids), ds.version))
    version = ds.data_storage_version
    minor = int(version.split(".")[1]) if "." in version else 0
    age_id = ds.lance_schema.field("age").id()
    age_type = ds.schema.field("age").type
    groups = []
    for fragment_id in sorted(by_fragment):
        cells = sorted(by_fragment[fragment_id])
        name = "churn-%s.lance" % uuid.uuid4().hex
        with lance.file.LanceFileWriter(uri.rstrip("/") + "/data/" + name, version=version,
                                        storage_options=_STORAGE or None) as w:
            w.write_batch(pa.table({"age": pa.array([churn_age(i, round_no) for _, i in cells], age_type)}))
        data_file = lance.fragment.DataFile(name, [age_id], [0], 2, minor)
        groups.append(lance.LanceOperation.DataOverlayGroup(
            fragment_id, [lance.LanceOperation.DataOverlayFile(data_file, [o for o, _ in cells])]))
    op = lance.LanceOperation.DataOverlay(groups)
    return lance.LanceDataset.commit(uri, op, read_version=ds.version, storage_options=_STORAGE or None).version


def cmd_churn(args):
    """churn <uri> --first-id N [--rows-per-round 40] [--rounds 1000] [--delete-mod 7]
    [--pause-ms 0] [--stop-file path] [--compact-every 0]: a writer next to another one, until the
    stop file appears or the rounds are done. Each round r appends the ids [first + r*rows,
    first + (r+1)*rows) (name "py-<id>", age id % 100, score id / 4), deletes that round's
    id % mod = 0 rows, and commits a DataOverlay setting `age` of some earlier rows to
    churn_age(id, r) (see churn_overlay_ids): three commits, each logged with the version Lance
    gave it, or with its error (the loop goes on), each followed by the pause. With
    --compact-every N, every N-th round ends with compact_files (a Rewrite moving rows, also the
    other writer's; logged as "compact", without a version when it had nothing to do). Needs the
    overlay variable."""
    uri = args[0]
    first = int(_opt(args, "--first-id"))
    rows = int(_opt(args, "--rows-per-round", "40"))
    rounds = int(_opt(args, "--rounds", "1000"))
    mod = int(_opt(args, "--delete-mod", "7"))
    pause = int(_opt(args, "--pause-ms", "0")) / 1000.0
    stop = _opt(args, "--stop-file")
    compact_every = int(_opt(args, "--compact-every", "0"))
    import time
    ops = []
    live_rounds = set()
    counts = {"append": 0, "delete": 0, "overlay": 0, "compact": 0}
    failed = 0

    def attempt(entry, action):
        nonlocal failed
        try:
            entry["version"] = action()
            counts[entry["op"]] += 1
            ok = True
        except Exception as e:  # logged, and the next operation goes on
            entry["error"] = "%s: %s" % (type(e).__name__, e)
            failed += 1
            ok = False
        ops.append(entry)
        if pause:
            time.sleep(pause)
        return ok

    for r in range(rounds):
        if stop is not None and os.path.exists(stop):
            break
        lo, hi = first + r * rows, first + (r + 1) * rows
        schema = _open(uri).schema
        appended = attempt({"op": "append", "round": r, "first_id": lo, "end_id": hi},
                           lambda: lance.write_dataset(_churn_rows(schema, lo, hi), uri, mode="append",
                                                       storage_options=_STORAGE or None).version)
        if appended:
            live_rounds.add(r)
            flt = "id >= %d AND id < %d AND id %% %d = 0" % (lo, hi, mod)

            def delete():
                ds = _open(uri)
                ds.delete(flt)
                return ds.version  # delete moves the handle to the version it committed
            attempt({"op": "delete", "round": r, "filter": flt}, delete)
        ids = churn_overlay_ids(r, first, rows, mod, live_rounds)
        if ids:
            attempt({"op": "overlay", "round": r, "ids": ids}, lambda: _churn_overlay(uri, ids, r))
        if compact_every and (r + 1) % compact_every == 0:
            def compact():
                ds = _open(uri)
                before = ds.version
                metrics = ds.optimize.compact_files(target_rows_per_fragment=4096,
                                                    materialize_deletions_threshold=0.05)
                if metrics.fragments_removed == 0:
                    raise _NothingToCompact("compact_files had nothing to do at version %d" % before)
                return _open(uri).version
            attempt({"op": "compact", "round": r}, compact)
    return {"ops": ops, "appends_committed": counts["append"], "deletes_committed": counts["delete"],
            "overlays_committed": counts["overlay"], "compactions_committed": counts["compact"],
            "failed_attempts": failed}


class _NothingToCompact(Exception):
    """compact_files committed nothing: logged as an attempt without a version."""


COMMANDS = {
    "churn": cmd_churn,
    "ops": cmd_ops,
    "dump": cmd_dump,
    "dump-all": cmd_dump_all,
    "versions": cmd_versions,
    "validate": cmd_validate,
    "take": cmd_take,
    "scenario": cmd_scenario,
}


class UsageError(Exception):
    pass


def run(argv):
    if not argv or argv[0] not in COMMANDS and argv[0] != "batch":
        raise UsageError("usage: pylance_oracle.py <%s|batch> ..." % "|".join(COMMANDS))
    if argv[0] == "batch":
        with open(argv[1], encoding="utf-8") as f:
            commands = json.load(f)
        results = []
        for c in commands:
            try:
                results.append(run(c))
            except Exception as e:  # each failure becomes that command's error document
                results.append(_error(e))
        return {"results": results}
    if len(argv) < 2:
        raise UsageError("%s needs a table uri" % argv[0])
    args, storage = _storage_options(argv[1:])
    global _STORAGE
    _STORAGE = storage
    return COMMANDS[argv[0]](args)


def _storage_options(args):
    """Splits `--storage-option k=v` pairs (any command, any position) off the arguments."""
    rest, storage = [], {}
    i = 0
    while i < len(args):
        if args[i] == "--storage-option":
            if i + 1 >= len(args) or "=" not in args[i + 1]:
                raise UsageError("--storage-option needs k=v")
            k, v = args[i + 1].split("=", 1)
            storage[k] = v
            i += 2
        else:
            rest.append(args[i])
            i += 1
    return rest, storage


def _error(e):
    return {"error": str(e), "exception": type(e).__name__}


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        doc = run(sys.argv[1:])
    except UsageError as e:
        sys.stdout.write(to_json({"error": str(e), "usage": True}) + "\n")
        return 2
    except Exception as e:
        traceback.print_exc(file=sys.stderr)
        sys.stdout.write(to_json(_error(e)) + "\n")
        return 1
    sys.stdout.write(to_json(doc) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
