"""The Decider's own rules, with the learned pick and the heads stood in: the lead mode it asks for, what it
hands on, what a prediction reports, and the fusion verdict's walk when everything spills."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest
import sympy

from costfuse.inductor import decide
from costfuse.inductor.decide import Decider, _inductor_space, model_uuid
from costfuse.launch import KernelLaunch
from helpers.inductor_kernels import softmax_kernel


@pytest.fixture(scope="module")
def decider() -> Decider:
    return Decider()


@pytest.fixture
def asked(monkeypatch):
    """learned_pick stood in: each call's keyword arguments, answered with a fixed estimate."""
    calls = []

    def pick(heads, kernel, target, **kw):
        calls.append(kw)
        return SimpleNamespace(launch=kw["configs"][0], p_spill=0.125, reason="the stand-in's reason"), ""

    monkeypatch.setattr(decide, "learned_pick", pick)
    return calls


@pytest.mark.parametrize("mode, persistent_first, lead", [(None, True, "persistent"), (None, False, None),
                                                          ("looped", True, None), ("persistent", True, None)])
def test_the_pick_leads_with_persistent_only_when_the_rule_says_and_no_mode_is_set(decider, asked, mode,
                                                                                   persistent_first, lead):
    k = softmax_kernel()
    decider.persistent_first = persistent_first
    try:
        pick, why = decider.pick(k, mode)
    finally:
        decider.persistent_first = True
    [kw] = asked
    space, arrays = _inductor_space(k.pointwise, k.n, k.n_rows, mode)
    assert kw["lead"] == lead and kw["regs"] is False and kw["arrays"] is arrays and kw["configs"] == list(space)
    assert kw["static"] is k.group_columns and kw["spill_slowdown"] == decider.spill_slowdown
    assert (pick.launch, pick.p_spill, pick.reason, why) == (space[0], 0.125, "the stand-in's reason", "")


def test_a_mode_no_inductor_config_fits_is_named(decider, monkeypatch):
    long_row = SimpleNamespace(pointwise=False, n=131072, n_rows=64)   # past Inductor's longest row block
    assert decider.pick(long_row, "persistent") == (None, "no persistent config fits the kernel")
    monkeypatch.setattr(decide, "_inductor_space", lambda *a: ((), None))
    assert decider.pick(long_row) == (None, "no Inductor config fits the kernel")


class Heads:
    """Stand-in heads over feature rows whose first column is P(spill); the cut is 0.5 (any name)."""

    def __init__(self, outside=()):
        self.calls, self.out = [], set(outside)

    def predict(self, X, spill_bytes=True):
        self.calls.append(spill_bytes)
        return {"p_spill": X[:, 0], "spills": X[:, 0] >= 0.75}

    def cut_threshold(self, cut):
        return 0.5

    def outside(self, X):
        return np.array([i in self.out for i in range(len(X))]), ""

    def regs_of(self, X):
        return 40.0 + X[:, 0]


def test_a_prediction_reports_p_spill_the_cut_asked_the_range_and_the_registers(monkeypatch):
    d = Decider()
    d.heads = Heads(outside={2})
    monkeypatch.setattr(d, "features", lambda kernel, launches: np.array([[p] for p in (0.25, 0.5, 0.625)]))
    out = d.predict(None, [None] * 3, "f1")
    assert out["spills"].tolist() == [False, True, True]   # at the cut asked (0.5), not the heads' own (0.75)
    assert out["in_range"].tolist() == [True, True, False]
    assert out["p_spill"].tolist() == [0.25, 0.5, 0.625] and out["regs"].tolist() == [40.25, 40.5, 40.625]
    assert d.predict(None, [None] * 3)["spills"].tolist() == [False, False, False]
    assert d.heads.calls == [False, False], "no byte head: a verdict needs none"


def test_a_kernel_whose_every_config_spills_always_spills_after_a_walk_of_every_batch(monkeypatch):
    from costfuse.launch import config_space

    d = Decider()
    d.heads = Heads()
    k = softmax_kernel()
    seen = []
    monkeypatch.setattr(d, "features", lambda kernel, launches: seen.extend(launches) or np.ones((len(launches), 1)))
    assert d.always_spills(k) is True
    assert sorted(seen, key=str) == sorted(config_space(k), key=str) and d.heads.calls[0] is False
    assert all(c is False for c in d.heads.calls)


def test_the_fusion_walk_starts_from_the_configs_of_fewest_estimated_registers_ties_in_space_order(monkeypatch):
    """Persistent tiles of the same elements per thread tie on the estimate: the stable order keeps them as the
    space lists them."""
    from costfuse.estimates import row_registers
    from costfuse.launch import config_space, space_arrays

    d = Decider()
    d.heads = Heads()
    k = softmax_kernel()
    seen = []
    monkeypatch.setattr(d, "features", lambda kernel, launches: seen.append(list(launches)) or
                        np.zeros((len(launches), 1)))
    assert d.always_spills(k) is False
    arrays, space = space_arrays(k), config_space(k)
    regs, _ = row_registers(arrays.mode, arrays.elems_per_thread, k.live_full, k.reductions, k.words)
    order = sorted(range(len(space)), key=lambda i: (regs[i], i))
    assert seen == [[space[i] for i in order[:len(seen[0])]]]


