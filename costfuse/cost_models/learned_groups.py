"""``learned`` for kernel groups: predicted registers and spills at every config (issue #13).

For a candidate group (a :class:`costfuse.kernel.KernelShape`), :meth:`LearnedGroups.best_config`

1. featurizes every config of its space in one call (:mod:`featurize.group_features`, group schema v5);
2. predicts P(spill), spill bytes and registers per config with the group heads
   (``costfuse/models/groups/``, trained on dataset v2 + v1's row kernels by
   ``costfuse-train --data data/sm90_v2 --data data/sm90_v1``);
3. keeps the configs predicted spill-free (predicted spill bytes per thread
   within ``spill_budget``) whose features lie inside the training range;
   "spill-free" is P(spill) below the spill head's cut (:data:`SPILL_CUTS`),
   each read out of fold on the training programs (``train/fit.py``): its
   F1-best ``threshold`` (``spill_cut="f1"``, the default);
   ``decision_threshold`` (``"recall"``), the cut that kept 95% of the
   spilling kernels; or ``precision_threshold`` (``"precision"``), the
   lowest cut whose precision is still 0.8 (issue #29's floor; bundles
   exported since 2026-12-08).  The lower cuts let fewer picks spill but give
   up persistence on long rows that ptxas keeps spill-free
   (``experiments/results/group_decisions.md``,
   ``experiments/results/groups_recall_cut.md``, docs/training.md);
4. takes the fastest of those by the analytical time (``cost_models/group_time.py``),
   its spill traffic being the *predicted* one, to fix the mode (persistent,
   looped or pointwise); within that mode, the config predicted spill-free of
   least expected time, ``time * (1 + (spill_slowdown - 1) * P(spill))``
   (:func:`learned_pick`; ``spill_slowdown=1`` takes the fastest itself; a
   positive ``spill_budget`` weighs the predicted spill traffic instead).

Groups then grow as the analytical policy grows them (the default
``merge_verdict``/``recompute_verdict`` on these estimates).

Fallback: when the group itself lies outside the training range (a row
length, member count or body never seen) or none of its in-range configs is
predicted spill-free, the policy's ``fallback`` (by default the analytical
policy on the same arch and margin) decides that group, and the estimate's
reason starts with ``fallback: analytical`` (``--explain`` shows it;
:attr:`LearnedGroups.group_fallbacks` counts them).

The group heads load on first use (or at once through
:meth:`LearnedGroups.load`, which the CLI calls): constructing the policy does
no I/O.  v1's edges have their own policy,
:class:`costfuse.cost_models.learned.LearnedEdges`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from costfuse.cost_models.bundle import (
    SMALL_BATCH, Bundle, BundleError, LoadsOnFirstUse, check_spill_budget, load_model, require_arch,
)
from costfuse.cost_models.forest_native import native_walk
from costfuse.cost_models.group_time import score_configs
from costfuse.featurize.group_features import (
    GROUP_COLUMNS, GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION, group_features,
)
from costfuse.launch import config_space, launch_arrays, space_arrays
from costfuse.policy import GroupPolicy, microseconds
from costfuse.targets import get_target

SHIPPED_GROUP_MODEL_DIR = Path(__file__).resolve().parents[1] / "models" / "groups"
CUT_KEYS = {"f1": "threshold", "recall": "decision_threshold", "precision": "precision_threshold"}
"""Where the spill head records each cut (``train/fit.py``): its metadata key."""
SPILL_CUTS = tuple(CUT_KEYS)   # the cuts by name, the default first
BATCH = 8           # configs in the first prediction call: most picks lie among the first few


def recorded_cuts(metadata: dict) -> list[str]:
    """The cuts of :data:`SPILL_CUTS` a bundle's spill head records (its ``metadata``), in that order."""
    spill = metadata["heads"]["spill"]
    return [c for c in SPILL_CUTS if CUT_KEYS[c] in spill]


def check_spill_cut(cut: str) -> None:
    """Refuse a spill cut that is not one of :data:`SPILL_CUTS` (the CLI's ``--spill-cut``)."""
    if cut not in SPILL_CUTS:
        raise ValueError(f"--spill-cut must be one of {', '.join(SPILL_CUTS)}, got {cut!r}")


