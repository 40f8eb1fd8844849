"""The GPU workload campaign of issue #14, checked without a GPU.

``experiments/gpu_workloads.py prepare`` plans every policy's kernels on the
CPU and ``experiments/gpu_run.py`` runs them on the GPU machine, which has
no CostFuse; the device time is a few minutes, so everything that can go
wrong is found here first: at export.py's small sizes, one softmax, one norm
backward and one cross-entropy are prepared, then run under the Triton
interpreter (``--dry-run``) against eager torch; the GPU side imports
nothing of CostFuse; a rerun resumes; a broken plan fails in one line naming
its file, before any GPU work.  Every workload runs under ``-m slow``.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from costfuse.data.interpret import interpreter_mode
from costfuse.reference import TOLERANCES
from experiments import gpu_workloads as gw
from experiments.workloads import export as workloads
from helpers.workloads import NON_NEGATIVE

REPO = Path(__file__).resolve().parents[2]
gpu_run = gw.gpu_run
# One softmax, one norm backward (its dweight kernel is a column reduction: lowered as one generic under
# groups inductor), one cross-entropy (splat tensor constants, reshapes); bf16 goes through the bf16 casts.
REPRESENTATIVE = ["softmax_f32", "rmsnorm_bwd_bf16", "cross_entropy_bwd_32k_bf16"]
SHORT = list(gw.gpu_plan.POLICIES)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """The three representative workloads prepared at small sizes (about 15 s)."""
    out = tmp_path_factory.mktemp("gpu") / "prepared"
    gw.prepare(out, small=True, only=",".join(REPRESENTATIVE), command="test")
    return out


@pytest.fixture(scope="module")
def dry_run(prepared, tmp_path_factory) -> Path:
    """``run --dry-run`` of ``prepared`` (no torch.compile), as gpu_workloads.py runs it."""
    out = tmp_path_factory.mktemp("gpu") / "results"
    assert gpu_run.run(prepared, out, dry_run=True, compile_peer=False, interpreter=interpreter_mode) == 3
    return out


def test_prepare_writes_every_policy_and_how_to_build_the_block(prepared):
    manifest = json.loads((prepared / "manifest.json").read_text())
    assert manifest["sizes"] == "small" and manifest["triton_version"] and manifest["ptxas_version"]
    assert len(manifest["costfuse_commit"].removesuffix("+dirty")) == 40
    assert list(manifest["workloads"]) == REPRESENTATIVE
    for name, w in manifest["workloads"].items():
        spec = workloads.BY_NAME[name]
        assert w["block"] == {"module": "experiments/workloads/blocks.py", "class": spec.block, "args": {}}
        assert list(w["policies"].values()) == SHORT and not w["refused"]
        assert [tuple(x["shape"]) for x in w["inputs"]] == [
            tuple(int(d) for d in s.split(":")[0].split("x")) for s in spec.shape_args(workloads.SMALL)]
        for short in SHORT:
            plan = json.loads((prepared / name / short / "plan.json").read_text())
            kernels = [s for s in plan["steps"] if s["op"] == "kernel"]
            assert kernels and all((prepared / name / short / k["source"]).is_file() for k in kernels)
            assert [{"shape": x["shape"], "dtype": x["dtype"]} for x in plan["inputs"]] == w["inputs"]


def test_groups_plans_launch_one_kernel_per_call_and_v1_one_per_generic(prepared):
    """softmax_f32 is one row kernel under every groups policy but xla, whose native emitters make one pass
    over the row (docs/peers.md X-g), so it runs more than one; v1 runs one kernel per fused generic, each
    output starting from its ``outs`` value (read-modify-write), as the lowering says."""
    for short in SHORT[1:]:
        plan = json.loads((prepared / "softmax_f32" / short / "plan.json").read_text())
        if short == "xla":
            assert len([s for s in plan["steps"] if s["op"] == "kernel"]) > 1
            continue
        (k,) = plan["steps"]
        assert k["inputs"] == ["arg0"] and k["outputs"] == [{"init": None}] and plan["returns"] == k["results"]
    v1 = json.loads((prepared / "softmax_f32" / "v1" / "plan.json").read_text())
    kernels = [s for s in v1["steps"] if s["op"] == "kernel"]
    assert len(kernels) > 1 and all(o["init"] is not None for k in kernels for o in k["outputs"])


def test_a_function_lowered_as_one_generic_maps_its_operands(prepared):
    """rmsnorm_bwd_bf16 under groups inductor: dweight reduces over rows, not a row kernel, so its kernel
    takes the generic's operands and starts from the function's zero fill."""
    plan = json.loads((prepared / "rmsnorm_bwd_bf16" / "inductor" / "plan.json").read_text())
    inits = [o["init"] for s in plan["steps"] if s["op"] == "kernel" for o in s["outputs"]]
    assert [i for i in inits if i is not None], inits
    fills = {s["result"]: s["value"] for s in plan["steps"] if s["op"] == "full"}
    assert all(fills[i] == 0 for i in inits if i is not None)


def test_dry_run_every_policy_matches_eager_torch(dry_run):
    df = pd.read_parquet(dry_run)
    assert sorted(df.workload.unique()) == sorted(REPRESENTATIVE)
    for name, g in df.groupby("workload"):
        assert list(g.policy) == ["eager", *gw.gpu_plan.POLICIES.values()], name
        bad = g[g.status != "ok"]
        assert bad.empty, bad[["policy", "status", "check", "error"]].to_string()
        assert (g[g.policy != "eager"].check == "match").all() and (g[g.policy != "eager"].kernels >= 1).all()
    assert df.dry_run.all() and df.gpu_name.isna().all()
    assert df.latency_us.isna().all() and df.plan_us.isna().all()   # no GPU: no latency, never a made-up one
    detail = json.loads(df[df.policy == "groups inductor"].kernel_detail.iloc[0])
    assert detail and all(k["us"] is None and k["source"].endswith(".py") for k in detail)


def test_rerun_skips_done_workloads(prepared, dry_run):
    stamps = {p.name: p.stat().st_mtime_ns for p in dry_run.glob("*.parquet")}
    assert gpu_run.run(prepared, dry_run, dry_run=True, compile_peer=False, interpreter=interpreter_mode) == 0
    assert {p.name: p.stat().st_mtime_ns for p in dry_run.glob("*.parquet")} == stamps


def test_a_wrong_kernel_is_a_mismatch_not_a_match(prepared, tmp_path):
    copy = tmp_path / "prepared"
    shutil.copytree(prepared, copy)
    kernel = copy / "softmax_f32" / "inductor" / "k00.py"
    text = kernel.read_text()
    store = next(ln for ln in text.splitlines() if "tl.store(out_ptr0" in ln)
    value = store.split(", ")[1]
    kernel.write_text(text.replace(store, store.replace(f", {value}, ", f", {value} * 1.01, ")))
    gpu_run.run(copy, tmp_path / "res", only=["softmax_f32"], dry_run=True, compile_peer=False,
                interpreter=interpreter_mode)
    df = pd.read_parquet(tmp_path / "res").set_index("policy")
    assert df.loc["groups inductor", "status"] == "mismatch"
    assert df.loc["groups inductor", "outside_tol"] > 0 and df.loc["groups inductor", "max_abs_err"] > 0
    assert df.loc["groups xla", "status"] == "ok"


@pytest.mark.parametrize("breakage, says", [
    (lambda p: p.write_text("{not json"), "JSONDecodeError"),
    (lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "returns": ["v999"]})), "returns v999"),
    (lambda p: (p.parent / "k00.py").unlink(), "kernel source k00.py is missing"),
])
def test_a_broken_plan_fails_in_one_line_naming_its_file(prepared, tmp_path, capsys, breakage, says):
    copy = tmp_path / "prepared"
    shutil.copytree(prepared, copy)
    plan = copy / "cross_entropy_bwd_32k_bf16" / "xla" / "plan.json"
    breakage(plan)
    assert gw.main(["run", str(copy), "--out", str(tmp_path / "res"), "--dry-run", "--no-compile"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {plan}: ") and says in err, err
    assert not (tmp_path / "res").exists()   # refused before running anything


def test_shape_check_runs_every_plan_on_the_meta_device(prepared, tmp_path, capsys):
    """``--check-shapes``, which checks the LLM-size folder on the CPU in seconds, passes the prepared plans
    and names the kernel file whose spec disagrees with what its plan passes."""
    assert gpu_run.check_shapes(prepared) == []
    copy = tmp_path / "prepared"
    shutil.copytree(prepared, copy)
    kernel = copy / "softmax_f32" / "analytical" / "k00.py"
    kernel.write_text(kernel.read_text().replace("INPUTS = [('in_ptr0', (8, 64),", "INPUTS = [('in_ptr0', (8, 65),"))
    (problem,) = gpu_run.check_shapes(copy, {"softmax_f32"})
    assert problem.startswith(f"{kernel}: in_ptr0 is (8, 65) float32, the plan passes (8, 64)")
    assert gw.main(["run", str(copy), "--check-shapes", "--only", "softmax_f32"]) == 1
    assert capsys.readouterr().out.strip() == problem


def test_gpu_side_imports_only_what_the_gpu_machine_has(prepared, tmp_path):
    """The whole dry run through gpu_run.py alone (its plain interpreter), then no CostFuse or other
    CPU-only package in sys.modules; blocks.py itself imports torch and the standard library only."""
    code = (f"import sys, runpy; g = runpy.run_path({str(REPO / 'experiments' / 'gpu_run.py')!r}, run_name='x'); "
            f"n = g['run']({str(prepared)!r}, {str(tmp_path / 'res')!r}, only=['softmax_f32'], dry_run=True, "
            "compile_peer=False); "
            "bad = sorted({m.split('.')[0] for m in sys.modules} & {'costfuse', 'iree', 'xgboost', 'mlflow', "
            "'sklearn', 'matplotlib', 'ml_dtypes', 'experiments', 'data'}); print(n, bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "1 []"
    assert (pd.read_parquet(tmp_path / "res").status == "ok").all()
    tree = ast.parse((REPO / "experiments" / "workloads" / "blocks.py").read_text())
    imported = {(n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
                for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert imported <= {"__future__", "math", "collections", "typing", "torch"}, imported


def test_warm_up_visits_every_kernel_and_never_raises(prepared):
    """The GPU run's parallel warm-up compiles each policy's kernels; without a driver every compile fails,
    and the warm-up says so in one line instead of stopping the campaign."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the compiles would succeed")
    name, _, err = gpu_run._warm_one((str(prepared), "softmax_f32", False))
    n = sum(s["op"] == "kernel" for short in SHORT
            for s in json.loads((prepared / "softmax_f32" / short / "plan.json").read_text())["steps"])
    assert name == "softmax_f32" and err.startswith(f"{n} failed, first: v1 always/k00.py: RuntimeError"), err


