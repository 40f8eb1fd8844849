"""CostFuse's Inductor handler (costfuse/inductor/): pin, prune, fallbacks, the fusion veto, uuid, install.

Inductor's kernels are generated on this CPU for a faked sm_90 (costfuse.data.inductor_codegen); nothing
here needs a GPU.  Sizes are small where the decision does not depend on them, so codegen stays ~1 s.
"""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys

import pytest
import sympy
import torch

from costfuse.data.inductor_codegen import inductor_code, kernels_of
from costfuse.featurize.inductor_kernel import FULL, REDUCE
from costfuse.inductor.choices import CostFuseChoices
from costfuse.inductor.decide import Pick
from costfuse.inductor.installation import check_torch
from costfuse.launch import KernelLaunch

BF16 = torch.bfloat16


def rmsnorm(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w


def rmsnorm_bwd(x, w, dy):
    xf, dyf, wf = x.float(), dy.float(), w.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    g = dyf * wf
    return (rstd * g - xf * rstd.pow(3) * (g * xf).mean(-1, keepdim=True)).to(x.dtype)


def norm_inputs(rows: int, n: int, dtype=BF16):
    return [((rows, n), dtype), ((n,), dtype)]


def bwd_inputs(rows: int, n: int):
    return [((rows, n), BF16), ((n,), BF16), ((rows, n), BF16)]


def test_pin_fixes_each_row_reduction_at_the_heads_pick():
    h = CostFuseChoices("pin")
    kernels = kernels_of(inductor_code(rmsnorm, norm_inputs(2048, 8192), choices=h))
    assert h.stats == {"pin": 1}
    (d,) = h.decisions
    (k,) = kernels
    assert k.heuristic == "fixed_config" and len(k.candidates) == 1
    assert k.launch(k.candidates[0]) == d.pick.launch
    assert k.persistent == (d.pick.launch.mode == "persistent")
    assert d.seconds > 0 and d.pick.predicted_regs > 0
    # predicted when read, after the decision: the register head's figure at the pick all the same
    assert d.pick.predicted_regs == pytest.approx(h.decider.predict(d.kernel, [d.pick.launch])["regs"][0])
    assert h.hook_s >= d.seconds   # the handler's own seconds: the decision's, and any fusion verdicts'


def test_without_the_handler_inductor_keeps_its_own_candidates():
    (k,) = kernels_of(inductor_code(rmsnorm, norm_inputs(2048, 8192)))
    assert k.heuristic == "reduction" and len(k.candidates) == 2    # Inductor loops rows over 1024


class SymbolicFeatures:
    """What Inductor hands the handler for a kernel of dynamic shape (a symbolic row count)."""

    numel, reduction_numel = sympy.Symbol("s0"), sympy.Integer(4096)

    def is_reduction(self):
        return True

    def scheduler_nodes(self):
        return []

    def get_reduction_hint(self):
        return "ReductionHint.INNER"


class StaticFeatures(SymbolicFeatures):
    numel, reduction_numel = sympy.Integer(2), sympy.Integer(1 << 20)


def test_dynamic_shapes_fall_back_to_inductor_and_are_counted_and_logged(caplog):
    h = CostFuseChoices("pin")
    kwargs = {"features": None}
    with caplog.at_level("INFO", logger="costfuse.inductor"):
        assert h.triton_kernel_kwargs(None, SymbolicFeatures(), [{"x": 1, "r0_": 1}], kwargs) is kwargs
    assert h.stats == {"fallback: dynamic shapes": 1}
    assert h.decisions[0].pick is None and "s0" in h.decisions[0].reason
    assert [r.getMessage() for r in caplog.records] == [h.decisions[0].line()]
    assert "fallback to Inductor (dynamic shapes" in caplog.records[0].getMessage()


def test_a_torch_whose_cooperative_rule_takes_the_features_alone(monkeypatch):
    """Before torch 2.13 ``should_use_cooperative_reduction(features)`` had one parameter
    (costfuse.inductor.compat); the handler asks it that way there, and falls back when it says yes."""
    from torch._inductor.choices import InductorChoices

    seen = []

    def cooperative(features):
        seen.append(features)
        return True

    monkeypatch.setattr(InductorChoices, "should_use_cooperative_reduction", staticmethod(cooperative))
    h = CostFuseChoices("pin")
    features = StaticFeatures()
    assert h.decide(features).pick is None
    assert seen == [features] and h.stats == {"fallback: cooperative reduction": 1}


def test_a_torch_whose_cooperative_rule_takes_the_device_and_sizes_is_asked_that_way(monkeypatch):
    """torch 2.13's ``should_use_cooperative_reduction(device, numel, reduction_numel)``: asked with the
    first scheduler node's device and the kernel's sizes; a kernel with no node on a device is not one."""
    from types import SimpleNamespace

    from costfuse.inductor import compat
    from torch._inductor.choices import InductorChoices

    seen = []

    def cooperative(device, numel, reduction_numel):
        seen.append((device, numel, reduction_numel))
        return True

    monkeypatch.setattr(InductorChoices, "should_use_cooperative_reduction", staticmethod(cooperative))
    node = SimpleNamespace(get_device=lambda: "cuda:0")
    features = SimpleNamespace(scheduler_nodes=lambda: iter([node, None]), numel=64, reduction_numel=4096)
    assert compat.should_use_cooperative_reduction(InductorChoices, features) is True
    assert seen == [("cuda:0", 64, 4096)]
    for nodes in ([], [SimpleNamespace(get_device=lambda: None)]):
        features = SimpleNamespace(scheduler_nodes=lambda: iter(nodes), numel=64, reduction_numel=4096)
        assert compat.should_use_cooperative_reduction(InductorChoices, features) is False
    assert len(seen) == 1


def test_the_source_hook_is_told_by_whether_inductor_has_the_hook(monkeypatch):
    from costfuse.inductor import compat
    from torch._inductor.choices import InductorChoices

    monkeypatch.setattr(InductorChoices, "customize_fused_kernel_name", lambda self, name, src: name, raising=False)
    assert compat.has_source_hook() is True
    monkeypatch.delattr(InductorChoices, "customize_fused_kernel_name")
    assert compat.has_source_hook() is False


@pytest.mark.parametrize("fn, inputs, reason", [
    (lambda x: x.float().sum(-1), [((4, 1 << 22), BF16)], "fallback: split reduction"),        # rows too few
    (lambda x: x.float().sum(0), [((4096, 1024), BF16)], "fallback: split reduction"),         # a column sum
    (rmsnorm, norm_inputs(64, 1024, torch.float64), "fallback: dtype float64 of arg0_1 is outside training"),
])
def test_kernels_the_heads_do_not_cover_go_to_inductor(fn, inputs, reason):
    h = CostFuseChoices("pin")
    kernels = kernels_of(inductor_code(fn, inputs, choices=h))
    assert set(h.stats) == {reason} and sum(h.stats.values()) == len([k for k in kernels if k.reduction])
    assert all(k.heuristic != "fixed_config" for k in kernels)


def test_prune_drops_candidates_predicted_to_spill_and_adds_the_pick(monkeypatch):
    """Inductor's two looped candidates; the heads (stood in for) say the first spills: it goes, the pick
    joins, in the order Inductor would time them."""
    from costfuse.inductor.prune import patched

    h = CostFuseChoices("prune")
    pick = Pick(KernelLaunch("looped", 1, 512, 4), 0.01, "stand-in", lambda launch: 40.0)
    monkeypatch.setattr(h.decider, "pick", lambda kernel, mode=None: (pick, ""))
    cuts = []
    monkeypatch.setattr(h.decider, "predict", lambda kernel, launches, cut=None: cuts.append(cut) or {
        "spills": [launch.rblock > 2048 for launch in launches]})
    with patched(h.registry):
        (k,) = kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(2048, 16384), choices=h))
    assert k.heuristic == "reduction"
    assert [k.launch(c) for c in k.candidates] == [KernelLaunch("looped", 1, 2048, 16), pick.launch]
    assert h.registry.stats == {"kept": 1, "dropped": 1, "added": 1}
    assert cuts == ["f1"]   # prune drops at the F1 cut, whatever cut the handler picks at