def test_the_uuid_names_the_mode_the_schema_and_sixteen_hex_digits():
    assert re.fullmatch(r"costfuse-prune-v\d+-[0-9a-f]{16}", model_uuid(Decider(), "prune"))


def test_the_default_model_is_the_handlers_own_heads_and_another_archs_is_refused_by_name(decider):
    from costfuse.cost_models.learned_groups import SHIPPED_GROUP_MODEL_DIR
    from costfuse.inductor.decide import SHIPPED_INDUCTOR_MODEL_DIR

    assert decider.bundle_digest == Decider(str(SHIPPED_INDUCTOR_MODEL_DIR)).bundle_digest
    assert decider.bundle_digest != Decider(str(SHIPPED_GROUP_MODEL_DIR)).bundle_digest
    with pytest.raises(ValueError) as err:
        Decider(arch="sm_80")
    assert str(err.value).startswith(f"group model {SHIPPED_INDUCTOR_MODEL_DIR}: ")


def _loop_body():
    """An Inductor loop body (its FX graph of ``ops`` calls): a constant, loads of x and y, their sum stored,
    then the sum times the constant stored as a reduction's value."""
    import torch.fx as fx

    g = fx.Graph()
    ops = g.placeholder("ops")
    k = g.call_method("constant", (ops, 1.0, "torch.float32"))
    a = g.call_method("load", (ops, "x", "i0"))
    b = g.call_method("load", (ops, "y", "i0"))
    c = g.call_method("add", (ops, a, b))
    g.call_method("store", (ops, "out", "i0", c))
    e = g.call_method("mul", (ops, c, k))
    g.call_method("store_reduction", (ops, "acc", "i0", e))
    g.output(None)
    return SimpleNamespace(root_block=SimpleNamespace(graph=g))


@pytest.mark.parametrize("y_bits, words", [(32, 2), (64, 3)])
def test_a_loop_bodys_live_words_by_hand(y_bits, words):
    """Into the add: x (1 word) and y (1, or 2 when 64-bit); the constant is an immediate, never a register;
    the stores define nothing."""
    from costfuse.featurize.inductor_kernel import KernelBuffer
    from costfuse.inductor.describe import body_live_words

    buffers = {"x": KernelBuffer("x", 8, 32), "y": KernelBuffer("y", 8, y_bits)}
    assert body_live_words(_loop_body(), buffers) == words
    assert body_live_words(SimpleNamespace(), buffers) == 1   # no graph: one word
    import torch.fx as fx

    empty = fx.Graph()
    empty.placeholder("ops")
    empty.output(None)
    assert body_live_words(SimpleNamespace(root_block=SimpleNamespace(graph=empty)), buffers) == 1


class _Features:
    """A stand-in for Inductor's SIMDKernelFeatures: sizes, a reduction hint, scheduler nodes."""

    def __init__(self, numel, reduction_numel, hint="ReductionHint.INNER"):
        self.numel, self.reduction_numel, self.hint = numel, reduction_numel, hint

    def get_reduction_hint(self):
        if self.hint is None:
            raise AssertionError("a pointwise kernel's hint was asked")
        return self.hint

    def scheduler_nodes(self):
        return iter(["node0", "node1"])


@pytest.mark.parametrize("features, tiling, why", [
    (_Features(sympy.Symbol("s0"), 128), None, "dynamic shapes (numel = s0)"),
    (_Features(64, sympy.Symbol("s1")), None, "dynamic shapes (reduction_numel = s1)"),
    (_Features(64, 128), {"x": 64, "y": 2, "r0_": 128}, "tiling x, y, r0_: not a row kernel (x by r0_)"),
    (_Features(64, 128, "ReductionHint.OUTER"), None, "reduction hint OUTER: not a row reduction"),
])
def test_what_the_heads_never_saw_is_named_before_any_node_is_read(features, tiling, why):
    from costfuse.inductor.describe import NotCovered, describe_features

    with pytest.raises(NotCovered) as err:
        describe_features(features, tiling)
    assert str(err.value) == why


@pytest.mark.parametrize("features, tiling", [(_Features(64, 128), {"x": 64, "r0_": 128}),
                                              (_Features(64, 128, "ReductionHint.INNER"), None),
                                              (_Features(4096, 1, hint=None), {"x": 4096})])
def test_a_row_kernel_is_described_from_its_nodes_in_order(monkeypatch, features, tiling):
    from costfuse.inductor import describe

    monkeypatch.setattr(describe, "describe_nodes", lambda nodes, rows, n: (nodes, rows, n))
    rows, n = int(features.numel), int(features.reduction_numel)
    assert describe.describe_features(features, tiling) == (["node0", "node1"], rows, n)


def test_a_nodes_reduction_type_is_read_through_its_buffer_or_is_none():
    from costfuse.inductor.describe import _reduction_type

    assert _reduction_type(SimpleNamespace(node=SimpleNamespace(data=SimpleNamespace(reduction_type="sum")))) == "sum"
    for node in (SimpleNamespace(), SimpleNamespace(node=None), SimpleNamespace(node=SimpleNamespace(data=None))):
        assert _reduction_type(node) is None


