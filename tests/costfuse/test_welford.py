"""costfuse/welford.py: which sums of squares a looped kernel folds into their mean's pass (Inductor's
Welford reduction), and what that does to the kernel's passes, bytes and flops (docs/groups.md, "Welford").

The numerics of the folded sum, against IREE, are in tests/data/test_lower_kernel.py (the f32 layer norm
kernel at every launch there, and ``test_welford_sums_match_iree_on_hard_rows``)."""

from pathlib import Path

import numpy as np
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


VAR_HEAD = "  %var = linalg.generic"
ROW_MAP, TILE_MAP = "affine_map<(d0, d1) -> (d0)>", "affine_map<(d0, d1) -> (d0, d1)>"


def _before_var(name: str, ins: list[tuple[str, str]], body: list[str], outs="%z : tensor<4xf32>",
                out_map=ROW_MAP, iterators='"parallel", "reduction"', result="tensor<4xf32>") -> str:
    """LAYERNORM with one more member, ``%name``, just before its variance: ``ins`` as (value, map)."""
    args = ", ".join(f"%a{k}: f32" for k in range(len(ins)))
    member = (f"  %{name} = linalg.generic {{indexing_maps = [{', '.join(m for _, m in ins)}, {out_map}], "
              f"iterator_types = [{iterators}]}}\n"
              f"      ins({', '.join(v for v, _ in ins)} : {', '.join('tensor<4x64xf32>' if m == TILE_MAP else 'tensor<4xf32>' for _, m in ins)}) "
              f"outs({outs}) {{\n    ^bb0({args}, %o0: f32):\n"
              + "".join(f"      {line}\n" for line in body) + f"  }} -> ({result})\n")
    assert VAR_HEAD in LAYERNORM
    return LAYERNORM.replace(VAR_HEAD, member + VAR_HEAD)


@pytest.mark.parametrize("ins, body", [
    ([("%x", TILE_MAP)], ["%r = arith.maximumf %a0, %o0 : f32", "linalg.yield %r : f32"]),   # a max, not a sum
    ([("%x", TILE_MAP)], ["%q = arith.mulf %a0, %a0 : f32", "%r = arith.addf %q, %o0 : f32",
                          "linalg.yield %r : f32"]),                                  # squares of x itself
    ([("%x", TILE_MAP), ("%mean", ROW_MAP)], ["%q = arith.mulf %a0, %a1 : f32", "%r = arith.addf %q, %o0 : f32",
                                              "linalg.yield %r : f32"]),            # x * mean: no square
    ([("%x", TILE_MAP), ("%x", TILE_MAP)], ["%d = arith.subf %a0, %a1 : f32", "%q = arith.mulf %d, %d : f32",
                                            "%r = arith.addf %q, %o0 : f32", "linalg.yield %r : f32"]),  # x - x
    ([("%x", TILE_MAP), ("%sum", ROW_MAP)], ["%d = arith.subf %a0, %a1 : f32", "%q = arith.mulf %d, %d : f32",
                                             "%r = arith.addf %q, %o0 : f32", "linalg.yield %r : f32"]),  # x - sum
    ([("%x", TILE_MAP)], ["linalg.yield %a0 : f32"]),              # keeps the last element: no combiner
], ids=["max", "squares_of_x", "no_square", "minus_a_full_value", "minus_a_sum_not_a_mean", "no_combiner"])
def test_a_sum_that_does_not_qualify_before_the_variance_does_not_hide_it(ins, body):
    """Each candidate is judged on its own: one that fails any test, earlier in the kernel, leaves the
    variance after it folded (now member 3)."""
    ops, roles, shape = _ops_and_roles(_before_var("extra", ins, body))
    assert welford_sums(ops, roles, N) == ((3, 0),) == shape.welford


def test_only_reductions_fold():
    """``x + (x - mean)^2`` accumulated into x itself is full, not a sum over the row: not folded."""
    text = _before_var("acc", [("%x", TILE_MAP), ("%mean", ROW_MAP)],
                       ["%d = arith.subf %a0, %a1 : f32", "%q = arith.mulf %d, %d : f32",
                        "%r = arith.addf %q, %o0 : f32", "linalg.yield %r : f32"],
                       outs="%x : tensor<4x64xf32>", out_map=TILE_MAP, iterators='"parallel", "parallel"',
                       result="tensor<4x64xf32>")
    ops, roles, shape = _ops_and_roles(text)
    assert roles[2] != roles[3] and welford_sums(ops, roles, N) == ((3, 0),)