def test_prune_cut_is_the_heads_f1_threshold_not_the_handlers():
    """Decider.predict at a named cut: the verdicts are P(spill) against that cut's threshold."""
    import numpy as np

    from costfuse.inductor.decide import PRUNE_SPILL_CUT, Decider
    from costfuse.launch import config_space
    from helpers.inductor_kernels import softmax_kernel

    d = Decider(spill_cut="recall")
    k = softmax_kernel()
    space = config_space(k)
    mine, pruned = d.predict(k, space), d.predict(k, space, PRUNE_SPILL_CUT)
    f1 = d.heads.cut_threshold("f1")
    assert f1 > d.heads.threshold   # the recall cut lies below the F1 one
    assert np.array_equal(pruned["spills"], pruned["p_spill"] >= f1)
    assert np.array_equal(mine["spills"], mine["p_spill"] >= d.heads.threshold)
    assert pruned["spills"].sum() < mine["spills"].sum()


def test_prune_files_its_decisions_on_a_torch_without_the_source_hook(monkeypatch):
    """torch 2.11 has no ``customize_fused_kernel_name``: the decision is filed from
    ``TritonScheduling.define_kernel`` instead (costfuse.inductor.compat), and pruning still happens."""
    from costfuse.inductor import compat
    from costfuse.inductor.prune import patched

    h = CostFuseChoices("prune")
    monkeypatch.setattr(CostFuseChoices, "customize_fused_kernel_name", lambda self, name, src: name)
    monkeypatch.setattr(compat, "has_source_hook", lambda: False)
    cuts = []
    monkeypatch.setattr(h.decider, "predict", lambda kernel, launches, cut=None: cuts.append(cut) or {
        "spills": [launch.rblock > 2048 for launch in launches]})
    with patched(h.registry):
        (k,) = kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(2048, 16384), choices=h))
    assert h.registry.stats["dropped"] == 1 and len(h.registry.entries) == 1
    assert KernelLaunch("looped", 1, 16384, 32) not in [k.launch(c) for c in k.candidates]