def test_gpu_side_constants_are_the_repos():
    """Tolerances copied as plain numbers from costfuse/reference.py; AdamW's non-negative input from
    tests/experiments/test_workloads.py."""
    names = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16"}
    assert gpu_run.TOLERANCES == {names[k]: (t.rtol, t.atol) for k, t in TOLERANCES.items()}
    assert gw.NON_NEGATIVE == NON_NEGATIVE


def test_plan_refuses_an_op_it_cannot_run(tmp_path):
    text = """func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}"""
    module, report, _ = gw.gpu_plan.passed_module(text, tmp_path / "mm.mlir", "v1")
    with pytest.raises(gw.gpu_plan.PlanError, match=r"^linalg.matmul: an op the GPU plan cannot run"):
        gw.gpu_plan.write_plan(module, report, tmp_path / "plan", {})


def test_report_says_which_rows_have_no_gpu_latency(dry_run, tmp_path):
    text = gw.report(dry_run, tmp_path / "r.md", "cmd")
    assert "**18 of 18 rows have no GPU latency**" in text
    assert "| softmax_f32 | groups learned | ok (dry run) | 1 | - | - | - | match |" in text
    assert (tmp_path / "r.md").read_text() == text


def test_report_gap_to_torch_compile(tmp_path):
    """The renderer on two hand-made rows (test data, not a measurement): kernels µs over torch.compile's."""
    base = {"workload": "w", "dry_run": False, "gpu_name": "test GPU", "status": "ok", "check": "match"}
    gpu_run.write_rows(tmp_path / "res", "w", [{**base, "policy": "torch.compile", "latency_us": 40.0},
                                                {**base, "policy": "groups learned", "latency_us": 30.0,
                                                 "plan_us": 35.0, "kernels": 2}])
    text = gw.report(tmp_path / "res", tmp_path / "r.md", "cmd")
    assert "| w | groups learned | ok | 2 | 30.0 | 35.0 | 0.75x | match |" in text
    assert "| groups learned | 1 of 1 | 30.0 | 40.0 | 0.75x | 0 |" in text
    assert "All 2 rows have a GPU latency." in text


