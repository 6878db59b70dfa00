"""Table histories that current Lance (pylance) writes, for the interop tests: each scenario
builds one table under a directory and returns its uri; the oracle then dumps every version.

Data are pure functions of the row number, so a failure names a reproducible cell. Scenarios
that commit overlays need LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES in the environment.
"""

import datetime
import decimal
import os

import pyarrow as pa

import lance


def _nullable(values, k, every):
    return [None if i % every == k else v for i, v in enumerate(values)]


def all_types_table(n, start=0, struct_nulls=True):
    """Every type pylance writes, nested combinations, all-null and constant columns, long
    strings (full-zip pages), nulls at every level."""
    ids = list(range(start, start + n))
    tz = "UTC"
    long_text = ["x" * 300 + str(i) for i in ids]  # >= 256 bytes: full-zip in 2.1+
    cols = {
        "id": pa.array(ids, pa.int64()),
        "b": pa.array(_nullable([i % 3 == 0 for i in ids], 1, 7), pa.bool_()),
        "i8": pa.array(_nullable([(i % 256) - 128 for i in ids], 2, 9), pa.int8()),
        "i16": pa.array([(i * 37) % 65536 - 32768 for i in ids], pa.int16()),
        "i32": pa.array(_nullable([i * 1000 - 7 for i in ids], 3, 11), pa.int32()),
        "i64": pa.array([i * 10_000_000_000 + 1 for i in ids], pa.int64()),
        "u8": pa.array([i % 256 for i in ids], pa.uint8()),
        "u16": pa.array(_nullable([i % 65536 for i in ids], 0, 5), pa.uint16()),
        "u32": pa.array([(i * 2_654_435_761) % 2**32 for i in ids], pa.uint32()),
        "u64": pa.array([(i * 11_400_714_819_323_198_485) % 2**64 for i in ids], pa.uint64()),
        "f16": pa.array(_nullable([float(i % 64) / 4 for i in ids], 1, 6), pa.float16()),
        "f32": pa.array(_nullable([i / 3.0 if i % 10 else float("nan") for i in ids], 4, 13), pa.float32()),
        "f64": pa.array([i * 0.1 - 50 if i % 17 else float("-inf") for i in ids], pa.float64()),
        "dec": pa.array(_nullable([decimal.Decimal(i * 12345 - 99999).scaleb(-4) for i in ids], 2, 8),
                        pa.decimal128(20, 4)),
        "s": pa.array(_nullable(["s%d-é" % (i % 50) if i % 5 else "" for i in ids], 3, 10), pa.string()),
        "ls": pa.array(_nullable(["large-%d" % i for i in ids], 0, 4), pa.large_string()),
        "long_s": pa.array(_nullable(long_text, 5, 9), pa.string()),
        "bin": pa.array(_nullable([bytes([i % 256, (i * 7) % 256]) * (i % 4) for i in ids], 1, 5), pa.binary()),
        "lbin": pa.array([bytes([i % 256]) for i in ids], pa.large_binary()),
        "fbin": pa.array([(i % 65536).to_bytes(2, "little") * 4 for i in ids], pa.binary(8)),
        "d32": pa.array(_nullable([datetime.date(1969, 12, 1) + datetime.timedelta(days=i) for i in ids], 2, 7),
                        pa.date32()),
        "t32": pa.array([datetime.time(i % 24, i % 60, i % 60) for i in ids], pa.time32("s")),
        "t32ms": pa.array(_nullable([(i * 1001) % 86_400_000 for i in ids], 1, 4), pa.time32("ms")),
        "t64": pa.array([(i * 1_000_003) % 86_400_000_000 for i in ids], pa.time64("us")),
        "t64ns": pa.array([(i * 1_000_000_007) % 86_400_000_000_000 for i in ids], pa.time64("ns")),
        "ts": pa.array(_nullable([i * 1_000_001 - 5_000_000 for i in ids], 3, 7), pa.timestamp("us")),
        "ts_tz": pa.array([i * 86_400_000_123 for i in ids], pa.timestamp("ms", tz=tz)),
        "ts_ns": pa.array([i * 1_000_000_007 for i in ids], pa.timestamp("ns")),
        "ts_s": pa.array([i * 3600 for i in ids], pa.timestamp("s", tz="America/New_York")),
        "l_i32": pa.array(_nullable([[j * i for j in range(i % 5)] for i in ids], 4, 9), pa.list_(pa.int32())),
        "l_s": pa.array([[None if j == 1 else "v%d" % j for j in range(i % 4)] for i in ids], pa.list_(pa.string())),
        "ll_f64": pa.array(_nullable([[i + 0.5] * (i % 3) for i in ids], 0, 6), pa.large_list(pa.float64())),
        "vec": pa.array([[float(i + j) / 8 for j in range(8)] for i in ids], pa.list_(pa.float32(), 8)),
        "vec_null": pa.array(_nullable([[float(i * j) for j in range(4)] for i in ids], 2, 5), pa.list_(pa.float32(), 4)),
        "wide_vec": pa.array([[float(i) + j / 128 for j in range(128)] for i in ids], pa.list_(pa.float32(), 128)),
        # File version 2.0 cannot store struct validity: no null structs there.
        "st": pa.array((_nullable if struct_nulls else lambda v, k, e: v)(
            [{"a": i, "b": "b%d" % i if i % 3 else None} for i in ids], 1, 6),
                       pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "st_nested": pa.array([{"inner": {"x": i * 1.5, "tags": ["t%d" % i] * (i % 3)}, "k": i % 2 == 0}
                               for i in ids],
                              pa.struct([("inner", pa.struct([("x", pa.float64()), ("tags", pa.list_(pa.string()))])),
                                         ("k", pa.bool_())])),
        "l_st": pa.array([[{"p": j, "q": "q%d" % j} for j in range(i % 3)] for i in ids],
                         pa.list_(pa.struct([("p", pa.int64()), ("q", pa.string())]))),
        "l_l": pa.array([[[i, j] for j in range(i % 3)] for i in ids], pa.list_(pa.list_(pa.int16()))),
        "all_null": pa.array([None] * n, pa.int32()),
        "all_null_s": pa.array([None] * n, pa.string()),
        "const": pa.array([42] * n, pa.int64()),
        "const_s": pa.array(["same"] * n, pa.string()),
        "low_card": pa.array(["cat%d" % (i % 3) for i in ids], pa.string()),
    }
    return pa.table(cols)


def map_table(n, start=0):
    ids = list(range(start, start + n))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "m": pa.array([None if i % 7 == 3 else [("k%d" % j, j * i if j else None) for j in range(i % 4)] for i in ids],
                      pa.map_(pa.string(), pa.int32())),
    })