# -- the handler's small rules ------------------------------------------------------------------------------

def test_a_decision_line_names_the_size_or_that_it_is_dynamic():
    from costfuse.inductor.choices import KernelDecision

    dynamic = KernelDecision(None, None, None, None, "fallback", "dynamic shapes (numel = s0)", 0.0)
    assert dynamic.line() == "costfuse.inductor: reduction dynamic: fallback to Inductor (dynamic shapes (numel = s0))"
    split = KernelDecision(64, 128, None, None, "fallback", "split reduction", 0.0)
    assert split.line() == "costfuse.inductor: reduction 64 x 128: fallback to Inductor (split reduction)"


def test_a_fallbacks_reason_counts_by_its_kind():
    from costfuse.inductor.choices import _reason_kind

    assert _reason_kind("dynamic shapes (numel = s0)") == "dynamic shapes"
    assert _reason_kind("reduction hint DEFAULT: not a row reduction") == "reduction hint DEFAULT"


def test_reset_forgets_the_time_and_the_pending_kernel(decider):
    from costfuse.inductor.choices import CostFuseChoices

    h = CostFuseChoices("prune")
    h.hook_s, h.pending = 3.0, object()
    h.stats["pin"] += 1
    h.reset()
    assert h.hook_s == 0.0 and h.pending is None and not h.stats


@pytest.mark.parametrize("mode, reduction, cooperative, pick_mode, expected", [
    ("pin", True, False, "persistent", True), ("pin", True, False, "looped", False),
    ("pin", True, True, "persistent", ("inductor", True)), ("pin", False, False, "persistent", ("inductor", False)),
    ("prune", True, False, "persistent", ("inductor", False)), ("pin", True, False, None, ("inductor", False)),
])
def test_persistence_is_the_picks_in_pin_mode_and_inductors_otherwise(monkeypatch, mode, reduction, cooperative,
                                                                      pick_mode, expected):
    from torch._inductor.choices import InductorChoices

    from costfuse.inductor.choices import CostFuseChoices

    monkeypatch.setattr(InductorChoices, "should_use_persistent_reduction",
                        staticmethod(lambda features, cooperative: ("inductor", cooperative)))
    h = CostFuseChoices(mode)
    pick = None if pick_mode is None else SimpleNamespace(launch=SimpleNamespace(mode=pick_mode))
    monkeypatch.setattr(h, "decide", lambda features: SimpleNamespace(pick=pick))
    features = SimpleNamespace(is_reduction=lambda: reduction)
    assert h.should_use_persistent_reduction(features, cooperative) == expected


def test_a_split_reductions_first_stage_is_an_intermediate_of_the_same_graph_op():
    from costfuse.inductor.choices import _splits

    op = object()
    first = SimpleNamespace(origin_node=None, origins={op})
    assert _splits(first, SimpleNamespace(origin_node=op))
    assert not _splits(SimpleNamespace(origin_node=op, origins={op}), SimpleNamespace(origin_node=op))
    assert not _splits(first, SimpleNamespace(origin_node=object()))
    assert not _splits(first, SimpleNamespace())
    assert not _splits(None, SimpleNamespace(origin_node=op))
    assert not _splits(SimpleNamespace(origin_node=None), SimpleNamespace(origin_node=op))
    assert _splits(SimpleNamespace(origins={op}), SimpleNamespace(origin_node=op)), "no origin_node reads as none"


def test_a_mode_outside_pin_and_prune_is_refused_naming_both():
    from costfuse.inductor.choices import CostFuseChoices

    with pytest.raises(ValueError) as err:
        CostFuseChoices("autotune")
    assert str(err.value) == "costfuse.inductor: mode must be one of pin, prune, got 'autotune'"
    h = CostFuseChoices("pin")
    assert h.hook_s == 0.0 and h.pending is None


@pytest.mark.parametrize("kwargs", [{"override_cooperative_reduction": True}, {"mix_order_reduction": True}])
def test_inductors_own_multi_kernel_schemes_are_left_to_it(kwargs):
    from costfuse.inductor.choices import CostFuseChoices
    from costfuse.inductor.describe import NotCovered

    with pytest.raises(NotCovered) as err:
        CostFuseChoices("pin")._check_scheme(SimpleNamespace(), kwargs)
    assert str(err.value) == "cooperative or mix-order reduction"


@pytest.mark.parametrize("mode, pick_mode", [("pin", "persistent"), ("pin", "looped"), ("prune", "persistent"),
                                             ("pin", None)])
