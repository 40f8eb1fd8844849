"""Gathers in the lowering: ``tensor.extract`` of a tensor defined outside the
generic's body (cross-entropy's ``logits[row, label[row]]``).

v1 (:func:`data.lowering.generic.lower_generic`) takes the gathered tensor as one more
input pointer after the generic's inputs; a kernel function
(:func:`data.lowering.kernel.lower_kernel`) loads through its argument's pointer.
Both are checked against IREE under the interpreter, both mask indices outside
the tensor, and both report the HBM bytes docs/groups.md defines for gathers.
The kernel-function gather at every mode is ``cross_entropy_gather*`` in
test_lower_kernel.py.
"""

from __future__ import annotations

import glob
from pathlib import Path

import helpers.kernel_cases as kc
import numpy as np
import pandas as pd
import pytest
from helpers.lowering_cases import tensor

from costfuse.data.interpret import run_interpreted
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.kernel_function import kernel_functions, kernel_members
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.data.lowering.walk import generics_of
from costfuse.data.verify import verify_generic
from costfuse.data.verify_kernel import verify_kernel
from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import KernelLaunch

REPO = Path(__file__).resolve().parents[2]
M, N = 6, 100


def _module(generic: str, args: list[tuple], result: tuple) -> str:
    """``@main`` holding one generic that gathers from its argument ``%x``."""
    sig = ", ".join(f"{v}: {tensor(s, t)}" for v, s, t in args)
    rv, rs, rt = result
    return (f"func.func @main({sig}) -> {tensor(rs, rt)} {{\n"
            f"  %cn = arith.constant {N} : index\n  %c0i = arith.constant 0 : i64\n"
            f"  %e1 = tensor.empty() : {tensor(rs, rt)}\n" + generic
            + f"  return {rv} : {tensor(rs, rt)}\n}}\n")


# picked[r, 0] = x[r, label[r, 0]] over keepdim loops (M, 1): pointwise.
LONE = _module(kc.generic("%p", 2, "pp", [("%label", (M, 1), "i64", "d0, d1")], [("%e1", (M, 1), "f32", "d0, d1")],
                          kc.gather_body("%x", (M, N), "f32") + ["yield %g"]),
               [("%label", (M, 1), "i64"), ("%x", (M, N), "f32")], ("%p", (M, 1), "f32"))

# s[r] = init[r] + sum_j x[r, idx[r, j]]: a gather that varies along the reduction.
REDUCED = _module(kc.generic("%s", 2, "pr", [("%idx", (M, 8), "i64", "d0, d1")], [("%init", (M,), "f32", "d0")],
                             ["%i = linalg.index 0 : index", "%j = arith.index_cast %a0 : i64 to index",
                              f"%g = tensor.extract %x[%i, %j] : {tensor((M, N), 'f32')}",
                              "%r = arith.addf %g, %o0 : f32", "yield %r"]),
                  [("%idx", (M, 8), "i64"), ("%x", (M, N), "f32"), ("%init", (M,), "f32")], ("%s", (M,), "f32"))


def test_v1_gather_is_an_input_after_the_operands_and_matches_iree(kdir):
    module = parse_module(LONE)
    (g,) = generics_of(module)
    kernel = lower_generic(g)
    assert [(a.name, a.shape, a.elem) for a in kernel.inputs] == [("in_ptr0", (M, 1), "i64"),
                                                                   ("in_ptr1", (M, N), "f32")]
    assert "INPUTS = [('in_ptr0', (6, 1), 'int64'), ('in_ptr1', (6, 100), 'float32')]" in kernel.source
    assert "cf.assert in the body was dropped (it guards, it computes nothing)" in kernel.notes
    wrapper = generic_as_function(g)       # the reference takes the gathered tensor where the kernel does
    assert "@generic(%arg0: tensor<6x1xi64>, %arg1: tensor<6x100xf32>, %arg2: tensor<6x1xf32>)" in wrapper
    verify_generic(g, kernel_dir=kdir)
    assert kernel.hbm_bytes == M * 8 + M * 4 + M * 4   # labels, the M gathered logits (not x), the output


@pytest.mark.parametrize("config", [LaunchConfig(2, 8, 2), LaunchConfig(4, 4, 1)], ids=["persistent", "looped"])
def test_v1_gather_along_a_reduction_matches_iree(config, kdir):
    module = parse_module(REDUCED)
    (g,) = generics_of(module)
    kernel = lower_generic(g, config)
    assert f"(t3 < {N}) & xmask & rmask\n" in kernel.source     # varies along r: the tile's full mask
    verify_generic(g, config, kernel_dir=kdir)
    assert kernel.hbm_bytes == M * 8 * 8 + M * 8 * 4 + 2 * M * 4   # idx, M*8 gathered, init read, output