def _all_types(directory, version):
    uri = os.path.join(directory, "all_types_%s.lance" % version.replace(".", "_"))
    nulls = version not in ("2.0", "legacy")
    lance.write_dataset(all_types_table(700, struct_nulls=nulls), uri, data_storage_version=version,
                        max_rows_per_file=300)
    ds = lance.write_dataset(all_types_table(200, start=700, struct_nulls=nulls), uri, mode="append",
                             max_rows_per_file=300)
    ds.delete("id % 11 = 3")        # a few rows per fragment: array deletion files
    ds = lance.dataset(uri)
    ds.delete("id >= 100 AND id < 290")  # most of a fragment
    return uri


def _big_delete(directory):
    # More than 5000 deleted rows in one fragment: Lance stores a bitmap deletion file.
    uri = os.path.join(directory, "big_delete.lance")
    t = pa.table({"id": pa.array(range(20000), pa.int64()), "v": pa.array([i % 97 for i in range(20000)], pa.int32())})
    lance.write_dataset(t, uri)
    ds = lance.dataset(uri)
    ds.delete("id % 3 <> 0")
    ds = lance.dataset(uri)
    ds.delete("id < 300")
    return uri


def _maps(directory):
    uri = os.path.join(directory, "maps.lance")
    lance.write_dataset(map_table(300), uri, data_storage_version="2.2", max_rows_per_file=120)
    return uri