def test_the_kernel_kwargs_pin_the_pick_and_hand_on_inductors_otherwise(monkeypatch, mode, pick_mode):
    from torch._inductor.codegen.triton import FixedTritonConfig

    from costfuse.inductor.choices import CostFuseChoices

    h = CostFuseChoices(mode)
    launch = None if pick_mode is None else KernelLaunch(pick_mode, 1, 2048, 8)
    decision = SimpleNamespace(pick=None if launch is None else SimpleNamespace(launch=launch))
    asked = []
    monkeypatch.setattr(h, "decide", lambda features, kwargs, tiling: asked.append((kwargs, tiling)) or decision)
    kwargs, tiling = {"mix_order_reduction": False}, {"x": 64, "r0_": 2048}
    out = h.triton_kernel_kwargs(None, SimpleNamespace(is_reduction=lambda: True), [tiling, "other"], kwargs)
    assert asked == [(kwargs, tiling)]
    assert h.pending is (decision if launch is not None else None)
    if mode != "pin" or launch is None:
        assert out is kwargs
        return
    assert out["override_persistent_reduction"] is (pick_mode == "persistent")
    assert out["override_cooperative_reduction"] is False and out["mix_order_reduction"] is False
    assert isinstance(out["fixed_config"], FixedTritonConfig)
    assert out["fixed_config"].config == {"XBLOCK": 1, "R0_BLOCK": 2048, "num_warps": 8, "num_stages": 1}


def test_pointwise_kernels_and_untiled_groups_are_counted_and_passed_through(monkeypatch):
    from costfuse.inductor.choices import CostFuseChoices

    h = CostFuseChoices("pin")
    kwargs = {}
    for _ in range(2):
        assert h.triton_kernel_kwargs(None, SimpleNamespace(is_reduction=lambda: False), [], kwargs) is kwargs
    assert h.stats == {"pointwise: Inductor's": 2}
    asked = []
    monkeypatch.setattr(h, "decide", lambda features, kwargs, tiling: asked.append(tiling) or
                        SimpleNamespace(pick=None))
    h.triton_kernel_kwargs(None, SimpleNamespace(is_reduction=lambda: True), ["not a tiling"], kwargs)
    h.triton_kernel_kwargs(None, SimpleNamespace(is_reduction=lambda: True), [], kwargs)
    assert asked == [None, None]


def test_a_fusion_candidate_is_described_over_its_reductions_rows_else_as_pointwise(monkeypatch):
    from costfuse.inductor import choices
    from costfuse.inductor.describe import NotCovered

    monkeypatch.setattr(choices, "describe_nodes", lambda nodes, rows, n: (nodes, rows, n))

    def owner(*sizes):
        return SimpleNamespace(group=("cuda", sizes))

    assert choices._describe_group(["a"], owner(8192), owner(64, 128)) == (["a"], 64, 128)
    assert choices._describe_group(["a"], owner(64, 1), owner(64, 1)) == (["a"], 64, 1)   # a row of one
    assert choices._describe_group(["a"], owner(64, 2)) == (["a"], 64, 2)
    assert choices._describe_group(["a"], owner(8, 16, 4)) == (["a"], 512, 1)   # three dims: pointwise
    s = sympy.Symbol("s0")
    for owners, why in (((owner(64, s),), "dynamic shapes (reduction size = s0)"),
                        ((owner(s, 128),), "dynamic shapes (size = s0)"),
                        ((owner(s),), "dynamic shapes (size = s0)")):
        with pytest.raises(NotCovered) as err:
            choices._describe_group(["a"], *owners)
        assert str(err.value) == why


class _Described:
    """A handler whose checks pass and whose description and heads are stood in: what each was handed."""

    def __init__(self, monkeypatch, mode="pin", not_covered=None, inductor_persistent=True):
        from torch._inductor.choices import InductorChoices

        from costfuse.inductor import choices
        from costfuse.inductor.describe import NotCovered

        self.h = h = choices.CostFuseChoices(mode)
        self.asked = []
        monkeypatch.setattr(h, "_check_scheme", lambda features, kwargs: None)
        monkeypatch.setattr(h, "_check_reductions", lambda features: None)

        def describe(features, tiling):
            self.asked.append(("describe", tiling))
            if not_covered:
                raise NotCovered(not_covered)
            return SimpleNamespace(rows=features.numel * 2, n=features.reduction_numel * 2)

        monkeypatch.setattr(choices, "describe_features", describe)
        monkeypatch.setattr(h.decider, "pick", lambda kernel, mode: self.asked.append(("pick", mode)) or (
            SimpleNamespace(launch=KernelLaunch("looped", 1, 256, 2), predicted_regs=40.0, p_spill=0.1), ""))
        monkeypatch.setattr(InductorChoices, "should_use_persistent_reduction", staticmethod(
            lambda features, cooperative: self.asked.append(("inductor", cooperative)) or inductor_persistent))


def _features(rows=64, n=128):
    return SimpleNamespace(numel=rows, reduction_numel=n)


@pytest.mark.parametrize("mode, inductor_persistent, asked_mode", [("pin", True, None), ("prune", True, "persistent"),
                                                                    ("prune", False, "looped")])
def test_a_decision_asks_the_heads_in_the_modes_rule_and_keeps_its_size_and_time(monkeypatch, mode,
                                                                                  inductor_persistent, asked_mode):
    d = _Described(monkeypatch, mode, inductor_persistent=inductor_persistent)
    tiling = {"x": 64, "r0_": 128}
    decision = d.h.decide(_features(), {}, tiling)
    assert ("describe", tiling) in d.asked and ("pick", asked_mode) in d.asked
    assert (("inductor", False) in d.asked) == (mode == "prune")
    assert (decision.rows, decision.n, decision.outcome, decision.reason) == (128, 256, mode, "")
    assert 0 <= decision.seconds < 1 and d.h.hook_s == decision.seconds
    other = d.h.decide(_features(), {}, tiling)
    assert other is not decision and d.h.hook_s == pytest.approx(decision.seconds + other.seconds)
    assert d.h.stats == {mode: 2}


