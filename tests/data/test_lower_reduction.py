"""Reductions in the lowering (``data/lower_reduction.py``): what is refused and why, and the numbers.

``depends_on`` (the search the lowering refuses a reduced value computed from an
accumulator with) is asked questions whose answer is yes, ones where the path
to an accumulator passes a value it has already seen, and one on a body that
reuses every value (where a search without memory is exponential); these tests
ask it directly and read the :class:`UnsupportedOp` the lowering raises,
without running anything.

Then what test_lower.py's random and hand-picked generics miss: the refusal of
every body that is neither a plain reduction nor torch's arg-max pair, the slots
and skipped ops of a generic with several reductions (an arg-max, a sum, an
arg-min listed index first) and its numbers in both kernel modes, integer
max/min over rows at the type's extremes (where a wrong identity wins in the
masked lanes), and an f16/bf16 sum that a later member of the same kernel reads
(the value must be rounded back from the f32 accumulator: a store rounds
anyway, so only a fused kernel shows it).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import helpers.kernel_cases as kc
from costfuse.data.interpret import run_interpreted
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.body import Val
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.kernel import lower_kernel
from costfuse.data.lowering.reduction import ReductionSlot, emit_reductions, match_reductions
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import depends_on
from costfuse.launch import KernelLaunch
from helpers.kernel_functions import kernel_function
from helpers.lower_checks import MASKED_TAILS, _arg_body, _unsupported, check, only_generic
from helpers.lowering_cases import Operand, generic_module, ident, row_reduction

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


def test_the_search_asks_about_each_use_once_on_a_chain_of_squares():
    # x**(2**64) by squaring: every value is read twice by the next.  A search that does not remember
    # what it has seen walks 2**64 paths; this one must ask about each operand use at most once.
    body = ["%s0 = arith.mulf %a0, %a0 : f32"] + [f"%s{k} = arith.mulf %s{k - 1}, %s{k - 1} : f32"
                                                 for k in range(1, 64)]
    body += ["%r0 = arith.addf %s63, %o0 : f32", "%r1 = arith.addf %a0, %o1 : f32", "yield %r0, %r1"]
    module, block, v = _values(body)

    class Counted(set):
        asked = 0

        def __contains__(self, value):
            Counted.asked += 1
            assert Counted.asked <= 2 * 64 + 1, "depends_on asked about a value it had already walked past"
            return super().__contains__(value)

    assert not depends_on(v["%s63"], Counted({v["%o0"], v["%o1"]}), block)


# ---------------------------------------------------------------------------
# What the lowering refuses, and the reason it gives

I64_ROW = Operand((4,), "i64", "d0")
NOT_A_COMBINER = ("must yield combiner(acc, value) with combiner in arith.addf, arith.mulf, arith.maximumf, "
                  "arith.minimumf, arith.maxnumf, arith.minnumf, arith.addi, arith.maxsi, arith.minsi, or be an "
                  "arg-max/arg-min index")


def _reduction(body: list[str], ins=(X,), outs=(ROW,)) -> str:
    return generic_module(2, ["parallel", "reduction"], list(ins), list(outs), body)


@pytest.mark.parametrize("body, culprit", [
    # select(p, x, acc) (keep the last x where p holds) looks like an arg-max index at first sight,
    # but its condition is no cmpf of a value against an accumulator
    (["%z = arith.constant 0.0 : f32", "%p = arith.cmpf ogt, %a0, %z : f32", "%r = arith.select %p, %a0, %o0 : f32",
      "yield %r"], "arith.select"),
    (["%p = arith.cmpi slt, %a1, %a1 : i32", "%r = arith.select %p, %a0, %o0 : f32", "yield %r"], "arith.select"),
    (["yield %a0"], "a block argument"),
])
def test_a_yield_that_is_no_combiner_is_refused_naming_what_it_yields(body, culprit):
    err = _unsupported(_reduction(body, ins=(X, Operand((4, 8), "i32", ident(2)))))
    assert (err.op, err.reason) == (culprit, f"output 0 of a reduction {NOT_A_COMBINER}")


def test_a_stray_select_between_an_arg_max_value_and_its_index_is_the_output_named():
    # The arg-max pair (outputs 0 and 2) is recognised although an unsupported select (output 1) comes
    # before its index: the refusal names that select, not the pair's value as a plain reduction.
    err = _unsupported(_reduction(
        ["%i = linalg.index 1 : index", "%ii = arith.index_cast %i : index to i64",
         "%m = arith.maximumf %a0, %o0 : f32", "%gt = arith.cmpf ogt, %a0, %o0 : f32",
         "%l = arith.select %a1, %a0, %o1 : f32", "%k = arith.select %gt, %ii, %o2 : i64", "yield %m, %l, %k"],
        ins=(X, Operand((4, 8), "i1", ident(2))), outs=(ROW, ROW, I64_ROW)))
    assert (err.op, err.reason) == ("arith.select", f"output 1 of a reduction {NOT_A_COMBINER}")


@pytest.mark.parametrize("body, reason", [
    (["%r = arith.addf %o0, %o0 : f32", "yield %r"], "the combiner must take the accumulator exactly once"),
    (["%r = arith.addf %a0, %a0 : f32", "yield %r"], "the combiner must take the accumulator exactly once"),
    (["%e = arith.mulf %o0, %a0 : f32", "%r = arith.addf %a0, %o0 : f32", "yield %r"],
     "the accumulator and the combined value may be used only by the combiner and the yield"),
    (["%r = arith.addf %a0, %o0 : f32", "%e = arith.mulf %r, %a0 : f32", "yield %r"],
     "the accumulator and the combined value may be used only by the combiner and the yield"),
])
def test_a_sum_that_is_no_plain_reduction_is_refused_for_its_reason(body, reason):
    err = _unsupported(_reduction(body))
    assert (err.op, err.reason) == ("arith.addf", f"output 0 of a reduction: {reason}")


def _arg_max(edit: tuple[str, str] | None = None, extra: str | None = None) -> str:
    """torch's arg-max pair (value output 0, index output 1) with one body line edited or one added."""
    body = _arg_body("ogt", "maximumf")
    if edit:
        assert any(edit[0] in line for line in body)
        body = [line.replace(*edit) for line in body]
    if extra:
        body.insert(-1, extra)
    return _reduction(body, outs=(ROW, I64_ROW))