def batches(order: list[int]) -> list[list[int]]:
    """``order`` cut into prediction calls of :data:`BATCH` rows, then twice as many each time up to
    :func:`largest_call`: a call has a fixed cost of about ten rows' worth of NumPy trees (most of a call to
    the compiled ones), so a walk that finds nothing in the first batch makes a few calls, not one per eight
    configs; and with NumPy trees no call grows past what they take, so a decision never imports XGBoost."""
    out, k, size, cap = [], 0, BATCH, largest_call()
    while k < len(order):
        out.append(order[k:k + size])
        k, size = k + size, min(2 * size, cap)
    return out


def largest_call() -> int:
    """The most rows one prediction call of a walk over configs takes: the bundle's ``SMALL_BATCH`` in NumPy
    trees, whose cost grows with the rows, and no limit with the compiled walk, whose fixed cost per call is
    most of a call (:mod:`costfuse.cost_models.forest_native`; which rows a walk predicts in which call
    never changes its answer, only its time)."""
    return SMALL_BATCH if native_walk() is None else sys.maxsize


SPILL_SLOWDOWN = 5.05
"""How much slower a kernel runs if a config the heads call spill-free spills after all, for the expected time
a pick weighs (:func:`learned_pick`'s ``spill_slowdown``): pytorch/pytorch#169256's persistent reduction went
from 1.46 to 7.38 ms with 19,264 spilled bytes (docs/cost_models.md, "Expected time")."""
FALLBACK = "fallback: analytical"
NOT_AN_OPTION = {"cli": False}   # a field the CLI does not offer as an option


def load_group_heads(model: str = "", tracking_uri: str = "") -> Bundle:
    """The group heads (group feature schema v2 to v5: an older bundle takes its own columns) in ``model``: a bundle folder or ``models:/NAME@ALIAS`` (the
    heads registered as ``costfuse-group-...`` at that alias); default the shipped ``costfuse/models/groups``.
    A file is refused, and v1's edge heads are named for what they are
    (:func:`costfuse.cost_models.bundle.load_model`)."""
    source = model or str(SHIPPED_GROUP_MODEL_DIR)
    try:
        bundle = load_model(source, ("spill", "spill_bytes", "regs"), GROUP_FEATURE_SCHEMA_VERSION, tracking_uri)
    except BundleError as err:
        raise ValueError(f"cannot load the group model {err} (train it with costfuse-train "
                         "--data data/sm90_v2 --data data/sm90_v1 --export DIR)") from None
    if "spill" not in bundle.heads:
        raise ValueError(f"group model {source} has no 'spill' head")
    return bundle