def test_a_kernel_not_covered_falls_back_with_inductors_sizes_and_the_reason(monkeypatch):
    d = _Described(monkeypatch, not_covered="split reduction")
    decision = d.h.decide(_features(64, 128))
    assert (decision.rows, decision.n, decision.pick, decision.outcome, decision.reason) == (
        64, 128, None, "fallback", "split reduction")
    assert d.h.stats == {"fallback: split reduction": 1}


def test_a_kernel_asked_about_again_gets_the_same_answer_until_it_is_forgotten(monkeypatch):
    from costfuse.inductor import choices

    monkeypatch.setattr(choices, "REMEMBERED", 2)
    d = _Described(monkeypatch)
    first, second, third = _features(), _features(), _features()
    answers = [d.h.decide(f) for f in (first, second, third)]
    assert d.h.decide(third) is answers[2] and d.h.decide(second) is answers[1]
    assert d.h.decide(first) is not answers[0], "the oldest was forgotten"
    assert len(d.h.decisions) == 4


class _Dep:
    def __init__(self, name):
        self.name = name


class WeakDep(_Dep):
    """Named as Inductor's ordering-only dependency: not a read of the buffer's elements."""


def _node(name, reduction, sizes, reads, writes, users, reduction_type=None, ops=(("load", 1), ("add", 1))):
    """A stand-in scheduler node: its loop sizes, the buffers it reads and writes, who uses its outputs."""
    body = SimpleNamespace(op_counts=dict(ops), root_block=SimpleNamespace(graph=None))
    def user(u):
        return SimpleNamespace(node=SimpleNamespace(get_name=lambda: u))

    outputs = [SimpleNamespace(get_name=lambda w=w: w, users=[user(u) for u in users.get(w, ())]) for w in writes]
    return SimpleNamespace(
        get_name=lambda: name, is_reduction=lambda: reduction, group=("cuda", sizes), _body=body,
        read_writes=SimpleNamespace(reads=[_Dep(r) if not r.startswith("~") else WeakDep(r[1:]) for r in reads],
                                    writes=[_Dep(w) for w in writes]),
        get_outputs=lambda: outputs,
        node=SimpleNamespace(data=SimpleNamespace(reduction_type=reduction_type)))


class _Graph:
    """A stand-in for Inductor's graph: buffers by name (dtype, numel) and the graph's outputs."""

    def __init__(self, buffers, outputs):
        self.buffers, self.outputs = buffers, outputs

    def get_output_names(self):
        return list(self.outputs)

    def get_buffer(self, name):
        if name not in self.buffers:
            return None
        dtype, numel = self.buffers[name]
        return SimpleNamespace(get_dtype=lambda: dtype, get_numel=lambda: numel)


def _describe(nodes, buffers, outputs=("out",), rows=64, n=128):
    from torch._inductor.virtualized import V

    from costfuse.inductor.describe import describe_nodes

    with V.set_graph_handler(_Graph(buffers, outputs)):
        return describe_nodes(nodes, rows, n)


def test_a_kernels_nodes_buffers_and_outputs_as_the_heads_read_them():
    buffers = {"x": ("torch.bfloat16", 64 * 128), "idx": ("torch.int64", 64), "buf0": ("torch.float32", 64),
               "out": ("torch.bfloat16", 64 * 128), "buf1": ("torch.float32", 64)}
    nodes = [
        _node("op0", True, (64, 128), ["x", "x", "~buf9"], ["buf0"], {"buf0": ["op1"]}, "sum",
              ops=(("load", 1), ("reduction", 1), ("indirect_indexing", 2))),
        _node("op1", False, (64, 128), ["x", "buf0", "idx"], ["out"], {"out": ["OUTPUT"]}),
        _node("op2", False, (64, 1), ["buf0"], ["buf1"], {"buf1": ["op7"]}),   # read by a later kernel
    ]
    k = _describe(nodes, buffers)
    assert [(nd.name, nd.role, nd.reads, nd.writes, nd.reduction_type, nd.indirect_loads) for nd in k.nodes] == [
        ("op0", "reduce", ("x",), ("buf0",), "sum", 2), ("op1", "full", ("x", "buf0", "idx"), ("out",), None, 0),
        ("op2", "rowwise", ("buf0",), ("buf1",), None, 0)]
    assert k.nodes[0].ops == (("indirect_indexing", 2), ("load", 1), ("reduction", 1))
    assert [(b.name, b.numel, b.bits) for b in k.buffers] == [
        ("x", 64 * 128, 16), ("buf0", 64, 32), ("idx", 64, 64), ("out", 64 * 128, 16), ("buf1", 64, 32)]
    assert k.outputs == ("out", "buf1") and (k.rows, k.n) == (64, 128)


