"""The learned decisions the handler makes about one Inductor kernel (docs/inductor.md, "Decisions").

The model is the handler's own heads (``costfuse/models/inductor/``): group
heads trained on Inductor's kernels (dataset ``sm90_inductor_v1``) together
with CostFuse's kernel groups (``sm90_v2``) and v1's row kernels, through
the group features (schema v5), since an Inductor kernel is featurized as a
row kernel (:mod:`costfuse.featurize.inductor_kernel`).  :class:`Decider`
runs them on an :class:`costfuse.featurize.inductor_kernel.InductorKernel`
through the learned group policy's own code
(:func:`costfuse.cost_models.learned_groups.learned_pick`), so a kernel
Inductor generates is decided exactly as a Linalg group is:

* :meth:`Decider.pick`: persistent when the heads predict some persistent
  config spill-free, then, among the configs the heads predict spill-free
  (optionally within one mode), the one of the least expected time: the
  analytical time, weighted by the chance that the config spills after all
  (:data:`costfuse.cost_models.learned_groups.SPILL_SLOWDOWN`; without
  it, 2 of 46 picks spilled in ``experiments/results/inductor_report.md``);
* :meth:`Decider.predict`: P(spill) and the verdict at given launches (what
  ``prune`` asks of Inductor's candidates);
* :meth:`Decider.always_spills`: whether every config of the kernel's space is
  predicted to spill (the fusion veto asks it of a fused kernel and its parts).

Any group-heads bundle decides too (``group_model``: ``costfuse/models/groups``
is the pass's, which never saw an Inductor kernel).  :func:`model_uuid` names
the model and feature schema for Inductor's cache key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Callable

import numpy as np

from costfuse.cost_models.learned_groups import SPILL_SLOWDOWN, GroupHeads, batches, learned_pick, load_group_heads
from costfuse.inductor.configs import inductor_can_launch
from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION, group_features
from costfuse.estimates import row_registers
from costfuse.launch import KernelLaunch, LaunchArrays, config_space, frozen_launch_arrays, space_arrays, space_of
from costfuse.targets import get_target

SHIPPED_INDUCTOR_MODEL_DIR = Path(__file__).resolve().parents[1] / "models" / "inductor"
"""The handler's default heads (``costfuse-train --data data/sm90_inductor_v1 --data data/sm90_v2 --data
data/sm90_v1 --export costfuse/models/inductor``, docs/inductor.md)."""

HANDLER_SPILL_CUT = "recall"
"""The spill head's cut the handler decides at: the cut that kept 95% of the training programs'
spilling kernels out (``decision_threshold``), not the F1-best one the pass uses.  The heads learned
CostFuse's own lowering; on Inductor's kernels the F1 cut let picks spill that ptxas caught
(``experiments/results/inductor_report.md`` is measured at this cut; ``python
experiments/inductor_report.py --spill-cut f1 --report -`` prints the same report at the F1 cut)."""
PRUNE_SPILL_CUT = "f1"
"""The cut ``prune`` drops Inductor's candidates at: the F1-best one, not the handler's recall cut.  Inductor
still compiles and times what ``prune`` keeps, and drops a spilling config after compiling it, so a spilling
candidate kept costs one compile, while a spill-free one dropped may be the fastest config lost; at the recall
cut ``prune`` dropped 8.4% of Inductor's spill-free candidates (``experiments/results/inductor_report.md``)."""
DECISION_RULE = f"persistent-first,expected-time-{SPILL_SLOWDOWN:g}"   # in the uuid: a new rule, a new cache key


@dataclass(frozen=True)
class Pick:
    """A learned decision: the launch, P(spill), why, and the predicted registers per thread.

    The registers are predicted when first read (the log line, the report), not while Inductor waits for
    the launch: the register head's call was a tenth of a decision's time inside Inductor's codegen
    (``experiments/results/inductor_report.md``), for a figure the decision does not use."""

    launch: KernelLaunch
    p_spill: float
    reason: str
    regs_of: Callable[[KernelLaunch], float] = field(repr=False, compare=False)

    @cached_property
    def predicted_regs(self) -> float:
        return float(self.regs_of(self.launch))


