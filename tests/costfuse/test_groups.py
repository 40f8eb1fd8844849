"""Kernel-group formation (``costfuse/groups.py``) decided step by step, with a cost model whose answers
each test sets.

:class:`Scripted` answers every question formation asks from tables the test
writes (which merged kernel to accept, which copy to make, which kernel has no
config), names each kernel it prices by what it computes and stores
(``g1+g3 stores g3``), and records every question it is asked, so each test
states exactly the decisions, the questions and the kernels that docs/groups.md
("Stored or recomputed") and the priority rule (highest priority first, ties in
program order, stale candidates dropped) imply.  Whole programs under real
models (tests/costfuse/test_groups_pass.py) show the kernels that come out,
rarely the decisions on the way: a wrong version bump, a copy left out of a
merge, a stale candidate taken or a lone generic's config went unnoticed there
(issue #15).  Programs are small elementwise generics on ``tensor<4x8xf32>``
unless a test says otherwise.
"""

from __future__ import annotations

import math
import signal
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from iree.compiler import ir

from costfuse.cost_models.always import Always
from costfuse.data.mlir_text import Program, amap, ident, tensor
from costfuse.graph import function_blocks, generics_in
from costfuse.groups import form_groups, label
from costfuse.ir import parse_module
from costfuse.kernel import tensor_bytes as _tensor_bytes
from costfuse.launch import KernelLaunch, heuristic_launch
from costfuse.policy import GroupEstimate, GroupPolicy, MergeVerdict
from helpers.generic_ops import _ID2, _op
from helpers.peer_kernels import _fill

X = tensor((4, 8), "f32")
ROW = amap(2, "d0")


# --- a cost model whose answers the test writes -----------------------------------------------
@dataclass
class Scripted(GroupPolicy):
    """Prices a kernel at the heuristic config with ``1 us`` per member, named by what it computes
    and stores (its estimate's ``reason``, e.g. ``g1+g2 stores g2``); refuses a config to the
    kernels named in ``refuse``; merges when the merged kernel's name is in ``merges`` and
    recomputes when the consumer's kernel with the copy is named in ``recomputes`` (each with its
    priority).  ``asked`` records every verdict asked for, with the names of every argument."""

    name = "scripted"
    gnum: dict = field(default_factory=dict)          # op -> generic number (0-based)
    merges: dict = field(default_factory=dict)
    recomputes: dict = field(default_factory=dict)
    refuse: tuple = ()
    asked: list = field(default_factory=list)


    def describe(self, shape) -> str:
        members = [self.gnum[m.op] for m in shape.members]
        return f"{label(members)} stores {label({members[o.member] for o in shape.outputs}) or 'nothing'}"

    def best_config(self, shape):
        what = self.describe(shape)
        if what in self.refuse:
            return None
        launch = heuristic_launch(shape)
        return GroupEstimate(launch, 1e-6 * len(shape.members), shape.issued_bytes(launch.mode), reason=what)

    def merge_verdict(self, a, b, ab, merged):
        self.asked.append(f"merge? {a.reason} + {b.reason} = {ab.reason} [{self.describe(merged)}]")
        if ab.reason in self.merges:
            return MergeVerdict(True, self.merges[ab.reason], "scripted merges")
        return MergeVerdict(False, 0.0, "scripted keeps")

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None):
        g = f"g{self.gnum[producer_op] + 1}"
        after = "gone" if a_after is None else a_after.reason
        self.asked.append(f"copy {g}? {a.reason}, {b.reason} -> {after}, {b_after.reason} [{self.describe(merged_b)}]")
        if b_after.reason in self.recomputes:
            return MergeVerdict(True, self.recomputes[b_after.reason], "scripted recomputes")
        return MergeVerdict(False, 0.0, f"scripted stores {g}")


@dataclass
class Formed:
    """``form_groups`` of ``@main`` and the model it ran with (the module keeps the ops alive)."""

    module: ir.Module
    model: GroupPolicy
    kernels: list
    decisions: list

    @property
    def steps(self) -> list[tuple]:
        """Each decision as (verdict, a, b, reason, the name of the kernel its estimate prices)."""
        return [(d.verdict, d.a, d.b, d.reason, d.estimate.reason if d.estimate is not None else None)
                for d in self.decisions]

    @property
    def made(self) -> list[tuple]:
        """The decisions that changed the partition: merges and recomputes, as (verdict, a, b)."""
        return [(d.verdict, d.a, d.b) for d in self.decisions if d.verdict in ("merge", "recompute")]

    @property
    def groups(self) -> list[tuple]:
        """Each kernel as (label, unstored members, the name of the kernel its estimate prices)."""
        return [(k.label, k.unstored, k.estimate.reason) for k in self.kernels]


def form(text: str, model: GroupPolicy | None = None, scripted: type = None, refuses=None, **tables) -> Formed:
    """Form the groups of ``text``'s function under ``model``, by default a :class:`Scripted` one (or of the
    class ``scripted``) with ``tables`` (``merges``, ``recomputes``, ``refuse``, ...); ``refuses``: the
    lowering's refusal, as ``costfuse-opt`` passes it."""
    module = parse_module(text)
    block = function_blocks(module)[0]
    if model is None:
        model = (scripted or Scripted)(gnum={op: k for k, op in enumerate(generics_in(block))}, **tables)
    with module.context:
        kernels, decisions = form_groups(block, model, refuses)
    return Formed(module, model, kernels, decisions)


# --- programs ----------------------------------------------------------------------------------
def elementwise(p: Program, op: str, src: str) -> str:
    """One generic ``op(src)`` on ``X``."""
    return p.generic([(src, X, ident(2))], X, ident(2), ["parallel"] * 2, [f"%r = {op} %a0 : f32", "yield %r"])


def total(p: Program, *srcs: str) -> str:
    """One generic ``srcs[0] + srcs[1] + ...`` on ``X``."""
    body = ["%s1 = arith.addf %a0, %a1 : f32"]
    body += [f"%s{i} = arith.addf %s{i - 1}, %a{i} : f32" for i in range(2, len(srcs))]
    return p.generic([(s, X, ident(2)) for s in srcs], X, ident(2), ["parallel"] * 2,
                     body + [f"yield %s{len(srcs) - 1}"])


def returning(p: Program, *results: str) -> str:
    """The function text of ``p`` returning ``results`` (all of type ``X``)."""
    text = p.text(results[0], X)
    if len(results) == 1:
        return text
    return text.replace(f") -> {X} {{", f") -> ({', '.join([X] * len(results))}) {{", 1).replace(
        f"return {results[0]} : {X}", f"return {', '.join(results)} : {', '.join([X] * len(results))}")


def chain(length: int) -> str:
    """``g1 = exp(x)``, ``g2 = -g1``, ``g3 = |g2|``, ...: each generic reads only the one before."""
    p = Program([("%x", X)])
    v = "%x"
    for k in range(length):
        v = elementwise(p, ("math.exp", "arith.negf", "math.absf")[k % 3], v)
    return returning(p, v)