@dataclass
class GroupHeads:
    """The loaded group heads with their training ranges, the P(spill) cut the policy decides at
    (``threshold``), and the decisions and fallbacks made."""

    bundle: Bundle
    spill_cut: str = SPILL_CUTS[0]
    decisions: int = 0
    fallbacks: int = 0
    _columns: list = field(init=False, repr=False)

    def __post_init__(self):
        meta = self.bundle.metadata
        # Rows come in this code's columns; a bundle of an older schema knows a prefix of them (its heads
        # take theirs: bundle.load_bundle), and the columns it never saw have no range to leave.
        self._columns = list(GROUP_FEATURE_COLUMNS)
        ranges = meta["feature_ranges"]
        self._lo = np.array([ranges[c][0] if c in ranges else -np.inf for c in self._columns])
        self._hi = np.array([ranges[c][1] if c in ranges else np.inf for c in self._columns])
        self._group_cols = np.array([c in GROUP_COLUMNS for c in self._columns])
        self.threshold = self.cut_threshold(self.spill_cut)

    def cut_threshold(self, cut: str) -> float:
        """The P(spill) threshold of the spill head's cut ``cut`` (:data:`SPILL_CUTS`)."""
        check_spill_cut(cut)
        spill = self.bundle.metadata["heads"]["spill"]
        if CUT_KEYS[cut] not in spill:
            raise ValueError(f"--spill-cut {cut}: the group model's spill head records no {CUT_KEYS[cut]} "
                             f"(re-export it with costfuse-train, or choose another --spill-cut)")
        return float(spill[CUT_KEYS[cut]])

    def predict(self, X: np.ndarray, spill_bytes: bool = True) -> dict[str, np.ndarray]:
        """``p_spill``, ``spills`` and ``spill_bytes`` (per thread, 0 where not spilling) per row of ``X``;
        the bytes head runs only on the rows predicted to spill, and not at all without ``spill_bytes``
        (they are then ``inf``: a zero budget needs only whether a config spills)."""
        heads = self.bundle.heads
        X = np.asarray(X, float)
        p = heads["spill"].predict(X)
        spills = p >= self.threshold
        nbytes = np.zeros(len(X))
        if spills.any():
            nbytes[spills] = (np.maximum(1.0, heads["spill_bytes"].predict(X[spills]))
                              if spill_bytes and "spill_bytes" in heads else np.inf)
        return {"p_spill": p, "spills": spills, "spill_bytes": nbytes}

    def regs(self, x: np.ndarray) -> float:
        """Predicted registers per thread of one feature row (NaN without a register head)."""
        return float(self.regs_of(np.asarray(x, float).reshape(1, -1))[0])

    def regs_of(self, X: np.ndarray) -> np.ndarray:
        """Predicted registers per thread of each row of ``X`` (NaN without a register head)."""
        head = self.bundle.heads.get("regs")
        return head.predict(X) if head else np.full(len(X), np.nan)

    def outside(self, X: np.ndarray) -> tuple[np.ndarray, str]:
        """Per row: outside the training range on any column; and the first group column out of range ("" if none)."""
        bad = (X < self._lo) | (X > self._hi)
        return bad.any(axis=1), self._group_why(X[0], bad[0] & self._group_cols)

    def group_outside(self, static: dict[str, float]) -> str:
        """What :meth:`outside` says of every row, from the group's own columns (``static``:
        :func:`featurize.group_features.group_static`'s, or the few of them a caller knows before it
        describes the kernel), before any config is featurized: a group outside the range is left to the
        fallback at once."""
        n = len(GROUP_COLUMNS)   # the rows' leading columns
        row = np.array([static.get(c, np.nan) for c in GROUP_COLUMNS], float)   # NaN: not given, not compared
        return self._group_why(row, (row < self._lo[:n]) | (row > self._hi[:n]))

    def _group_why(self, row: np.ndarray, group_bad: np.ndarray) -> str:
        if not group_bad.any():
            return ""
        j = int(np.flatnonzero(group_bad)[0])
        return f"{self._columns[j]}={row[j]:.4g} not in [{self._lo[j]:.4g}, {self._hi[j]:.4g}]"


@dataclass
class LearnedGroups(LoadsOnFirstUse, GroupPolicy):
    """The learned group policy (the module docstring); ``spill_budget``: spill bytes per thread (stored +
    loaded) a kernel's config may have; ``spill_slowdown``: how much slower a pick that spills after all is
    taken to run (:data:`SPILL_SLOWDOWN`; 1 picks the fastest config predicted spill-free, the rule before
    issue #29); ``fallback``: who decides a group the heads cannot."""

    name = "learned"
    group_model: str = ""
    tracking_uri: str = ""
    arch: str = "sm_90"
    margin: float = 0.0
    spill_budget: float = 0.0
    spill_cut: str = SPILL_CUTS[0]
    spill_slowdown: float = SPILL_SLOWDOWN
    allow_arch_mismatch: bool = False
    fallback: GroupPolicy | None = field(default=None, metadata=NOT_AN_OPTION)
    _heads: GroupHeads | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self):
        from costfuse.cost_models.analytical import Analytical

        check_spill_budget(self.spill_budget)
        check_spill_cut(self.spill_cut)
        if not self.spill_slowdown >= 1.0:
            raise ValueError(f"--spill-slowdown must be at least 1 (1: P(spill) not weighed), "
                             f"got {self.spill_slowdown}")
        self._target = get_target(self.arch)
        if self.fallback is None:
            self.fallback = Analytical(self.arch, self.margin)

    def _ensure_loaded(self) -> GroupHeads:
        if self._heads is None:
            bundle = load_group_heads(self.group_model, self.tracking_uri)
            require_arch(bundle.metadata, self.arch, self.allow_arch_mismatch,
                         f"group model {self.group_model or 'costfuse/models/groups'}")
            self._heads = GroupHeads(bundle, self.spill_cut)
        return self._heads

    @property
    def heads(self) -> GroupHeads:
        """The group heads, loaded on first use and checked against ``arch``."""
        return self._ensure_loaded()

    @property
    def group_fallbacks(self) -> tuple[int, int]:
        """(group decisions made, of which the fallback took) so far."""
        h = self._heads
        return (0, 0) if h is None else (h.decisions, h.fallbacks)

    @property
    def _slowdown(self) -> float:
        """``spill_slowdown`` where it applies: at a zero budget only (a positive one weighs the predicted
        spill traffic instead, :func:`learned_pick`); 1 elsewhere."""
        return self.spill_slowdown if self.spill_budget <= 0 else 1.0

    def best_config(self, shape):
        """The config predicted spill-free of least expected time in the fastest one's mode
        (see :func:`best_config`)."""
        return best_config(self.heads, shape, self._target, self.spill_budget, self.fallback, self._slowdown)

    def weigh_configs(self, shape):
        """Every config with its predicted P(spill) and registers (see :func:`weigh_configs`)."""
        return weigh_configs(self.heads, shape, self._target, self.spill_budget, self.fallback, self._slowdown)

    def ranked_configs(self, shape):
        """For ``--verify-picks`` (:mod:`costfuse.verify_picks`): every config with its analytical estimates,
        ordered as this policy prefers them (:func:`expected_time_order`: the pick first, then the next in the
        same ranking, so a spilling pick's replacement is the policy's own second choice).  ``None`` for a
        group outside the training range (its fallback's order, the analytical one, applies)."""
        configs, arrays = config_space(shape), space_arrays(shape)
        X = group_features(shape, configs, self._target.arch, arrays=arrays)
        out_of_range, why = self.heads.outside(X)
        if why:
            return None
        base = score_configs(shape, configs, self._target, predicted_spill=np.zeros(len(configs)), arrays=arrays)
        pred = self.heads.predict(X, spill_bytes=False)
        return base, expected_time_order(base, pred["p_spill"], ~pred["spills"] & ~out_of_range, self._slowdown)