@pytest.mark.parametrize("node, buffers, why", [
    (_node("op0", False, (64, 64), ["x"], ["out"], {}), {"x": ("torch.float32", 8192), "out": ("torch.float32", 8192)},
     "node op0 runs over 4096 elements, neither 64 rows nor 8192 elements"),
    (_node("op0", False, (64, 128), ["x"], ["out"], {}), {"out": ("torch.float32", 8192)},
     "buffer x is unknown to the graph"),
    (_node("op0", False, (64, 128), ["x"], ["out"], {}), {"x": ("torch.float64", 8192), "out": ("torch.float32", 8192)},
     "dtype float64 of x is outside training (f32, bf16, f16)"),
    (_node("op0", False, (64, 128), ["x"], ["out"], {}),
     {"x": ("torch.float32", sympy.Symbol("s0")), "out": ("torch.float32", 8192)}, "dynamic shapes (numel of x = s0)"),
    (_node("op0", False, (64, sympy.Symbol("s1")), ["x"], ["out"], {}), {}, "dynamic shapes (a node's size = s1)"),
    (_node("op0", False, None, ["x"], ["out"], {}), {}, "node op0 has no static loop size"),
])
def test_what_a_description_cannot_hold_is_named(node, buffers, why):
    from costfuse.inductor.describe import NotCovered

    with pytest.raises(NotCovered) as err:
        _describe([node], buffers)
    assert str(err.value) == why


def _fusion(monkeypatch, spills: dict, base=True, veto=True):
    """A handler whose fusion verdicts read ``spills`` (kernel name -> always_spills' answer) over stand-in
    nodes ``a`` and ``b``; Inductor's own verdict is ``base``."""
    from torch._inductor.choices import InductorChoices

    from costfuse.inductor import choices
    from costfuse.inductor.describe import NotCovered

    h = choices.CostFuseChoices("pin", veto=veto)

    def describe(nodes, *owners):
        name = "+".join(nodes)
        if spills.get(name) == "not covered":
            raise NotCovered("dynamic shapes")
        if spills.get(name) == "none":
            return None
        return SimpleNamespace(name=name, rows=64, n=128, pointwise=spills.get(name) == "pointwise")

    monkeypatch.setattr(choices, "_describe_group", describe)
    monkeypatch.setattr(h.decider, "always_spills", lambda kernel: spills[kernel.name])
    monkeypatch.setattr(InductorChoices, "can_fuse_vertical", staticmethod(lambda *args: base))
    a, b = (SimpleNamespace(get_name=lambda n=n: n, get_nodes=lambda n=n: [n]) for n in ("a", "b"))
    return h, a, b


@pytest.mark.parametrize("spills, fuse", [
    ({"a+b": True, "a": False, "b": False}, False),
    ({"a+b": None, "a": False, "b": False}, True), ({"a+b": False, "a": False, "b": False}, True),
    ({"a+b": True, "a": True, "b": False}, True), ({"a+b": True, "a": False, "b": None}, True),
    ({"a+b": True, "a": "none", "b": False}, True), ({"a+b": "pointwise"}, True), ({"a+b": "none"}, True),
    ({"a+b": True, "a": "not covered", "b": False}, True),
])
def test_a_fusion_is_vetoed_only_when_the_fused_kernel_always_spills_and_neither_part_does(monkeypatch, caplog,
                                                                                         spills, fuse):
    import logging

    h, a, b = _fusion(monkeypatch, spills)
    with caplog.at_level(logging.INFO, logger="costfuse.inductor"):
        assert h.can_fuse_vertical(None, a, b, 0) is fuse
    assert (h.stats["fusion vetoed"], len(h.vetoes)) == ((0, 0) if fuse else (1, 1))
    if not fuse:
        why = "every config of the fused 64 x 128 kernel is predicted to spill, the two apart are not"
        assert h.vetoes == [("a+b", why)]
        assert caplog.messages == [f"costfuse.inductor: refuse fusing a into b: {why}"]


def test_a_fusion_verdict_is_asked_once_per_pair_and_timed(monkeypatch):
    h, a, b = _fusion(monkeypatch, {"a+b": True, "a": False, "b": False})
    calls = []
    verdict = h._fuse_verdict
    monkeypatch.setattr(h, "_fuse_verdict", lambda n1, n2: calls.append(1) or verdict(n1, n2))
    assert h.can_fuse_vertical(None, a, b, 0) is False and h.can_fuse_vertical(None, a, b, 0) is False
    assert calls == [1] and h.hook_s > 0


@pytest.mark.parametrize("base, veto, fuse", [(False, True, False), (True, False, True)])
def test_inductors_refusal_stands_and_without_the_veto_its_yes_does(monkeypatch, base, veto, fuse):
    h, a, b = _fusion(monkeypatch, {"a+b": True, "a": False, "b": False}, base=base, veto=veto)
    monkeypatch.setattr(h, "_fuse_verdict", lambda *args: pytest.fail("asked the heads"))
    assert h.can_fuse_vertical(None, a, b, 0) is fuse


# -- the description's edges (mutation survivors of describe.py) -------------------------------------------