def _as_pick(est, regs_of) -> Pick:
    """The :class:`Pick` of a ``learned_pick`` estimate (``regs_of``: a launch's predicted registers)."""
    return Pick(est.launch, float(est.p_spill), est.reason, regs_of)


@lru_cache(maxsize=4096)
def _inductor_space(pointwise: bool, n: int, n_rows: int, mode: str | None) -> tuple[tuple[KernelLaunch, ...],
                                                                                     LaunchArrays]:
    """The configs of :func:`costfuse.launch.config_space` Inductor can generate for a kernel of this kind and
    size (of ``mode`` only, unless ``None``), and those as :class:`costfuse.launch.LaunchArrays`: the same for
    every kernel of a model's layers, so built once."""
    space = tuple(c for c in space_of(pointwise, n, n_rows)
                  if inductor_can_launch(c) and (mode is None or c.mode == mode))
    return space, frozen_launch_arrays(space)


def model_uuid(decider: "Decider", mode: str) -> str:
    """``costfuse-MODE-vN-HASH``: the handler's mode, the group feature schema this code computes (N) and a hash
    of the model bundle (its metadata and every head's trees) and of the decision rule as ``decider`` holds it
    now (cut, rule, :attr:`Decider.persistent_first`, :attr:`Decider.spill_slowdown`, :attr:`Decider.prune_cut`),
    so Inductor's caches never serve code decided by another model or rule."""
    heads = decider.heads
    digest = hashlib.sha256(decider.bundle_digest.encode())
    digest.update(f"{heads.spill_cut}:{heads.threshold}:{DECISION_RULE}:"
                  f"{decider.persistent_first}:{decider.spill_slowdown!r}:{decider.prune_cut}".encode())
    return f"costfuse-{mode}-v{GROUP_FEATURE_SCHEMA_VERSION}-{digest.hexdigest()[:16]}"