@pytest.mark.slow
def test_every_workload_prepares_and_matches_eager_torch_under_the_interpreter(tmp_path):
    """Every workload at small sizes, every policy, against eager torch (minutes on 2 cores)."""
    manifest = gw.prepare(tmp_path / "prepared", small=True, command="test")
    assert not [(n, w["refused"]) for n, w in manifest["workloads"].items() if w["refused"]]
    gpu_run.run(tmp_path / "prepared", tmp_path / "res", dry_run=True, compile_peer=False,
                interpreter=interpreter_mode)
    df = pd.read_parquet(tmp_path / "res")
    bad = df[(df.status != "ok") & ~df.workload.isin(gw.KNOWN)]
    assert bad.empty, bad[["workload", "policy", "status", "check", "error"]].to_string()


@pytest.mark.slow
def test_torch_compile_peer_runs_in_the_dry_run(prepared, tmp_path):
    """The torch.compile row's code path, on the CPU backend (Inductor's C++; the GPU run uses Triton)."""
    gpu_run.run(prepared, tmp_path / "res", only=["softmax_f32"], dry_run=True, interpreter=interpreter_mode)
    row = pd.read_parquet(tmp_path / "res").set_index("policy").loc["torch.compile"]
    assert row.status == "ok" and row.check == "match" and pd.isna(row.latency_us)