@pytest.mark.parametrize("features, why", [
    (_Features(64, 2, "ReductionHint.OUTER"), "reduction hint OUTER: not a row reduction"),   # a row of two
    (_Features(64, 128, "OUTER"), "reduction hint OUTER: not a row reduction"),   # a hint spelled bare
    (_Features(64, 128, "torch._inductor.ReductionHint.OUTER_TINY"), "reduction hint OUTER_TINY: not a row reduction"),
])
def test_a_hint_that_is_not_inner_is_named_by_its_last_part(features, why):
    from costfuse.inductor.describe import NotCovered, describe_features

    with pytest.raises(NotCovered) as err:
        describe_features(features, None)
    assert str(err.value) == why


class _Body:
    """A loop body that can be weakly referenced, as Inductor's ``LoopBody`` is."""

    def __init__(self, graph):
        self.root_block = SimpleNamespace(graph=graph)


def _graph(*calls):
    """An FX graph of ``ops`` calls: ``(name, target, args)`` with earlier names as operands."""
    import torch.fx as fx

    g = fx.Graph()
    ops = g.placeholder("ops")
    made = {}
    for name, target, args in calls:
        made[name] = g.call_method(target, (ops, *[made.get(a, a) for a in args]))
    g.output(None)
    return g


def test_the_description_holds_data_deps_only_and_reads_liveness_and_reduction_types_where_they_belong():
    """A weak (ordering-only) write is no write; a user that cannot name itself is outside the kernel, so
    its buffer is an output; only a reduce node's reduction type is read; each node's live words come from
    its own loop body."""
    buffers = {"x": ("torch.float32", 64 * 128), "y": ("torch.float32", 64 * 128), "out": ("torch.float32", 64 * 128)}
    node = _node("op0", False, (64, 128), ["x", "y"], ["out"], {}, reduction_type="sum")
    node.read_writes.writes.append(WeakDep("buf9"))
    node.get_outputs()[0].users.append(SimpleNamespace(node=SimpleNamespace()))   # no get_name
    node._body = _Body(_graph(("a", "load", ["x", "i0"]), ("b", "load", ["y", "i0"]), ("c", "add", ["a", "b"]),
                              ("s", "store", ["out", "i0", "c"])))
    node._body.op_counts = {"load": 2, "add": 1, "store": 1}
    k = _describe([node], buffers, outputs=())
    (described,) = k.nodes
    assert described.writes == ("out",) and [b.name for b in k.buffers] == ["x", "y", "out"]
    assert k.outputs == ("out",)
    assert described.reduction_type is None
    assert described.live_words == 2


def test_live_words_without_a_graph_are_one_and_a_body_that_cannot_be_remembered_is_walked_each_time():
    from costfuse.featurize.inductor_kernel import KernelBuffer
    from costfuse.inductor.describe import _live_words

    buffers = {"x": KernelBuffer("x", 8, 64), "y": KernelBuffer("y", 8, 32)}
    assert _live_words(SimpleNamespace(), buffers) == 1                              # no root block
    assert _live_words(SimpleNamespace(root_block=SimpleNamespace()), buffers) == 1  # a block without a graph
    g = _graph(("a", "load", ["x", "i0"]), ("b", "load", ["y", "i0"]), ("c", "add", ["a", "b"]),
               ("s", "store", ["out", "i0", "c"]))
    assert _live_words(SimpleNamespace(root_block=SimpleNamespace(graph=g)), buffers) == 3   # not weakly referable
    body = _Body(g)
    assert _live_words(body, buffers) == 3 and _live_words(body, buffers) == 3   # walked, then remembered


def test_a_body_is_walked_past_its_stores_and_one_live_word_is_one():
    """Stores define nothing and the walk goes on after them: here the peak (three loads into one op) comes
    after the first store.  A load from a buffer the kernel does not know is 32-bit."""
    from costfuse.featurize.inductor_kernel import KernelBuffer
    from costfuse.inductor.describe import body_live_words

    buffers = {"x": KernelBuffer("x", 8, 32)}
    g = _graph(("a", "load", ["x", "i0"]), ("s", "store", ["out", "i0", "a"]),
               ("b", "load", ["y", "i0"]), ("c", "load", ["z", "i0"]), ("d", "load", ["x", "i1"]),
               ("e", "add", ["b", "c"]), ("f", "add", ["e", "d"]), ("t", "store", ["out2", "i0", "f"]))
    assert body_live_words(_Body(g), buffers) == 3
    one = _graph(("a", "load", ["x", "i0"]), ("s", "store", ["out", "i0", "a"]))
    assert body_live_words(_Body(one), buffers) == 1


# -- the handler's edges (mutation survivors of choices.py) -------------------------------------------------

def test_the_handler_pins_for_sm_90_unless_told_otherwise():
    from costfuse.inductor.choices import CostFuseChoices

    h = CostFuseChoices()
    assert h.mode == "pin" and h.decider.arch == "sm_90" and h.veto is True


def test_only_prune_files_a_decision_under_its_source_and_only_once():
    from costfuse.inductor.choices import CostFuseChoices

    pin = CostFuseChoices("pin")
    pin.pending = SimpleNamespace(kernel="k")   # pin sets it too (triton_kernel_kwargs), but never files
    pin.file_source("@triton.jit\ndef triton_red_fused_0(x):\n    pass\n")
    assert pin.registry.entries == {}
    prune = CostFuseChoices("prune")
    decision = prune.pending = SimpleNamespace(kernel="k")
    prune.file_source("@triton.jit\ndef triton_red_fused_0(x):\n    pass\n")
    assert prune.pending is None
    prune.file_source("@triton.jit\ndef triton_red_fused_1(y):\n    return y\n")   # nothing pending: not filed
    assert [entry[0] for entry in prune.registry.entries.values()] == [decision]