def best_config(heads: GroupHeads, shape, target, spill_budget: float, fallback, spill_slowdown: float):
    """The learned policy's config for ``shape`` (see the module docstring); a ``GroupEstimate``:
    :func:`learned_pick`'s, or ``fallback``'s when the heads cannot decide (the reason says why)."""
    heads.decisions += 1
    est, why = learned_pick(heads, shape, target, spill_budget, spill_slowdown=spill_slowdown)
    return est if est is not None else _fallback(heads, fallback, shape, why)


def learned_pick(heads: GroupHeads, shape, target, spill_budget: float = 0.0,
                 static: dict[str, float] | None = None, configs: list | None = None, spill_slowdown: float = 1.0,
                 regs: bool = True, arrays=None, lead: str | None = None):
    """``(estimate, "")`` of the fastest config of ``shape`` (a :class:`costfuse.row_kernel.RowKernel`)
    predicted spill-free, or ``(None, why)`` when the heads cannot decide: the group lies outside the
    training range, or no config is predicted within ``spill_budget``.  ``static``: the group's
    config-independent columns, for a row kernel that is not a Linalg group (the Inductor handler's);
    ``configs``: the configs to choose among (default: its whole :func:`costfuse.launch.config_space`),
    ``arrays`` them as :class:`costfuse.launch.LaunchArrays` where the caller keeps those (the whole
    space's are :func:`costfuse.launch.space_arrays`, kept per space).
    The estimate's ``p_spill`` is the pick's P(spill); its ``regs`` the register head's prediction there,
    unless ``regs`` is false (then NaN: a caller that only runs the pick skips that head's call).

    With a zero budget a config within it spills nothing, so its time is the
    analytical time without spill traffic: the answer is the first config in
    that order the heads predict spill-free.  So the heads run on
    growing batches in that order (:func:`batches`) and stop there (most groups
    need one or two batches, where predicting the whole space cost 5-15 ms).
    A positive budget lets spill traffic reorder configs, so then every
    config is predicted.

    ``spill_slowdown`` above 1 (zero budget only): the fastest config
    predicted spill-free fixes the mode (persistent, looped or pointwise: what
    decides the bytes); among that mode's configs predicted spill-free, the
    pick is the one of least expected time, ``time * (1 + (spill_slowdown -
    1) * P(spill))``, the kernel running ``spill_slowdown`` times slower if it
    spills after all.  The time model parts a mode's configs by a wave or two
    (well under 1%), and the fastest by a hair is often the one at the edge
    of the register file, where a miss of the spill head costs most
    (:data:`SPILL_SLOWDOWN`).
    The mode stays the time's choice: across modes the bytes differ, and a
    safer mode that moves more bytes is not what the weight is for.  Batches
    go on until the next one's fastest time cannot beat the best expected time.

    ``lead`` (zero budget only): a mode whose configs the heads walk first, each
    mode in time order, so the pick is of that mode whenever one of its configs
    is predicted spill-free, and of the time's choice otherwise: the Inductor
    handler's persistent-first rule in one walk over the whole space, where two
    walks (the lead mode's configs, then the rest) featurized, scored and
    predicted twice (``experiments/results/inductor_report.md``).
    """
    if lead is not None and spill_budget > 0:
        raise ValueError("learned_pick: a lead mode orders the walk of a zero spill budget, not a positive one")
    why = heads.group_outside(static) if static is not None else ""   # a kernel's own columns: refused at once
    if not why:
        if configs is None:
            configs, arrays = config_space(shape), space_arrays(shape)
        elif arrays is None:
            arrays = launch_arrays(configs)
        X = group_features(shape, configs, target.arch, static, arrays=arrays)
        out_of_range, why = heads.outside(X)
    if why:
        return None, f"group outside the training range ({why})"
    base = score_configs(shape, configs, target, predicted_spill=np.zeros(len(configs)), arrays=arrays)
    by_time = np.argsort(base.time_s, kind="stable")
    if lead is not None:   # the lead mode's configs first, each part still in time order
        by_time = by_time[np.argsort(arrays.mode[by_time] != lead, kind="stable")]
    order = by_time[~out_of_range[by_time]].tolist()
    rejected = np.where(out_of_range, "is outside the training range", "").tolist()   # for --explain (issue #29)
    if spill_budget <= 0 and spill_slowdown > 1:
        first = BATCH + (0 if lead is None else int(np.count_nonzero((arrays.mode == lead) & ~out_of_range)))
        return _least_expected_time(heads, X, base, order, spill_slowdown, rejected, arrays.mode.tolist(), regs,
                                    first)
    scored = 0
    for idx in ([order] if spill_budget > 0 else batches(order)):
        pred = heads.predict(X[idx], spill_bytes=spill_budget > 0)
        scored += len(idx)
        ok = np.flatnonzero(pred["spill_bytes"] <= spill_budget)
        for k in np.flatnonzero(pred["spill_bytes"] > spill_budget):
            rejected[idx[k]] = (f"is predicted to spill (P(spill)={pred['p_spill'][k]:.2f})" if spill_budget <= 0
                                else "is predicted to spill past the budget")
        if not len(ok):
            continue
        if spill_budget > 0:    # spill traffic within the budget reorders the configs
            spill = np.zeros(len(configs))
            spill[idx] = pred["spill_bytes"]
            allowed = np.zeros(len(configs), bool)
            allowed[np.array(idx)[ok]] = True
            scores = score_configs(shape, configs, target, predicted_spill=spill, arrays=arrays)
            i = scores.best(allowed)
            j = idx.index(i)
        else:
            j, scores = int(ok[0]), base
            i = idx[j]
        est = scores.estimate(i, f"learned: fastest config predicted spill-free (P(spill)={pred['p_spill'][j]:.2f}), "
                                 f"{scored} of {len(configs)} configs predicted in analytical-time order", rejected)
        return replace(est, regs=heads.regs(X[i]) if regs else float("nan"), p_spill=float(pred["p_spill"][j])), ""
    return None, f"no config of {len(configs)} predicted within the spill budget"