def _history(directory, stable_row_ids):
    """delete, update, merge_insert, compact_files, add/drop/alter columns, tags."""
    uri = os.path.join(directory, "history%s.lance" % ("_stable" if stable_row_ids else ""))
    n = 400
    base = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array(["n%d" % i for i in range(n)], pa.string()),
        "age": pa.array([20 + i % 50 for i in range(n)], pa.int32()),
        "score": pa.array([i / 7 for i in range(n)], pa.float64()),
        "vec": pa.array([[float(i), float(-i), 0.5, 1.0] for i in range(n)], pa.list_(pa.float32(), 4)),
    })
    ds = lance.write_dataset(base, uri, max_rows_per_file=100, enable_stable_row_ids=stable_row_ids)
    ds.delete("id % 13 = 0")
    ds = lance.dataset(uri)
    ds.update({"age": "age + 100"}, where="id % 5 = 1")
    ds = lance.dataset(uri)
    upd = pa.table({
        "id": pa.array([1, 2, 3, 500, 501], pa.int64()),
        "name": pa.array(["m1", "m2", "m3", "m500", "m501"], pa.string()),
        "age": pa.array([1, 2, 3, 5, 6], pa.int32()),
        "score": pa.array([0.25, 0.5, 0.75, 5.0, 6.0], pa.float64()),
        "vec": pa.array([[1.0, 1.0, 1.0, 1.0]] * 5, pa.list_(pa.float32(), 4)),
    })
    ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(upd)
    ds = lance.dataset(uri)
    ds.tags.create("before-compaction", ds.version)
    ds.optimize.compact_files(target_rows_per_fragment=250)
    ds = lance.dataset(uri)
    ds.add_columns({"double_age": "age * 2"})
    ds = lance.dataset(uri)
    ds.add_columns(pa.field("extra", pa.string()))  # an all-null column with no data file
    ds = lance.dataset(uri)
    ds.alter_columns({"path": "age", "name": "years"})
    ds = lance.dataset(uri)
    ds.drop_columns(["score"])
    ds = lance.dataset(uri)
    ds.alter_columns({"path": "years", "data_type": pa.int64()})
    ds = lance.dataset(uri)
    ds.delete("id > 350")
    return uri


