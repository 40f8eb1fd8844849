"""The CPU harness: a faked sm_90, Inductor's kernels with their candidates, compiled with ptxas through the pool,
run under the interpreter, and ``costfuse inductor-report`` (data/inductor_*.py)."""

from __future__ import annotations

import json

import pytest
import torch

from costfuse.data.compile import CompilePool, CompileTask
from costfuse.data.inductor_codegen import inductor_code, kernels_of
from costfuse.data.inductor_device import fake_sm90
from costfuse.data.inductor_report import dropped_by_inductor
from costfuse.launch import KernelLaunch

BF16 = torch.bfloat16


def softmax(x):
    return torch.softmax(x.float(), -1).to(x.dtype)


def test_the_faked_gpu_is_gone_after_the_block():
    from triton.runtime.driver import driver

    active = driver._active
    with fake_sm90() as props:
        assert torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
        assert props.multi_processor_count == 132
        assert driver.active.get_current_target().arch == 90
    assert not torch.cuda.is_available() and driver._active is active


def test_kernels_come_with_inductors_candidates():
    (looped,) = kernels_of(inductor_code(softmax, [((2048, 4096), BF16)]))
    assert looped.heuristic == "reduction" and not looped.persistent
    assert (looped.xnumel, looped.rnumel) == (2048, 4096)
    assert [looped.launch(c) for c in looped.candidates] == [KernelLaunch("looped", 1, 4096, 16),
                                                              KernelLaunch("looped", 1, 2048, 16)]
    (persistent,) = kernels_of(inductor_code(softmax, [((2048, 1024), BF16)]))
    assert persistent.persistent and persistent.heuristic == "persistent_reduction"
    assert all(persistent.launch(c).rblock == 1024 for c in persistent.candidates)


def test_an_inductor_kernel_compiles_through_the_pool_at_any_config(tmp_path):
    """The kernel file names its block constexprs (R0_BLOCK is the pool's RBLOCK), constants and argument
    attributes: two configs give two compiles with their own registers."""
    from costfuse.data.compile import ResultCache

    (k,) = kernels_of(inductor_code(softmax, [((2048, 4096), BF16)]))
    launches = [k.launch(c) for c in k.candidates]
    with CompilePool(2, cache=ResultCache(tmp_path)) as pool:
        results = pool.run([CompileTask(k.compile_source(), k.compile_config(x), 90) for x in launches])
    assert [r.status for r in results] == ["ok", "ok"], [r.error for r in results]
    assert len({r.kernel_id for r in results}) == 2 and all(r.regs > 0 for r in results)


def test_a_module_with_parameters_gets_them_as_inputs():
    """``nn.LayerNorm``'s weight and bias are graph inputs, as AOTAutograd hands them to Inductor (a real
    parameter in the fake CUDA trace failed every module that has one)."""
    ln = torch.nn.LayerNorm(256)
    (k,) = kernels_of(inductor_code(ln, [((64, 256), torch.float32)]))
    assert (k.xnumel, k.rnumel) == (64, 256) and k.reduction


def test_a_whole_tensor_reduction_compiles_with_its_constant_xnumel(tmp_path):
    """Inductor makes ``xnumel`` a constexpr of a kernel over one row (a loss's final mean); no config
    names it, the kernel file's constants do (a KeyError failed every such kernel before)."""
    from costfuse.data.compile import ResultCache

    (k,) = kernels_of(inductor_code(lambda x: x.float().mean(), [((2048,), BF16)]))
    assert k.xnumel == 1 and k.rnumel == 2048
    with CompilePool(1, cache=ResultCache(tmp_path)) as pool:
        (r,) = pool.run([CompileTask(k.compile_source(), k.compile_config(k.launch(k.candidates[0])), 90)])
    assert r.status == "ok", r.error


@pytest.mark.parametrize("stack, dropped", [(64, False), (68, True), (None, None)])
def test_inductors_spill_filter_counts_local_memory_in_words(stack, dropped):
    assert dropped_by_inductor(stack) is dropped


