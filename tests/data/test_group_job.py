"""Dataset v2 (issue #13): random group programs, their candidates at many launches, the job end to end.

Everything but :func:`test_run_local_writes_v2_shards_and_resumes` stays on
the CPU side of the job (export, group pass, lowering); that one compiles a
handful of kernels with ptxas, as ``tests/data/test_job.py`` does for v1.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from costfuse.data.group_job import PRICED_BY, GroupJobSpec, program_candidates
from costfuse.data.group_programs import (
    DTYPES, KINDS, MAX_N, MAX_ROWS, MIN_N, MIN_ROWS, REAL_TRACE_MAX_NUMEL, draw_params,
    generate_group_program,
)
from costfuse.data.store import SCHEMA_V2, SchemaError, read_dataset, shard_version, shards
from costfuse.launch import KernelLaunch

SAMPLES = 6


def test_draw_params_is_deterministic_and_within_ranges():
    drawn = [(k, s, draw_params(k, s)) for k in KINDS for s in range(40)]
    for kind, seed, p in drawn:
        assert draw_params(kind, seed) == p
        assert MIN_ROWS <= p["rows"] <= MAX_ROWS and MIN_N <= p["n"] <= MAX_N and p["dtype"] in DTYPES, (kind, p)
        if "heads" in p:  # attention: rows are heads x queries
            assert p["rows"] % p["heads"] == 0
    assert (MIN_ROWS, MAX_ROWS, MIN_N, MAX_N, set(DTYPES)) == (1, 65536, 64, 131072, {"f32", "bf16", "f16"})
    pow2 = sum(p["n"] & (p["n"] - 1) == 0 for *_, p in drawn) / len(drawn)
    assert 0.35 < pow2 < 0.75, "about half the row lengths are powers of two (hidden sizes), half any integer"
    assert {p["dtype"] for *_, p in drawn} == set(DTYPES)


def test_row_random_params_are_v1_reduce_programs_named_by_content():
    from costfuse.data.families import generate

    content = generate("reduce", 5).content_hash
    assert draw_params("row_random", 5) == {"family": "reduce", "seed": 5, "content": content}


def test_repeats_are_detected_by_params_and_row_random_by_content():
    """softmax seeds 11 and 46 draw the same rows, n and dtype; row_random seeds 1 and 575 the same program."""
    spec = GroupJobSpec(kinds=("softmax",), programs=47, command="test")
    assert draw_params("softmax", 46) == draw_params("softmax", 11)
    assert spec.repeats() == {"softmax-46": "softmax-11"}
    assert len(spec.program_list()) == 46 and ("softmax", 46) not in spec.program_list()
    rows = GroupJobSpec(kinds=("row_random",), seed=1, programs=575, command="test")
    assert rows.repeats() == {"row_random-575": "row_random-1"}   # seeds differ, content is the same
    assert GroupJobSpec(kinds=("softmax", "swiglu"), programs=4, seed=3, command="test").program_list() == [
        ("softmax", 3), ("swiglu", 4), ("softmax", 5), ("swiglu", 6)]


def test_unknown_kind_is_refused_naming_the_kinds():
    message = r"unknown group kind 'bogus'; choose from softmax, log_softmax, .*, adamw, row_random"
    with pytest.raises(ValueError, match=message):
        draw_params("bogus", 0)
    with pytest.raises(ValueError, match=message):
        generate_group_program("bogus", 0)


def _generics(text: str) -> int:
    from costfuse.graph import function_blocks, generics_in
    from costfuse.ir import parse_module

    module = parse_module(text)
    with module.context:
        return len(generics_in(function_blocks(module)[0]))


def test_a_cheap_kind_traces_on_meta_at_its_drawn_size():
    p = draw_params("rmsnorm_fwd", 2)
    prog = generate_group_program("rmsnorm_fwd", 2)
    assert (prog.program_id, prog.params) == ("rmsnorm_fwd-2", {**p, "traced_on": "meta"})
    assert f"tensor<{p['rows']}x{p['n']}x{p['dtype']}>" in prog.text
    assert _generics(prog.text) >= 4


def test_a_kind_that_cannot_trace_on_meta_traces_on_cpu_with_its_rows_cut():
    """attention_causal builds its mask from aranges inside ``forward``; seed 7 draws 1330 rows of 3424."""
    p = draw_params("attention_causal", 7)
    assert p["rows"] * p["n"] > REAL_TRACE_MAX_NUMEL == 2**22
    prog = generate_group_program("attention_causal", 7)
    q = prog.params
    assert q["traced_on"] == "cpu" and (q["n"], q["dtype"], q["heads"]) == (p["n"], p["dtype"], p["heads"])
    assert q["rows"] * q["n"] <= 2**22 and q["rows"] % q["heads"] == 0 and q["rows"] <= p["rows"]
    assert f"tensor<1x{q['heads']}x{q['rows'] // q['heads']}x{q['n']}x{q['dtype']}>" in prog.text
    assert _generics(prog.text) > 0


# --- candidates -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def candidates():
    """``{program_id: [Candidate]}`` of a softmax (one row group) and a SwiGLU (one pointwise group)."""
    spec = GroupJobSpec(sample_configs=SAMPLES, command="test")
    return {f"{k}-{s}": program_candidates(k, s, spec) for k, s in (("softmax", 1), ("swiglu", 1))}


def _shape(text: str):
    from costfuse.data.lowering.kernel_function import kernel_members
    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    module = parse_module(text)
    return module, analyze_kernel(kernel_members(module.body.operations[0].operation))


def test_candidates_are_lowered_rows_of_schema_v2(candidates):
    v2_only = {"group_id", "mode", "hbm_bytes", "n_ops"}
    for pid, cands in candidates.items():
        assert cands and all(c.source is not None for c in cands), pid
        for c in cands:
            r = c.row
            assert v2_only <= set(r) <= set(SCHEMA_V2.names), sorted(set(r) - set(SCHEMA_V2.names))
            assert r["program_id"] == pid and r["family"] == pid.rsplit("-", 1)[0] and r["root"] is None
            assert len(r["group_id"]) == 16 and r["n_ops"] > 0 and r["hbm_bytes"] > 0
            launch = KernelLaunch(r["mode"], r["xblock"], r["rblock"], r["num_warps"])
            assert c.config == launch.as_config() and r["triton_src"] == c.source and r["kernel_name"] in c.source
            assert json.loads(r["program_params"])["traced_on"] == "meta"
            assert r["command"] == "test" and r["arch"] == "sm_90"


def test_every_group_gets_the_heuristic_and_each_peer_choice_once_per_launch(candidates):
    for pid, cands in candidates.items():
        by_group: dict[str, list] = {}
        for c in cands:
            by_group.setdefault(c.row["group_id"], []).append(c.row)
        for gid, rows in by_group.items():
            launches = [(r["mode"], r["xblock"], r["rblock"], r["num_warps"]) for r in rows]
            assert len(set(launches)) == len(launches), f"{pid}/{gid}: a launch twice"
            sources = Counter(s for r in rows for s in r["config_source"].split(","))
            assert sources["heuristic"] == 1 and all(sources[p] == 1 for p in PRICED_BY), (pid, sources)
            assert rows[0]["config_source"].split(",")[0] == "heuristic"
            assert {r["group_size"] for r in rows} == {rows[0]["ir"].count("linalg.generic")}


def test_a_pointwise_group_gets_a_third_of_the_sampled_configs(candidates):
    sampled = {pid: sum(c.row["config_source"] == "sampled" for c in cands) for pid, cands in candidates.items()}
    assert {c.row["mode"] for c in candidates["swiglu-1"]} == {"pointwise"}
    assert 0 < sampled["swiglu-1"] <= SAMPLES // 3
    assert sampled["softmax-1"] == SAMPLES      # a row group with a space of 134 configs gets them all


def test_candidate_hbm_bytes_are_the_kernel_shapes(candidates):
    """The lowering's own figure, stored per row, is the pass's estimate for that mode (docs/groups.md)."""
    for cands in candidates.values():
        module, shape = _shape(cands[0].row["ir"])
        for c in cands:
            assert c.row["hbm_bytes"] == shape.issued_bytes(c.row["mode"]), c.row["config_source"]
            assert c.row["mode"] != "looped" or c.row["hbm_bytes"] > shape.issued_bytes("persistent")


def test_a_launch_the_lowering_refuses_is_an_unsupported_v2_row(monkeypatch):
    """Stored with its group, mode and the reason, so the dataset says what it could not label."""
    from costfuse.data.dedupe import keep_new_kernels
    from costfuse.data.lowering import kernel
    from costfuse.data.lowering.unsupported import UnsupportedOp
    from costfuse.data.store import to_table

    def refuse(func, launch):
        raise UnsupportedOp("math.erf", f"no {launch.mode} lowering today")

    monkeypatch.setattr(kernel, "lower_kernel", refuse)
    cands = program_candidates("swiglu", 1, GroupJobSpec(sample_configs=SAMPLES, command="test"))
    assert cands and all(c.source is None and c.config is None for c in cands)
    for c in cands:
        r = c.row
        assert (r["status"], r["mode"]) == ("unsupported", "pointwise")
        assert r["error"] == "math.erf: no pointwise lowering today"
        assert r["hbm_bytes"] is None and r["n_ops"] is None and r["regs"] is None and len(r["group_id"]) == 16
    assert to_table([c.row for c in cands], 2).num_rows == len(cands)     # schema-v2 rows as they are
    assert len(keep_new_kernels([c.row for c in cands], set())) == 1       # one group, one refused kernel


# --- the job ----------------------------------------------------------------------------

def test_run_local_writes_v2_shards_and_resumes(tmp_path, monkeypatch):
    """Two tiny programs (softmax 37x256 bf16, SwiGLU 7144x512 bf16), one sampled config each, compiled."""
    from costfuse.data.job import run_local

    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    spec = GroupJobSpec(kinds=("softmax", "swiglu"), programs=2, seed=1, sample_configs=1, command="test")
    out = tmp_path / "ds"
    written = run_local(spec, out, jobs=1, progress=False)
    assert written > 0 and all(shard_version(p) == 2 for p in shards(out))
    before = sorted(p.name for p in shards(out))
    assert run_local(spec, out, jobs=1, progress=False) == 0          # resume: both programs are done
    assert sorted(p.name for p in shards(out)) == before
    df = read_dataset(out, 2)
    assert list(df.columns) == SCHEMA_V2.names and len(df) == written and df.kernel_id.is_unique
    assert set(df.program_id) == {"softmax-1", "swiglu-2"} and (df.status == "ok").all()
    assert (df.regs > 0).all() and df.ptxas_version.str.match(r"\d+\.\d+\.\d+").all()
    assert set(df[df.program_id == "swiglu-2"]["mode"]) == {"pointwise"} and "pointwise" not in set(
        df[df.program_id == "softmax-1"]["mode"])
    assert df.config_source.str.contains("heuristic").groupby(df.group_id).sum().eq(1).all()
    assert (df[df["mode"] == "pointwise"].config_source != "sampled").all()    # 1 // 3 samples: none
    with pytest.raises(SchemaError, match="schema version 2, expected 1"):
        read_dataset(out)


@pytest.mark.parametrize("kinds, message", [("softmax,bogus", "unknown group kinds ['bogus']; choose from softmax, "),
                                            (" , ", "no group kinds given; choose from softmax, ")])
def test_generate_groups_with_an_unknown_kind_or_none_is_one_line(tmp_path, capsys, kinds, message):
    from costfuse.data.cli import main

    assert main(["generate-groups", "--out", str(tmp_path / "ds"), "--kinds", kinds]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("costfuse-data generate-groups: error: ") and message in err, err
    assert not (tmp_path / "ds").exists()