def test_a_reduction_with_two_outputs_is_not_folded():
    """The squares as output 0 of a two-output reduction (a second sum beside them): the update keeps one
    output per member, so it is not folded."""
    two = LAYERNORM.replace(
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]}\n"
        "      ins(%x, %mean : tensor<4x64xf32>, tensor<4xf32>) outs(%z : tensor<4xf32>) {\n"
        "    ^bb0(%a0: f32, %a1: f32, %o0: f32):",
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], "
        "iterator_types = [\"parallel\", \"reduction\"]}\n"
        "      ins(%x, %mean : tensor<4x64xf32>, tensor<4xf32>) outs(%z, %z : tensor<4xf32>, tensor<4xf32>) {\n"
        "    ^bb0(%a0: f32, %a1: f32, %o0: f32, %o1: f32):").replace(
        "      %r = arith.addf %q, %o0 : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %rstd",
        "      %r = arith.addf %q, %o0 : f32\n      %r1 = arith.addf %d, %o1 : f32\n"
        "      linalg.yield %r, %r1 : f32, f32\n  } -> (tensor<4xf32>, tensor<4xf32>)\n  %rstd").replace(
        "%var = linalg", "%var:2 = linalg").replace("ins(%var :", "ins(%var#0 :")
    assert two.count("%var#0") == 1 and "%o1" in two
    ops, roles, shape = _ops_and_roles(two)
    assert welford_sums(ops, roles, N) == () == shape.welford


@pytest.mark.parametrize("edit", [
    ("%r = arith.mulf %a0, %inv_n : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %var",
     "linalg.yield %a0 : f32\n  } -> (tensor<4xf32>)\n  %var"),                       # the "mean" is the sum
    ("%r = arith.mulf %a0, %inv_n : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %var",
     "%r = arith.mulf %a0, %a0 : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %var"),  # s * s
    ("%r = arith.mulf %a0, %inv_n : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %var",
     "%c = arith.mulf %a0, %inv_n : f32\n      %r = arith.mulf %a0, %c : f32\n      linalg.yield %r : f32\n"
     "  } -> (tensor<4xf32>)\n  %var"),                                                # s * (s / n)
    ("%r = arith.mulf %a0, %inv_n : f32\n      linalg.yield %r : f32\n  } -> (tensor<4xf32>)\n  %var",
     "%t = arith.addf %a0, %a0 : f32\n      %r = arith.mulf %t, %inv_n : f32\n      linalg.yield %r : f32\n"
     "  } -> (tensor<4xf32>)\n  %var"),                                                # (s + s) / n
    ("%d = arith.subf %a0, %a1 : f32\n      %q", "%d = arith.addf %a0, %a1 : f32\n      %q"),  # (x + mean)^2
    ("%r = arith.addf %a0, %o0 : f32", "%r = arith.maximumf %a0, %o0 : f32"),  # a zero-started max over n
], ids=["mean_is_the_sum", "sum_times_sum", "times_a_computed_value", "twice_the_mean", "x_plus_mean",
        "max_over_n"])
def test_what_is_not_a_mean_or_not_a_deviation_is_not_folded(edit):
    text = LAYERNORM.replace(*edit)
    assert text != LAYERNORM
    ops, roles, shape = _ops_and_roles(text)
    assert welford_sums(ops, roles, N) == () == shape.welford and shape.n_passes == 3


def _layernorm_at(n: int, t: str, inverse: float) -> str:
    text = kc.layernorm_fwd(ROWS, n, "f32").replace(f"arith.constant {1.0 / n!r} : f32", f"arith.constant {inverse!r} : f32")
    return text.replace("f32", t)


@pytest.mark.parametrize("t, inverse, folded", [
    ("f32", float(np.float32(1.0 / 48)), True),     # 1/48 is not exact in binary: rounded to f32, it is the f32 mean
    ("f64", 1.0 / 48, True),                         # and in f64, rounded to f64
    ("f64", float(np.float32(1.0 / 48)), False),    # an f32 1/48 in an f64 kernel is not 1/n
    ("f32", 1.0 / 47, False),
], ids=["f32", "f64", "f32_inverse_in_f64", "other_n"])
def test_one_over_n_is_matched_at_the_ops_type(t, inverse, folded):
    ops, roles, shape = _ops_and_roles(_layernorm_at(48, t, inverse))
    assert bool(welford_sums(ops, roles, 48)) == folded == bool(shape.welford)


def test_the_sum_need_not_be_the_first_member():
    """The bf16 residual add + LayerNorm as exported (statistics in f32, after the add and its cast): the sum
    whose mean is subtracted is found wherever it sits among the members."""
    text = (WORKLOADS / "add_layernorm_bf16.mlir").read_text()
    module = parse_module(text)
    with module.context:
        prepare_for_forming(module.operation)
        shape = analyze_kernel(generics_in(function_blocks(module)[0]))
    (squares, summed), = shape.welford
    assert summed > 0 and shape.n_passes == 2