def test_groups_plans_carry_the_pass_dram_bytes(prepared):
    """Each groups kernel step carries the pass's DRAM bytes beside its issued bytes (the L2 model never
    counts more than is issued); v1's generics have no row-kernel shape and say so with null."""
    for name in REPRESENTATIVE:
        for short in SHORT:
            steps = [s for s in json.loads((prepared / name / short / "plan.json").read_text())["steps"]
                     if s["op"] == "kernel"]
            assert all("dram_bytes" in s for s in steps)
            if short == "v1":
                assert all(s["dram_bytes"] is None for s in steps)
                continue
            row = [s for s in steps if s["dram_bytes"] is not None]
            assert row, (name, short)
            assert all(0 < s["dram_bytes"] <= s["hbm_bytes"] for s in row), (name, short)


NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
              '"dram__bytes_read.sum","dram__bytes_write.sum"\n"","","","","","","","{unit}","{unit}"\n')


def _ncu_csv(reads: list[str], unit: str = "byte") -> str:
    """ncu's raw page as it prints it: chatter, the header, a units row, then one row per profiled kernel."""
    body = "".join(f'"{i}","7","python3","h","kernel","1","7","{r}","0"\n' for i, r in enumerate(reads))
    return "==PROF== Connected to process 7\n" + NCU_HEADER.format(unit=unit) + body


def test_dram_check_runs_each_kernel_once_and_joins_ncu_by_order(prepared, tmp_path):
    from experiments import gpu_dram

    out = tmp_path / "dram"
    n = gpu_dram.run(prepared, out, only="softmax_f32", dry_run=True)
    launches = [json.loads(x) for x in (out / "launches.jsonl").read_text().splitlines()]
    plans = [json.loads((prepared / "softmax_f32" / p / "plan.json").read_text()) for p in gpu_dram.POLICIES]
    assert n == len(launches) == sum(s["op"] == "kernel" for p in plans for s in p["steps"])
    assert "not measured" in gpu_dram.report(out)            # no ncu.csv: nothing measured, nothing invented
    measured = [x["dram_bytes"] or 1000 for x in launches]
    (out / "ncu.csv").write_text(_ncu_csv([f"{b:,}" for b in measured]))
    text = gpu_dram.report(out)
    assert f"{n} kernels measured: median |error| of `dram_bytes` 0.0%" in text
    (out / "ncu.csv").write_text(_ncu_csv([f"{b / 1e3}" for b in measured], unit="Kbyte"))
    assert gpu_dram.join(out)[0]["ncu_dram_bytes"] == pytest.approx(measured[0])
    (out / "ncu.csv").write_text(_ncu_csv(["1"] * (n + 1)))
    with pytest.raises(gpu_dram.ReportError, match="cannot join them by order"):
        gpu_dram.join(out)


def test_dram_check_script_dry_run(prepared, tmp_path):
    """The device script as the GPU machine runs it, on the CPU: no ncu, the kernels interpreted once."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "gpu_workloads").symlink_to(prepared)
    out = tmp_path / "out"
    env = {**__import__("os").environ, "PYTHON": sys.executable, "CAMPAIGN_BUILD": str(build),
           "DRAM_ONLY": "softmax_f32"}
    res = subprocess.run(["bash", "experiments/gpu_dram.sh", str(out), "--dry-run"], cwd=REPO, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (out / "launches.jsonl").read_text().strip() and "dry run" in (out / "ncu_status.txt").read_text()
