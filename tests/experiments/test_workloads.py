"""The kernel-group workloads (experiments/workloads/): committed exports are valid, and the graphs compute what torch does.

The LLM-size files are what ``python experiments/workloads/export.py`` wrote;
re-exporting them here would draw GBs of example inputs, so (a) checks them
as IR only.  (b) exports a representative subset at the small sizes through
the same ``costfuse import-torch`` command and runs it against eager torch on
the oracle's inputs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from costfuse.graph import generics_in
from costfuse.ir import load_module
from costfuse.reference import NUMPY_DTYPES, compare_outputs, random_inputs, run_mlir
from experiments.workloads import blocks
from experiments.workloads import export as workloads
from helpers.workloads import NON_NEGATIVE

REPO = Path(__file__).resolve().parents[2]
HERE = REPO / "experiments" / "workloads"


def _main_generics(module) -> int:
    (main,) = [op for op in module.body.operations if op.operation.name == "func.func"]
    return len(generics_in(main.regions[0].blocks[0]))


@pytest.mark.parametrize("name", sorted(workloads.BY_NAME))
def test_committed_workload_verifies(name):
    """(a) Every workload is committed at LLM size, verifies, has >= 2 generics and says which command wrote it."""
    w, path = workloads.BY_NAME[name], HERE / f"{name}.mlir"
    module = load_module(path)  # parses and verifies, or raises naming the file
    assert _main_generics(module) >= 2, f"{path}: fewer than 2 linalg.generic"
    command = path.read_text().splitlines()[1]
    assert command == "// costfuse import-torch " + " ".join(w.argv(path, workloads.LLM)), f"{path}: stale header"


def test_committed_workloads_are_the_table():
    """No stray or missing file, and the README lists every workload with its command."""
    assert {p.stem for p in HERE.glob("*.mlir")} == set(workloads.BY_NAME)
    readme = (HERE / "README.md").read_text()
    assert set(re.findall(r"^\| `(\w+)` \|", readme, flags=re.M)) == set(workloads.BY_NAME)
    for name in workloads.BY_NAME:
        assert (HERE / f"{name}.mlir").read_text().splitlines()[1].removeprefix("// ") in readme, name
    assert "tm_tensor" not in "".join(p.read_text() for p in HERE.glob("*.mlir"))  # upstream dialects only


def _to_torch(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16) if a.dtype == NUMPY_DTYPES["bf16"] else torch.from_numpy(a)


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.float().numpy().astype(NUMPY_DTYPES["bf16"]) if t.dtype == torch.bfloat16 else t.detach().numpy()


# One per group kind that keeps a row of state (softmax, a norm backward, cross-entropy backward, an
# attention epilogue) plus the multi-output pointwise AdamW, each in bf16 and f32.  About 35 s on 2 cores.
SMALL_SUBSET = [f"{stem}_{dtype}" for stem in ("softmax", "rmsnorm_bwd", "cross_entropy_bwd_32k", "attention_alibi", "adamw")
                for dtype in ("bf16", "f32")] + ["gemma_span_bwd_3584_f32", "periln_span_bwd_4096_f32"]   # issue #29's norm chains

@pytest.mark.parametrize("name", SMALL_SUBSET)
def test_small_export_matches_eager_torch(name, tmp_path, monkeypatch):
    """(b) The small-size export of ``name`` gives eager torch's outputs within the dtype tolerance."""
    monkeypatch.chdir(REPO)  # the recorded command's paths are relative to the repo root
    w = workloads.BY_NAME[name]
    text = workloads.export(w, tmp_path, workloads.SMALL).read_text()
    inputs = random_inputs(text, "main", seed=0)
    for i in NON_NEGATIVE.get(w.stem, ()):
        inputs[i] = np.abs(inputs[i])
    expected = getattr(blocks, w.block)()(*(_to_torch(a) for a in inputs))
    expected = [_to_numpy(t) for t in (expected if isinstance(expected, (tuple, list)) else (expected,))]
    assert all(np.isfinite(e.astype(np.float64)).all() for e in expected), f"{name}: torch gives non-finite outputs"
    compare_outputs(expected, run_mlir(text, "main", inputs), f"{name} vs eager torch")


def test_export_rejects_unknown_names(capsys):
    with pytest.raises(SystemExit):
        workloads.main(["--small", "--out", "/nonexistent", "--only", "softmax_f64"])
    assert "unknown workload(s) softmax_f64" in capsys.readouterr().err
