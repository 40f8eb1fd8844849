"""Inductor's code at CostFuse's configs computes what eager torch computes (issue #25, part 7).

Inductor's whole output module for sm_90, generated on this CPU under the handler in ``pin`` mode, runs
with its Triton kernels under the Triton interpreter (costfuse.data.inductor_run, a fresh process with
TRITON_INTERPRET=1) on small inputs, against the same block in eager torch on the CPU.  Both the heads'
own picks and forced ones (looped, several rows per program) are checked, so both kinds of code the
handler makes Inductor emit run.  The interpreter is not the GPU (no FMA contraction, NumPy's
reductions), hence the tolerances: bf16 as the reference oracle's (5e-2), f32 1e-4.
"""

from __future__ import annotations

import pytest
import torch

from costfuse.data.inductor_codegen import inductor_code, kernels_of
from costfuse.data.inductor_run import run_interpreted
from costfuse.inductor.choices import CostFuseChoices
from costfuse.inductor.decide import Pick
from costfuse.launch import KernelLaunch
from experiments.workloads import blocks

TOL = {torch.bfloat16: 5e-2, torch.float32: 1e-4}


def _inputs(specs, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for shape, dtype in specs:
        if dtype == torch.int64:
            out.append(torch.randint(0, 4, shape, generator=g))
        else:
            out.append(torch.randn(shape, generator=g).to(dtype))
    return out


def _check(module, specs, handler):
    code = inductor_code(module, specs, choices=handler)
    assert any(k.heuristic == "fixed_config" for k in kernels_of(code)), "the handler pinned no kernel"
    xs = _inputs(specs)
    got = run_interpreted(code, xs)
    with torch.no_grad():
        want = module(*xs)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) >= len(want)
    for g, w in zip(got, want):
        tol = TOL[w.dtype]
        torch.testing.assert_close(g.float(), w.float(), rtol=tol, atol=tol)


CASES = [
    (blocks.Softmax(), [((8, 256), torch.bfloat16)]),
    (blocks.RMSNormForward(), [((8, 512), torch.bfloat16), ((512,), torch.bfloat16)]),
    (blocks.RMSNormBackward(), [((8, 512), torch.bfloat16), ((512,), torch.bfloat16), ((8, 512), torch.bfloat16)]),
    (blocks.LayerNormForward(), [((8, 256), torch.float32), ((256,), torch.float32), ((256,), torch.float32)]),
    (blocks.CrossEntropyForward(), [((8, 96), torch.float32), ((8,), torch.int64)]),
]


@pytest.mark.parametrize("module, specs", CASES, ids=lambda c: type(c).__name__ if hasattr(c, "forward") else "")
def test_the_heads_picks_compute_what_eager_computes(module, specs):
    _check(module, specs, CostFuseChoices("pin"))


@pytest.mark.parametrize("launch", [KernelLaunch("looped", 1, 64, 2), KernelLaunch("looped", 2, 128, 4),
                                    KernelLaunch("persistent", 4, 512, 4)], ids=lambda x: x.short())
def test_forced_configs_compute_what_eager_computes(monkeypatch, launch):
    h = CostFuseChoices("pin")
    monkeypatch.setattr(h.decider, "pick", lambda kernel, mode=None: (Pick(launch, 0.0, "forced", lambda launch: 0.0), ""))
    _check(blocks.RMSNormBackward(), CASES[2][1], h)