def star(fifth: bool = False) -> str:
    """``g1 = exp(x)`` read by three consumers ``g2 = -g1``, ``g3 = |g1|``, ``g4 = sqrt(g1)``, all
    returned; ``fifth``: ``g5 = exp(g3)`` returned instead of ``g3``."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2, g3, g4 = (elementwise(p, op, g1) for op in ("arith.negf", "math.absf", "math.sqrt"))
    if fifth:
        return returning(p, g2, g4, elementwise(p, "math.exp", g3))
    return returning(p, g2, g3, g4)


# --- lone generics: v1's config ----------------------------------------------------------------
NO_INPUTS = """func.func @f() -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["reduction", "parallel"]}
      outs(%e : tensor<4x3xf32>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}"""


NO_RESULTS = """func.func @f(%v: tensor<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) {
  ^bb0(%a: f32):
    linalg.yield
  }
  return
}"""


_SUM = ["%r = arith.addf %a, %o : f32", "linalg.yield %r : f32"]
_OUTER = "affine_map<(d0, d1) -> (d1)>"


def _lone(case):
    """(module, its generic) of a test case: MLIR text, or the arguments of ``test_kernel_shape._op``."""
    if isinstance(case, str):
        module = parse_module(case)
        return module, generics_in(function_blocks(module)[0])[0]
    return _op(**case)


@pytest.mark.parametrize("case, launch, nbytes", [
    # all loops parallel, but the output map drops d1: 4 results, nothing reduced (heuristic_config(4, 1))
    (dict(body=["%r = math.exp %a : f32", "linalg.yield %r : f32"], maps=(_ID2, "affine_map<(d0, d1) -> (d0)>"),
          out="tensor<4xf32>"), ("pointwise", 4, 1, 1), 4 * 8 * 4 + 4 * 4),
    # an outer reduction 4x8 -> 8: 8 rows of 32 / 8 = 4 elements (heuristic_config(8, 4))
    (dict(body=_SUM, maps=(_ID2, _OUTER), iters=("reduction", "parallel"), out="tensor<8xf32>"),
     ("persistent", 8, 4, 2), 4 * 8 * 4 + 8 * 4 + 8 * 4),
    # 5 elements summed into each of 2 results: rows do not divide the input, 5 // 2 = 2 reduced
    # (heuristic_config(2, 2); RBLOCK 2 holds the 2 elements: persistent)
    (dict(body=_SUM, args=", %v: tensor<5xf32>", ins="%v : tensor<5xf32>",
          maps=("affine_map<(d0, d1) -> (d0)>", _OUTER), iters=("reduction", "parallel"), out="tensor<2xf32>"),
     ("persistent", 2, 2, 2), 5 * 4 + 2 * 4 + 2 * 4),
    # one result: 6 elements reduced into 1 row (heuristic_config(1, 6))
    (dict(body=_SUM, args=", %v: tensor<6x1xf32>", ins="%v : tensor<6x1xf32>", maps=(_ID2, _OUTER),
          iters=("reduction", "parallel"), out="tensor<1xf32>"), ("persistent", 1, 8, 2), 6 * 4 + 4 + 4),
    # a reduction loop of extent 1: nothing is reduced, so pointwise (heuristic_config(8, 1))
    (dict(body=_SUM, args=", %v: tensor<1x8xf32>", ins="%v : tensor<1x8xf32>", maps=(_ID2, _OUTER),
          iters=("reduction", "parallel"), out="tensor<8xf32>"), ("pointwise", 8, 1, 1), 8 * 4 + 8 * 4 + 8 * 4),
    # 8192 x 4 -> 4: a column longer than one tile holds (heuristic_config(4, 8192))
    (dict(body=_SUM, args=", %v: tensor<8192x4xf32>", ins="%v : tensor<8192x4xf32>", maps=(_ID2, _OUTER),
          iters=("reduction", "parallel"), out="tensor<4xf32>"), ("looped", 1, 2048, 8), 8192 * 4 * 4 + 4 * 4 + 4 * 4),
    # a reduction with no input reduces nothing: 12 results, pointwise (heuristic_config(12, 1))
    (NO_INPUTS, ("pointwise", 16, 1, 1), 4 * 3 * 4 + 4 * 3 * 4),
    # no output at all: one row of one element; a body that reads nothing loads nothing
    (NO_RESULTS, ("pointwise", 1, 1, 1), 0),
    # elementwise but reading a scalar argument from outside: v1's pointwise config, f16 bytes
    (dict(body=["%r = arith.addf %a, %s : f16", "linalg.yield %r : f16"], args=", %h: tensor<4x8xf16>, %s: f16",
          ins="%h : tensor<4x8xf16>", out="tensor<4x8xf16>", bargs="%a: f16, %o: f16"), ("pointwise", 32, 1, 1),
     2 * 4 * 8 * 2),
], ids=["pointwise", "outer-reduction", "rows-do-not-divide", "one-row", "unit-reduction", "looped",
        "no-inputs", "no-results", "scalar-argument-f16"])
def test_a_lone_generic_gets_v1s_config_from_its_results_and_first_input(case, launch, nbytes):
    """``lone_estimate``: rows = the first result's elements (1 without a result); with a reduction
    loop, reduced elements = the first input's elements // rows (1 without an input); then v1's
    ``heuristic_config(rows, reduced)``, pointwise when nothing is reduced, persistent when RBLOCK
    holds the reduced elements, looped otherwise.  Bytes: every input the body reads and every result
    once, and with a reduction loop each output's initial value, issued and from DRAM; no time."""
    module, op = _lone(case)
    with module.context:
        est = Always().lone_estimate(op)
    assert (est.launch, est.issued_bytes, est.reason) == (KernelLaunch(*launch), nbytes, "not a row kernel: v1 config")
    assert type(est.issued_bytes) is int and math.isnan(est.time_s)
    assert est.dram_bytes == nbytes   # one pass: every byte from DRAM once


@pytest.mark.parametrize("case", [
    dict(body=_SUM, maps=(_ID2, _OUTER), iters=("reduction", "parallel"), out="tensor<8xf32>"),
    dict(body=_SUM, args=", %v: tensor<8192x4xf32>", ins="%v : tensor<8192x4xf32>", maps=(_ID2, _OUTER),
         iters=("reduction", "parallel"), out="tensor<4xf32>"),
    dict(body=["%r = math.exp %a : f32", "linalg.yield %r : f32"], maps=(_ID2, _ID2), out="tensor<4x8xf32>"),
    # a second input the body never reads: the kernel does not load it
    dict(body=_SUM, args=", %u: tensor<4x8xf32>", ins="%x, %u : tensor<4x8xf32>, tensor<4x8xf32>",
         maps=(_ID2, _ID2, _OUTER), iters=("reduction", "parallel"), out="tensor<8xf32>",
         bargs="%a: f32, %b: f32, %o: f32"),
], ids=["outer-reduction", "looped", "pointwise", "unread-input"])
def test_a_lone_generics_bytes_are_what_its_lowered_kernel_moves(case):
    """The pass's bytes for a kernel lowered as its one generic are its lowering's (a reduction loads its
    outputs' initial values): compare_groups sums the lowering's bytes in a workload's row and the policy's
    in Inductor's range, which disagreed by those initial values on the backward workloads."""
    from costfuse.data.lowering.generic import lower_generic

    module, op = _lone(case)
    with module.context:
        est = Always().lone_estimate(op)
        assert est.issued_bytes == est.dram_bytes == lower_generic(op).hbm_bytes


def _index_generic():
    return _op(["%r = arith.addi %a, %a : index", "linalg.yield %r : index"], args=", %i: tensor<4x8xindex>",
               ins="%i : tensor<4x8xindex>", maps=(_ID2, "affine_map<(d0, d1) -> (d0)>"), out="tensor<4xindex>",
               bargs="%a: index, %o: index")


def test_a_lone_generic_on_index_tensors_gets_v1s_config():
    """An element type with no bit width in MLIR's type API (``index``) still gets a config."""
    module, op = _index_generic()
    with module.context:
        est = Always().lone_estimate(op)
    assert (est.launch, est.reason) == (KernelLaunch("pointwise", 4, 1, 1), "not a row kernel: v1 config")


def test_a_lone_generics_index_bytes_are_counted_as_kernels_count_them():
    """groups.py had its own byte count, which took an element with no bit width (index) as 32 bits."""
    from costfuse.kernel import tensor_bytes

    module, op = _index_generic()
    with module.context:
        est = Always().lone_estimate(op)
        assert est.issued_bytes == tensor_bytes(op.operands[0]) + tensor_bytes(op.results[0]) == 4 * 8 * 8 + 4 * 8


def test_tensor_bytes_follow_the_element_width_rounded_up_to_a_byte():
    module = parse_module("""func.func @f(%a: tensor<4x8xbf16>, %b: tensor<4x8xf16>, %c: tensor<4x8xi64>,
                                          %d: tensor<8xi8>, %e: tensor<8xi1>, %f: tensor<4x8xf32>) {
  return
}""")
    with module.context:
        got = [_tensor_bytes(v) for v in function_blocks(module)[0].arguments]
    assert got == [64, 64, 256, 8, 8, 128]
    assert all(type(n) is int for n in got)


def test_a_generic_that_is_no_row_kernel_is_never_a_candidate():
    """``g1`` (an outer reduction 4x8 -> 8) is not a row kernel and ``g2 = exp(g1)`` is: formation
    asks nothing about the pair and ``g1`` keeps v1's config."""
    p = Program([("%x", X)])
    r = tensor((8,), "f32")
    g1 = p.generic([("%x", X, ident(2))], r, amap(2, "d1"), ["reduction", "parallel"],
                   ["%r = arith.addf %a0, %o : f32", "yield %r"])
    g2 = p.generic([(g1, r, ident(1))], r, ident(1), ["parallel"], ["%r = math.exp %a0 : f32", "yield %r"])
    f = form(p.text(g2, r), Always())
    assert f.decisions == []
    k1, k2 = f.kernels
    assert (k1.members, k1.shape, k1.estimate.reason, k1.estimate.launch) == (
        (0,), None, "not a row kernel: v1 config", KernelLaunch("persistent", 8, 4, 2))
    assert (k2.members, k2.shape is not None) == ((1,), True)