def test_out_of_range_indices_are_masked_off(kdir):
    """What ``cf.assert`` forbids never reads memory: a bad index loads nothing, good rows are exact."""
    module = parse_module(LONE)
    (g,) = generics_of(module)
    source = lower_generic(g).source
    assert "tl.where(" in source and "< 100)" in source
    labels = np.array([[-1], [N], [3], [2**40], [N - 1], [-100]], dtype=np.int64)
    x = np.arange(M * N, dtype=np.float32).reshape(M, N)
    (out,) = run_interpreted(source, [labels, x, np.full((M, 1), np.nan, np.float32)], kdir)
    assert out[2, 0] == x[2, 3] and out[4, 0] == x[4, N - 1]


def test_gather_free_v1_sources_are_unchanged():
    """The shipped dataset's kernels lower to the same code (its IR comments
    name values as in the whole program, so only they may differ)."""
    shard = sorted(glob.glob(str(REPO / "data" / "sm90_v1" / "*.parquet")))[0]
    rows = pd.read_parquet(shard, columns=["ir", "triton_src", "xblock", "rblock", "num_warps", "status"])
    code = lambda src: [ln for ln in src.splitlines() if not ln.startswith("#")]  # noqa: E731
    for r in rows[rows.status == "ok"].head(40).itertuples():
        module = parse_module(r.ir)
        (g,) = generics_of(module)
        kernel = lower_generic(g, LaunchConfig(int(r.xblock), int(r.rblock), int(r.num_warps)))
        assert code(kernel.source) == code(r.triton_src)


# ---------------------------------------------------------------------------
# Kernel functions


def _func(text: str, keep: list):
    module = parse_module(text)
    keep.append(module)
    (func,) = kernel_functions(module)
    return func


def test_a_gathered_only_argument_costs_the_gathered_elements(kdir):
    keep: list = []
    func = _func(kc.gather_only(M, N), keep)
    shape = analyze_kernel(kernel_members(func))
    x, label = shape.inputs
    assert (x.readers, x.gathers, label.readers) == ((), ((0, 1),), (0,))
    expected = M * 4 + M * 8 + M * 4          # M gathered logits, the labels, the output
    for launch in (KernelLaunch("pointwise", 8, 1, 1), KernelLaunch("persistent", 2, 1, 1),
                   KernelLaunch("looped", 4, 1, 2)):
        assert shape.issued_bytes(launch.mode) == lower_kernel(func, launch).hbm_bytes == expected
    verify_kernel(func, KernelLaunch("pointwise", 4, 1, 1), kernel_dir=kdir)


def test_a_gathered_argument_read_by_another_member_counts_that_read_only():
    keep: list = []
    func = _func(kc.cross_entropy(M, N), keep)
    shape = analyze_kernel(kernel_members(func))
    x = shape.inputs[0]
    assert (x.readers, x.gathers) == ((0, 1), ((3, 1),))
    assert shape.issued_bytes("persistent") == M * N * 4 + M * 8 + M * 4
    # one pass: the sum of exp(x - max) runs beside the max (online softmax); the gather is free
    assert shape.issued_bytes("looped") == M * N * 4 + M * 8 + M * 4
    source = lower_kernel(func, KernelLaunch("looped", 2, 32, 2)).source
    assert source.count("tl.load(in_ptr0 + tl.where(") == 1      # the gather reuses x's pointer


def test_gather_kernels_compile_for_sm_90(tmp_path, monkeypatch):
    """The bounds mask and int64 offsets are real Triton, not just interpreter code."""
    from costfuse.data.compile import compile_kernel

    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    keep: list = []
    module = parse_module(LONE)
    (g,) = generics_of(module)
    kernels = [lower_generic(g), lower_kernel(_func(kc.cross_entropy(64, 4096), keep),
                                              KernelLaunch("looped", 1, 1024, 4))]
    for kernel in kernels:
        result = compile_kernel(kernel.source, kernel.config, "sm_90", cache=False)
        assert result.status == "ok" and result.spill_store_bytes == 0, result.error


def test_a_full_member_gather_counts_once_per_pass_that_computes_it(kdir):
    keep: list = []
    func = _func(kc.gather_rows(M, N), keep)
    shape = analyze_kernel(kernel_members(func))
    idx, out = M * N * 8, M * N * 4
    gathered = M * N * 4
    for launch, passes in ((KernelLaunch("persistent", 2, 128, 2), 1), (KernelLaunch("looped", 2, 32, 2), 2)):
        kernel = verify_kernel(func, launch, kernel_dir=kdir)
        assert kernel.hbm_bytes == shape.issued_bytes(launch.mode) == passes * (idx + gathered) + out