def test_inductors_fusion_rule_is_asked_with_the_hooks_own_arguments(monkeypatch):
    from torch._inductor.choices import InductorChoices

    h, a, b = _fusion(monkeypatch, {"a+b": False, "a": False, "b": False})
    seen = []
    monkeypatch.setattr(InductorChoices, "can_fuse_vertical", staticmethod(lambda *args: seen.append(args) or True))
    scheduler = object()
    assert h.can_fuse_vertical(scheduler, a, b, 7) is True
    assert len(seen) == 1 and seen[0][0] is scheduler and seen[0][1] is a and seen[0][2] is b and seen[0][3] == 7


def test_each_pair_gets_its_own_verdict_counted_and_timed_on_top_of_the_hooks_time(monkeypatch):
    h, a, b = _fusion(monkeypatch, {"a+b": True, "a": False, "b": False, "b+a": True})
    c = SimpleNamespace(get_name=lambda: "c", get_nodes=lambda: ["c"])
    h.decider.always_spills = lambda kernel: {"a+c": False}.get(kernel.name, kernel.name in ("a+b", "b+a"))
    h.hook_s = 1.0
    assert h.can_fuse_vertical(None, a, b, 0) is False
    assert h.can_fuse_vertical(None, a, c, 0) is True, "another pair: another verdict"
    assert h.can_fuse_vertical(None, b, a, 0) is False
    assert h.stats["fusion vetoed"] == 2 and [v[0] for v in h.vetoes] == ["a+b", "b+a"]
    assert 1.0 < h.hook_s < 2.0


def test_a_fused_kernel_is_described_over_both_nodes_and_each_part_over_its_own(monkeypatch):
    from costfuse.inductor import choices

    h, a, b = _fusion(monkeypatch, {"a+b": True, "a": False, "b": False})
    owners = []
    describe = choices._describe_group
    monkeypatch.setattr(choices, "_describe_group",
                        lambda nodes, *o: owners.append((nodes, [x.get_name() for x in o])) or describe(nodes, *o))
    h._fuse_verdict(a, b)
    assert owners == [(["a", "b"], ["a", "b"]), (["a"], ["a"]), (["b"], ["b"])]


def test_a_pointwise_owner_does_not_set_the_fused_kernels_rows(monkeypatch):
    from costfuse.inductor import choices

    monkeypatch.setattr(choices, "describe_nodes", lambda nodes, rows, n: (nodes, rows, n))
    rowwise, reduction = (SimpleNamespace(group=("cuda", sizes)) for sizes in ((64, 1), (64, 128)))
    assert choices._describe_group(["a"], rowwise, reduction) == (["a"], 64, 128)


def _split_node(users=(), reads=(), node=None):
    """A reduction scheduler node with its outputs' users and the buffers it reads."""
    out = SimpleNamespace(users=[SimpleNamespace(node=u) for u in users])
    return SimpleNamespace(is_reduction=lambda: True, node=node, get_outputs=lambda: [out],
                           read_writes=SimpleNamespace(reads=[_Dep(r) for r in reads]))


def test_a_reduction_feeding_or_reading_another_reduction_is_a_split_only_when_it_is_the_same_graph_op():
    from torch._inductor.virtualized import V

    from costfuse.inductor.choices import _is_split

    op = object()
    reduced = SimpleNamespace(reduction_type="sum")   # a buffer's IR data, as Inductor's Reduction holds it
    stage = SimpleNamespace(origin_node=None, origins={op}, data=reduced)   # a split's first stage
    final = SimpleNamespace(origin_node=op, origins={op}, data=reduced)
    mean = SimpleNamespace(origin_node=object(), origins=set(), data=reduced)   # another graph op's reduction
    graph = SimpleNamespace(name_to_buffer={"stage": stage, "mean": mean, "x": SimpleNamespace(data=SimpleNamespace()),
                                            "loose": SimpleNamespace(origin_node=None, origins={op})})
    reducing_user = SimpleNamespace(is_reduction=lambda: True, node=final)
    with V.set_graph_handler(graph):
        assert _is_split(_split_node(users=[reducing_user], node=stage))
        assert _is_split(_split_node(reads=["stage"], node=final))
        # a reduction whose user reduces another graph op's result, or reads one: not a split
        assert not _is_split(_split_node(users=[SimpleNamespace(is_reduction=lambda: True, node=final)], node=mean))
        assert not _is_split(_split_node(reads=["mean", "x", "unknown"], node=final))
        assert not _is_split(_split_node(reads=["loose"], node=final)), "an intermediate that reduces nothing"
        # users that are no reduction, or have no IR node: not a split, whatever they hold
        assert not _is_split(_split_node(users=[SimpleNamespace(node=final)], node=stage))
        assert not _is_split(_split_node(users=[SimpleNamespace(is_reduction=lambda: True)], node=stage))
        assert not _is_split(SimpleNamespace(is_reduction=lambda: False))