def _overlays(directory):
    """DataOverlay commits of current Lance: dense and sparse, several per fragment, in one
    transaction and in several, on scalar, string, vector and struct-leaf fields, and an
    overlay that sets a whole struct to NULL."""
    uri = os.path.join(directory, "overlays.lance")
    n = 60
    st_type = pa.struct([("a", pa.int32()), ("b", pa.string())])
    base = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "age": pa.array([i for i in range(n)], pa.int32()),
        "name": pa.array(["n%d" % i for i in range(n)], pa.string()),
        "vec": pa.array([[float(i)] * 4 for i in range(n)], pa.list_(pa.float32(), 4)),
        "st": pa.array([{"a": i, "b": "b%d" % i} for i in range(n)], st_type),
    })
    ds = lance.write_dataset(base, uri, max_rows_per_file=30)
    schema = ds.schema

    def values_file(name, table):
        path = os.path.join(uri, "data", name)
        with lance.file.LanceFileWriter(path) as w:
            w.write_batch(table)
        return path, name

    def data_file(name, table):
        values_file(name, table)
        return _data_file(ds, name, table.schema)

    # 1. dense overlay of age on fragment 0, offsets 1,3,5
    f1 = data_file("ov1.lance", pa.table({"age": pa.array([101, 103, 105], pa.int32())}))
    op = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
        0, [lance.LanceOperation.DataOverlayFile(f1, [1, 3, 5])])])
    ds = lance.LanceDataset.commit(uri, op, read_version=ds.version)
    # 2. one transaction, two overlays on fragment 0 (the later wins where both cover offset 3)
    #    and a sparse overlay (name at 2, vec at 4 and 7) on fragment 1
    f2a = data_file("ov2a.lance", pa.table({"age": pa.array([203, 207], pa.int32())}))
    f2b = data_file("ov2b.lance", pa.table({"age": pa.array([303], pa.int32()), "name": pa.array(["late"], pa.string())}))
    f2c = data_file("ov2c.lance", pa.table({
        # pylance's file writer writes rectangular files only: the shorter column is padded
        # (the padding lies past that field's coverage and is never read).
        "name": pa.array(["x2", "padding"], pa.string()),
        "vec": pa.array([[9.0] * 4, [7.0] * 4], pa.list_(pa.float32(), 4))}))
    op = lance.LanceOperation.DataOverlay([
        lance.LanceOperation.DataOverlayGroup(0, [
            lance.LanceOperation.DataOverlayFile(f2a, [3, 7]),
            lance.LanceOperation.DataOverlayFile(f2b, [3])]),
        lance.LanceOperation.DataOverlayGroup(1, [
            lance.LanceOperation.DataOverlayFile(f2c, [[2], [4, 7]])]),
    ])
    ds = lance.LanceDataset.commit(uri, op, read_version=ds.version)
    # 3. a struct leaf alone (st.b at offsets 0 and 9 of fragment 1)
    leaf = pa.table({"st": pa.array([{"b": "leaf0"}, {"b": None}], pa.struct([("b", pa.string())]))})
    values_file("ov3.lance", leaf)
    f3 = lance.fragment.DataFile("ov3.lance", [_field_id(ds, "st"), _field_id(ds, "st.b")], [-1, 0], 2,
                                 _minor(ds))
    op = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
        1, [lance.LanceOperation.DataOverlayFile(f3, [0, 9])])])
    ds = lance.LanceDataset.commit(uri, op, read_version=ds.version)
    # 4. the whole struct: NULL at offset 10, new values at 11 (fragment 0)
    whole = pa.table({"st": pa.array([None, {"a": -11, "b": "new11"}], st_type)})
    f4 = data_file("ov4.lance", whole)
    op = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
        0, [lance.LanceOperation.DataOverlayFile(f4, [10, 11])])])
    ds = lance.LanceDataset.commit(uri, op, read_version=ds.version)
    # 5. a leaf overlay over a row whose struct an older overlay set to NULL (offset 10) and
    #    over a base row (offset 12): the struct's validity comes from the newest overlay that
    #    covers any of its descendants
    leaf_a = pa.table({"st": pa.array([{"a": 1010}, {"a": 1212}], pa.struct([("a", pa.int32())]))})
    values_file("ov5.lance", leaf_a)
    f5 = lance.fragment.DataFile("ov5.lance", [_field_id(ds, "st"), _field_id(ds, "st.a")], [-1, 0], 2,
                                 _minor(ds))
    op = lance.LanceOperation.DataOverlay([lance.LanceOperation.DataOverlayGroup(
        0, [lance.LanceOperation.DataOverlayFile(f5, [10, 12])])])
    ds = lance.LanceDataset.commit(uri, op, read_version=ds.version)
    # 6. pylance's own delete and update over the overlaid table
    ds.delete("id = 5")
    ds = lance.dataset(uri)
    ds.update({"name": "'upd'"}, where="id = 3")
    return uri


def _minor(ds):
    return 2 if ds.data_storage_version == "2.2" else 1


def _field_id(ds, path):
    parts = path.split(".")
    field = ds.lance_schema.field(parts[0])
    for p in parts[1:]:
        field = next(c for c in field.children() if c.name() == p)
    return field.id()


def _data_file(ds, name, schema):
    """A DataFile for an overlay values file: field ids from the table's schema, in the file's
    column order."""
    ids, columns = [], []
    for f in schema:
        for field_id, is_leaf in _ids(ds.lance_schema.field(f.name)):
            ids.append(field_id)
            # 2.1+: a struct has no column of its own
            columns.append(len([c for c in columns if c >= 0]) if is_leaf else -1)
    return lance.fragment.DataFile(name, ids, columns, 2, _minor(ds))