def test_prune_keeps_inductors_list_for_a_kernel_its_handler_did_not_file():
    from costfuse.inductor.prune import patched

    h = CostFuseChoices("prune")
    kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(2048, 16384), choices=h))   # filed in h's registry
    with patched(CostFuseChoices("prune").registry):
        (k,) = kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(2048, 16384)))
    assert len(k.candidates) == 2


def test_the_veto_refuses_a_fusion_only_when_fused_always_spills_and_the_parts_do_not(monkeypatch):
    """A stand-in for the heads: a kernel holding a reduction and a full-row store always spills."""

    def always_spills(kernel):
        roles = {n.role for n in kernel.nodes}
        return REDUCE in roles and FULL in roles

    h = CostFuseChoices("pin")
    monkeypatch.setattr(h.decider, "always_spills", always_spills)
    vetoed = kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(256, 4096), choices=h))
    fused = kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(256, 4096), choices=CostFuseChoices("pin", veto=False)))
    assert len(fused) == 1 and len(vetoed) >= 2
    assert h.stats["fusion vetoed"] >= 1 and all("predicted to spill" in why for _, why in h.vetoes)


def test_no_veto_when_a_part_spills_too(monkeypatch):
    h = CostFuseChoices("pin")
    monkeypatch.setattr(h.decider, "always_spills", lambda kernel: True)
    assert len(kernels_of(inductor_code(rmsnorm_bwd, bwd_inputs(256, 4096), choices=h))) == 1
    assert h.vetoes == []


def test_uuid_names_the_mode_the_schema_and_the_bundle(tmp_path):
    from costfuse.cost_models.learned_groups import SHIPPED_GROUP_MODEL_DIR

    pin, prune = CostFuseChoices("pin"), CostFuseChoices("prune")
    assert pin.uuid().startswith("costfuse-pin-v5-") and prune.uuid().startswith("costfuse-prune-v5-")
    assert pin.uuid() == CostFuseChoices("pin").uuid()
    other = tmp_path / "groups"
    shutil.copytree(SHIPPED_GROUP_MODEL_DIR, other)
    meta = other / "metadata.json"
    meta.write_text(meta.read_text().replace('"command": "', '"command": "retrained: '))
    assert CostFuseChoices("pin", group_model=str(other)).uuid() != pin.uuid()
    assert CostFuseChoices("pin", spill_cut="f1").uuid() != pin.uuid()
    assert CostFuseChoices("pin", prune_cut="recall").uuid() != pin.uuid()
    assert CostFuseChoices("pin", prune_cut="f1").uuid() == pin.uuid(), "the default prune cut is f1"
    fastest = CostFuseChoices("pin")
    fastest.decider.persistent_first = False   # a rule changed after construction is a new key too
    assert fastest.uuid() != pin.uuid()
    fastest.decider.persistent_first, fastest.decider.spill_slowdown = True, 1.0
    assert fastest.uuid() != pin.uuid()


