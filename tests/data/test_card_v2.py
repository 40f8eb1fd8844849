"""The card of a v2 directory (kernel groups, ``data/group_job.py``) computes every figure from the rows.

A small synthetic directory whose spill rates are known by construction: three
group candidates (two row reductions over N = 5000, one pointwise kernel over
N = 300), each at a few launches, one compile timed out.
"""

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers.rows import make as make_v1
from helpers.rows import row

from costfuse.data.card import card, main
from costfuse.data.stats import bucket_label, n_bucket, row_lengths, summarize_groups
from costfuse.data.store import read_dataset, write_shard

POINTWISE = """#id = affine_map<(d0, d1) -> (d0, d1)>
module {{
  func.func @kernel(%arg0: tensor<{r}x{n}xf32>) -> tensor<{r}x{n}xf32> {{
    %0 = tensor.empty() : tensor<{r}x{n}xf32>
    %1 = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
        ins(%arg0 : tensor<{r}x{n}xf32>) outs(%0 : tensor<{r}x{n}xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %2 = arith.negf %in : f32
      linalg.yield %2 : f32
    }} -> tensor<{r}x{n}xf32>
    return %1 : tensor<{r}x{n}xf32>
  }}
}}
"""
ROW_SUM = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
module {{
  func.func @kernel(%arg0: tensor<{r}x{n}xf32>) -> tensor<{r}xf32> {{
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<{r}xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<{r}xf32>) -> tensor<{r}xf32>
    %2 = linalg.generic {{indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}}
        ins(%arg0 : tensor<{r}x{n}xf32>) outs(%1 : tensor<{r}xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %3 = arith.addf %in, %out : f32
      linalg.yield %3 : f32
    }} -> tensor<{r}xf32>
    return %2 : tensor<{r}xf32>
  }}
}}
"""

# kind, group id, kernel IR, params, [(config_source, mode, num_warps, spill bytes or None if it timed out)]
GROUPS = [
    ("softmax", "gA", ROW_SUM.format(r=4, n=5000), {"dtype": "bf16", "n": 5000, "rows": 4}, [
        ("heuristic,always", "persistent", 4, 0), ("analytical", "looped", 8, 0),
        ("sampled", "persistent", 1, 64), ("sampled", "persistent", 1, 128)]),
    ("gelu_tanh", "gB", POINTWISE.format(r=8, n=300), {"dtype": "f16", "n": 300, "rows": 8}, [
        ("heuristic,inductor", "pointwise", 4, 0), ("sampled", "pointwise", 2, 32), ("sampled", "pointwise", 2, None)]),
    ("row_random", "gC", ROW_SUM.format(r=2, n=5000), {"family": "reduce", "seed": 2}, [
        ("heuristic", "looped", 4, 0)]),
]


def v2_rows():
    rows = []
    for seed, (kind, gid, ir, params, configs) in enumerate(GROUPS):
        for j, (source, mode, warps, spill) in enumerate(configs):
            r = {**row(kernel_id=f"{gid}-{j}", program_id=f"{kind}-{seed}", family=kind, generator_seed=seed,
                       program_params=json.dumps(params), group="g1", ir=ir, root=None, xblock=1, rblock=1,
                       num_warps=warps, config_source=source, ptxas_version="12.8.93", spill_store_bytes=spill,
                       regs=255 if spill else 40, created_at=f"2026-12-03T0{seed}:30:00+00:00",
                       command="costfuse-data generate-groups --out d" if seed < 2 else "costfuse-data resumed"),
                 "group_id": gid, "mode": mode, "hbm_bytes": 1024, "n_ops": 1}
            if spill is None:
                r.update(status="timeout", regs=None, error="compile exceeded 120 s")
            rows.append(r)
    return rows


def make_v2(directory, rows=None):
    rows = v2_rows() if rows is None else rows
    for name, part in (("a", rows[:4]), ("b", rows[4:])):
        if part:
            write_shard(directory, name, part, version=2)
    return directory


@pytest.fixture
def no_plots(monkeypatch):
    """Cards without drawing their plots (a second or so each): for tests of the text alone."""
    import costfuse.data.card as card_module

    def paths(stems):
        return lambda df, *args: [Path(args[-1]) / f"{s}.png" for s in stems]

    monkeypatch.setattr(card_module, "histograms", paths(["regs", "spill_bytes"]))
    monkeypatch.setattr(card_module, "group_plots", paths(["spill_by_kind", "spill_by_n", "spill_by_warps",
                                                           "regs_by_mode"]))


@pytest.fixture(scope="module")
def v2(tmp_path_factory):
    """``(directory, its card)``: the card written once for the tests that read it."""
    d = make_v2(tmp_path_factory.mktemp("cards") / "ds_v2")
    return d, card(d)


def test_row_length_comes_from_the_kernel_and_buckets_by_powers_of_4():
    df = pd.DataFrame(v2_rows())
    assert row_lengths(df).tolist() == [5000] * 4 + [300] * 3 + [5000]
    assert [n_bucket(n) for n in (1, 2, 4, 5, 300, 5000)] == [1, 4, 4, 16, 1024, 16384]
    assert [bucket_label(b) for b in (1, 4, 1024, 16384, 4**10)] == ["1", "(1, 4]", "(256, 1K]", "(4K, 16K]",
                                                                    "(256K, 1M]"]


def test_spill_rates_by_every_cut(v2):
    t = summarize_groups(read_dataset(v2[0], None))
    kinds = t["kinds"]
    assert kinds.loc["all", ["kernels", "compiled", "groups", "programs"]].tolist() == [8, 7, 3, 3]
    assert kinds.loc["softmax", "spill_rate"] == 0.5 and kinds.loc["gelu_tanh", "spill_rate"] == 0.5
    assert kinds.loc["row_random", "spill_rate"] == 0 and kinds.loc["all", "spill_rate"] == 3 / 7
    assert t["status"].loc["gelu_tanh", "timeout"] == 1
    by_n = t["spill_rate_by_n"]
    assert list(by_n.index) == ["(256, 1K]", "(4K, 16K]"]
    assert by_n.loc["(4K, 16K]", ["kernels", "spilling", "spill_rate", "persistent", "looped"]].tolist() == [
        5, 2, 0.4, 2 / 3, 0.0]
    assert by_n.loc["(256, 1K]", "pointwise"] == 0.5
    assert t["spill_rate_by_warps"].spill_rate.to_dict() == {1: 1.0, 2: 1.0, 4: 0.0, 8: 0.0}
    assert list(t["spill_rate_by_mode"].index) == ["pointwise", "persistent", "looped"]
    assert t["spill_rate_by_mode"].spill_rate.tolist() == [0.5, 2 / 3, 0.0]
    # a launch several sources chose counts for each of them
    src = t["spill_rate_by_source"]
    assert list(src.index) == ["heuristic", "always", "analytical", "inductor", "sampled"]
    assert src.kernels.tolist() == [3, 1, 1, 1, 3] and src.spill_rate.tolist() == [0, 0, 0, 0, 1.0]
    dt = t["dtypes"]
    assert list(dt.index) == ["bf16", "f16", "(not drawn)"]
    assert dt.loc["f16", ["programs", "kernels", "spill_rate"]].tolist() == [1, 3, 0.5]


def test_card_shows_the_sections_and_embeds_the_plots(v2):
    d, text = v2
    assert text.startswith("# Dataset `ds_v2`\n")
    assert "- **8 rows**, **7 kernels compiled** by ptxas (status ok)" in text
    assert "from **3 group candidates** (distinct `group_id`) of **3 programs**\n  in 3 kinds; schema v2, 2 Parquet" \
        in text
    assert "- 0 repeated kernel ids" in text and "must be 0" not in text
    assert "Overall spill rate (compiled kernels with spill stores > 0): **42.9%**" in text
    assert ("Commands recorded in the rows: `costfuse-data generate-groups --out d` (7 rows); "
            "`costfuse-data resumed` (1 rows)") in text
    # rows an hour apart: each gap is a pause between runs, so nothing counts as running
    assert "Wall time: 0.00 h running (gaps over 30 min between rows are pauses between runs and left out), " \
        "2.00 h from the first row to the last" in text
    assert "| sm_90 | 3.6.0 | 12.8.93 | 8 |" in text
    for heading in ("## Per kind", "Status counts:", "## Spill rate by row length N", "## Spill rate by num_warps",
                    "## Spill rate by mode", "## Spill rate by config source", "## Dtypes",
                    "## Kinds and sizes (`data/group_programs.py`)", "## Configs per group candidate"):
        assert heading in text, heading
    assert "| (4K, 16K] | 5 | 2 | 0.4 | 40 | – | 0.667 | 0 |" in text
    assert "| sampled | 3 | 3 | 1 | 255 |" in text
    assert "`row_random` programs draw none" in text
    # every compiled config's spill kind (data/spill_kind.py): the three that spill do so at the cap
    assert "## Spill kinds (`data/spill_kind.py`)" in text
    assert "| none | 4 | 0.571 | 40 |" in text and "| pressure | 3 | 0.429 | 255 |" in text
    for stem in ("spill_by_kind", "spill_by_n", "spill_by_warps", "regs_by_mode"):
        assert f"(ds_v2_plots/{stem}.png)" in text
        assert (d.parent / "ds_v2_plots" / f"{stem}.png").stat().st_size > 1000
    assert not (d / "plots").exists()


def test_a_repeated_kernel_id_is_flagged(tmp_path, no_plots):
    rows = v2_rows()
    rows[5]["kernel_id"] = rows[0]["kernel_id"]
    text = card(make_v2(tmp_path / "dup", rows))
    assert "- 1 repeated kernel ids (the job stores each kernel once: `data/dedupe.py`): **must be 0**" in text


def test_both_cards_in_one_file_leave_v1_as_it_was(tmp_path, v2, capsys, no_plots):
    v1 = make_v1(tmp_path / "ds_v1")
    alone = card(v1)
    assert main([str(v1), str(v2[0])]) == 0
    out = capsys.readouterr().out
    preamble, rest = out.split("\n\n", 1)
    assert preamble == (f"Cards of 2 datasets, generated together by `python -m costfuse.data.card {v1} {v2[0]}`;\n"
                        "each card is what the command prints for its directory alone.")
    assert rest == alone + "\n" + v2[1] + "\n"


def test_bad_directories_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 1
    err = capsys.readouterr().err
    assert err == f"card: error: {tmp_path / 'empty'}: no Parquet shards, nothing to write a card of\n"
    rows = v2_rows()[:1]
    rows[0]["ir"] = "module {}"
    make_v2(tmp_path / "bad", rows)
    with pytest.raises(ValueError, match="program softmax-0, group gA: no row length from its kernel function"):
        card(tmp_path / "bad")


def test_stats_command_reads_a_v2_directory(v2, monkeypatch, tmp_path):
    """``costfuse-data stats DIR`` prints the v2 tables for a v2 directory (plots drawn by the card test)."""
    import costfuse.data.stats as stats

    monkeypatch.setattr(stats, "group_plots", lambda df, tables, out_dir: [Path(out_dir) / "spill_by_kind.png"])
    text = stats.report(v2[0], tmp_path)
    assert "## spill_rate_by_source" in text and "## spill_rate_by_n" in text and "(4K, 16K]" in text


def test_wall_time_leaves_out_pauses_between_runs():
    from costfuse.data.card import _wall_hours

    times = ["2026-12-03T10:00:00", "2026-12-03T10:20:00", "2026-12-03T10:30:00",   # a run: 30 min
             "2026-12-03T13:30:00", "2026-12-03T13:45:00"]                          # resumed: 15 min
    ran, span = _wall_hours(pd.DataFrame({"created_at": times[::-1]}))
    assert (ran, span) == (0.75, 3.75)