def _ids(field):
    """(id, is leaf) of a field and its descendants, depth first (the file's column order)."""
    children = field.children()
    out = [(field.id(), not children or field.to_arrow().type.num_fields == 0
            or not pa.types.is_struct(field.to_arrow().type))]
    if pa.types.is_struct(field.to_arrow().type):
        for c in children:
            out.extend(_ids(c))
    return out


def _shallow_clone(directory):
    """A shallow clone: its manifests reference the source's files through base path 0."""
    src = os.path.join(directory, "clone_source.lance")
    t = pa.table({"id": pa.array(range(300), pa.int64()), "name": ["n%d" % i for i in range(300)]})
    ds = lance.write_dataset(t, src, max_rows_per_file=120)
    ds.delete("id % 9 = 4")
    ds = lance.dataset(src)
    clone = ds.shallow_clone(os.path.join(directory, "clone.lance"), ds.version)
    clone.delete("id >= 200 AND id < 210")
    uri = clone.uri
    lance.write_dataset(pa.table({"id": pa.array([1000, 1001], pa.int64()), "name": ["c0", "c1"]}), uri,
                        mode="append")
    return uri


def _branch(directory):
    """A branch of a branch: the dataset under <root>/tree/feature/x, files under two bases."""
    root = os.path.join(directory, "branched.lance")
    t = pa.table({"id": pa.array(range(50), pa.int64()), "v": pa.array([i * 3 for i in range(50)], pa.int32())})
    ds = lance.write_dataset(t, root)
    ds.delete("id = 1")
    dev = ds.create_branch("dev")
    dev.insert(pa.table({"id": pa.array([100], pa.int64()), "v": pa.array([7], pa.int32())}))
    feature = dev.create_branch("feature/x")
    feature.delete("id = 2")
    return os.path.join(root, "tree", "feature", "x")


def _indices(directory):
    """A table carrying scalar (BTREE, BITMAP), vector (IVF_PQ) and full-text indices, changed after
    they were built."""
    uri = os.path.join(directory, "indexed.lance")
    n = 1000
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "cat": pa.array(["c%d" % (i % 5) for i in range(n)], pa.string()),
        "text": pa.array(["the quick fox %d jumps" % i if i % 3 else "lazy dog %d" % i for i in range(n)]),
        "vec": pa.array([[float((i * 7 + d) % 11) for d in range(8)] for i in range(n)], pa.list_(pa.float32(), 8)),
    })
    ds = lance.write_dataset(t, uri, max_rows_per_file=400)
    ds.create_scalar_index("id", index_type="BTREE")
    ds.create_scalar_index("cat", index_type="BITMAP")
    ds.create_scalar_index("text", index_type="INVERTED")
    ds.create_index("vec", index_type="IVF_PQ", num_partitions=2, num_sub_vectors=2)
    ds = lance.dataset(uri)
    ds.delete("id % 10 = 7")
    ds = lance.dataset(uri)
    ds.update({"cat": "'changed'"}, where="id < 20")
    return uri


SCENARIOS = {
    "shallow-clone": _shallow_clone,
    "branch": _branch,
    "indices": _indices,
    "all-types-2.0": lambda d: _all_types(d, "2.0"),
    "all-types-2.1": lambda d: _all_types(d, "2.1"),
    "all-types-2.2": lambda d: _all_types(d, "2.2"),
    "big-delete": _big_delete,
    "maps": _maps,
    "history": lambda d: _history(d, False),
    "history-stable-row-ids": lambda d: _history(d, True),
    "overlays": _overlays,
}


def build(name, directory):
    if name not in SCENARIOS:
        raise ValueError("unknown scenario %r; known: %s" % (name, ", ".join(sorted(SCENARIOS))))
    os.makedirs(directory, exist_ok=True)
    return SCENARIOS[name](directory)