# --- merges: skip, keep, no config -----------------------------------------------------------
def test_a_merge_that_is_no_kernel_is_skipped_with_the_reason():
    """``g2`` reads ``g1`` transposed: the pair has no common row space, so formation skips it
    (no estimate, no copy offered) and asks the model nothing."""
    p = Program([("%x", X)])
    xt = tensor((8, 4), "f32")
    g1 = elementwise(p, "math.exp", "%x")
    g2 = p.generic([(g1, X, amap(2, "d1, d0"))], xt, ident(2), ["parallel"] * 2,
                   ["%r = arith.negf %a0 : f32", "yield %r"])
    f = form(p.text(g2, xt))
    assert f.steps == [("skip", "g1", "g2", "members have different loop extents [(4, 8), (8, 4)]", None)]
    assert f.model.asked == []


def test_a_refused_merge_is_kept_with_the_models_reason_and_the_merged_estimate():
    """Nothing accepted: the model is asked to merge ``g1`` into ``g2`` (``g1`` read only by ``g2``, so
    the merged kernel stores only ``g2``) and whether ``g2`` should recompute ``g1`` (then ``g1``'s
    kernel stores nothing and goes)."""
    f = form(chain(2))
    assert f.steps == [("keep", "g1", "g2", "scripted keeps", "g1+g2 stores g2"),
                       ("store", "g1", "g2", "scripted stores g1", "g1+g2 stores g2")]
    assert f.model.asked == ["merge? g1 stores g1 + g2 stores g2 = g1+g2 stores g2 [g1+g2 stores g2]",
                             "copy g1? g1 stores g1, g2 stores g2 -> gone, g1+g2 stores g2 [g1+g2 stores g2]"]
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2")]


def test_a_merged_kernel_with_no_config_is_kept_and_nothing_else_is_asked():
    """The model would merge ``g1`` and ``g2`` but has no config for the merged kernel: kept, no verdict
    asked, no copy offered."""
    f = form(chain(2), refuse=("g1+g2 stores g2",), merges={"g1+g2 stores g2": 1.0})
    assert f.steps == [("keep", "g1", "g2", "scripted accepts no config for the merged kernel", None)]
    assert f.model.asked == []
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2")]


def test_a_kernel_with_no_config_is_never_merged_and_gets_the_heuristic_config():
    """The model accepts the merged kernel but no config of ``g1`` alone: the pair is kept, and ``g1``
    runs at the heuristic config with its bytes at that mode and no time."""
    f = form(chain(2), refuse=("g1 stores g1",), merges={"g1+g2 stores g2": 1.0})
    assert f.steps == [("keep", "g1", "g2", "scripted accepts no config for the merged kernel", None)]
    k1, k2 = f.kernels
    assert (k1.members, k1.estimate.launch, k1.estimate.issued_bytes, k1.estimate.reason) == (
        (0,), KernelLaunch("pointwise", 32, 1, 1), 2 * 4 * 8 * 4, "scripted accepts no config: heuristic config")
    assert math.isnan(k1.estimate.time_s)
    assert (k2.members, k2.estimate.reason) == ((1,), "g2 stores g2")


def test_a_merged_kernel_sees_the_readers_of_both_parts():
    """A chain of three: once ``g1+g2`` is formed, ``g3`` (which reads ``g2``) is its consumer."""
    f = form(chain(3), merges={"g1+g2 stores g2": 2.0, "g1+g2+g3 stores g3": 1.0})
    assert f.steps[-1] == ("merge", "g1+g2", "g3", "scripted merges", "g1+g2+g3 stores g3")
    assert f.made == [("merge", "g1", "g2"), ("merge", "g1+g2", "g3")]
    assert f.groups == [("g1+g2+g3", (), "g1+g2+g3 stores g3")]


