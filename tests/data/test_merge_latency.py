"""Merging GPU profile rows into a dataset (``costfuse-data merge-latency``): what it sets, what it refuses,
that it is idempotent and that it records where the latencies came from.

The profile rows are hand-made with ``data/profile.py``'s own writer and
schema; their latencies are synthetic numbers that live in these tests only.
"""

from __future__ import annotations

import json

import pytest

from costfuse.cli_common import EXIT_BAD_INPUT
from costfuse.data import profile
from costfuse.data.merge_latency import PROVENANCE, MergeError, merge
from costfuse.data.store import SCHEMA_V2, read_dataset, read_shard, shard_version, shards, write_shard
from helpers.rows import row

BENCH = "do_bench(warmup=25ms, rep=100ms, return_mode=median)"


def prow(kernel_id, latency_us=10.0, status="ok", **kw):
    """A profile row as ``costfuse-data profile`` writes it (PROFILE_SCHEMA)."""
    r = {"kernel_id": kernel_id, "program_id": "chain-0", "status": status, "error": None,
         "latency_us": latency_us if status == "ok" else None, "n_regs": 32, "n_spills": 0,
         "gpu_name": "NVIDIA H200", "torch_version": "2.11.0", "triton_version": "3.6.0", "cuda_version": "12.8",
         "bench": BENCH, "created_at": "2027-01-05T10:00:00+00:00", "command": "costfuse-data profile ds --out lat"}
    r.update(kw)
    return r


@pytest.fixture
def dataset(tmp_path):
    """Two shards: chain-0 (kernels a, b, c) and chain-1 (kernel d)."""
    ds = tmp_path / "ds"
    write_shard(ds, "s0", [row(kernel_id=k, group=g) for k, g in (("a", "g1"), ("b", "g2"), ("c", "g1+g2"))])
    write_shard(ds, "s1", [row(kernel_id="d", program_id="chain-1")])
    return ds


def write_profile(directory, *rows, name="latency-0"):
    return profile.write_rows(directory, name, list(rows))


def latencies(ds) -> dict:
    rows = [r for p in shards(ds) for r in read_shard(p, None).to_pylist()]
    return {r["kernel_id"]: (r["latency_us"], r["gpu_name"]) for r in rows}


def snapshot(ds) -> dict:
    """Each file's bytes and inode: a shard rewritten with the same rows is still a new file."""
    return {p.name: (p.read_bytes(), p.stat().st_ino) for p in sorted(ds.iterdir())}


def test_ok_rows_set_latency_and_gpu_of_their_kernels_only(dataset, tmp_path):
    write_profile(tmp_path / "lat", prow("a", 12.5), prow("b", status="error"), prow("c", status="dry-run"))
    n = merge(dataset, tmp_path / "lat")
    assert latencies(dataset) == {"a": (12.5, "NVIDIA H200"), "b": (None, None), "c": (None, None),
                                  "d": (None, None)}
    assert n == {"kernels": 1, "rows": 1, "shards": 1}


def test_only_the_shards_whose_rows_change_are_rewritten(dataset, tmp_path):
    untouched = snapshot(dataset)["s1.parquet"]
    write_profile(tmp_path / "lat", prow("a", 3.0), prow("c", 4.0))
    assert merge(dataset, tmp_path / "lat")["shards"] == 1
    assert snapshot(dataset)["s1.parquet"] == untouched
    assert [p.name for p in shards(dataset)] == ["s0.parquet", "s1.parquet"]


def test_a_second_merge_changes_nothing(dataset, tmp_path):
    write_profile(tmp_path / "lat", prow("a", 3.0), prow("d", 7.0, program_id="chain-1"))
    merge(dataset, tmp_path / "lat")
    before = snapshot(dataset)
    assert merge(dataset, tmp_path / "lat") == {"kernels": 2, "rows": 0, "shards": 0}
    assert snapshot(dataset) == before


def test_a_v2_shard_stays_v2(tmp_path):
    ds = tmp_path / "ds2"
    extra = {"group_id": "G1", "mode": "persistent", "hbm_bytes": 64, "n_ops": 2, "root": None}
    write_shard(ds, "s", [row(kernel_id="a", **extra)], version=2)
    write_profile(tmp_path / "lat", prow("a", 5.0))
    merge(ds, tmp_path / "lat")
    assert shard_version(ds / "s.parquet") == 2
    assert read_dataset(ds, version=None).latency_us.tolist() == [5.0]
    assert set(read_dataset(ds, version=None).columns) == set(SCHEMA_V2.names)


@pytest.mark.parametrize("rows, message", [
    ([prow("zz")], "kernel zz is not in the dataset"),
    ([prow("a", triton_version="3.5.0")],
     "kernel a was profiled with triton 3.5.0, the dataset's rows are of triton 3.6.0"),
    ([prow("a", 1.0), prow("a", 2.0)], "kernel a disagrees with its row in"),
    ([prow("a", 1.0), prow("a", status="error")], "kernel a disagrees with its row in"),
    ([prow("a", 1.0), prow("a", 1.0, gpu_name="NVIDIA A100")], "kernel a disagrees with its row in"),
    ([prow("a", None)], "kernel a has status ok but latency_us None"),
    ([prow("a", 0.0)], "kernel a has status ok but latency_us 0.0"),
    ([prow("a", float("nan"))], "kernel a has status ok but latency_us nan"),
])
def test_refusals_name_the_file_and_the_reason_and_change_nothing(dataset, tmp_path, rows, message):
    path = write_profile(tmp_path / "lat", prow("b", 9.0), *rows)
    before = snapshot(dataset)
    with pytest.raises(MergeError) as err:
        merge(dataset, tmp_path / "lat")
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)
    assert "\n" not in str(err.value)
    assert snapshot(dataset) == before


