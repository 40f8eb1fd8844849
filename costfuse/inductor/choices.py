"""``CostFuseChoices``: Inductor's choices handler, deciding reductions with CostFuse's learned heads.

Inductor asks its choices handler (``torch._inductor.choices.InductorChoices``,
installed through ``torch._inductor.config.inductor_choices_class``) the
questions CostFuse learns to answer (docs/inductor.md):

* ``should_use_persistent_reduction`` and ``triton_kernel_kwargs``: whether a
  reduction keeps its row in registers, and, through
  ``override_persistent_reduction`` and ``fixed_config``, the kernel's launch.
  Mode ``pin``: the heads' pick, one ``FixedTritonConfig`` per kernel
  (Inductor then compiles and runs that config alone).  Mode ``prune``:
  Inductor keeps its persistence rule and its candidate configs, minus those
  the heads predict to spill, plus the heads' pick in the kernel's mode
  (:mod:`costfuse.inductor.prune`; Inductor then times the survivors).
* ``can_fuse_vertical``: a veto on a producer-consumer fusion, only when
  every config of the fused kernel is predicted to spill and the two kernels
  apart are predicted not to.
* ``uuid``: the model bundle's hash and feature schema
  (:func:`costfuse.inductor.decide.model_uuid`), which Inductor puts in its
  cache keys.

A kernel the heads do not cover goes to Inductor's own choice:
:class:`costfuse.inductor.describe.NotCovered` (dynamic shapes, split,
cooperative and mix-order reductions, non-row reductions, dtypes outside
training) or a kernel outside the heads' training range.  Every decision and
fallback is counted in :attr:`CostFuseChoices.stats`, kept in
:attr:`CostFuseChoices.decisions`, and logged on the ``costfuse.inductor``
logger (INFO), one line each.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass

from torch._inductor.choices import InductorChoices

from costfuse.inductor.compat import should_use_cooperative_reduction
from costfuse.inductor.configs import fixed_config
from costfuse.inductor.decide import HANDLER_SPILL_CUT, PRUNE_SPILL_CUT, Decider, Pick, model_uuid
from costfuse.inductor.describe import NotCovered, describe_features, describe_nodes

log = logging.getLogger("costfuse.inductor")
MODES = ("pin", "prune")
FALLBACK = "fallback"
REMEMBERED = 512   # kernels whose decision is kept (Inductor asks about one kernel from several places)


@dataclass
class KernelDecision:
    """What the handler did with one reduction kernel: ``rows`` x ``n``; ``pick`` (None on a fallback),
    the kernel's description (None when not covered), ``outcome`` (``pin``/``prune``/``fallback``), the
    reason, and the seconds the decision took."""

    rows: int | None
    n: int | None
    pick: Pick | None
    kernel: object
    outcome: str
    reason: str
    seconds: float

    def line(self) -> str:
        size = f"{self.rows} x {self.n}" if self.rows is not None else "dynamic"
        if self.pick is None:
            return f"costfuse.inductor: reduction {size}: {self.outcome} to Inductor ({self.reason})"
        return (f"costfuse.inductor: reduction {size}: {self.outcome} {self.pick.launch.short()} "
                f"(predicted {self.pick.predicted_regs:.0f} regs, P(spill)={self.pick.p_spill:.2f})")


class CostFuseChoices(InductorChoices):
    """The handler (see the module docstring).  ``mode``: ``pin`` or ``prune``; ``veto``: whether
    ``can_fuse_vertical`` may refuse a fusion; the rest choose the model (:class:`Decider`); ``spill_cut``
    ``None`` is :data:`costfuse.inductor.decide.HANDLER_SPILL_CUT`; ``prune_cut`` ``None`` is
    :data:`costfuse.inductor.decide.PRUNE_SPILL_CUT` (the cut mode ``prune`` drops candidates at)."""

    def __init__(self, mode: str = "pin", group_model: str = "", arch: str = "sm_90", spill_cut: str | None = None,
                 veto: bool = True, prune_cut: str | None = None):
        if mode not in MODES:
            raise ValueError(f"costfuse.inductor: mode must be one of {', '.join(MODES)}, got {mode!r}")
        super().__init__()
        self.mode, self.veto = mode, veto
        self.decider = Decider(group_model, arch, spill_cut or HANDLER_SPILL_CUT,
                               prune_cut=prune_cut or PRUNE_SPILL_CUT)
        self.stats: Counter[str] = Counter()
        self.hook_s = 0.0   # seconds spent deciding kernels and fusions: what the handler adds to codegen
        self.decisions: list[KernelDecision] = []
        self.vetoes: list[tuple[str, str]] = []
        self._remembered: OrderedDict[int, tuple[object, KernelDecision]] = OrderedDict()
        self._fusion_verdicts: dict[tuple, bool] = {}
        self.pending = None   # the last covered kernel, for prune's registry (costfuse.inductor.prune)
        from costfuse.inductor.prune import Registry

        self.registry = Registry()

    def uuid(self) -> str:
        """:func:`costfuse.inductor.decide.model_uuid` of the decider as it is now (a rule changed after
        construction changes the key)."""
        return model_uuid(self.decider, self.mode)

    def reset(self) -> None:
        """Forget the decisions, vetoes and counts so far (a new compile's figures start from zero)."""
        self.stats.clear()
        self.hook_s = 0.0
        self.decisions.clear()
        self.vetoes.clear()
        self._remembered.clear()
        self._fusion_verdicts.clear()
        self.pending = None

    # -- reductions -------------------------------------------------------------------------------------

    def decide(self, features, kernel_kwargs: dict | None = None, tiling: dict | None = None) -> KernelDecision:
        """The decision for the kernel ``features`` describes (remembered: Inductor asks about a kernel from
        several places, and it must get one answer)."""
        key = id(features)
        hit = self._remembered.get(key)
        if hit is not None and hit[0] is features:
            return hit[1]
        t0 = time.perf_counter()
        rows, n = _static_or_none(features.numel), _static_or_none(features.reduction_numel)
        pick, kernel, why = None, None, ""
        try:
            self._check_scheme(features, kernel_kwargs or {})
            self._check_reductions(features)
            kernel = describe_features(features, tiling)
            rows, n = kernel.rows, kernel.n
            mode = None
            if self.mode == "prune":
                mode = "persistent" if InductorChoices.should_use_persistent_reduction(features, False) else "looped"
            pick, why = self.decider.pick(kernel, mode)
        except NotCovered as err:
            why = str(err)
        decision = KernelDecision(rows, n, pick, kernel, self.mode if pick else FALLBACK, why,
                                  time.perf_counter() - t0)
        self.hook_s += decision.seconds
        self.stats[decision.outcome if pick else f"{FALLBACK}: {_reason_kind(why)}"] += 1
        self.decisions.append(decision)
        if log.isEnabledFor(logging.INFO):   # the line reads the predicted registers: asked only when logged
            log.info(decision.line())
        self._remembered[key] = (features, decision)
        while len(self._remembered) > REMEMBERED:
            self._remembered.popitem(last=False)
        return decision

    def _check_scheme(self, features, kernel_kwargs: dict) -> None:
        """Refuse Inductor's own multi-kernel reduction schemes, which the heads never saw."""
        if kernel_kwargs.get("override_cooperative_reduction") or kernel_kwargs.get("mix_order_reduction"):
            raise NotCovered("cooperative or mix-order reduction")
        if should_use_cooperative_reduction(self, features):
            raise NotCovered("cooperative reduction")
        for node in features.scheduler_nodes():
            if _is_split(node):
                raise NotCovered("split reduction")

    def _check_reductions(self, features) -> None:
        """Refuse a kernel with more reductions than the heads were trained on before describing it: the
        norm-chain spans hold ten, and describing their nodes took 2-3 ms of a fallback
        (``experiments/results/inductor_report.md``)."""
        n_reduce = sum(1 for node in features.scheduler_nodes() if node.is_reduction())
        why = self.decider.heads.group_outside({"n_reduce": n_reduce})
        if why:
            raise NotCovered(f"group outside the training range ({why})")

    def should_use_persistent_reduction(self, features, cooperative_reduction: bool) -> bool:
        if self.mode == "pin" and features.is_reduction() and not cooperative_reduction:
            decision = self.decide(features)
            if decision.pick is not None:
                return decision.pick.launch.mode == "persistent"
        return InductorChoices.should_use_persistent_reduction(features, cooperative_reduction)

    def triton_kernel_kwargs(self, kernel_cls, features, groups, kernel_kwargs):
        if not features.is_reduction():
            self.stats["pointwise: Inductor's"] += 1
            return kernel_kwargs
        tiling = groups[0] if groups and isinstance(groups[0], dict) else None
        decision = self.decide(features, kernel_kwargs, tiling)
        self.pending = decision if decision.pick is not None else None
        if decision.pick is None or self.mode != "pin":
            return kernel_kwargs
        from torch._inductor.codegen.triton import FixedTritonConfig

        launch = decision.pick.launch
        return {**kernel_kwargs, "override_persistent_reduction": launch.mode == "persistent",
                "override_cooperative_reduction": False, "fixed_config": FixedTritonConfig(fixed_config(launch))}

    def customize_fused_kernel_name(self, fused_name: str, src_code: str) -> str:
        """Not a renaming: the hook that sees a kernel's final source (:meth:`file_source`).  A torch
        without this hook gets the source from :func:`costfuse.inductor.compat.source_hook` instead."""
        self.file_source(src_code)
        return fused_name

    def file_source(self, src_code: str) -> None:
        """In ``prune``, file the pending kernel's decision under its source, for the moment Inductor loads
        the kernel and builds its candidate list (:mod:`costfuse.inductor.prune`)."""
        if self.mode == "prune" and self.pending is not None:
            self.registry.file(src_code, self.pending, self.decider)
            self.pending = None

    # -- fusion -----------------------------------------------------------------------------------------

    def can_fuse_vertical(self, scheduler, node1, node2, shared_data_score):
        if not InductorChoices.can_fuse_vertical(scheduler, node1, node2, shared_data_score):
            return False
        if not self.veto:
            return True
        key = (node1.get_name(), node2.get_name())
        if key not in self._fusion_verdicts:
            t0 = time.perf_counter()
            self._fusion_verdicts[key] = self._fuse_verdict(node1, node2)
            self.hook_s += time.perf_counter() - t0
        return self._fusion_verdicts[key]

    def _fuse_verdict(self, node1, node2) -> bool:
        """False only when the fused kernel always spills and neither part does (by the heads)."""
        try:
            fused = _describe_group([*node1.get_nodes(), *node2.get_nodes()], node1, node2)
            if fused is None or fused.pointwise or self.decider.always_spills(fused) is not True:
                return True
            parts = [_describe_group(list(n.get_nodes()), n) for n in (node1, node2)]
            if any(p is None or self.decider.always_spills(p) is not False for p in parts):
                return True
        except NotCovered:
            return True
        why = (f"every config of the fused {fused.rows} x {fused.n} kernel is predicted to spill, "
               "the two apart are not")
        self.vetoes.append((f"{node1.get_name()}+{node2.get_name()}", why))
        self.stats["fusion vetoed"] += 1
        log.info("costfuse.inductor: refuse fusing %s into %s: %s", node1.get_name(), node2.get_name(), why)
        return False


def _describe_group(nodes: list, *owners):
    """The kernel ``nodes`` would form: over the reduction's rows x row when there is one, else pointwise;
    ``None`` when the sizes are not static."""
    from costfuse.inductor.describe import static_int

    sizes = [owner.group[1] for owner in owners]
    red = [s for s in sizes if len(s) == 2 and static_int(s[1], "reduction size") > 1]
    if red:
        rows, n = (static_int(v, "size") for v in red[0])
    else:
        rows, n = 1, 1
        for v in sizes[0]:
            rows *= static_int(v, "size")
    return describe_nodes(nodes, rows, n)


def _is_split(node) -> bool:
    """A stage of a split (multi-layer) reduction (Inductor's ``create_multilayer``).  Its first stage is
    a reduction buffer with no ``origin_node`` of its own (an intermediate, not a graph op's result)
    feeding a reduction whose ``origin_node`` is among the first stage's ``origins``: the same graph op."""
    from torch._inductor.virtualized import V

    if not node.is_reduction():
        return False
    mine = node.node
    for buf in node.get_outputs():
        for user in buf.users:
            if getattr(user.node, "is_reduction", lambda: False)() and _splits(mine, getattr(user.node, "node", None)):
                return True
    for dep in node.read_writes.reads:
        producer = V.graph.name_to_buffer.get(dep.name)
        if getattr(getattr(producer, "data", None), "reduction_type", None) is not None and _splits(producer, mine):
            return True
    return False


def _splits(first, second) -> bool:
    """Whether reduction buffer ``first`` is the intermediate of ``second``'s graph op."""
    final = getattr(second, "origin_node", None)
    return (first is not None and getattr(first, "origin_node", None) is None and final is not None
            and final in (getattr(first, "origins", None) or ()))


def _static_or_none(expr) -> int | None:
    try:
        return int(expr)
    except (TypeError, ValueError):
        return None


def _reason_kind(why: str) -> str:
    """The kind of a fallback reason, for counting (``dynamic shapes (numel = s0)`` -> ``dynamic shapes``)."""
    return why.split(" (")[0].split(":")[0]
