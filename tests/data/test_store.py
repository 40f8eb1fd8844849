"""The Parquet store: schema enforced, shards atomic, version checked."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from costfuse.data.store import SCHEMA, SchemaError, done_programs, read_dataset, read_shard, shards, write_shard
from helpers.rows import row


def test_round_trip_and_resume_set(tmp_path):
    write_shard(tmp_path, "a", [row(), row(kernel_id="k2", program_id="tree-1", family="tree")])
    df = read_dataset(tmp_path)
    assert list(df.kernel_id) == ["k1", "k2"]
    assert done_programs(tmp_path) == {"chain-0", "tree-1"}
    assert not list(tmp_path.glob(".*.tmp"))  # no temp file left behind


@pytest.mark.parametrize("bad, message", [
    (dict(status="weird"), "status 'weird'"),
    (dict(program_id=None), "column program_id may not be null"),
    (dict(regs="many"), "do not match schema"),
])
def test_bad_rows_are_rejected(tmp_path, bad, message):
    with pytest.raises(SchemaError, match=message):
        write_shard(tmp_path, "bad", [row(**bad)])
    assert not shards(tmp_path)


def test_unknown_column_rejected(tmp_path):
    r = row()
    r["surprise"] = 1
    with pytest.raises(SchemaError, match="unknown columns \\['surprise'\\]"):
        write_shard(tmp_path, "bad", [r])


def test_other_schema_version_is_refused(tmp_path):
    path = write_shard(tmp_path, "a", [row()])
    table = pq.read_table(path).replace_schema_metadata({b"costfuse.schema_version": b"0"})
    pq.write_table(table, path)
    with pytest.raises(SchemaError, match=r"schema version b'0', expected one of \[1, 2, 3\]"):
        read_shard(path)


def test_a_v1_shard_is_refused_where_v2_is_expected_and_read_as_any(tmp_path):
    path = write_shard(tmp_path, "a", [row()])
    with pytest.raises(SchemaError, match="schema version 1, expected 2"):
        read_shard(path, 2)
    assert read_shard(path, None).num_rows == 1
    assert list(read_dataset(tmp_path, None).columns) == SCHEMA.names


def test_v2_rows_carry_the_group_columns_and_mixed_versions_are_refused(tmp_path):
    from costfuse.data.store import SCHEMA_V2

    v2 = {**row(kernel_id="k2"), "root": None, "group_id": "g", "mode": "looped", "hbm_bytes": 10, "n_ops": 3}
    write_shard(tmp_path / "d", "b", [v2], version=2)
    df = read_dataset(tmp_path / "d", 2)
    assert list(df.columns) == SCHEMA_V2.names and df["mode"].tolist() == ["looped"]
    with pytest.raises(SchemaError, match="may not be null"):
        write_shard(tmp_path, "c", [{**v2, "group_id": None}], version=2)
    write_shard(tmp_path / "d", "a", [row()])
    with pytest.raises(SchemaError, match=r"several schema versions \[1, 2\]"):
        read_dataset(tmp_path / "d", None)


def test_empty_dataset(tmp_path):
    assert read_dataset(tmp_path).empty


# --- exact messages and the small helpers (the mutation check's survivors, experiments/results/mutation.md) ---
@pytest.mark.parametrize("rows, message", [
    ([row(), row(kernel_id="k2", status="weird")],
     "row 1: status 'weird' not in ['error', 'ok', 'timeout', 'unsupported']"),
    ([row(program_id=None)], "row 0 (k1): column program_id may not be null"),
    ([{k: v for k, v in row().items() if k != "status"}], "row 0 (k1): unknown columns [], missing ['status']"),
    ([{k: v for k, v in row().items() if k != "kernel_id"}], "row 0 (?): unknown columns [], missing ['kernel_id']"),
    ([{**row(), "surprise": 1}], "row 0 (k1): unknown columns ['surprise'], missing []"),
])
def test_rejections_name_the_row_its_kernel_and_the_column(tmp_path, rows, message):
    with pytest.raises(SchemaError) as err:
        write_shard(tmp_path, "bad", rows)
    assert str(err.value) == message


def test_type_mismatch_names_the_schema_version(tmp_path):
    with pytest.raises(SchemaError, match=r"^rows do not match schema v1: "):
        write_shard(tmp_path, "bad", [row(regs="many")])


def test_shard_lands_in_a_new_nested_directory_as_zstd_with_its_version(tmp_path):
    path = write_shard(tmp_path / "a" / "b", "s", [row()])
    assert path == tmp_path / "a" / "b" / "s.parquet" and shards(tmp_path / "a" / "b") == [path]
    meta = pq.ParquetFile(path)
    assert meta.metadata.row_group(0).column(0).compression == "ZSTD"
    assert meta.schema_arrow.metadata[b"costfuse.schema_version"] == b"1"


def test_stored_kernels_and_an_unversioned_shard(tmp_path):
    from costfuse.data.store import stored_kernels

    write_shard(tmp_path, "a", [row(), row(kernel_id="k2")])
    write_shard(tmp_path, "b", [row(kernel_id="k3", program_id="tree-1")])
    assert stored_kernels(tmp_path) == {"k1", "k2", "k3"} and done_programs(tmp_path) == {"chain-0", "tree-1"}
    path = tmp_path / "plain.parquet"
    pq.write_table(pq.read_table(tmp_path / "a.parquet").replace_schema_metadata(None), path)
    with pytest.raises(SchemaError, match=rf"^{path}: schema version None, expected one of \[1, 2, 3\]$"):
        read_shard(path)


def test_empty_dataset_has_the_schema_columns_and_params_are_sorted(tmp_path):
    from costfuse.data.store import params_json

    assert list(read_dataset(tmp_path).columns) == SCHEMA.names
    assert params_json({"b": 1, "a": [2]}) == '{"a": [2], "b": 1}'


def test_the_temporary_shard_is_hidden_beside_the_final_one_and_removed_on_failure(tmp_path, monkeypatch):
    from costfuse.data import store

    seen = []
    write = store.pq.write_table

    def spy(table, where, **kw):
        seen.append(Path(where))
        assert shards(tmp_path) == []  # a reader never sees the shard being written
        return write(table, where, **kw)

    monkeypatch.setattr(store.pq, "write_table", spy)
    write_shard(tmp_path, "s", [row()])
    (tmp,) = seen
    assert tmp.parent == tmp_path and tmp.name.startswith(".s.") and tmp.name.endswith(".tmp")

    def fail(table, where, **kw):
        Path(where).write_text("half a shard")
        raise OSError("disk full")

    monkeypatch.setattr(store.pq, "write_table", fail)
    with pytest.raises(OSError, match="disk full"):
        write_shard(tmp_path, "t", [row()])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.parquet"]


def test_an_unknown_schema_version_is_refused_naming_the_known_ones(tmp_path):
    with pytest.raises(SchemaError, match=r"^schema version 9 unknown; known: \[1, 2, 3\]$"):
        write_shard(tmp_path, "s", [row()], version=9)


def test_a_v1_row_may_not_leave_a_column_empty_that_only_v2_may(tmp_path):
    """``root`` (the member a v1 group fuses into) is required in v1; v2 rows may leave it null."""
    with pytest.raises(SchemaError, match=r"^row 0 \(k1\): column root may not be null$"):
        write_shard(tmp_path, "s", [row(root=None)])


def test_a_shard_whose_columns_differ_from_its_version_is_refused_by_path(tmp_path):
    path = write_shard(tmp_path, "a", [row()])
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["error"]), path)   # keeps the version metadata
    with pytest.raises(SchemaError, match=rf"^{path}: columns do not match schema v1$"):
        read_shard(path)


def test_reading_as_any_version_takes_the_shards_own_and_an_empty_folder_is_v1(tmp_path):
    from costfuse.data.store import SCHEMA_V2

    v2 = {**row(kernel_id="k2"), "root": None, "group_id": "g", "mode": "looped", "hbm_bytes": 10, "n_ops": 3}
    write_shard(tmp_path / "v2", "b", [v2], version=2)
    assert list(read_dataset(tmp_path / "v2", None).columns) == SCHEMA_V2.names
    empty = read_dataset(tmp_path / "none", None)
    assert empty.empty and list(empty.columns) == SCHEMA.names


def test_a_dataset_read_at_another_version_is_refused(tmp_path):
    write_shard(tmp_path, "a", [row()])
    with pytest.raises(SchemaError, match="schema version 1, expected 2"):
        read_dataset(tmp_path, 2)


@pytest.mark.parametrize("name", ["sm90_v1", "sm90_v2"])
def test_a_shipped_dataset_reads_as_one_parquet_dataset(name):
    """Notes beside the shards (``_CHANGES.md``, ``_latency_provenance.json``) start with "_", which pyarrow's
    discovery skips, so ``pd.read_parquet(DIR)`` reads a shipped dataset as it is (issue #27, bug 10)."""
    import pandas as pd

    directory = Path(__file__).resolve().parents[2] / "data" / name
    assert all(p.suffix == ".parquet" or p.name.startswith("_") for p in directory.iterdir())
    assert len(pd.read_parquet(directory, columns=["kernel_id"])) > 1000
