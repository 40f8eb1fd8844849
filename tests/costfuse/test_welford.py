"""costfuse/welford.py: which sums of squares a looped kernel folds into their mean's pass (Inductor's
Welford reduction), and what that does to the kernel's passes, bytes and flops (docs/groups.md, "Welford").

The numerics of the folded sum, against IREE, are in tests/data/test_lower_kernel.py (the f32 layer norm
kernel at every launch there, and ``test_welford_sums_match_iree_on_hard_rows``)."""

from pathlib import Path

import pytest

import helpers.kernel_cases as kc
from costfuse.estimates import flop_weight
from costfuse.graph import function_blocks, generics_in
from costfuse.group_pass import prepare_for_forming
from costfuse.ir import parse_module
from costfuse.kernel import WELFORD_UPDATE_OPS, analyze_kernel
from costfuse.welford import welford_sums
from helpers.kernel_functions import shape_of

ROWS, N = 4, 64
LAYERNORM = kc.layernorm_fwd(ROWS, N, "f32")
WORKLOADS = Path(__file__).parents[2] / "experiments" / "workloads"


def _ops_and_roles(text: str):
    shape = shape_of(text)
    return [m.op for m in shape.members], [m.role for m in shape.members], shape


@pytest.mark.parametrize("edit, found", [
    ((), ((2, 0),)),
    (("%q = arith.mulf %d, %d", "%q = arith.mulf %d, %a0"), ()),        # d * x: not a square of the deviation
    (("%inv_n = arith.constant 0.015625", "%inv_n = arith.constant 0.0155"), ()),   # s * c is no mean
    (("%z_c = arith.constant 0.0", "%z_c = arith.constant 1.0"), ()),   # a sum from 1: s / n is no mean
    (("%d = arith.subf %a0, %a1 : f32\n      %q", "%d = arith.subf %a0, %a0 : f32\n      %q"), ()),   # x - x
    (("%inv_n = arith.constant 0.015625", "%inv_n = arith.constant 0.015625001"), ()),   # 1/n, but not in f32
    (("%r = arith.addf %a0, %o0 : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %mean",
      "%s2 = arith.mulf %a0, %a0 : f32\n      %r = arith.addf %s2, %o0 : f32\n      linalg.yield %r : f32\n"
      "  } -> (tensor<4xf32>)\n  %mean"), ()),                       # the mean of x*x, not of the x squared
], ids=["layernorm", "d_times_x", "not_one_over_n", "sum_not_from_zero", "no_mean_subtracted", "near_one_over_n",
        "mean_of_another_value"])
def test_which_sums_of_squares_are_folded(edit, found):
    text = LAYERNORM.replace(*edit) if edit else LAYERNORM
    assert not edit or text != LAYERNORM
    ops, roles, shape = _ops_and_roles(text)
    assert welford_sums(ops, roles, N) == found == shape.welford
    assert shape.n_passes == (2 if found else 3)


def test_a_narrow_layernorm_keeps_its_three_passes():
    """bf16 statistics round after each op, which the one-pass form would not: not folded."""
    shape = shape_of(kc.layernorm_fwd(ROWS, N, "bf16"))
    assert shape.welford == () and shape.n_passes == 3


@pytest.mark.parametrize("divisor, folded", [("8.192000e+03", True), ("8.191000e+03", False)])
def test_a_mean_divided_by_the_row_length_is_a_mean_and_by_another_is_not(divisor, folded):
    """As torch exports a mean (``arith.divf`` by the row length), on the f32 workload."""
    text = (WORKLOADS / "layernorm_fwd_f32.mlir").read_text().replace("8.192000e+03", divisor)
    module = parse_module(text)
    with module.context:
        prepare_for_forming(module.operation)
        shape = analyze_kernel(generics_in(function_blocks(module)[0]))
    assert bool(shape.welford) == folded and shape.n_passes == (2 if folded else 3)


def test_the_folded_variance_runs_in_its_sums_pass_and_the_row_is_read_twice():
    _ops, _roles, k = _ops_and_roles(LAYERNORM)
    x, params, stats = ROWS * N * 4, 2 * N * 4, 2 * ROWS * 4
    assert k.pass_of == (0, 1, 0, 1, 1)
    assert k.issued_bytes("looped") == 2 * x + params + x + stats == k.issued_bytes("persistent") + x


def test_looped_flops_count_the_welford_update_instead_of_the_squares():
    """Per element: sum add (1), sub, mul, add of the squares (3), the output's sub, mul, mul, add (4) = 8
    persistent, plus the rowwise mean (1) and rstd (mul, add, rsqrt) per row.  Looped: the squares' body
    is not run; the Welford update (seven ops) is, in the sum's pass."""
    _ops, _roles, k = _ops_and_roles(LAYERNORM)
    update = sum(flop_weight(o) for o in WELFORD_UPDATE_OPS)
    row = (flop_weight("arith.mulf") + flop_weight("arith.mulf") + flop_weight("arith.addf")
           + flop_weight("math.rsqrt")) * ROWS
    squares = sum(flop_weight(o) for o in ("arith.subf", "arith.mulf", "arith.addf"))
    output = sum(flop_weight(o) for o in ("arith.subf", "arith.mulf", "arith.mulf", "arith.addf"))
    assert k.flops("persistent") == (1 + squares + output) * ROWS * N + row
    assert k.flops("looped") == (1 + update + output) * ROWS * N + row
