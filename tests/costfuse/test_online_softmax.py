"""costfuse/online_softmax.py: which sums a looped kernel folds into its max's pass, and what that
does to the kernel's passes, bytes and flops (issue #26 part 3; docs/groups.md, "Online softmax").

The numerics of the folded sum, against IREE, are in tests/data/test_lower_kernel.py."""

from pathlib import Path

import pytest

from costfuse.estimates import flop_weight
from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module
from costfuse.kernel import ONLINE_RESCALE_OPS, analyze_kernel
from costfuse.online_softmax import online_sums

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