def _least_expected_time(heads: GroupHeads, X: np.ndarray, base, order: list[int], spill_slowdown: float,
                         rejected: list[str], modes: list[str], regs: bool, first: int):
    """:func:`learned_pick` with ``spill_slowdown``: the mode of the fastest config predicted spill-free, then
    that mode's config predicted spill-free of least expected time (configs in ``order``, fastest first).
    ``rejected``: why each config was turned down so far (filled in here with the predicted spills), for the
    reason a looped pick gives for the persistent config of fewer bytes it passed over (issue #29).
    ``first``: the configs of the first call (then twice as many each call): with a lead mode, its whole
    part and :data:`BATCH` more, so a pick of that mode takes one call and a pick past it one call fewer
    (the rows a call predicts never change the pick, only the time: a call's fixed cost, cold inside
    Inductor's codegen, is several rows' worth, ``experiments/results/inductor_report.md``).  ``modes``: each
    config's mode, in a list (the launch arrays' modes: asking a few hundred configs for theirs cost more)."""
    best = None   # (expected time, config index, P(spill))
    mode, scored, todo, size = None, 0, list(order), min(first, largest_call())
    times, cap = base.time_s.tolist(), largest_call()
    while todo and (best is None or times[todo[0]] < best[0]):
        if best is None:   # looking for the mode: batches as batches() cuts them
            idx, todo, size = todo[:size], todo[size:], min(2 * size, cap)
        else:   # then the configs that can still win (time below the best expected time), as many as a call takes
            todo = [i for i in todo if times[i] < best[0]]
            idx, todo = todo[:cap], todo[cap:]
        pred = heads.predict(X[idx], spill_bytes=False)
        scored += len(idx)
        for k in np.flatnonzero(pred["spills"]):
            rejected[idx[k]] = f"is predicted to spill (P(spill)={pred['p_spill'][k]:.2f})"
        ok = [k for k in np.flatnonzero(~pred["spills"]) if mode is None or modes[idx[k]] == mode]
        if not ok:
            continue
        if mode is None:
            mode = modes[idx[ok[0]]]
            ok = [k for k in ok if modes[idx[k]] == mode]
            todo = [i for i in todo if modes[i] == mode]
        expected = expected_time(base.time_s[idx], pred["p_spill"], spill_slowdown)
        k = min(ok, key=lambda k: expected[k])
        if best is None or expected[k] < best[0]:
            best = (float(expected[k]), idx[k], float(pred["p_spill"][k]))
    if best is None:
        return None, f"no config of {len(base.configs)} predicted within the spill budget"
    _, i, p = best
    est = base.estimate(i, f"learned: the {mode} config predicted spill-free of least expected time (P(spill)={p:.2f}, "
                           f"{spill_slowdown:g}x the time if it spills), {scored} of {len(base.configs)} configs "
                           "predicted in analytical-time order", rejected)
    return replace(est, regs=heads.regs(X[i]) if regs else float("nan"), p_spill=p), ""