def test_install_sets_inductors_factory_and_restores_it():
    import costfuse.inductor
    from torch._inductor import config
    from torch._inductor.virtualized import V

    before = config.inductor_choices_class
    with costfuse.inductor.install() as inst:
        assert isinstance(V.choices, CostFuseChoices) and V.choices is inst.handler
        factory = config.inductor_choices_class
        assert factory() is inst.handler and inst.handler.uuid() in pickle.dumps(factory).decode("latin-1")
        assert factory.options() == ("pin", "", "sm_90", None, True, None)   # install()'s defaults
    assert config.inductor_choices_class is before and not isinstance(V.choices, CostFuseChoices)


def test_install_in_prune_loads_kernels_where_they_were_decided_and_restores_inductors_settings(monkeypatch):
    """``prune`` needs the kernels loaded in this process (one compile thread), Inductor's candidate lists
    patched, and, on a torch without the source hook, every kernel's source filed with the handler."""
    from types import SimpleNamespace

    import costfuse.inductor
    from costfuse.inductor import compat
    from torch._inductor import config
    from torch._inductor.codegen.triton import TritonScheduling
    from torch._inductor.runtime import triton_heuristics

    filed = []
    monkeypatch.setattr(CostFuseChoices, "file_source", lambda self, src: filed.append((self, src)))
    monkeypatch.setattr(TritonScheduling, "define_kernel", lambda self, src, schedule, kernel: "defined")
    monkeypatch.setattr(compat, "has_source_hook", lambda: False)   # torch 2.11
    monkeypatch.setattr(triton_heuristics, "cached_autotune", lambda *a, **k: (lambda fn: ("autotuned", a[1])))
    autotune, define = triton_heuristics.cached_autotune, TritonScheduling.define_kernel
    with config.patch(compile_threads=7), costfuse.inductor.install("prune", spill_cut="f1", veto=False) as inst:
        assert config.compile_threads == 1 and triton_heuristics.cached_autotune is not autotune
        unfiled = SimpleNamespace(src="a kernel the handler did not file")   # Inductor's list, untouched
        reduction = triton_heuristics.HeuristicType.REDUCTION
        assert triton_heuristics.cached_autotune({"x": 1}, ["c0"], {}, reduction)(unfiled) == ("autotuned", ["c0"])
        assert TritonScheduling.define_kernel(None, "SRC", None, None) == "defined"
        assert filed == [(inst.handler, "SRC")]
        assert config.inductor_choices_class.options() == ("prune", "", "sm_90", "f1", False, None)
        inst.uninstall()
        assert config.compile_threads == 7 and triton_heuristics.cached_autotune is autotune
        assert TritonScheduling.define_kernel is define
    with config.patch(compile_threads=7), costfuse.inductor.install("pin"):
        assert config.compile_threads == 7 and triton_heuristics.cached_autotune is autotune


def test_the_installed_handler_enters_inductors_graph_cache_key():
    """torch 2.13 keys the FX graph cache on the handler's ``uuid()``, torch 2.11 on the pickled factory that
    carries it (costfuse/inductor/installation.py): either way a graph compiled under one handler (here
    ``pin``) is never reused under another (``prune``) or under Inductor's own choices, and the key is stable
    while one is installed."""
    import costfuse.inductor
    from torch._inductor.codecache import compiled_fx_graph_hash

    gm, x = torch.fx.symbolic_trace(torch.nn.Softmax(dim=-1)), torch.randn(4, 8)

    def key():
        return compiled_fx_graph_hash(gm, [x], {}, [])[0]

    keys = {"inductor": key()}
    for mode in ("pin", "prune"):
        with costfuse.inductor.install(mode):
            keys[mode] = key()
            assert key() == keys[mode]
    assert len(set(keys.values())) == 3 and key() == keys["inductor"]


def test_a_torch_drops_the_x_dim_safely_only_where_its_block_shapes_skip_a_tree_without_one(monkeypatch):
    from costfuse.inductor import compat
    from torch._inductor.codegen.triton import TritonSymbols

    def skips(cls, expr):   # torch 2.13's shape of the check
        for tree in ():
            if tree.tensor_dim is None:
                continue

    def indexes(cls, expr):   # torch 2.11's: the shape indexed with the tree's dimension, None or not
        shape = []
        return shape

    for fn, safe in ((skips, True), (indexes, False), (len, False)):   # len: a builtin, no source to read
        monkeypatch.setattr(TritonSymbols, "get_block_shape", classmethod(fn) if fn is not len else fn)
        assert compat.drops_x_dim_safely() is safe, fn