ARG_SHAPE = "select(cmpf ogt|olt (x, acc), index, acc_i) with maximumf|minimumf(x, acc)"


@pytest.mark.parametrize("edit", [
    ("%gt = arith.cmpf ogt", "%gt = arith.cmpf oge"),          # a predicate that is not max's ogt
    ("%m = arith.maximumf %a0", "%m = arith.minimumf %a0"),    # min of the value, compared with ogt
    ("%m = arith.maximumf %a0, %o0", "%m = arith.addf %a0, %o0"),  # the value output is no max at all
    ("%m = arith.maximumf %a0, %o0", "%h = arith.mulf %a0, %a0 : f32\n      %m = arith.maximumf %h, %o0"),
])
def test_an_almost_arg_max_is_refused_naming_the_select_and_the_shape_it_needs(edit):
    err = _unsupported(_arg_max(edit))
    assert (err.op, err.reason) == ("arith.select",
                                    f"output 1 looks like an arg-max/arg-min but does not match {ARG_SHAPE}")


@pytest.mark.parametrize("edit", [
    ("%i = linalg.index 1", "%i = linalg.index 0"),                          # the row's index, not the column's
    ("%ii = arith.index_cast %i : index to i64", "%ii = arith.constant 7 : i64"),
    ("%ii = arith.index_cast %i", "%c3 = arith.constant 3 : index\n      %ii = arith.index_cast %c3"),
])
def test_an_arg_max_selecting_anything_but_the_reduction_index_is_refused(edit):
    err = _unsupported(_arg_max(edit))
    assert (err.op, err.reason) == ("arith.select", "arg-max/arg-min output 1: the selected index must be "
                                                    "index_cast(linalg.index <reduction dim>)")


@pytest.mark.parametrize("extra", [
    "%e = arith.addf %o0, %a0 : f32",       # the value accumulator, a third time
    "%e = arith.addi %o1, %ii : i64",       # the index accumulator, a second time
    "%e = arith.select %gt, %a0, %a0 : f32",  # the compare
    "%e = arith.addi %k, %ii : i64",        # the selected index
    "%e = arith.addf %m, %a0 : f32",        # the max
])
def test_an_arg_max_whose_values_are_read_elsewhere_is_refused(extra):
    err = _unsupported(_arg_max(extra=extra))
    assert (err.op, err.reason) == ("arith.select", "arg-max/arg-min output 1: accumulators may be used only by "
                                                    "the max, the compare and the select")


def test_an_arg_max_of_a_value_computed_from_another_accumulator_is_refused():
    # output 2 sums x; the arg-max is over x * (that sum's accumulator)
    err = _unsupported(_reduction(
        ["%x = arith.mulf %a0, %o2 : f32"] + [ln.replace("%a0", "%x") for ln in _arg_body("ogt", "maximumf")[:-1]]
        + ["%s = arith.addf %a0, %o2 : f32", "yield %m, %k, %s"], outs=(ROW, I64_ROW, ROW)))
    assert (err.op, err.reason) == ("arith.maximumf",
                                    "output 0 of a reduction: the reduced value depends on an accumulator")


@pytest.mark.parametrize("combiner, t", [("arith.addf", "i32"), ("arith.addi", "f32"), ("arith.maxsi", "bf16")])
def test_emit_reductions_refuses_a_combiner_of_another_kind_than_its_output(combiner, t):
    # The lowerers cannot get here (MLIR types the combiner as its output); the emitter still refuses.
    with pytest.raises(UnsupportedOp) as err:
        emit_reductions([ReductionSlot(0, combiner, None)], {0: Val("t1", t)}, [t], persistent=True)
    assert (err.value.op, err.value.reason) == (combiner, f"output 0: combiner does not match element type {t}")