def expected_time(time_s, p_spill, spill_slowdown: float):
    """A config's expected time if it runs ``spill_slowdown`` times slower when it spills, which it does
    with probability ``p_spill`` (docs/cost_models.md, "Expected time")."""
    return time_s * (1.0 + (spill_slowdown - 1.0) * p_spill)


def expected_time_order(base, p_spill: np.ndarray, free: np.ndarray, spill_slowdown: float) -> list[int]:
    """Config indices best first by :func:`learned_pick`'s rule at a zero budget, with every config
    predicted (``p_spill``; ``free``: predicted spill-free and in the training range): the configs ``free``
    in the mode of the fastest free one, by expected time, then the other free ones, then the rest, each
    by the analytical time (ties keep the time's order, as the batched pick does).  Its first entry is
    the pick; :meth:`LearnedGroups.ranked_configs` and :func:`weigh_configs` both read it, so the order
    ``--verify-picks`` walks and the verdicts ``--explain=configs`` prints agree with the pick.
    ``spill_slowdown`` 1: free configs first, by the time alone (the pick is the fastest of them)."""
    order = [int(i) for i in np.argsort(base.time_s, kind="stable")]
    first = next((i for i in order if free[i]), None)
    if first is None or spill_slowdown <= 1:
        return sorted(order, key=lambda i: not free[i])
    mode = base.configs[first].mode
    lead = [i for i in order if free[i] and base.configs[i].mode == mode]
    expected = expected_time(base.time_s, p_spill, spill_slowdown)
    return (sorted(lead, key=lambda i: expected[i]) + [i for i in order if free[i] and i not in lead]
            + [i for i in order if not free[i]])