def test_install_keeps_the_x_dim_only_on_a_torch_that_needs_it_and_restores_inductors(monkeypatch):
    from types import SimpleNamespace

    import costfuse.inductor
    from costfuse.inductor import compat
    from torch._inductor.codegen.triton import TritonKernel

    original = TritonKernel.__dict__["want_no_x_dim"]
    with costfuse.inductor.install():
        assert (TritonKernel.__dict__["want_no_x_dim"] is original) == compat.drops_x_dim_safely()
    monkeypatch.setattr(compat, "drops_x_dim_safely", lambda: False)   # torch 2.11's block shapes

    def pinned(*ops):   # a persistent reduction pinned at XBLOCK=1, computing with ``ops``
        return SimpleNamespace(persistent_reduction=True, numels={"x": 8, "r0_": 64}, num_reduction_dims=1,
                               fixed_config={"XBLOCK": 1}, features=SimpleNamespace(contains_op=ops.__contains__))

    assert original(pinned("index_expr")) and original(pinned("load"))   # Inductor drops the x dim of both
    with costfuse.inductor.install("prune"):
        assert TritonKernel.__dict__["want_no_x_dim"] is not original
        assert not TritonKernel.want_no_x_dim(pinned("load", "index_expr")) and TritonKernel.want_no_x_dim(pinned("load"))
        assert not TritonKernel.want_no_x_dim(SimpleNamespace(**{**vars(pinned()), "features": None}))
        unknown = SimpleNamespace(**{k: v for k, v in vars(pinned()).items() if k != "features"})
        assert not TritonKernel.want_no_x_dim(unknown)   # a kernel with no features to read: kept, the safe side
        assert not TritonKernel.want_no_x_dim(SimpleNamespace(**{**vars(pinned()), "fixed_config": {"XBLOCK": 4}}))
    assert TritonKernel.__dict__["want_no_x_dim"] is original


def test_under_the_guard_only_a_kernel_computing_with_an_index_keeps_its_x_dim(monkeypatch):
    """torch 2.11's guard (``compat.x_dim_kept``, forced here): the causal mask's kernel, pinned at one row
    per program, keeps its x dimension; an RMSNorm backward's stays as torch 2.13 (and the training data)
    have it."""
    from costfuse.inductor import compat
    from experiments.workloads import blocks

    monkeypatch.setattr(compat, "drops_x_dim_safely", lambda: False)
    for block, specs, kept in ((blocks.AttentionCausal(), [((1, 2, 64, 64), torch.float32)], True),
                               (rmsnorm_bwd, bwd_inputs(8, 512), False)):
        h = CostFuseChoices("pin")
        monkeypatch.setattr(h.decider, "pick", lambda kernel, mode=None: (
            Pick(KernelLaunch("persistent", 1, kernel.n, 2), 0.0, "forced", lambda launch: 0.0), ""))
        pinned = [k for k in kernels_of(inductor_code(block, specs, choices=h)) if k.heuristic == "fixed_config"]
        assert len(pinned) == 1 and ("tl.arange(0, XBLOCK)" in pinned[0].source) == kept, block


def test_install_hands_the_prune_cut_to_the_handler_and_refuses_an_unknown_one():
    import costfuse.inductor
    from torch._inductor import config

    with costfuse.inductor.install("prune", prune_cut="recall") as inst:
        assert inst.handler.decider.prune_cut == "recall" and inst.handler.mode == "prune"
        assert config.inductor_choices_class.options()[-1] == "recall"
    assert CostFuseChoices("prune").decider.prune_cut == "f1"
    with pytest.raises(ValueError) as err:
        CostFuseChoices("prune", prune_cut="auc")
    assert str(err.value) == "costfuse.inductor: prune_cut must be one of f1, recall, precision, got 'auc'"
    with pytest.raises(ValueError, match="records no precision_threshold"):   # the shipped heads predate that cut
        CostFuseChoices("prune", prune_cut="precision")


def test_install_refuses_a_torch_without_the_hooks(monkeypatch):
    from torch._inductor import config
    from torch._inductor.choices import InductorChoices
    from torch._inductor.codegen import triton

    monkeypatch.delattr(InductorChoices, "triton_kernel_kwargs")
    with pytest.raises(RuntimeError, match="lacks InductorChoices.triton_kernel_kwargs$"):
        check_torch()
    monkeypatch.delattr(config, "inductor_choices_class")
    monkeypatch.delattr(triton, "FixedTritonConfig")
    with pytest.raises(RuntimeError) as err:
        check_torch()
    assert str(err.value) == (f"costfuse.inductor: torch {torch.__version__} lacks InductorChoices.triton_kernel_kwargs, "
                              "torch._inductor.config.inductor_choices_class, "
                              "torch._inductor.codegen.triton.FixedTritonConfig")


