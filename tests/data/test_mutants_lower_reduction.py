"""data.lower_reduction: what mutation testing (experiments/mutation.py) found unchecked.

No test had a reduction whose reduced value is computed from an accumulator, so
``depends_on`` (the search the lowering refuses such a reduction with) was never
asked a question whose answer is yes, nor one where the path to an accumulator
passes a value it has already seen.  These tests ask it directly and read the
:class:`UnsupportedOp` the lowering raises, without running anything.
"""

from __future__ import annotations

import pytest
from lowering_cases import Operand, generic_module, ident
from test_lower import only_generic

from costfuse.data.lower import UnsupportedOp, lower_generic
from costfuse.data.lower_reduction import depends_on

X = Operand((4, 8), "f32", ident(2))
ROW = Operand((4,), "f32", "d0")

# Two row sums; the first sums u + s with s = exp(x) and u = o1 * s: its reduced value reads the
# second accumulator o1 through u, and s twice (a diamond).
DIAMOND = ["%s = math.exp %a0 : f32", "%u = arith.mulf %o1, %s : f32", "%v = arith.addf %u, %s : f32",
           "%r0 = arith.addf %v, %o0 : f32", "%r1 = arith.addf %a0, %o1 : f32", "yield %r0, %r1"]


def _values(body: list[str]):
    """(module, the generic's block, its named values: ``%s`` -> value, block arguments as ``%a0``, ``%o0``...)."""
    module, g = only_generic(generic_module(2, ["parallel", "reduction"], [X], [ROW, ROW], body))
    block = g.regions[0].blocks[0]
    named = {f"%{n}": arg for n, arg in zip(("a0", "o0", "o1"), block.arguments)}
    for op, line in zip(block.operations, body):
        if "=" in line:
            named[line.split("=")[0].strip()] = op.results[0]
    return module, block, named


def test_a_value_computed_from_an_accumulator_depends_on_it():
    module, block, v = _values(DIAMOND)
    accs = {v["%o0"], v["%o1"]}
    assert depends_on(v["%u"], accs, block)       # reads o1 directly
    assert depends_on(v["%o1"], accs, block)      # an accumulator itself


def test_the_search_goes_on_past_a_value_it_reached_twice():
    # From v the search meets s (then x), then u, whose operands are o1 and s again: seeing s a
    # second time must not end the search before o1.
    module, block, v = _values(DIAMOND)
    assert depends_on(v["%v"], {v["%o0"], v["%o1"]}, block)
    assert not depends_on(v["%s"], {v["%o0"], v["%o1"]}, block)   # exp(x) reads no accumulator


def test_a_reduced_value_that_reads_another_accumulator_is_refused_for_that_reason():
    module, g = only_generic(generic_module(2, ["parallel", "reduction"], [X], [ROW, ROW], DIAMOND))
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    assert (err.value.op, err.value.reason) == (
        "arith.addf", "output 0 of a reduction: the reduced value depends on an accumulator")
