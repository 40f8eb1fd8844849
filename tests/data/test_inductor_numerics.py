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


def _check(module, specs, handler) -> str:
    """Inductor's output module under ``handler``, once it has matched eager torch."""
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
    return code


RMSNORM_BWD = [((8, 512), torch.bfloat16), ((512,), torch.bfloat16), ((8, 512), torch.bfloat16)]
# Each case is a fresh interpreted process of 6-20 s: the default suite runs a bf16 backward and the
# int64-target cross-entropy (both the heads' picks), and a looped and a persistent forced config; the
# other blocks and configs run with the slow tests (`make test-slow`).
CASES = [
    pytest.param(blocks.Softmax(), [((8, 256), torch.bfloat16)], id="Softmax", marks=pytest.mark.slow),
    pytest.param(blocks.RMSNormForward(), [((8, 512), torch.bfloat16), ((512,), torch.bfloat16)],
                 id="RMSNormForward", marks=pytest.mark.slow),
    pytest.param(blocks.RMSNormBackward(), RMSNORM_BWD, id="RMSNormBackward"),
    pytest.param(blocks.LayerNormForward(), [((8, 256), torch.float32), ((256,), torch.float32),
                                             ((256,), torch.float32)], id="LayerNormForward", marks=pytest.mark.slow),
    pytest.param(blocks.CrossEntropyForward(), [((8, 96), torch.float32), ((8,), torch.int64)],
                 id="CrossEntropyForward"),
]


@pytest.mark.parametrize("module, specs", CASES)
def test_the_heads_picks_compute_what_eager_computes(module, specs):
    _check(module, specs, CostFuseChoices("pin"))


@pytest.mark.parametrize("launch", [
    pytest.param(KernelLaunch("looped", 1, 64, 2), id="looped x1 r64 w2", marks=pytest.mark.slow),
    pytest.param(KernelLaunch("looped", 2, 128, 4), id="looped x2 r128 w4"),
    pytest.param(KernelLaunch("persistent", 4, 512, 4), id="persistent x4 r512 w4")])
def test_forced_configs_compute_what_eager_computes(monkeypatch, launch):
    h = CostFuseChoices("pin")
    monkeypatch.setattr(h.decider, "pick", lambda kernel, mode=None: (Pick(launch, 0.0, "forced", lambda launch: 0.0), ""))
    _check(blocks.RMSNormBackward(), RMSNORM_BWD, h)


@pytest.mark.parametrize("keep", [pytest.param(False, id="x dim dropped", marks=pytest.mark.slow),
                                  pytest.param(True, id="x dim kept")])
def test_a_causal_mask_pinned_at_one_row_per_program_computes_what_eager_computes(monkeypatch, keep):
    """A kernel that computes with its row index (the mask's ``index_expr``) pinned persistent at ``XBLOCK=1``:
    with the x dimension Inductor then drops (torch 2.13), and with the one ``compat.x_dim_kept`` keeps where
    dropping it fails (torch 2.11; costfuse/inductor/compat.py)."""
    from costfuse.inductor import compat

    if keep:
        monkeypatch.setattr(compat, "drops_x_dim_safely", lambda: False)
    elif not compat.drops_x_dim_safely():
        pytest.skip("this torch cannot drop the x dimension of a kernel that indexes its row")
    h = CostFuseChoices("pin")
    launch = KernelLaunch("persistent", 1, 64, 2)
    monkeypatch.setattr(h.decider, "pick", lambda kernel, mode=None: (Pick(launch, 0.0, "forced", lambda launch: 0.0), ""))
    code = _check(blocks.AttentionCausal(), [((1, 2, 64, 64), torch.float32)], h)
    assert ("tl.arange(0, XBLOCK)" in code) == keep