def test_the_handler_decides_without_iree_xgboost_or_mlflow():
    """What the GPU machine has: torch, triton, numpy (docs/design.md §5)."""
    code = (
        "import sys\n"
        "for m in ('iree', 'xgboost', 'mlflow', 'sklearn', 'pandas'): sys.modules[m] = None\n"
        "import costfuse.inductor\n"
        "inst = costfuse.inductor.install()\n"
        "from costfuse.featurize.inductor_kernel import InductorKernel, KernelBuffer, KernelNode\n"
        "k = InductorKernel(4096, 8192, (KernelNode('a', 'reduce', (('load', 1),), ('x',), ('s',), 'sum'),\n"
        "    KernelNode('b', 'full', (('load', 2), ('mul', 1)), ('x', 's'), ('o',))),\n"
        "    (KernelBuffer('x', 4096 * 8192, 16), KernelBuffer('s', 4096, 32), KernelBuffer('o', 4096 * 8192, 16)),\n"
        "    ('o',))\n"
        "pick, why = inst.handler.decider.pick(k)\n"
        "assert pick is not None, why\n"
        "bad = [m for m, v in sys.modules.items() if v is not None and m.split('.')[0] in ('iree', 'xgboost', 'mlflow')]\n"
        "print(pick.launch.short(), bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("[]")


def test_a_loop_body_is_walked_once_until_inductor_gives_it_a_new_graph(monkeypatch):
    """The fusion hook describes a node again for every pair Inductor asks about: its liveness walk is
    remembered per loop body, and walked again only if the body's graph is replaced."""
    from types import SimpleNamespace

    from costfuse.inductor import describe

    walks = []
    monkeypatch.setattr(describe, "body_live_words", lambda body, buffers: walks.append(body) or len(walks) + 2)

    class Body:
        root_block = None

    body = Body()
    body.root_block = SimpleNamespace(graph=object())
    assert describe._live_words(body, {}) == describe._live_words(body, {}) == 3 and len(walks) == 1
    body.root_block = SimpleNamespace(graph=object())
    assert describe._live_words(body, {}) == 4 and len(walks) == 2


def test_more_reductions_than_training_are_left_to_inductor_before_the_kernel_is_described(monkeypatch):
    """The spans' ten-reduction kernels: the reduction count is read off the scheduler nodes and checked
    against the heads' range first, so the fallback does not pay for describing every node."""
    from costfuse.featurize.group_features import GROUP_COLUMNS
    from costfuse.inductor import choices

    h = CostFuseChoices("pin")
    hi = h.decider.heads._hi.copy()
    hi[GROUP_COLUMNS.index("n_reduce")] = 0.0   # stand-in range: no reduction in training
    monkeypatch.setattr(h.decider.heads, "_hi", hi)
    monkeypatch.setattr(choices, "describe_features", lambda *a, **k: pytest.fail("described the kernel"))
    inductor_code(rmsnorm, norm_inputs(2048, 8192), choices=h)
    assert h.stats == {"fallback: group outside the training range": 1}
    (d,) = h.decisions
    assert d.pick is None and d.kernel is None and d.reason == "group outside the training range (n_reduce=1 not in [0, 0])"


def test_the_inductor_handlers_cached_spaces_are_the_configs_inductor_can_launch_per_mode():
    from costfuse.inductor.configs import inductor_can_launch
    from costfuse.inductor.decide import _inductor_space
    from costfuse.launch import space_of

    whole, arrays = _inductor_space(False, 4096, 64, None)
    assert whole == tuple(c for c in space_of(False, 4096, 64) if inductor_can_launch(c))
    assert list(arrays.rblock) == [c.rblock for c in whole] and not arrays.rblock.flags.writeable
    persistent, p_arrays = _inductor_space(False, 4096, 64, "persistent")
    assert persistent == tuple(c for c in whole if c.mode == "persistent") and persistent
    assert list(p_arrays.mode) == ["persistent"] * len(persistent)
    assert _inductor_space(False, 4096, 64, "persistent")[1] is p_arrays
