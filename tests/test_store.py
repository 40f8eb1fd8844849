"""The Parquet store: schema enforced, shards atomic, version checked."""

import pyarrow.parquet as pq
import pytest

from costfuse.data.store import SCHEMA, SchemaError, done_programs, read_dataset, read_shard, shards, write_shard


def row(**kw):
    r = {name: None for name in SCHEMA.names}
    r.update(kernel_id="k1", program_id="chain-0", family="chain", generator_seed=0, group="g1", group_size=1,
             root=1, ir="module {}", arch="sm_90", triton_version="3.6.0", compile_s=0.5, status="ok",
             created_at="2026-12-02T00:00:00+00:00", command="test", regs=32, spill_store_bytes=0)
    r.update(kw)
    return r


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
    with pytest.raises(SchemaError, match="schema version b'0', expected 1"):
        read_shard(path)


def test_empty_dataset(tmp_path):
    assert read_dataset(tmp_path).empty
