"""``learned``: XGBoost heads trained on ptxas labels decide each fusion (docs/design.md §4).

For a candidate, the producer, the consumer and the would-be fused generic
are featurized (:mod:`featurize.features`) at the launch config each would
get (``tile_policy``, see :func:`costfuse.cost_models.analytical.launch_config_for`;
``heuristic`` is what the lowering picks), and the model predicts, per kernel,
whether it spills (``spill`` head, at its tuned threshold), how many spill
bytes (``spill_bytes``, store + load per thread) and, when the model has a
``latency`` head (GPU labels), its time.  The rule::

    fuse iff t(fused) + t(producer, if it survives) <= (1 - margin) * (t(producer) + t(consumer))
         and spill(fused) - spill(parts it replaces) <= spill_budget   [bytes per thread]

With no latency head (compile labels only, the usual case), ``t`` is the
analytical roofline plus the traffic of the *learned* spill bytes, and the
reason says so.  If any of the three feature vectors lies outside the
per-feature range seen in training, the analytical model's estimates stand
in for the predictions (its roofline time with its liveness spill penalty, and
its liveness spill estimate against the same budget), and the reason says
which column was out of range.

Predictions are cached per feature vector and computed in one batch per
:meth:`Learned.decide_batch` call, so repeated kernels (the same fused body
seen again, or across experiment grid points) cost one dictionary lookup.

The heads load on first use (or at once through :meth:`LearnedEdges.load`,
which the CLI calls so that a bad ``--model`` fails before the pass runs):
constructing the policy does no I/O, as a scikit-learn estimator's
``__init__`` does none.  Kernel groups have their own policy,
:class:`costfuse.cost_models.learned_groups.LearnedGroups`.

``model``: a bundle folder (``costfuse-train --export``; the format is
:mod:`costfuse.cost_models.bundle`), or an MLflow URI (``models:/NAME@ALIAS``
brings the other heads registered at the same alias,
:mod:`costfuse.cost_models.registry`).  Empty: the shipped bundle in
``costfuse/models/``.  A file is refused rather than read as its folder,
and a model trained on another arch's labels is refused unless
``allow_arch_mismatch``.  Loading imports neither the trainer nor XGBoost:
the trees run in NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from costfuse.cost_models.analytical import (
    Analytical, candidate_features, estimate_spill_bytes, kernel_time, producer_survives, spill_traffic_bytes,
    time_rule,
)
from costfuse.cost_models.bundle import (
    METADATA_FILE, Bundle, BundleError, LoadsOnFirstUse, check_spill_budget, load_model, require_arch,
)
from costfuse.featurize.features import FEATURE_SCHEMA_VERSION
from costfuse.policy import Decision, EdgePolicy, FusionCandidate
from costfuse.targets import get_target

SHIPPED_MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
HEADS_USED = ("spill", "spill_bytes", "latency")


@dataclass(frozen=True)
class KernelPrediction:
    """What the model says about one kernel (one feature vector)."""

    p_spill: float          # P(spill) from the classifier
    spills: bool            # p_spill >= the head's tuned threshold
    spill_bytes: float      # predicted store + load bytes per thread; 0 when ``spills`` is False
    latency_us: float       # nan without a latency head
    in_range: bool          # inside the training range on every feature
    out_of_range: str = ""  # the first offending column, for the reason


def load_heads(model: str = "", tracking_uri: str = "") -> Bundle:
    """The heads the pass uses, from ``model`` (see the module docstring).

    Raises ``ValueError`` with a one-line message for a missing or incompatible model.
    """
    source = model or str(SHIPPED_MODEL_DIR)
    if not model and not (SHIPPED_MODEL_DIR / METADATA_FILE).is_file():
        raise ValueError(f"no shipped model in {SHIPPED_MODEL_DIR} (costfuse-train --data DIR --export "
                         f"{SHIPPED_MODEL_DIR}), so pass --model DIR|models:/NAME@ALIAS")
    try:
        bundle = load_model(source, HEADS_USED, FEATURE_SCHEMA_VERSION, tracking_uri)
    except BundleError as err:
        raise ValueError(f"cannot load model {err}") from None  # err names the file
    if "spill" not in bundle.heads:
        raise ValueError(f"model {source} has no 'spill' head (heads: {', '.join(bundle.heads) or 'none'})")
    return bundle


@dataclass
class LearnedEdges(LoadsOnFirstUse, EdgePolicy):
    """Learned spill (and, with GPU labels, latency) heads + docs/design.md §4's rule; see the module docstring.

    ``spill_budget``: spill bytes per thread (store + load) a fusion may add.
    ``margin``: the fused time must be at least this fraction below the parts'.
    """

    name = "learned"
    model: str = ""
    tracking_uri: str = ""
    arch: str = "sm_90"
    margin: float = 0.0
    spill_budget: float = 0.0
    tile_policy: str = "heuristic"
    allow_arch_mismatch: bool = False
    _bundle: Bundle | None = field(init=False, repr=False, compare=False, default=None)
    _cache: dict = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self):
        check_spill_budget(self.spill_budget)
        self._fallback = Analytical(self.arch, self.margin, self.tile_policy)  # validates those three
        self._target = get_target(self.arch)

    @property
    def bundle(self) -> Bundle:
        """The heads and their metadata, loaded on first use and checked against ``arch``."""
        return self._ensure_loaded()

    def _ensure_loaded(self) -> Bundle:
        if self._bundle is None:
            bundle = load_heads(self.model, self.tracking_uri)
            require_arch(bundle.metadata, self.arch, self.allow_arch_mismatch, f"model {self.source}")
            columns = list(bundle.metadata["feature_columns"])
            ranges = bundle.metadata["feature_ranges"]
            self._columns = columns
            self._lo = np.array([ranges[c][0] for c in columns])
            self._hi = np.array([ranges[c][1] for c in columns])
            self._threshold = float(bundle.metadata["heads"]["spill"]["threshold"])
            self._bundle = bundle
        return self._bundle

    @property
    def heads(self) -> dict:
        return self.bundle.heads

    @property
    def metadata(self) -> dict:
        return self.bundle.metadata

    @property
    def has_latency(self) -> bool:
        return "latency" in self.heads

    @property
    def source(self) -> str:
        """Where the model came from (for reports): the shipped bundle by its path in the repo."""
        return self.model or "costfuse/models (shipped)"

    # --- predictions ------------------------------------------------------------
    def predict_rows(self, rows: list[tuple[float, ...]]) -> list[KernelPrediction]:
        """Predictions for feature rows (each in ``FEATURE_COLUMNS`` order), cached per row."""
        todo = list(dict.fromkeys(r for r in rows if r not in self._cache))
        if todo:
            self._ensure_loaded()
            X = np.asarray(todo, float)
            pred = self._predict(X)
            below, above = X < self._lo, X > self._hi
            for i, row in enumerate(todo):
                p = float(pred["spill"][i])
                spills = p >= self._threshold
                nbytes = max(1.0, float(pred["spill_bytes"][i])) if spills and "spill_bytes" in pred else (
                    math.inf if spills else 0.0)
                bad = np.flatnonzero(below[i] | above[i])
                why = ""
                if len(bad):
                    j = bad[0]
                    why = f"{self._columns[j]}={X[i, j]:.4g} not in [{self._lo[j]:.4g}, {self._hi[j]:.4g}]"
                lat = float(pred["latency"][i]) if "latency" in pred else math.nan
                self._cache[row] = KernelPrediction(p, spills, nbytes, lat, not len(bad), why)
        return [self._cache[r] for r in rows]

    def _predict(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """Each head's prediction in natural units, as ``train.model_io.predict`` (tested equal).

        Small batches (the pass asks about one candidate at a time) run in
        NumPy (:mod:`costfuse.cost_models.forest`; per-call costs against
        ``inplace_predict``: ``experiments/results/bench_decisions.md``);
        see :meth:`bundle.Head.predict`.
        """
        return {name: head.predict(X) for name, head in self.heads.items()}

    def _row(self, f: dict[str, float]) -> tuple[float, ...]:
        return tuple(float(f[c]) for c in self.bundle.metadata["feature_columns"])

    # --- decisions --------------------------------------------------------------
    def decide(self, candidate: FusionCandidate) -> Decision:
        return self.decide_batch([candidate])[0]

    def decide_batch(self, candidates: list[FusionCandidate]) -> list[Decision]:
        """Featurize every candidate's three kernels, predict all new rows in one call, decide each."""
        from costfuse.featurize.features import FeatureError

        feats: list[tuple[dict, dict, dict] | str] = []
        rows: list[tuple[float, ...]] = []
        for c in candidates:
            try:
                fs = candidate_features(c, self.tile_policy)
            except FeatureError as err:
                feats.append(str(err))
                continue
            feats.append(fs)  # type: ignore[arg-type]
            rows += [self._row(f) for f in fs]
        preds = iter(self.predict_rows(rows))
        out = []
        for c, fs in zip(candidates, feats):
            if isinstance(fs, str):
                out.append(Decision(False, f"cannot featurize ({fs}); left unfused", {}))
                continue
            out.append(self._decide(fs, [next(preds) for _ in range(3)], producer_survives(c)))
        return out

    def _decide(self, fs: tuple[dict, dict, dict], preds: list[KernelPrediction], survives: bool) -> Decision:
        pf, pp, pc = preds
        est = {"p_spill": round(pf.p_spill, 4), "spill_pred_bytes": pf.spill_bytes}
        outside = next(((who, p) for who, p in zip(("fused", "producer", "consumer"), preds) if not p.in_range), None)
        if outside is not None:  # the analytical model's times and spill estimates, under the same rule
            d = self._fallback.decide_features(*fs, survives)
            ef, ep, ec = (estimate_spill_bytes(f, self._target) for f in fs)
            added = ef - ec - (0.0 if survives else ep)
            spill_ok = added <= self.spill_budget
            who, p = outside
            why = (f"outside training range ({who} {p.out_of_range}): analytical: {d.reason}, "
                   f"est. spill {added:+.0f} B {'<=' if spill_ok else '>'} budget {self.spill_budget:g} B")
            return Decision(d.fuse and spill_ok, why, {**d.estimates, "spill_added_bytes": added, "in_range": 0})
        if self.has_latency:
            tf, tp, tc = (p.latency_us * 1e-6 for p in preds)
            source = "latency head"
        else:
            tf, tp, tc = (kernel_time(f, self._target, spill_bytes=0.0).base_s
                          + spill_traffic_bytes(f, p.spill_bytes) / self._target.hbm_bytes_per_s
                          for f, p in zip(fs, preds))
            source = "analytical time + learned spill penalty (no latency head)"
        time_ok, after, before = time_rule(tf, tp, tc, survives, self.margin)
        added = pf.spill_bytes - pc.spill_bytes - (0.0 if survives else pp.spill_bytes)
        spill_ok = added <= self.spill_budget
        est.update(spill_added_bytes=added, t_fused_us=round(after * 1e6, 4), t_parts_us=round(before * 1e6, 4))
        t_text = f"t {after * 1e6:.3g} us {'<=' if time_ok else '>'} {1 - self.margin:g} x {before * 1e6:.3g} us"
        s_text = (f"spill {added:+.0f} B {'<=' if spill_ok else '>'} budget {self.spill_budget:g} B "
                  f"(P(spill)={pf.p_spill:.2f})")
        reason = f"{s_text}; {t_text} [{source}]" if not spill_ok else f"{t_text}, {s_text} [{source}]"
        return Decision(time_ok and spill_ok, reason, est)