def test_a_use_in_another_block_of_the_function_is_no_reader_in_the_block():
    """``g1`` is read by ``g2`` and, past a branch, by an op of the function's second block: formation
    (over the entry block) sees ``g2`` as its only reader in the block, and merges them."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    text = p.text(g2, X).replace(f"  return {g2} :",
                                 f"  cf.br ^bb1\n^bb1:\n  %s = arith.addf {g1}, {g2} : {X}\n  return %s :")
    f = form(text, Always())
    assert f.made == [("merge", "g1", "g2")]
    assert [k.label for k in f.kernels] == ["g1+g2"]


# --- cycles --------------------------------------------------------------------------------------
def _round_trip(between: str = "", returned: str = "") -> str:
    """``g1 = x*x``; ``g2 = g1 / expand(collapse(g1))``: merging them would close a cycle through the
    reshapes, which stay in the caller.  ``between``: more ops after the reshapes; ``returned``: one
    of them, returned too."""
    ret = f"%y, {returned} : {X}, {X}" if returned else f"%y : {X}"
    head = f"func.func @main(%x: {X}) -> " + (f"({X}, {X})" if returned else X) + " {\n"
    return head + f"""  %e = tensor.empty() : {X}
  %p = linalg.generic {{indexing_maps = [{_ID2}, {_ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : {X}) outs(%e : {X}) {{
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  }} -> {X}
  %c = tensor.collapse_shape %p [[0, 1]] : {X} into tensor<32xf32>
  %ex = tensor.expand_shape %c [[0, 1]] output_shape [4, 8] : tensor<32xf32> into {X}
{between}  %y = linalg.generic {{indexing_maps = [{_ID2}, {_ID2}, {_ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%p, %ex : {X}, {X}) outs(%e : {X}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  }} -> {X}
  return {ret}
}}
"""


def test_a_merge_that_would_close_a_cycle_is_skipped():
    """The model accepts the merge (and stores ``g1`` rather than copy it); formation skips it when it
    comes up, since ``g2`` reads ``g1`` through the reshapes too."""
    f = form(_round_trip(), merges={"g1+g2 stores g1+g2": 1.0})
    assert f.steps == [("store", "g1", "g2", "scripted stores g1", "g1+g2 stores g2"),
                       ("skip", "g1", "g2", "the merged kernel would close a cycle through other ops", None)]
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2")]


def test_the_cycle_search_goes_on_past_an_op_it_reached_twice():
    """``n = -g1`` feeds ``z = n + q`` (returned) directly and through ``q = -(-(-n))``: in the order
    the search from ``g1`` takes, it reaches ``z`` twice (at the end of the detour, then from ``n``)
    before it follows the reshapes back to ``g2``; it must go on and find them."""
    between = "".join(f"  %{v} = {op} : {X}\n" for v, op in [
        ("n", "arith.negf %p"), ("t1", "arith.negf %n"), ("t2", "arith.negf %t1"), ("q", "arith.negf %t2"),
        ("z", "arith.addf %n, %q")])
    f = form(_round_trip(between, "%z"), merges={"g1+g2 stores g1+g2": 1.0})
    assert f.steps[-1] == ("skip", "g1", "g2", "the merged kernel would close a cycle through other ops", None)
    assert [k.label for k in f.kernels] == ["g1", "g2"]


@contextmanager
def _time_limit(seconds: int):
    def fail(*_):
        raise TimeoutError(f"formation did not end in {seconds} s")

    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_the_cycle_search_visits_each_op_once():
    """``g1`` feeds ``g2`` and a ladder of 40 diamonds of tensor ops (``l = -d``, ``r = |d|``,
    ``d' = l + r``) that ends in the return: the search from ``g1`` finds no way back to ``g2`` in
    about 120 steps; one that visited an op once per path to it would take 2^40."""
    lines, d = [], "%p"
    for i in range(40):
        lines += [f"  %l{i} = arith.negf {d} : {X}", f"  %r{i} = math.absf {d} : {X}",
                  f"  %d{i} = arith.addf %l{i}, %r{i} : {X}"]
        d = f"%d{i}"
    text = _round_trip("\n".join(lines) + "\n", d).replace(
        f"ins(%p, %ex : {X}, {X})", f"ins(%p, %p : {X}, {X})")   # g2 reads g1 twice: no cycle
    with _time_limit(10):
        f = form(text, merges={"g1+g2 stores g1+g2": 1.0})
    assert f.made == [("merge", "g1", "g2")]


# --- recomputed producers (docs/groups.md, "Stored or recomputed") -------------------------------
def test_a_producer_only_its_consumer_reads_is_recomputed_there_and_its_kernel_goes():
    """``g2 = -exp(x)``: merging is refused, the copy accepted; ``g1``'s kernel then stores nothing."""
    f = form(chain(2), recomputes={"g1+g2 stores g2": 1.0})
    assert f.steps == [
        ("keep", "g1", "g2", "scripted keeps", "g1+g2 stores g2"),
        ("recompute", "g1", "g1'+g2", "g1 copied into the consumer; the producer's kernel goes", "g1+g2 stores g2")]
    assert f.model.asked[-1] == "copy g1? g1 stores g1, g2 stores g2 -> gone, g1+g2 stores g2 [g1+g2 stores g2]"
    (k,) = f.kernels
    assert (k.members, k.recomputed, k.unstored, k.label) == ((0, 1), (0,), (0,), "g1'+g2")
    assert [o.member for o in k.shape.outputs] == [1]


def test_a_recomputed_producer_other_kernels_read_is_still_stored():
    """``star``: ``g3`` recomputes ``g1`` (worth 2), then ``g1`` merges with ``g2`` (worth 1).  The first
    merge offer of ``g1`` and ``g2`` is stale once ``g1``'s kernel changed; the fresh one merges.
    ``g1``'s kernel keeps storing it for ``g4``; ``g3``'s kernel reads ``x`` and stores only ``g3``."""
    f = form(star(), recomputes={"g1+g3 stores g3": 2.0}, merges={"g1+g2 stores g1+g2": 1.0})
    assert f.steps == [
        # the first offers, in program order: each consumer of g1 (merges with g2 and copies into g3 queued)
        ("store", "g1", "g2", "scripted stores g1", "g1+g2 stores g2"),
        ("keep", "g1", "g3", "scripted keeps", "g1+g3 stores g1+g3"),
        ("keep", "g1", "g4", "scripted keeps", "g1+g4 stores g1+g4"),
        ("store", "g1", "g4", "scripted stores g1", "g1+g4 stores g4"),
        ("recompute", "g1", "g1'+g3", "g1 copied into the consumer", "g1+g3 stores g3"),
        # offers around g1 (then around g3's kernel): g3's kernel already copies g1
        ("store", "g1", "g2", "scripted stores g1", "g1+g2 stores g2"),
        ("keep", "g1", "g1'+g3", "scripted keeps", "g1+g3 stores g1+g3"),
        ("keep", "g1", "g4", "scripted keeps", "g1+g4 stores g1+g4"),
        ("store", "g1", "g4", "scripted stores g1", "g1+g4 stores g4"),
        ("keep", "g1", "g1'+g3", "scripted keeps", "g1+g3 stores g1+g3"),
        ("merge", "g1", "g2", "scripted merges", "g1+g2 stores g1+g2"),
        ("keep", "g1+g2", "g1'+g3", "scripted keeps", "g1+g2+g3 stores g1+g2+g3"),
        ("keep", "g1+g2", "g4", "scripted keeps", "g1+g2+g4 stores g2+g4"),
        ("store", "g1+g2", "g4", "scripted stores g1", "g1+g4 stores g4")]
    assert f.groups == [("g1+g2", (), "g1+g2 stores g1+g2"), ("g1'+g3", (0,), "g1+g3 stores g3"),
                        ("g4", (), "g4 stores g4")]
    copying = f.kernels[1]
    assert (copying.members, copying.recomputed, [o.member for o in copying.shape.outputs]) == ((0, 2), (0,), [1])
    assert [i.value.owner for i in copying.shape.inputs] == [function_blocks(f.module)[0]]   # x, not g1


def test_a_copy_of_a_member_the_merged_kernel_owns_is_dropped():
    """``g3`` recomputes ``g1`` (worth 3), then ``g1`` and ``g3``'s kernel merge (worth 1): the merged
    kernel computes ``g1`` once, as its own member, and stores it for ``g2`` and ``g4``."""
    f = form(star(), recomputes={"g1+g3 stores g3": 3.0}, merges={"g1+g3 stores g1+g3": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g3"), ("merge", "g1", "g1'+g3")]
    assert f.groups == [("g1+g3", (), "g1+g3 stores g1+g3"), ("g2", (), "g2 stores g2"), ("g4", (), "g4 stores g4")]
    assert f.kernels[0].recomputed == ()


def test_a_kernel_holding_a_copy_keeps_it_when_it_merges_with_its_consumer():
    """``star(fifth=True)``: ``g3`` recomputes ``g1``, then ``g3``'s kernel merges with ``g5 = exp(g3)``:
    the merged kernel still holds the copy and stores only ``g5``."""
    f = form(star(fifth=True), recomputes={"g1+g3 stores g3": 2.0}, merges={"g1+g3+g5 stores g5": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g3"), ("merge", "g1'+g3", "g5")]
    assert ("merge", "g1'+g3", "g5", "scripted merges", "g1+g3+g5 stores g5") in f.steps
    # asked when the pair is offered, then again when it merges (for the reason): the copy stores nothing
    assert [q for q in f.model.asked if q.startswith("merge? g1+g3 stores g3 + g5")] == [
        "merge? g1+g3 stores g3 + g5 stores g5 = g1+g3+g5 stores g5 [g1+g3+g5 stores g5]"] * 2
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2"),
                        ("g1'+g3+g5", (0,), "g1+g3+g5 stores g5"), ("g4", (), "g4 stores g4")]


def _copy_then_merge() -> str:
    """``g1 = exp(x)``, ``g2 = -g1``, ``g3 = g2 + g1``, ``g4 = |g1|`` (``g3``, ``g4`` returned)."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    return returning(p, total(p, g2, g1), elementwise(p, "math.absf", g1))


def test_a_kernel_holding_a_copy_keeps_it_when_it_merges_with_another_producer():
    """``g3`` recomputes ``g1``, then ``g2`` joins ``g3``'s kernel: ``g2`` reads the copy, and the merged
    kernel, numbered after its first member ``g2``, stores only ``g3``; ``g1``'s kernel stays for ``g4``."""
    f = form(_copy_then_merge(), recomputes={"g1+g3 stores g3": 3.0}, merges={"g1+g2+g3 stores g3": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g3"), ("merge", "g2", "g1'+g3")]
    assert f.groups == [("g1", (), "g1 stores g1"), ("g1'+g2+g3", (0,), "g1+g2+g3 stores g3"),
                        ("g4", (), "g4 stores g4")]


def _two_producers() -> str:
    """``g1 = exp(x)``, ``g2 = -x``, ``g3 = g1 + g2``, ``g4 = |g1|``, ``g5 = sqrt(g2)`` (3 to 5 returned)."""
    p = Program([("%x", X)])
    g1, g2 = elementwise(p, "math.exp", "%x"), elementwise(p, "arith.negf", "%x")
    g3 = total(p, g1, g2)
    return returning(p, g3, elementwise(p, "math.absf", g1), elementwise(p, "math.sqrt", g2))


def test_a_kernel_recomputes_two_producers():
    """``g3`` recomputes ``g1`` (worth 2), then ``g2`` (worth 1, offered once the first copy is in):
    both producers' kernels stay, for ``g4`` and ``g5``."""
    f = form(_two_producers(), recomputes={"g1+g3 stores g3": 2.0, "g1+g2+g3 stores g3": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g3"), ("recompute", "g2", "g1'+g2'+g3")]
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2"),
                        ("g1'+g2'+g3", (0, 1), "g1+g2+g3 stores g3"), ("g4", (), "g4 stores g4"),
                        ("g5", (), "g5 stores g5")]
    assert f.kernels[2].recomputed == (0, 1)


def _first_member_unread(copy_first: bool = False) -> str:
    """``g1 = exp(x)``, ``g2 = -x``, ``g3 = g1 + g2``, ``g4 = |g2|``; ``g5 = sqrt(g1)`` too with
    ``copy_first``.  Returned: ``g3``, ``g4`` (and ``g5``)."""
    p = Program([("%x", X)])
    g1, g2 = elementwise(p, "math.exp", "%x"), elementwise(p, "arith.negf", "%x")
    results = [total(p, g1, g2), elementwise(p, "math.absf", g2)]
    if copy_first:
        results.append(elementwise(p, "math.sqrt", g1))
    return returning(p, *results)


def test_the_copy_offered_is_the_member_the_consumer_reads():
    """``g1+g2+g3`` forms (``g1`` with ``g3`` first); ``g4`` reads only ``g2`` of it, so the copy
    offered to ``g4`` is ``g2`` although ``g1`` comes first and reads nothing inside the kernel."""
    f = form(_first_member_unread(), merges={"g1+g3 stores g3": 3.0, "g1+g2+g3 stores g2+g3": 2.0})
    assert f.made == [("merge", "g1", "g3"), ("merge", "g2", "g1+g3")]
    assert f.steps[-2:] == [("keep", "g1+g2+g3", "g4", "scripted keeps", "g1+g2+g3+g4 stores g3+g4"),
                            ("store", "g1+g2+g3", "g4", "scripted stores g2", "g2+g4 stores g4")]


def test_a_kernel_holding_a_copy_offers_a_copy_of_another_member():
    """``g3`` recomputes ``g1`` (kept for ``g5``), ``g2`` joins; then ``g4`` may recompute ``g2``, and the
    model is told what ``g1'+g2+g3`` would store after: ``g3`` only (its copy of ``g1`` stores nothing)."""
    f = form(_first_member_unread(copy_first=True), recomputes={"g1+g3 stores g3": 3.0},
             merges={"g1+g2+g3 stores g2+g3": 2.0})
    assert f.made == [("recompute", "g1", "g1'+g3"), ("merge", "g2", "g1'+g3")]
    assert [q for q in f.model.asked if q.startswith("copy g2?")][-1] == (
        "copy g2? g1+g2+g3 stores g2+g3, g4 stores g4 -> g1+g2+g3 stores g3, g2+g4 stores g4 [g2+g4 stores g4]")


def test_a_reduction_is_never_recomputed():
    """``g1 = rowsum(x)``, ``g2 = x / g1``: the merge is refused, and no copy of the sum is offered."""
    p = Program([("%x", X)])
    r = tensor((4,), "f32")
    s = p.generic([("%x", X, ident(2))], r, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, r, "0.0"))
    y = p.generic([("%x", X, ident(2)), (s, r, ROW)], X, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    f = form(p.text(y, X), recomputes={"g1+g2 stores g2": 1.0})
    assert f.steps == [("keep", "g1", "g2", "scripted keeps", "g1+g2 stores g2")]
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2", (), "g2 stores g2")]


def test_a_copy_with_no_config_for_the_consumer_is_not_offered():
    """``star``, the model has no config for ``g2`` with a copy of ``g1``: that copy is never put to it
    (the copies into ``g3`` and ``g4`` are, and refused)."""
    f = form(star(), refuse=("g1+g2 stores g2",))
    assert [s[:3] for s in f.steps] == [("keep", "g1", "g2"), ("keep", "g1", "g3"), ("store", "g1", "g3"),
                                        ("keep", "g1", "g4"), ("store", "g1", "g4")]


def test_a_producer_stops_storing_a_value_once_its_last_reader_merges_with_a_copy_of_it():
    """On ``tensor<2x8192xf32>``: ``g1 = rowmax(x)``, ``g2 = exp(x)``, ``g3 = g2 - g1`` form one kernel
    (``g2`` stored for ``g4 = -g2`` and ``g5 = g4 + g2``); ``g5`` recomputes ``g2``, then ``g4`` joins
    ``g5``'s kernel: no reader of ``g2`` is left outside a kernel holding its copy, so ``g1+g2+g3``
    stores only ``g3`` now.  The model has no config for that kernel: it runs at the heuristic
    config, looped (rows of 8192 exceed one tile), where ``x`` is read twice (the max in pass 0,
    ``exp`` again for ``g3`` in pass 1): 2 x 64 KiB, plus ``g3``'s 64 KiB."""
    w, r = tensor((2, 8192), "f32"), tensor((2,), "f32")
    p = Program([("%x", w)])
    m = p.generic([("%x", w, ident(2))], r, ROW, ["parallel", "reduction"],
                  ["%r = arith.maximumf %a0, %o : f32", "yield %r"], init=_fill(p, r, "0xFF800000"))
    u = p.generic([("%x", w, ident(2))], w, ident(2), ["parallel"] * 2, ["%r = math.exp %a0 : f32", "yield %r"])
    y = p.generic([(u, w, ident(2)), (m, r, ROW)], w, ident(2), ["parallel"] * 2,
                  ["%r = arith.subf %a0, %a1 : f32", "yield %r"])
    v = p.generic([(u, w, ident(2))], w, ident(2), ["parallel"] * 2, ["%r = arith.negf %a0 : f32", "yield %r"])
    z = p.generic([(v, w, ident(2)), (u, w, ident(2))], w, ident(2), ["parallel"] * 2,
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])
    text = p.text(y, w).replace(f") -> {w} {{", f") -> ({w}, {w}) {{", 1).replace(
        f"return {y} : {w}", f"return {y}, {z} : {w}, {w}")
    f = form(text, merges={"g1+g3 stores g3": 5.0, "g1+g2+g3 stores g2+g3": 4.0, "g2+g4+g5 stores g5": 2.0},
             recomputes={"g2+g5 stores g5": 3.0}, refuse=("g1+g2+g3 stores g3",))
    assert f.made == [("merge", "g1", "g3"), ("merge", "g2", "g1+g3"), ("recompute", "g1+g2+g3", "g2'+g5"),
                      ("merge", "g4", "g2'+g5")]
    assert f.steps[-1] == ("keep", "g1+g2+g3", "g2'+g4+g5", "scripted accepts no config for the merged kernel", None)
    k, _ = f.kernels
    assert (k.label, k.unstored, [o.member for o in k.shape.outputs]) == ("g1+g2+g3", (1,), [2])
    assert (k.estimate.launch, k.estimate.issued_bytes, k.estimate.reason) == (
        KernelLaunch("looped", 1, 2048, 8), 3 * 2 * 8192 * 4, "scripted accepts no config: heuristic config")


def _copies_read_unstored_values(f: Formed) -> list[tuple[str, str]]:
    """(kernel, generic) for each value a recomputed copy reads from a generic outside its kernel
    that no kernel stores."""
    ops = generics_in(function_blocks(f.module)[0])
    number = {op: k for k, op in enumerate(ops)}
    stored = {k.members[o.member] for k in f.kernels if k.shape is not None for o in k.shape.outputs}
    return [(k.label, f"g{number[v.owner.operation] + 1}") for k in f.kernels for c in k.recomputed
            for v in ops[c].operands
            if not isinstance(v.owner, ir.Block) and v.owner.operation in number
            and number[v.owner.operation] not in k.members and number[v.owner.operation] not in stored]


def test_a_kernel_does_not_go_while_a_copy_in_another_kernel_reads_its_member():
    """``g1 = exp(x)``, ``g2 = -g1``, ``g3 = |g2|``, ``g4 = g2 + g3``, ``g5 = sqrt(g1)`` (``g4``, ``g5``
    returned).  ``g3`` recomputes ``g2`` (which reads ``g1`` from ``g1``'s kernel), ``g1`` and ``g2``
    merge, ``g4`` joins ``g3``'s kernel (so ``g2`` is no longer stored), then ``g5`` recomputes
    ``g1``.  The copy of ``g2`` still reads ``g1``: some kernel must store it.  ``unstored`` once
    counted only the readers' own positions (``g2``'s is inside ``g1+g2``), so ``g1+g2`` went and
    the pass left a use of an erased value (printing the module segfaulted)."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    g3 = elementwise(p, "math.absf", g2)
    f = form(returning(p, total(p, g2, g3), elementwise(p, "math.sqrt", g1)),
             recomputes={"g2+g3 stores g3": 5.0, "g1+g5 stores g5": 2.0},
             merges={"g1+g2 stores g1+g2": 4.0, "g2+g3+g4 stores g4": 3.0})
    assert _copies_read_unstored_values(f) == []


# --- order: priorities, ties, stale candidates ----------------------------------------------------
def test_a_candidate_is_stale_once_its_kernel_merged_twice():
    """``g1+g2`` forms (worth 3) and is offered ``g4`` (worth 2) and ``g3`` (worth 1); after ``g4`` joins,
    the offer of ``g3`` to ``g1+g2`` is stale and ``g1+g2+g4`` with ``g3`` is not accepted."""
    f = form(star(), merges={"g1+g2 stores g1+g2": 3.0, "g1+g2+g4 stores g1+g2+g4": 2.0,
                             "g1+g2+g3 stores g1+g2+g3": 1.0})
    assert f.made == [("merge", "g1", "g2"), ("merge", "g1+g2", "g4")]
    assert f.groups == [("g1+g2+g4", (), "g1+g2+g4 stores g1+g2+g4"), ("g3", (), "g3 stores g3")]


# g1+g3 stores g1 for g4; g2's kernel recomputes g1
_ONE_KERNEL_ONE_COPY = [("g1+g3", (), "g1+g3 stores g1+g3"), ("g1'+g2", (0,), "g1+g2 stores g2"),
                        ("g4", (), "g4 stores g4")]


def test_a_candidate_is_stale_once_its_kernel_merged_then_lent_a_copy():
    """``g1+g3`` forms (worth 3), ``g2`` recomputes ``g1`` (worth 2; the first offer is stale, the one
    around ``g1+g3`` is taken): the offers of ``g4`` to ``g1`` (worth 1) and to ``g1+g3`` (0.5) are
    stale then, and ``g1+g3`` with ``g4`` (which no longer stores ``g1``) is not accepted."""
    f = form(star(), merges={"g1+g3 stores g1+g3": 3.0, "g1+g4 stores g1+g4": 1.0, "g1+g3+g4 stores g1+g3+g4": 0.5},
             recomputes={"g1+g2 stores g2": 2.0})
    assert f.made == [("merge", "g1", "g3"), ("recompute", "g1+g3", "g1'+g2")]
    assert f.groups == _ONE_KERNEL_ONE_COPY


def test_a_candidate_is_stale_once_its_kernel_lent_a_copy_then_merged():
    """``g2`` recomputes ``g1`` (worth 3), then ``g1`` and ``g3`` merge (worth 2): the first offer of
    ``g4`` to ``g1`` (worth 1) is stale, and ``g1+g3`` with ``g4`` is not accepted."""
    f = form(star(), merges={"g1+g3 stores g1+g3": 2.0, "g1+g4 stores g1+g4": 1.0},
             recomputes={"g1+g2 stores g2": 3.0})
    assert f.made == [("recompute", "g1", "g1'+g2"), ("merge", "g1", "g3")]
    assert f.groups == _ONE_KERNEL_ONE_COPY


def test_merges_of_equal_priority_go_in_program_order():
    """Three merges of ``g1`` with its consumers, each worth 1: the one with the first consumer, ``g2``,
    goes first; the two others are stale then, and ``g1+g2`` with another consumer is not accepted."""
    f = form(star(), merges={"g1+g2 stores g1+g2": 1.0, "g1+g3 stores g1+g3": 1.0, "g1+g4 stores g1+g4": 1.0})
    assert f.made == [("merge", "g1", "g2")]
    assert f.groups == [("g1+g2", (), "g1+g2 stores g1+g2"), ("g3", (), "g3 stores g3"), ("g4", (), "g4 stores g4")]


def test_a_merge_and_a_copy_of_equal_priority_go_in_the_consumers_program_order():
    """Copying ``g1`` into ``g2`` and merging ``g1`` with ``g3`` are each worth 1: the copy, whose consumer
    comes first, goes first (then ``g1`` and ``g3`` merge, offered anew)."""
    f = form(star(), merges={"g1+g3 stores g1+g3": 1.0}, recomputes={"g1+g2 stores g2": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g2"), ("merge", "g1", "g3")]
    assert f.groups == _ONE_KERNEL_ONE_COPY


# --- who still reads a member: copies elsewhere, copies of our own, kernels that went -----------------
def test_a_copy_elsewhere_that_reads_nothing_of_ours_does_not_keep_our_member_stored():
    """``g4``'s kernel holds a copy of ``g3``, which reads nothing of ``g1``'s kernel: once ``g2``
    recomputes ``g1``, no reader needs ``g1`` stored, and its kernel goes."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    g3 = elementwise(p, "math.sqrt", "%x")
    g4, g5 = elementwise(p, "math.absf", g3), elementwise(p, "arith.negf", g3)
    f = form(returning(p, g2, g4, g5), recomputes={"g3+g4 stores g4": 5.0, "g1+g2 stores g2": 2.0})
    assert [s for s in f.steps if s[0] == "recompute"] == [
        ("recompute", "g3", "g3'+g4", "g3 copied into the consumer", "g3+g4 stores g4"),
        ("recompute", "g1", "g1'+g2", "g1 copied into the consumer; the producer's kernel goes", "g1+g2 stores g2")]
    assert f.groups == [("g1'+g2", (0,), "g1+g2 stores g2"), ("g3", (), "g3 stores g3"),
                        ("g3'+g4", (2,), "g3+g4 stores g4"), ("g5", (), "g5 stores g5")]


def test_a_member_read_by_the_kernels_own_copy_and_copied_by_every_other_reader_is_not_stored():
    """``g3`` recomputes ``g2`` (whose kernel goes), ``g4`` recomputes ``g1``, then ``g1`` joins
    ``g2'+g3``.  Its own copy of ``g2`` reads ``g1`` inside the kernel and ``g4`` has its own copy, so
    the merged kernel stores only ``g3``.  The merge also shows that ``g2``'s kernel is gone: the path
    ``g1 -> g2 -> g3`` runs inside ``g2'+g3``, not through another unit (it was once taken for a cycle)."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    g3, g4 = total(p, g1, g2), elementwise(p, "math.absf", g1)
    f = form(returning(p, g3, g4), recomputes={"g2+g3 stores g3": 5.0, "g1+g4 stores g4": 4.0},
             merges={"g1+g2+g3 stores g3": 3.0})
    assert f.made == [("recompute", "g2", "g2'+g3"), ("recompute", "g1", "g1'+g4"), ("merge", "g1", "g2'+g3")]
    assert f.groups == [("g1+g2'+g3", (0, 1), "g1+g2+g3 stores g3"), ("g1'+g4", (0,), "g1+g4 stores g4")]


def test_a_path_through_a_gone_kernels_copy_is_a_cycle():
    """``g3`` recomputes ``g2`` (whose kernel goes); ``g1`` and ``g4`` must not merge: ``g1`` feeds the
    copy of ``g2`` inside ``g2'+g3``, which ``g4`` reads, so the merged kernel would both feed and read
    ``g2'+g3``.  The path runs through the unit holding the copy, not through ``g2``'s old kernel."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    g3 = elementwise(p, "math.absf", g2)
    f = form(returning(p, total(p, g1, g3)), recomputes={"g2+g3 stores g3": 5.0},
             merges={"g1+g4 stores g1+g4": 3.0})
    assert f.made == [("recompute", "g2", "g2'+g3")]
    assert ("skip", "g1", "g4", "the merged kernel would close a cycle through other ops", None) in f.steps
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2'+g3", (1,), "g2+g3 stores g3"), ("g4", (), "g4 stores g4")]


def test_a_gone_kernels_copy_adds_to_the_other_paths_out_of_a_unit():
    """As above, with ``ga = sqrt(g1)`` read by ``g4`` instead: the cycle ``g1 -> ga -> g4`` is found
    although ``g2`` (a later reader of ``g1``, gone into ``g2'+g3``) is looked at after ``ga``."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    ga = elementwise(p, "math.sqrt", g1)
    g2 = elementwise(p, "arith.negf", g1)
    g3 = elementwise(p, "math.absf", g2)
    f = form(returning(p, total(p, g1, ga), g3), recomputes={"g3+g4 stores g4": 5.0},
             merges={"g1+g5 stores g1+g5": 3.0})
    assert f.made == [("recompute", "g3", "g3'+g4")]
    assert ("skip", "g1", "g5", "the merged kernel would close a cycle through other ops", None) in f.steps
    assert [g[0] for g in f.groups] == ["g1", "g2", "g3'+g4", "g5"]


def test_a_kernel_that_goes_takes_its_copies_with_it():
    """``g3 = g2 + g1`` is dead (nothing reads it; form_groups takes any block, though the pass erases
    dead generics first).  ``g2+g3`` forms, recomputes ``g1`` (stored for the return), then ``g4``
    recomputes ``g2``: ``g1'+g2+g3`` stores nothing (``g3`` unread, ``g2`` copied by its one reader,
    ``g1`` a copy) and goes, its copy of ``g1`` with it: what the remaining kernels store is then
    worked out from the copies of live kernels only."""
    p = Program([("%x", X)])
    g1, g2 = elementwise(p, "math.exp", "%x"), elementwise(p, "math.sqrt", "%x")
    total(p, g2, g1)
    f = form(returning(p, elementwise(p, "math.absf", g2), g1), merges={"g2+g3 stores g2": 5.0},
             recomputes={"g1+g2+g3 stores g2": 4.0, "g2+g4 stores g4": 3.0})
    assert f.made == [("merge", "g2", "g3"), ("recompute", "g1", "g1'+g2+g3"), ("recompute", "g1'+g2+g3", "g2'+g4")]
    assert f.steps[-1] == ("recompute", "g1'+g2+g3", "g2'+g4",
                           "g2 copied into the consumer; the producer's kernel goes", "g2+g4 stores g4")
    assert f.groups == [("g1", (), "g1 stores g1"), ("g2'+g4", (1,), "g2+g4 stores g4")]


def test_every_kernel_is_priced_at_the_bytes_its_lowering_moves_copies_included():
    """A kernel whose member another kernel's copy reads stores that member, as outlining makes it: on this
    span, Inductor's rules form three kernels with copies, and its first kernel's shape left out the bf16
    residual a copy reads (priced 26.3 MB, lowered 31.5 MB) until formation told the shape
    (``_Formation.read_by_copies``)."""
    from costfuse.cost_models import policy_class
    from costfuse.data.lowering.kernel import lower_kernels
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.targets import get_target

    path = Path(__file__).resolve().parents[2] / "experiments" / "workloads" / "gemma_span_bwd_640_bf16.mlir"
    module = parse_module(path.read_text(), str(path))
    p = GroupFusionPass(policy_class("inductor", "groups")())
    run_group_pipeline(module, p)
    lowered = {k.kernel: k.hbm_bytes for _, k in lower_kernels(module, get_target("sm_90")).kernels}
    assert sum(1 for r in p.kernels if r.kernel.recomputed) >= 1
    assert {r.name: r.kernel.estimate.issued_bytes for r in p.kernels} == lowered


# --- multi-output merges after forming (XLA's MultiOutputFusion, docs/peers.md) ------------------------
@dataclass
class ScriptedMultiOutput(Scripted):
    """:class:`Scripted` with the multi-output phase on: it merges two formed kernels when the merged one's
    name is in ``multi`` (with its priority) and records every offer in ``asked`` as ``KIND? a + b = ab
    [the two parts]``."""

    multi: dict = field(default_factory=dict)
    multi_output_fusion = True

    def multi_output_verdict(self, kind, a, b, ab, merged, parts):
        self.asked.append(f"{kind}? {a.reason} + {b.reason} = {ab.reason} "
                          f"[{' | '.join(self.describe(p) for p in parts)}]")
        if ab.reason in self.multi:
            return MergeVerdict(True, self.multi[ab.reason], "scripted multi-output")
        return MergeVerdict(False, 0.0, "scripted keeps apart")


def form_multi(text: str, merges: dict | None = None, multi: dict | None = None) -> Formed:
    """:func:`form` under a :class:`ScriptedMultiOutput` model."""
    return form(text, scripted=ScriptedMultiOutput, merges=merges or {}, multi=multi or {})


def _offers(f: Formed) -> list[str]:
    return [a for a in f.model.asked if a.startswith(("siblings?", "producer-consumer?"))]


def siblings() -> str:
    """``g1 = exp(x)``, ``g2 = -x``, ``g3 = |x|``: three readers of ``x``, none reading another, all returned."""
    p = Program([("%x", X)])
    return returning(p, *(elementwise(p, op, "%x") for op in ("math.exp", "arith.negf", "math.absf")))


def test_siblings_are_offered_pair_by_pair_and_a_refusal_is_kept_with_its_reason():
    f = form_multi(siblings())
    assert _offers(f) == ["siblings? g1 stores g1 + g2 stores g2 = g1+g2 stores g1+g2 [g1 stores g1 | g2 stores g2]",
                          "siblings? g1 stores g1 + g3 stores g3 = g1+g3 stores g1+g3 [g1 stores g1 | g3 stores g3]",
                          "siblings? g2 stores g2 + g3 stores g3 = g2+g3 stores g2+g3 [g2 stores g2 | g3 stores g3]"]
    assert [s for s in f.steps if s[0] == "keep"] == [
        ("keep", "g1", "g2", "multi-output siblings: scripted keeps apart", "g1+g2 stores g1+g2"),
        ("keep", "g1", "g3", "multi-output siblings: scripted keeps apart", "g1+g3 stores g1+g3"),
        ("keep", "g2", "g3", "multi-output siblings: scripted keeps apart", "g2+g3 stores g2+g3")]
    assert [g[0] for g in f.groups] == ["g1", "g2", "g3"]


def test_a_merged_sibling_is_offered_the_next_one():
    f = form_multi(siblings(), multi={"g1+g2 stores g1+g2": 1.0})
    assert _offers(f)[1:] == ["siblings? g1+g2 stores g1+g2 + g3 stores g3 = g1+g2+g3 stores g1+g2+g3 "
                              "[g1+g2 stores g1+g2 | g3 stores g3]"]
    assert [s for s in f.steps if s[0] == "merge"] == [
        ("merge", "g1", "g2", "multi-output siblings: scripted multi-output", "g1+g2 stores g1+g2")]
    assert [g[0] for g in f.groups] == ["g1+g2", "g3"]


def test_siblings_go_multi_output_kernels_first_then_fused_ones_then_lone_generics():
    """``x`` read by a lone generic (g1), a fused kernel storing one value (g2+g3) and one storing two
    (g4+g5): the offers pair them best-ranked first, whatever their program order."""
    p = Program([("%x", X)])
    lone = elementwise(p, "math.exp", "%x")
    fused = elementwise(p, "math.absf", elementwise(p, "arith.negf", "%x"))
    first = elementwise(p, "math.sqrt", "%x")
    f = form_multi(returning(p, lone, fused, first, elementwise(p, "math.exp", first)),
                   merges={"g2+g3 stores g3": 1.0, "g4+g5 stores g4+g5": 1.0})
    assert [g[0] for g in f.groups] == ["g1", "g2+g3", "g4+g5"]
    assert [o.split(" = ")[0] for o in _offers(f)] == ["siblings? g4+g5 stores g4+g5 + g2+g3 stores g3",
                                                       "siblings? g4+g5 stores g4+g5 + g1 stores g1",
                                                       "siblings? g2+g3 stores g3 + g1 stores g1"]


def test_connected_readers_are_no_siblings_but_producer_and_consumer():
    """``g1 = exp(x)`` and ``g2 = g1 + x``, both returned: both read ``x``, but ``g2`` reads ``g1``, so
    the pair is offered as producer and consumer only (and merges as one)."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    text = returning(p, g1, total(p, g1, "%x"))
    assert _offers(form_multi(text)) == [
        "producer-consumer? g1 stores g1 + g2 stores g2 = g1+g2 stores g1+g2 [g1 stores g1 | g2 stores g2]"]
    f = form_multi(text, multi={"g1+g2 stores g1+g2": 2.0})
    assert [s for s in f.steps if s[0] == "merge"] == [
        ("merge", "g1", "g2", "multi-output producer-consumer: scripted multi-output", "g1+g2 stores g1+g2")]


def test_a_producer_merges_with_its_first_consumer_that_accepts_and_the_arguments_come_after():
    """``g1 = exp(x)`` (returned) read by ``g2 = -g1`` and ``g3 = |g1|``, and ``g4 = sqrt(x)``: the
    consumers are siblings first, then ``g1`` merges with ``g2`` and no other consumer is asked;
    then ``x``'s readers, ``g1+g2`` and ``g4``, are offered as siblings."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2, g3 = elementwise(p, "arith.negf", g1), elementwise(p, "math.absf", g1)
    f = form_multi(returning(p, g1, g2, g3, elementwise(p, "math.sqrt", "%x")),
                   multi={"g1+g2 stores g1+g2": 1.0, "g1+g3 stores g1+g3": 1.0})
    assert [o.split(" = ")[0] for o in _offers(f)] == ["siblings? g2 stores g2 + g3 stores g3",
                                                       "producer-consumer? g1 stores g1 + g2 stores g2",
                                                       "siblings? g1+g2 stores g1+g2 + g4 stores g4"]
    assert [g[0] for g in f.groups] == ["g1+g2", "g3", "g4"]


@dataclass
class ShapesMultiOutput(ScriptedMultiOutput):
    """:class:`ScriptedMultiOutput` that also records what the merged kernel's shape stores, in ``shaped``."""

    shaped: list = field(default_factory=list)

    def multi_output_verdict(self, kind, a, b, ab, merged, parts):
        self.shaped.append(self.describe(merged))
        return super().multi_output_verdict(kind, a, b, ab, merged, parts)


def test_a_multi_output_merge_holding_a_copy_does_not_store_the_copy():
    """``star``: ``g3`` recomputes ``g1`` (its kernel ``g1'+g3`` stores ``g3`` only), then is offered
    ``g2`` as a sibling: the merged kernel still recomputes ``g1`` (``g4`` reads it from ``g1``'s own
    kernel), so it is shaped and priced storing ``g2`` and ``g3``, not ``g1``; so is the kernel it makes."""
    merged = "g1+g2+g3 stores g2+g3"
    f = form(star(), scripted=ShapesMultiOutput, recomputes={"g1+g3 stores g3": 2.0}, merges={},
             multi={merged: 1.0})
    assert _offers(f)[0] == f"siblings? g1+g3 stores g3 + g2 stores g2 = {merged} [g1+g3 stores g3 | g2 stores g2]"
    assert f.model.shaped[0] == merged
    assert ("g1'+g2+g3", (0,), merged) in f.groups


@pytest.mark.parametrize("shape, offered", [((1, 1), False), ((4, 8), True)], ids=["scalar", "tensor"])
def test_no_siblings_through_an_argument_of_one_element(shape, offered):
    """``g1 = x + s``, ``g2 = y + s``: they share only ``s``; a one-element ``s`` is no reason to fuse them
    (XLA's ``IsProfitableOperand``)."""
    s = tensor(shape, "f32")
    p = Program([("%x", X), ("%y", X), ("%s", s)])
    read_s = ("%s", s, amap(2, "0, 0") if shape == (1, 1) else ident(2))
    sums = [p.generic([(v, X, ident(2)), read_s], X, ident(2), ["parallel"] * 2,
                      ["%r = arith.addf %a0, %a1 : f32", "yield %r"]) for v in ("%x", "%y")]
    f = form_multi(returning(p, *sums))
    assert _offers(f) == (["siblings? g1 stores g1 + g2 stores g2 = g1+g2 stores g1+g2 "
                           "[g1 stores g1 | g2 stores g2]"] if offered else [])


# --- generics the lowering refuses --------------------------------------------------------------------
def test_a_generic_the_lowering_refuses_stays_in_the_caller_and_no_kernel_holds_it():
    """``g1 -> g2 -> g3``, every merge accepted, but the lowering refuses ``g2`` (asked once per generic):
    ``g2`` stays with the reason, no merge with it is even priced, and ``g1`` and ``g3`` are kernels of their
    own."""
    asked = []

    def refuses(op):
        asked.append(op)
        return "no lowering for negf" if "arith.negf" in str(op) else None

    f = form(chain(3), refuses=refuses, merges={"g1+g2 stores g2": 1.0, "g2+g3 stores g3": 1.0,
                                                 "g1+g2+g3 stores g3": 1.0})
    assert [g[0] for g in f.groups] == ["g1", "g3"]
    assert f.steps == [("stay", "g2", "", "the lowering refuses it (no lowering for negf): left in the caller, "
                                          "not outlined", None)]
    assert f.model.asked == []                  # no merge is priced around it: g1 and g3 touch only g2
    assert len(asked) == len(set(asked)) == 3   # once per generic


def test_producers_are_offered_their_consumers_uses_before_defs():
    """``g1 -> g2 -> g3``, ``g1`` and ``g2`` returned too: ``g2`` (defined later) merges with ``g3`` first, then
    ``g1`` with that kernel."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    f = form_multi(returning(p, g1, g2, elementwise(p, "math.absf", g2)),
                   multi={"g2+g3 stores g2+g3": 1.0, "g1+g2+g3 stores g1+g2+g3": 1.0})
    assert [o.split(" = ")[0] for o in _offers(f)] == ["producer-consumer? g2 stores g2 + g3 stores g3",
                                                       "producer-consumer? g1 stores g1 + g2+g3 stores g2+g3"]
    assert [g[0] for g in f.groups] == ["g1+g2+g3"]


def test_a_sibling_that_reads_the_other_is_no_sibling_whichever_ranks_first():
    """``g1 = exp(x)`` and the fused ``g2 = g1 + x``, ``g3 = -g2`` (both stored): the fused kernel ranks
    first, and it reads ``g1``: no sibling offer, only producer and consumer."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = total(p, g1, "%x")
    f = form_multi(returning(p, g1, g2, elementwise(p, "arith.negf", g2)), merges={"g2+g3 stores g2+g3": 1.0})
    assert [o.split(" = ")[0] for o in _offers(f)] == ["producer-consumer? g1 stores g1 + g2+g3 stores g2+g3"]


def test_a_producer_consumer_pair_that_would_close_a_cycle_is_not_offered():
    """``g1 -> g2 -> g3`` and ``g1 -> g3``, all returned, nothing merged: ``g1`` and ``g3`` as one kernel
    would read ``g2``, which reads it; only the other two pairs are offered (and the siblings of ``g1``,
    ``g2`` and ``g3``, are connected)."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    g2 = elementwise(p, "arith.negf", g1)
    f = form_multi(returning(p, g1, g2, total(p, g1, g2)))
    assert [o.split(" = ")[0] for o in _offers(f)] == ["producer-consumer? g2 stores g2 + g3 stores g3",
                                                       "producer-consumer? g1 stores g1 + g2 stores g2"]


def test_a_kernel_without_a_config_is_offered_to_no_one():
    f = form(siblings(), scripted=ScriptedMultiOutput, refuse=("g2 stores g2",))
    assert [o.split(" = ")[0] for o in _offers(f)] == ["siblings? g1 stores g1 + g3 stores g3"]


_GATHER = """
  %{res} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins({label} : tensor<8x1xi64>) outs(%e1 : tensor<8x1xf32>) {{
  ^bb0(%l: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %l : i64 to index
    %g = tensor.extract %x[%i, %j] : tensor<8x16xf32>
    linalg.yield %g : f32
  }} -> tensor<8x1xf32>
"""


def test_generics_that_gather_from_one_argument_are_its_siblings():
    """``p = x[row, a[row]]`` and ``q = x[row, b[row]]`` read ``x`` only inside their bodies (gathers): they
    are still ``x``'s readers, offered as siblings."""
    text = ("#id = affine_map<(d0, d1) -> (d0, d1)>\n"
            "func.func @main(%x: tensor<8x16xf32>, %a: tensor<8x1xi64>, %b: tensor<8x1xi64>) "
            "-> (tensor<8x1xf32>, tensor<8x1xf32>) {\n  %e1 = tensor.empty() : tensor<8x1xf32>\n"
            + _GATHER.format(res="p", label="%a") + _GATHER.format(res="q", label="%b")
            + "  return %p, %q : tensor<8x1xf32>, tensor<8x1xf32>\n}\n")
    assert _offers(form_multi(text)) == [
        "siblings? g1 stores g1 + g2 stores g2 = g1+g2 stores g1+g2 [g1 stores g1 | g2 stores g2]"]


def test_a_skip_is_said_once_however_often_its_pair_comes_back():
    """``g1 = exp(x)`` read by ``g2 = -g1`` and, transposed, by ``g3``: the pair ``g1, g3`` is no kernel.
    Copying ``g1`` into ``g2`` brings ``g1``'s pairs back to the heap; the skip is noted once."""
    p = Program([("%x", X)])
    g1 = elementwise(p, "math.exp", "%x")
    xt = tensor((8, 4), "f32")
    g2 = elementwise(p, "arith.negf", g1)
    g3 = p.generic([(g1, X, amap(2, "d1, d0"))], xt, ident(2), ["parallel"] * 2,
                   ["%r = math.absf %a0 : f32", "yield %r"])
    text = p.text(g2, X).replace(f") -> {X} {{", f") -> ({X}, {xt}) {{", 1).replace(
        f"return {g2} : {X}", f"return {g2}, {g3} : {X}, {xt}")
    f = form(text, recomputes={"g1+g2 stores g2": 1.0})
    assert f.made == [("recompute", "g1", "g1'+g2")]
    assert [s[:3] for s in f.steps if s[0] == "skip"] == [("skip", "g1", "g3")]