def _passed_over_for_risk(base, pick: int, p_spill: np.ndarray, allowed: np.ndarray,
                          spill_slowdown: float) -> dict[int, str]:
    """``--explain=configs`` verdicts for the configs predicted spill-free whose analytical time alone is
    below an expected-time pick's expected time, where "slower than the pick" would not say why they lost:
    those of the pick's mode lost on their expected time (their P(spill) weighed), the others on the mode,
    which the fastest of them fixes."""
    mode = base.configs[pick].mode
    expected = expected_time(base.time_s, p_spill, spill_slowdown)
    fastest = base.best(allowed)
    out = {}
    for i in np.flatnonzero(allowed & (base.time_s <= expected[pick])):
        i = int(i)
        if i == pick:
            continue
        if base.configs[i].mode == mode:
            mine, theirs = microseconds(float(expected[i]), float(expected[pick]))
            out[i] = f"expected time {mine} us (P(spill) {p_spill[i]:.2f}) vs the pick's {theirs} us"
        else:
            out[i] = (f"{base.configs[i].mode}, not the {mode} mode of the fastest config predicted spill-free "
                      f"({base.configs[fastest].short()}), which the time fixes")
    return out


def weigh_configs(heads: GroupHeads, shape, target, spill_budget: float, fallback, spill_slowdown: float):
    """What :func:`best_config` weighs, spelled out for ``--explain=configs``: every config of the space,
    fastest first by the analytical time, with the heads' P(spill) and registers for each config inside
    the training range (all of them are predicted here, where :func:`best_config` stops at the first
    batch holding a spill-free one: the pick is the same, :func:`expected_time_order`'s first), and why
    each lost.  A group the heads cannot decide is weighed by ``fallback``, each verdict saying so."""
    configs, arrays = config_space(shape), space_arrays(shape)
    X = group_features(shape, configs, target.arch, arrays=arrays)
    out_of_range, why = heads.outside(X)
    if why:
        weighed = fallback.weigh_configs(shape) or []
        return [replace(w, verdict=f"{FALLBACK} (group outside the training range: {why}): {w.verdict}")
                for w in weighed]
    inside = np.flatnonzero(~out_of_range)
    p_spill, regs, spill = (np.full(len(configs), np.nan) for _ in range(3))
    spill[:] = 0.0
    if len(inside):
        pred = heads.predict(X[inside])   # the bytes too, to show them (best_config skips them at budget 0)
        p_spill[inside], spill[inside] = pred["p_spill"], pred["spill_bytes"]
        regs[inside] = heads.regs_of(X[inside])
    allowed = ~out_of_range & (spill <= spill_budget)
    scores = score_configs(shape, configs, target,
                           predicted_spill=spill if spill_budget > 0 else np.zeros(len(configs)), arrays=arrays)
    weighs_risk = spill_budget <= 0 and spill_slowdown > 1
    pick = (scores.best(allowed) if not weighs_risk or not allowed.any()
            else expected_time_order(scores, p_spill, allowed, spill_slowdown)[0])
    if pick is None:
        weighed = fallback.weigh_configs(shape) or []
        return [replace(w, verdict=f"{FALLBACK} (no config predicted within the spill budget): {w.verdict}")
                for w in weighed]
    rejected = {}
    for i in range(len(configs)):
        if out_of_range[i]:
            rejected[i] = "outside the training range: not predicted"
        elif not allowed[i]:
            rejected[i] = (f"predicted to spill (P(spill) {p_spill[i]:.2f} >= cut {heads.threshold:.2f})"
                           if spill_budget == 0 else f"predicted spill {spill[i]:.0f} B > budget {spill_budget:g} B")
    cut = f"P(spill) {p_spill[pick]:.2f} < cut {heads.threshold:.2f}"
    why = f"the fastest predicted spill-free ({cut}) by the analytical time"
    if weighs_risk:
        rejected.update(_passed_over_for_risk(scores, pick, p_spill, allowed, spill_slowdown))
        expected = float(expected_time(scores.time_s[pick], p_spill[pick], spill_slowdown))
        why = (f"the {scores.configs[pick].mode} config predicted spill-free ({cut}) of least expected time "
               f"({expected * 1e6:.2f} us, {spill_slowdown:g}x the time if it spills)")
    return scores.weighed(pick, why, rejected, p_spill, regs, np.where(out_of_range, np.nan, spill))


def _fallback(heads: GroupHeads, fallback, shape, why: str):
    heads.fallbacks += 1
    est = fallback.best_config(shape)
    return replace(est, reason=f"{FALLBACK} ({why}): {est.reason}")