@dataclass
class Decider:
    """The group heads of ``group_model`` (default: the handler's, :data:`SHIPPED_INDUCTOR_MODEL_DIR`) deciding
    Inductor kernels for ``arch``."""

    group_model: str = ""
    arch: str = "sm_90"
    spill_cut: str = "f1"
    persistent_first: bool = True
    """Persistent whenever the heads predict a persistent config spill-free (issue #25's goal: persistent
    wherever ptxas finds one spill-free), the fastest such config by the analytical time; else the
    fastest config of every mode.  The analytical time alone nearly always preferred looped configs on
    Inductor's kernels, since its L2 model lets a looped kernel's re-reads hit L2 (an estimate no GPU has
    checked): ``False`` restores that, and ``experiments/results/inductor_report_fastest.md`` measures it."""
    spill_slowdown: float = SPILL_SLOWDOWN
    """The expected-time weight (:data:`costfuse.cost_models.learned_groups.SPILL_SLOWDOWN`); 1 ranks by the
    analytical time alone, the rule that let 2 of 46 picks spill."""
    prune_cut: str = PRUNE_SPILL_CUT
    """The cut ``prune`` drops Inductor's candidates at (:data:`PRUNE_SPILL_CUT`).  No one cut meets both of
    ``prune``'s goals on both of the sets it is judged on (docs/inductor.md), so the trade is the user's:
    ``recall`` drops more of the spilling candidates and more of the spill-free ones."""
    heads: GroupHeads = field(init=False, repr=False)

    def __post_init__(self):
        from costfuse.cost_models.bundle import require_arch
        from costfuse.cost_models.learned_groups import SPILL_CUTS

        if self.prune_cut not in SPILL_CUTS:
            raise ValueError(f"costfuse.inductor: prune_cut must be one of {', '.join(SPILL_CUTS)}, "
                             f"got {self.prune_cut!r}")

        self.target = get_target(self.arch)
        source = self.group_model or str(SHIPPED_INDUCTOR_MODEL_DIR)
        bundle = load_group_heads(source)
        require_arch(bundle.metadata, self.arch, False, f"group model {source}")
        self.heads = GroupHeads(bundle, self.spill_cut)
        self.heads.cut_threshold(self.prune_cut)   # a cut the bundle does not record: refused here, not mid-compile

    @cached_property
    def bundle_digest(self) -> str:
        """SHA-256 of the heads' bundle: its metadata and every head's trees (hashed once; ``uuid()`` adds the
        rule, which may change)."""
        digest = hashlib.sha256(json.dumps(self.heads.bundle.metadata, sort_keys=True, default=str).encode())
        for name in sorted(self.heads.bundle.heads):
            digest.update(self.heads.bundle.heads[name].raw)
        return digest.hexdigest()

    def pick(self, kernel, mode: str | None = None) -> tuple[Pick | None, str]:
        """``(Pick, "")`` for ``kernel``, among the configs of ``mode`` Inductor can generate; ``(None, why)``
        when the heads cannot decide it.  ``mode`` ``None``: persistent when the heads predict some
        persistent config spill-free and :attr:`persistent_first`, else the fastest of every mode (see
        :attr:`persistent_first`), in one walk over the space (``learned_pick``'s ``lead``)."""
        space, arrays = _inductor_space(kernel.pointwise, kernel.n, kernel.n_rows, mode)
        if not space:
            return None, f"no {mode or 'Inductor'} config fits the kernel"
        lead = "persistent" if mode is None and self.persistent_first else None
        est, why = learned_pick(self.heads, kernel, self.target, static=kernel.group_columns, configs=list(space),
                                spill_slowdown=self.spill_slowdown, regs=False, arrays=arrays, lead=lead)
        if est is None:
            return None, why
        return _as_pick(est, partial(self._regs_at, kernel)), ""

    def _regs_at(self, kernel, launch: KernelLaunch) -> float:
        """The register head's prediction for ``kernel`` at ``launch`` (a :class:`Pick`'s, when read)."""
        return float(self.heads.regs_of(self.features(kernel, [launch]))[0])

    def features(self, kernel, launches: list[KernelLaunch]) -> np.ndarray:
        """Feature rows (group schema v5) of ``kernel`` at ``launches``."""
        return group_features(kernel, launches, self.arch, kernel.group_columns)

    def predict(self, kernel, launches: list[KernelLaunch], cut: str | None = None) -> dict[str, np.ndarray]:
        """Per launch: ``p_spill``, ``spills`` (P(spill) at or above the cut: the decider's, or ``cut``),
        ``regs`` (predicted registers per thread) and ``in_range`` (every column inside the training range)."""
        X = self.features(kernel, launches)
        out = self.heads.predict(X, spill_bytes=False)
        if cut is not None:
            out["spills"] = out["p_spill"] >= self.heads.cut_threshold(cut)
        outside, _ = self.heads.outside(X)
        return {"p_spill": out["p_spill"], "spills": out["spills"], "in_range": ~outside,
                "regs": self.heads.regs_of(X)}

    def always_spills(self, kernel) -> bool | None:
        """Whether every config of ``kernel``'s space is predicted to spill; ``None`` when the kernel lies
        outside the training range (the heads do not know).  Configs go least register-hungry first (the
        analytical estimate, :func:`costfuse.estimates.row_registers` on the space's cached arrays) and are
        featurized and predicted in growing batches (:func:`batches`); the walk stops at the first batch
        holding a spill-free one, most often the first, so a fusion verdict featurizes a few configs, not
        the whole space (Inductor asks one for every pair of nodes it may fuse)."""
        space = config_space(kernel)
        arrays = space_arrays(kernel)
        regs, _ = row_registers(arrays.mode, arrays.elems_per_thread, kernel.live_full, kernel.reductions,
                                kernel.words)
        for idx in batches(list(np.argsort(regs, kind="stable"))):
            X = self.features(kernel, [space[i] for i in idx])
            if self.heads.outside(X)[1]:   # the group's own columns: the same in every batch
                return None
            if not self.heads.predict(X, spill_bytes=False)["spills"].all():
                return False
        return True