def test_identical_duplicate_rows_are_not_a_disagreement(dataset, tmp_path):
    write_profile(tmp_path / "lat", prow("a", 2.0), name="one")
    write_profile(tmp_path / "lat", prow("a", 2.0), name="two")
    assert merge(dataset, tmp_path / "lat")["rows"] == 1


def test_a_latency_from_another_run_is_not_overwritten(dataset, tmp_path):
    write_profile(tmp_path / "lat1", prow("a", 2.0))
    merge(dataset, tmp_path / "lat1")
    write_profile(tmp_path / "lat2", prow("a", 2.5))
    before = snapshot(dataset)
    with pytest.raises(MergeError, match="kernel a already has latency_us 2.0 on NVIDIA H200 in the dataset"):
        merge(dataset, tmp_path / "lat2")
    assert snapshot(dataset) == before


def test_an_empty_or_foreign_directory_is_refused(dataset, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(MergeError, match="no profile shards"):
        merge(dataset, tmp_path / "empty")
    write_shard(tmp_path / "notprofile", "x", [row()])
    with pytest.raises(MergeError, match=r"x.parquet: not a profile shard \(missing columns .*bench"):
        merge(dataset, tmp_path / "notprofile")
    with pytest.raises(MergeError, match="no dataset shards"):
        merge(tmp_path / "empty", tmp_path / "notprofile")


def test_provenance_records_each_run_and_a_resumed_run_replaces_its_entry(dataset, tmp_path):
    lat = tmp_path / "lat"
    write_profile(lat, prow("a", 2.0, created_at="2027-01-05T10:00:00+00:00"),
                  prow("b", status="error", created_at="2027-01-05T09:00:00+00:00"), name="first")
    merge(dataset, lat)
    write_profile(lat, prow("c", 3.0, created_at="2027-01-05T11:00:00+00:00"), name="resumed")
    write_profile(tmp_path / "other", prow("d", 4.0, program_id="chain-1", command="costfuse-data profile x",
                                           created_at="2027-01-04T08:00:00+00:00"))
    merge(dataset, lat)
    merge(dataset, tmp_path / "other")
    runs = json.loads((dataset / PROVENANCE).read_text())["runs"]
    assert [(r["command"], r["kernels"], r["first_created_at"], r["last_created_at"]) for r in runs] == [
        ("costfuse-data profile x", 1, "2027-01-04T08:00:00+00:00", "2027-01-04T08:00:00+00:00"),
        ("costfuse-data profile ds --out lat", 2, "2027-01-05T10:00:00+00:00", "2027-01-05T11:00:00+00:00"),
    ]
    assert {k: runs[1][k] for k in ("bench", "gpu_name", "torch_version", "triton_version", "cuda_version")} == {
        "bench": BENCH, "gpu_name": "NVIDIA H200", "torch_version": "2.11.0", "triton_version": "3.6.0",
        "cuda_version": "12.8"}


def test_no_provenance_file_when_nothing_was_timed(dataset, tmp_path):
    write_profile(tmp_path / "lat", prow("a", status="dry-run"))
    merge(dataset, tmp_path / "lat")
    assert not (dataset / PROVENANCE).exists()


def test_cli_merges_and_refuses_in_one_line(dataset, tmp_path, capsys):
    from costfuse.data.cli import main

    write_profile(tmp_path / "lat", prow("a", 2.0))
    assert main(["merge-latency", str(dataset), "--latency", str(tmp_path / "lat")]) == 0
    assert "1 profiled kernels: latency set on 1 rows, 1 shards rewritten" in capsys.readouterr().out
    bad = write_profile(tmp_path / "bad", prow("zz"))
    assert main(["merge-latency", str(dataset), "--latency", str(tmp_path / "bad")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err == f"costfuse-data merge-latency: error: {bad}: kernel zz is not in the dataset\n"


def test_the_card_lists_the_runs_once_latency_is_merged(dataset, tmp_path):
    from costfuse.data.card import LABEL_SOURCES, card

    assert LABEL_SOURCES in card(dataset)
    write_profile(tmp_path / "lat", prow("a", 2.0), prow("c", 3.0))
    merge(dataset, tmp_path / "lat")
    text = card(dataset)
    assert "No GPU was used" not in text and "Registers, spill bytes and stack frame come from" in text
    assert "Latency (`latency_us`, `gpu_name`, 2 rows) was measured on a GPU" in text
    assert (f"| `costfuse-data profile ds --out lat` | NVIDIA H200 | {BENCH} | 2.11.0 | 3.6.0 | 12.8 | 2 | "
            "2027-01-05T10:00:00+00:00 | 2027-01-05T10:00:00+00:00 |") in text