# ---------------------------------------------------------------------------
# Numerics the random operands of test_lower.py cannot reach


@pytest.mark.parametrize("dtype", ["i32", "i64"])
@pytest.mark.parametrize("combiner", ["arith.maxsi", "arith.minsi"])
@pytest.mark.parametrize("rnumel, config", MASKED_TAILS[:2])
def test_integer_max_min_of_rows_at_the_types_extremes(dtype, combiner, rnumel, config, kdir):
    """An integer max's masked lanes hold the type's minimum (a min's its maximum): torch's init for
    amax/amin.  Row 0 is that extreme everywhere, the other rows lie within 1000 of it, so an identity
    one step (or more) inside the range would win.  No row length is a power of two."""
    info = np.iinfo(dtype.replace("i", "int"))
    edge, inward = (info.min, 1) if combiner == "arith.maxsi" else (info.max, -1)
    offsets = np.random.default_rng(5).integers(0, 1000, (3, rnumel))
    offsets[0] = 0
    rows = (edge + inward * offsets).astype(info.dtype)
    check(row_reduction((3, rnumel), dtype, combiner), kdir, config, args=[rows, np.full(3, edge, info.dtype)])


# One pass over each row: torch's arg-max pair, a sum, and an arg-min pair with its index output listed
# before its value.  Every reduction's lines must survive the others' (init, loop step, finish).
SEVERAL_BODY = ["%j = linalg.index 1 : index", "%jj = arith.index_cast %j : index to i64",
                "%mx = arith.maximumf %a0, %o0 : f32", "%gt = arith.cmpf ogt, %a0, %o0 : f32",
                "%kx = arith.select %gt, %jj, %o1 : i64",
                "%s = arith.addf %a0, %o2 : f32",
                "%mn = arith.minimumf %a0, %o4 : f32", "%lt = arith.cmpf olt, %a0, %o4 : f32",
                "%kn = arith.select %lt, %jj, %o3 : i64",
                "yield %mx, %kx, %s, %kn, %mn"]
SEVERAL = generic_module(2, ["parallel", "reduction"], [Operand((4, 37), "f32", ident(2))],
                         [Operand((4,), t, "d0") for t in ("f32", "i64", "f32", "i64", "f32")], SEVERAL_BODY)


def test_each_output_gets_its_slot_and_the_ops_the_reductions_consume_are_skipped():
    module, g = only_generic(SEVERAL)
    slots, skip = match_reductions(g.regions[0].blocks[0], 1, 5, [1])
    assert [(s.out, s.combiner, s.arg_of) for s in slots] == [
        (0, "arith.maximumf", None), (1, "arith.minsi", 0), (2, "arith.addf", None), (3, "arith.minsi", 4),
        (4, "arith.minimumf", None)]
    # everything but the index, its cast and the yield: the max/min, compares, selects and the sum
    assert skip == {2, 3, 4, 5, 6, 7, 8}


@pytest.mark.parametrize("config", [None, LaunchConfig(2, 16, 2)])
def test_a_sum_an_arg_max_and_an_arg_min_in_one_generic(config, kdir):
    check(SEVERAL, kdir, config)


NARROW = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _widened_row_sum(t: str, m: int, n: int) -> str:
    """A kernel function: ``s = sum(x)`` over rows of type ``t``, then ``w = extf(s)`` to f32 per row."""
    x = ("%x", (m, n), t, "d0, d1")
    body = kc._fill("%s0", (m,), t, "0.0") + kc._empty("%e", (m,), "f32")
    body.append(kc.generic("%s", 2, "pr", [x], [("%s0", (m,), t, "d0")], [f"%r = arith.addf %a0, %o0 : {t}",
                                                                            "yield %r"]))
    body.append(kc.generic("%w", 1, "p", [("%s", (m,), t, "d0")], [("%e", (m,), "f32", "d0")],
                           [f"%r = arith.extf %a0 : {t} to f32", "yield %r"]))
    return kc.kernel_function([("%x", (m, n), t)], [("%w", (m,), "f32")], body)


@pytest.mark.parametrize("t", sorted(NARROW))
@pytest.mark.parametrize("launch", [KernelLaunch("persistent", 1, 64, 1), KernelLaunch("looped", 2, 16, 2)])
def test_a_narrow_float_sum_is_rounded_to_its_type_before_a_later_member_reads_it(t, launch, tmp_path):
    """f16/bf16 sums accumulate in f32, but the result is an f16/bf16 value: a member reading it in the
    same kernel sees it rounded once to that type.  Rows of 37 x 113.0 sum to 4181 exactly in f32, which
    neither type holds: the nearest f16 is 4180 (neighbours 4180/4184), the nearest bf16 4192 (4160/4192)."""
    source = lower_kernel(kernel_function(_widened_row_sum(t, 3, 37)), launch).source
    (w,) = run_interpreted(source, [np.full((3, 37), 113.0, NARROW[t]), np.zeros(3, np.float32)], tmp_path)
    np.testing.assert_array_equal(w, np.full(3, {"f16": 4180.0, "bf16": 4192.0}[t], np.float32))