def test_the_report_prints_one_json_object_per_kernel(capsys):
    from costfuse.cli import main

    assert main(["inductor-report", "experiments/workloads/blocks.py:RMSNormForward", "--shape", "256x2048",
                 "--shape", "2048", "--dtype", "bf16", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 1
    (r,) = lines
    assert set(r) == {"kernel", "rnumel", "xnumel", "inductor", "costfuse", "persistent_spill_free", "issued_bytes",
                      "dram_bytes"}
    assert all(set(e) == {"config", "regs", "spill_bytes", "dropped"} for e in r["inductor"])
    assert set(r["costfuse"]) == {"config", "predicted_regs", "regs", "spill_bytes"}
    assert (r["xnumel"], r["rnumel"]) == (256, 2048)
    keys = {"persistent", "xblock", "rblock", "num_warps"}
    assert r["inductor"] and all(set(e["config"]) == keys and isinstance(e["dropped"], bool) and e["regs"] > 0
                                 for e in r["inductor"])
    c = r["costfuse"]
    assert set(c["config"]) == keys and c["regs"] > 0 and c["spill_bytes"] is not None and c["predicted_regs"] > 0
    assert isinstance(r["persistent_spill_free"], bool)
    assert set(r["issued_bytes"]) == set(r["dram_bytes"]) == {"inductor", "costfuse"}
    assert 0 < r["dram_bytes"]["costfuse"] <= r["issued_bytes"]["costfuse"]


def test_the_report_as_a_table(capsys):
    from costfuse.cli import main

    assert main(["inductor-report", "experiments/workloads/blocks.py:Softmax", "--shape", "64x1024"]) == 0
    out = capsys.readouterr().out
    assert "64 rows x 1024" in out and "  inductor  persistent x" in out and "  costfuse  " in out


def test_a_bad_factory_is_one_line_and_exit_1(capsys):
    from costfuse.cli import main

    assert main(["inductor-report", "experiments/workloads/blocks.py:NoSuchBlock", "--shape", "8x8"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "NoSuchBlock" in err[0]


def test_a_module_that_refuses_its_shapes_is_one_line_and_exit_1(capsys):
    from costfuse.cli import main

    # the module's own forward refuses the input (a LayerNorm over 32 given rows of 33): a bad input, not a bug
    assert main(["inductor-report", "examples/torch_blocks.py:layernorm_gelu_mlp", "--shape", "4x33"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "internal error" not in err[0]
    assert "Sequential does not run on inputs 4x33 float32: RuntimeError: Given normalized_shape=[32]" in err[0]


def test_a_stored_kernel_source_compiles_to_the_rows_kernel_id():
    """Dataset v3 stores Inductor's source as written (``triton_src``): :func:`kernel_source` rebuilds the
    kernel from it alone, and its compile file at a row's config is the very one the row was labelled from."""
    import dataclasses
    from pathlib import Path

    from costfuse.data.compile import kernel_id
    from costfuse.data.inductor_codegen import kernel_source
    from costfuse.data.store import read_shard, shards

    repo = Path(__file__).resolve().parents[2]
    rows = read_shard(shards(repo / "data" / "sm90_inductor_v1")[0], 3).to_pandas()
    rows = rows[rows.status == "ok"]
    for heuristic in ("persistent_reduction", "reduction"):
        r = rows[rows.heuristic == heuristic].iloc[0]
        k = kernel_source(r.kernel_name, r.triton_src)
        assert k.heuristic == heuristic and k.persistent == bool(r.persistent) and k.rnumel == r.rnumel
        launch = KernelLaunch("persistent" if r.persistent else "looped", int(r.xblock), int(r.rblock),
                              int(r.num_warps))
        config = dataclasses.replace(k.compile_config(launch), num_stages=int(r.num_stages))
        assert kernel_id(k.compile_source(), config, 90) == r.kernel_id


@pytest.mark.parametrize("flag, cut", [([], "f1"), (["--prune-cut", "recall"], "recall")])
def test_the_candidates_verdicts_are_read_at_the_prune_cut(monkeypatch, capsys, flag, cut):
    from costfuse.cli import main
    from costfuse.inductor.decide import Decider

    cuts = []
    predict = Decider.predict
    monkeypatch.setattr(Decider, "predict", lambda self, kernel, launches, c=None: cuts.append(c) or
                        predict(self, kernel, launches, c))
    assert main(["inductor-report", "experiments/workloads/blocks.py:Softmax", "--shape", "64x1024", *flag]) == 0
    assert cuts == [cut] and "(CostFuse predicts " in capsys.readouterr().out


def test_another_bundle_decides_at_the_cut_it_records(monkeypatch, capsys, tmp_path):
    """``--group-model``: a retrained bundle of the handler's heads, here the shipped one recording a precision
    cut as bundles exported since then do; the shipped one itself refuses that cut in one line."""
    import shutil

    from costfuse.cli import main
    from costfuse.inductor.decide import SHIPPED_INDUCTOR_MODEL_DIR, Decider

    bundle = tmp_path / "heads"
    shutil.copytree(SHIPPED_INDUCTOR_MODEL_DIR, bundle)
    meta = json.loads((bundle / "metadata.json").read_text())
    meta["heads"]["spill"]["precision_threshold"] = 0.3
    (bundle / "metadata.json").write_text(json.dumps(meta))
    cuts = []
    predict = Decider.predict
    monkeypatch.setattr(Decider, "predict", lambda self, kernel, launches, c=None: cuts.append(
        (c, self.heads.cut_threshold(c))) or predict(self, kernel, launches, c))
    args = ["inductor-report", "experiments/workloads/blocks.py:Softmax", "--shape", "64x1024", "--prune-cut",
            "precision"]
    assert main([*args, "--group-model", str(bundle)]) == 0
    assert cuts == [("precision", 0.3)]
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "records no precision_threshold" in err[0]
    assert main([*args, "--group-model", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(tmp_path / "none") in err[0]
