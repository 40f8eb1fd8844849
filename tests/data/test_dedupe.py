"""One program per content, one row per kernel: the rules, the tool that applies them, the shipped dataset."""

import subprocess
import sys
from pathlib import Path

import pytest
from helpers.rows import row

from costfuse.data.dedupe import dedupe_dataset, program_hashes
from costfuse.data.families import generate
from costfuse.data.store import params_json, read_dataset, shards, write_shard

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "sm90_v1"


def prow(family: str, seed: int, kernel_id: str, **kw) -> dict:
    """A row of the generated program ``(family, seed)`` with its real parameters."""
    kw.setdefault("program_params", params_json(generate(family, seed).params))
    return row(kernel_id=kernel_id, program_id=f"{family}-{seed}", family=family, generator_seed=seed, **kw)


def twin_dataset(directory: Path) -> None:
    """act-340 repeats act-322; cast-215 shares kernel "ext" with cast-17; shard "z" has nothing repeated."""
    write_shard(directory, "a", [prow("act", 340, "k340"), prow("cast", 17, "ext"), prow("cast", 17, "k17")])
    write_shard(directory, "b", [prow("act", 322, "k322"), prow("cast", 215, "ext", group="g2"),
                                 prow("cast", 215, "k215")])
    write_shard(directory, "z", [prow("chain", 0, "k0")])


def test_dedupe_keeps_the_lowest_seed_and_rewrites_only_what_changes(tmp_path):
    twin_dataset(tmp_path)
    untouched = (tmp_path / "z.parquet").read_bytes()
    dry = dedupe_dataset(tmp_path, dry_run=True)
    assert len(read_dataset(tmp_path)) == 7  # a dry run writes nothing
    lines = dedupe_dataset(tmp_path)
    assert lines == dry[:-1] + [dry[-1].replace("would rewrite", "rewrote")]
    assert lines[0] == "act-340: same program as act-322, 1 rows dropped"
    assert lines[1] == "cast-215 g2: kernel ext is already stored under cast-17, row dropped"
    assert lines[-1] == "2 rows dropped (1 repeated programs, 1 repeated kernels); rewrote 2 of 3 shards"
    df = read_dataset(tmp_path)
    assert sorted(df.kernel_id) == ["ext", "k0", "k17", "k215", "k322"]
    assert df.set_index("kernel_id").program_id["ext"] == "cast-17"
    assert (tmp_path / "z.parquet").read_bytes() == untouched
    assert dedupe_dataset(tmp_path)[-1].startswith("0 rows dropped")  # idempotent


def test_a_shard_left_empty_is_removed(tmp_path):
    write_shard(tmp_path, "a", [prow("act", 322, "k322")])
    write_shard(tmp_path, "b", [prow("act", 340, "k340")])
    dedupe_dataset(tmp_path)
    assert [p.name for p in shards(tmp_path)] == ["a.parquet"]


def test_program_hashes_refuse_rows_the_generator_no_longer_makes(tmp_path):
    import pandas as pd

    rows = pd.DataFrame([prow("act", 322, "k"), prow("act", 340, "k2"), row(program_id="torch-x", family="torch")])
    hashes = program_hashes(rows)
    assert hashes[0] == hashes[1] != hashes[2] == "torch-x"
    stale = pd.DataFrame([prow("act", 322, "k", program_params='{"act": "relu"}')])
    with pytest.raises(ValueError, match=r"program act-322: \(act, seed 322\) no longer regenerates it"):
        program_hashes(stale)


def test_cli_names_the_directory_on_error(tmp_path):
    write_shard(tmp_path, "a", [prow("act", 322, "k", program_params="{}")])
    r = subprocess.run([sys.executable, "-m", "costfuse.data.dedupe", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith(f"dedupe: error: {tmp_path}: program act-322")
    assert "Traceback" not in r.stderr


def test_shipped_dataset_stores_each_program_and_kernel_once():
    df = read_dataset(SHIPPED)
    assert df.kernel_id.is_unique
    assert len(set(program_hashes(df))) == df.program_id.nunique() == 399


def test_split_groups_join_programs_that_compile_the_same_kernel_body():
    import pandas as pd

    from costfuse.data.dedupe import split_groups

    src = "# op %3 of program A\nimport triton\nBODY"
    rows = pd.DataFrame({
        "program_id": ["chain-1", "chain-2", "chain-3"], "family": ["nope"] * 3, "generator_seed": [1, 2, 3],
        "program_params": [None] * 3, "triton_src": [src, src.replace("%3 of program A", "%7 of B"), "# x\nOTHER"],
        "xblock": [64] * 3, "rblock": [1] * 3, "num_warps": [4] * 3, "arch": ["sm_90"] * 3,
    })
    g = split_groups(rows)
    assert g[0] == g[1] != g[2]


def test_shipped_split_puts_no_kernel_body_on_both_sides():
    from costfuse.data.dedupe import kernel_body, split_groups
    from costfuse.data.store import read_dataset
    from costfuse.train.splits import grouped_split

    df = read_dataset(SHIPPED)
    df = df[df["status"] == "ok"].reset_index(drop=True)
    split = grouped_split(split_groups(df), 0.25, 0)
    key = [(kernel_body(s), x, r, w) for s, x, r, w in df[["triton_src", "xblock", "rblock", "num_warps"]].itertuples(index=False)]
    train = {k for k, t in zip(key, split.train) if t}
    assert not any(k in train for k, t in zip(key, split.test) if t)


def test_join_sharing_joins_groups_through_chains_of_shared_keys():
    from costfuse.data.dedupe import join_sharing

    g = join_sharing(["p3", "p1", "p2", "p2", "p4", "p5"], ["k1", "k1", "k2", "k1", None, ""])
    assert g.tolist() == ["p1", "p1", "p1", "p1", "p4", "p5"]  # p3-p1 by k1, p2 by k1 too; no key joins nothing
    assert join_sharing(["b", "a"], ["x", "y"]).tolist() == ["b", "a"]
