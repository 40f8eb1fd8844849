"""costfuse/online_softmax.py: which sums a looped kernel folds into its max's pass, and what that
does to the kernel's passes, bytes and flops (issue #26 part 3; docs/groups.md, "Online softmax").

The numerics of the folded sum, against IREE, are in tests/data/test_lower_kernel.py."""

from pathlib import Path

import pytest

from costfuse.estimates import flop_weight
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.kernel import ONLINE_RESCALE_OPS, NotAKernel, analyze_kernel
from costfuse.online_softmax import online_sums
from costfuse.rowspace import REDUCE

SOFTMAX_GELU = (Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir").read_text()
ROWS, N = 64, 1024
MAX = "    %r = arith.maximumf %a, %acc : f32"
SUB = "    %r = arith.subf %a, %b : f32"
EXP = "    %r = math.exp %a : f32"


def _softmax(text: str):
    """The softmax part of ``text`` (bias add, max, sub, exp, sum, divide) as one kernel's members."""
    m = parse_module(text)
    with m.context:
        ops = generics_in(function_blocks(m)[0])[:6]
        return m, ops, analyze_kernel(ops)


@pytest.mark.parametrize("edit, found", [
    ((), ((4, 1, 0),)),
    ((MAX, MAX.replace("maximumf", "maxnumf")), ((4, 1, 0),)),     # torch's amax lowers either way
    ((MAX, MAX.replace("maximumf", "minimumf")), ()),              # a row min is not a softmax max
    ((SUB, "    %r = arith.subf %b, %a : f32"), ()),               # exp(m - x) can overflow: not folded
    ((EXP, "    %r = math.exp2 %a : f32"), ()),                    # only exp is rescaled by exp(old - new)
], ids=["maximumf", "maxnumf", "min", "m_minus_x", "exp2"])
def test_which_sums_are_folded(edit, found):
    text = SOFTMAX_GELU.replace(*edit) if edit else SOFTMAX_GELU
    assert not edit or text != SOFTMAX_GELU
    _m, ops, shape = _softmax(text)
    assert online_sums(ops, [m.role for m in shape.members]) == found == shape.online
    assert shape.n_passes == (2 if found else 3)


def test_folded_sum_runs_in_the_max_pass_and_the_row_is_read_twice():
    _m, _ops, k = _softmax(SOFTMAX_GELU)
    x, bias = ROWS * N * 4, N * 4
    assert k.pass_of == (0, 0, 1, 1, 0, 1)
    assert k.issued_bytes("looped") == 2 * (x + bias) + x == k.issued_bytes("persistent") + x + bias


def test_looped_flops_count_the_exp_in_the_max_pass_and_the_rescale():
    """Per element: add (1), max (1), sub (1), exp (4), sum (1), divide (2) = 10 persistent.  Looped:
    the add in both passes, sub and exp in both (the online sum's exp(x - m), then the outputs'),
    max, sum and divide once, plus the rescale (sub, exp, mul)."""
    _m, _ops, k = _softmax(SOFTMAX_GELU)
    rescale = sum(flop_weight(o) for o in ONLINE_RESCALE_OPS)
    assert rescale == 6
    assert k.flops("persistent") == 10 * ROWS * N
    assert k.flops("looped") == (2 * 1 + 1 + 2 * 1 + 2 * 4 + 1 + 2 + rescale) * ROWS * N


# --- the recognizer's rules, one at a time, on small kernels written out (issue #15's mutants) -----------------
HEAD = """#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @k(%x: tensor<64x64xf32>, %s: f32) -> tensor<64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
"""
ROW_MAX = """  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x64xf32>) outs(%minit : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
"""
FOLDED = """    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32"""


def _sum(name: str, body: str = FOLDED, x_map: str = "#id", m: str = "%m", yielded: str = "%r") -> str:
    """A row reduction yielding ``yielded``, by default ``%r`` as ``body`` defines it from ``%a`` = x through
    ``x_map``, ``%b`` = the row value ``m`` and ``%acc``."""
    return f"""  %{name} = linalg.generic {{indexing_maps = [{x_map}, #row, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x, {m} : tensor<64x64xf32>, tensor<64xf32>) outs(%sinit : tensor<64xf32>) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
{body}
    linalg.yield {yielded} : f32
  }} -> tensor<64xf32>
"""


def _two_outputs(name: str, inits: str, body: str, yields: str) -> str:
    """``%name:2``: a row reduction of x with two outputs, into ``inits`` (two row tensors), its ``body`` over
    ``%a``, ``%acc0`` and ``%acc1`` yielding ``yields``."""
    return f"""  %{name}:2 = linalg.generic {{indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<64x64xf32>) outs({inits} : tensor<64xf32>, tensor<64xf32>) {{
  ^bb0(%a: f32, %acc0: f32, %acc1: f32):
{body}
    linalg.yield {yields} : f32, f32
  }} -> (tensor<64xf32>, tensor<64xf32>)
"""


def _found(*members: str, result: str = "%s0", roles: list[str] | None = None):
    """The folded sums of the kernel of ``members``, with their roles as the kernel analysis gives them (or
    ``roles``, for a kernel it refuses)."""
    m = parse_module(HEAD + "".join(members) + f"  return {result} : tensor<64xf32>\n}}\n")
    with m.context:
        ops = generics_in(function_blocks(m)[0])
        return online_sums(ops, roles or [k.role for k in analyze_kernel(ops).members])


def test_the_written_out_softmax_sum_is_folded_with_its_accumulator_on_either_side():
    assert _found(ROW_MAX, _sum("s0")) == ((1, 0, 0),)
    assert _found(ROW_MAX, _sum("s0", FOLDED.replace("%e, %acc", "%acc, %e"))) == ((1, 0, 0),)


@pytest.mark.parametrize("sums", [
    _sum("s0", x_map="#tr"),                                        # x through another map: not the value maxed
    _sum("s0", FOLDED.replace("arith.addf %e, %acc", "arith.mulf %e, %acc")),   # a product, not a sum
    _sum("s0", FOLDED.replace("arith.addf %e, %acc", "arith.addf %e, %e")),     # no accumulator: no reduction
], ids=["other_map", "product", "no_accumulator"])
def test_sums_that_do_not_qualify_are_refused_without_error(sums):
    assert _found(ROW_MAX, sums) == ()


def test_a_value_from_outside_the_members_is_no_row_max():
    """exp(x - s) for a scalar argument ``s`` the body captures: the kernel analysis refuses such a kernel, and
    the recognizer, asked anyway, finds no sum rather than failing."""
    scalar = _sum("s0", FOLDED.replace("%a, %b", "%a, %s"))
    with pytest.raises(NotAKernel):
        _found(ROW_MAX, scalar)
    assert _found(ROW_MAX, scalar, roles=[REDUCE, REDUCE]) == ()


def test_a_sum_with_a_second_output_is_not_folded():
    pair = """  %s0:2 = linalg.generic {indexing_maps = [#id, #row, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<64x64xf32>, tensor<64xf32>) outs(%sinit, %sinit : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32, %acc2: f32):
""" + FOLDED + """
    %r2 = arith.addf %a, %acc2 : f32
    linalg.yield %r, %r2 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
"""
    assert _found(ROW_MAX, pair, result="%s0#0") == ()


def test_the_max_may_be_the_second_output_of_its_member():
    body = "    %t = arith.addf %a, %acc0 : f32\n    %r = arith.maximumf %a, %acc1 : f32"
    pair = _two_outputs("p", "%sinit, %minit", body, "%t, %r")
    assert _found(pair, _sum("s0", m="%p#1")) == ((1, 0, 1),)


def test_untraceable_values_on_both_sides_are_no_match():
    """The max of its own second accumulator, and a sum of exp(acc - m): both sides are values the
    recognizer cannot follow (an output's own argument), and two such are not the same value."""
    odd_max = _two_outputs("m", "%minit, %minit", "    %r = arith.maximumf %acc1, %acc0 : f32", "%r, %acc1")
    assert _found(odd_max, _sum("s0", FOLDED.replace("%a, %b", "%acc, %b"), m="%m#0")) == ()
    # the same even when the two accumulators start from one tensor, read through one map
    max_second = _two_outputs("m", "%sinit, %minit", "    %r = arith.maximumf %acc0, %acc1 : f32", "%acc0, %r")
    assert _found(max_second, _sum("s0", FOLDED.replace("%a, %b", "%acc, %b"), m="%m#1")) == ()


def test_sums_that_fail_each_rule_do_not_stop_the_search_for_a_later_one():
    sums = [_sum("s1", "    %r = arith.addf %a, %acc : f32"),                                     # no exp
            _sum("s2", "    %e = math.exp %a : f32\n    %r = arith.addf %e, %acc : f32"),         # no subtraction
            _sum("s3", FOLDED.replace("%a, %b", "%a, %a")),                                       # not a row value
            _sum("s4", FOLDED, m="%n"),                                                           # a row min
            _sum("s5", FOLDED.replace("arith.addf %e, %acc", "arith.addf %e, %e")),               # no accumulator
            _sum("s6", "", yielded="%acc"),                                                       # combines nothing
            _sum("s0")]
    negated = """  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
"""                                                                                               # not a reduction
    row_min = ROW_MAX.replace("%m =", "%n =").replace("maximumf", "minimumf")
    assert _found(negated, ROW_MAX, row_min, *sums) == ((9, 1, 0),)
