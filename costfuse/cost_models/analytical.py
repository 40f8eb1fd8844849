"""``analytical``: a roofline estimate that needs no training, like XLA's GPU performance model.

Each kernel (a ``linalg.generic`` at the launch config it would get) costs::

    t = max(bytes / HBM bandwidth, flops / peak) + launch overhead + spill traffic / HBM bandwidth

* ``bytes``: what the kernel reads and writes, from the IR (``bytes_total``
  of :mod:`featurize.features`: every input once, outputs, and inits a body
  reads or a reduction accumulates).
* ``flops``: per element, each op class weighs as
  :data:`costfuse.estimates.CLASS_FLOP_WEIGHTS` says (add/mul/compare/cast 1,
  div/sqrt 2, transcendentals 8: libdevice/MUFU sequences), times the
  iteration space;
  the peak halves when the body computes in f64 (non-tensor FP64 is half rate
  on A100, H100/H200 and B200).
* spills: the liveness estimate (``live_regs_est`` = max live 32-bit words x
  elements per thread) beyond the thread's register cap is taken as spilled;
  each spilled word is stored and loaded once (8 bytes, the spill unit of
  :mod:`costfuse.estimates`: ptxas's ``spill stores + spill loads``), per
  thread and per reduction-loop iteration, and charged at HBM bandwidth (local
  memory is DRAM-backed; L1 absorbs some, so this is an upper bound).

The rule (docs/design.md §4): fuse iff ``t(fused) + t(producer, if it survives)
<= (1 - margin) * (t(producer) + t(consumer))``.  A producer with other uses
(``--allow-multi-use``) survives the fusion and still costs its time.

Constants come from :mod:`costfuse.targets`.  The launch config of each
kernel follows ``tile_policy`` (:func:`launch_config_for`): ``heuristic`` is
the config the lowering would pick (``costfuse.launch.heuristic_config``);
``wide`` is the fixed wider-tile policy the experiments also compile at.

Import note (docs/design.md §7): the v1 model reaches into ``featurize``
(lazily, at first use), because §4 defines its spill penalty on featurize's
liveness estimate and a second copy of that analysis would drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from costfuse.estimates import CLASS_FLOP_WEIGHTS, spill_bytes, spill_traffic
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy
from costfuse.targets import Target, get_target

TILE_POLICIES = ("heuristic", "wide")
WIDE_ELEMS_PER_THREAD = 32
"""``wide`` grows the heuristic tile's XBLOCK (same warps, same RBLOCK) by up to 4x, stopping once
a thread holds 32 elements; heuristic pointwise tiles hold 8, so pointwise kernels get exactly
``XBLOCK * 4`` (capped by the lowering's largest tile).  Deterministic, so every cost model is
compiled at the same configs."""
MAX_WIDEN = 4

FLOP_WEIGHTS = {f"n_{cls}": w for cls, w in CLASS_FLOP_WEIGHTS.items()}   # the feature columns that count them


def launch_config_for(xnumel: int, rnumel: int = 1, policy: str = "heuristic"):
    """The ``costfuse.launch.LaunchConfig`` a kernel gets under ``policy`` (see :data:`TILE_POLICIES`).

    ``xnumel``/``rnumel``: parallel and reduced elements (``rnumel = 1`` for pointwise).
    """
    from costfuse.launch import MAX_TILE_ELEMS, LaunchConfig, heuristic_config

    base = heuristic_config(int(xnumel), int(rnumel))
    if policy == "heuristic":
        return base
    if policy != "wide":
        raise ValueError(f"unknown tile policy {policy!r}; choose from {', '.join(TILE_POLICIES)}")
    elems = base.XBLOCK * base.RBLOCK / (32 * base.num_warps)
    f = 1
    while (f < MAX_WIDEN and elems * f * 2 <= WIDE_ELEMS_PER_THREAD
           and base.XBLOCK * f * 2 * base.RBLOCK <= MAX_TILE_ELEMS):
        f *= 2
    return LaunchConfig(base.XBLOCK * f, base.RBLOCK, base.num_warps, base.num_stages)


def kernel_features(op: Any, policy: str = "heuristic") -> dict[str, float]:
    """:func:`featurize.features.features` of ``op`` at the config ``policy`` gives it.

    Raises ``featurize.features.FeatureError`` for ops it cannot describe.
    """
    from costfuse.featurize.features import analyze_generic

    return features_at(analyze_generic(op), policy)


def features_at(static: Any, policy: str) -> dict[str, float]:
    """Static features (``featurize.features.StaticFeatures``) + the launch config ``policy`` gives."""
    from costfuse.featurize.features import combine

    s = static.values
    rnumel = int(s["rnumel"]) if s["is_reduction"] else 1
    return combine(static, launch_config_for(int(s["xnumel"]), rnumel, policy))


def candidate_features(candidate: FusionCandidate, policy: str) -> tuple[dict, dict, dict]:
    """:func:`kernel_features` of (fused, producer, consumer).

    The IR analysis of each op is memoized over the pass run
    (:meth:`FusionCandidate.per_op`): a consumer was usually the fused op of
    the previous decision, so in the pass most decisions analyze one new op.
    """
    from costfuse.featurize.features import analyze_generic

    return tuple(features_at(candidate.per_op(role, analyze_generic), policy)  # type: ignore[return-value]
                 for role in ("fused", "producer", "consumer"))


@dataclass(frozen=True)
class KernelTime:
    """The roofline terms of one kernel, seconds (``spill_bytes``: estimated per thread, store + load)."""

    memory_s: float
    compute_s: float
    launch_s: float
    spill_s: float
    spill_bytes: float
    bytes: float

    @property
    def base_s(self) -> float:
        """Roofline + launch, no spill term."""
        return max(self.memory_s, self.compute_s) + self.launch_s

    @property
    def total_s(self) -> float:
        return self.base_s + self.spill_s


def spill_traffic_bytes(f: dict[str, float], spill_bytes_per_thread: float) -> float:
    """Bytes moved by spills: per-thread spill bytes x threads x reduction-loop iterations."""
    return float(spill_traffic(spill_bytes_per_thread, f["grid_size"] * 32.0 * f["num_warps"], f["reduction_iters"]))


def estimate_spill_bytes(f: dict[str, float], target: Target) -> float:
    """Per-thread spill store + load bytes the liveness estimate implies (0 when it fits)."""
    return float(spill_bytes(f["live_regs_est"], target.reg_cap(int(f["num_warps"]))))


def kernel_time(f: dict[str, float], target: Target, spill_bytes: float | None = None) -> KernelTime:
    """The roofline time of a kernel with features ``f``.

    ``spill_bytes`` (per thread, store + load) defaults to the liveness estimate;
    the learned model passes its own prediction.
    """
    peak = target.fp32_flops_per_s / (2.0 if f["compute_dtype_bits"] >= 64 else 1.0)
    flops = f["numel"] * sum(w * f[k] for k, w in FLOP_WEIGHTS.items())
    spill = estimate_spill_bytes(f, target) if spill_bytes is None else float(spill_bytes)
    return KernelTime(
        memory_s=f["bytes_total"] / target.hbm_bytes_per_s,
        compute_s=flops / peak,
        launch_s=target.launch_overhead_s,
        spill_s=spill_traffic_bytes(f, spill) / target.hbm_bytes_per_s,
        spill_bytes=spill,
        bytes=f["bytes_total"],
    )


def producer_survives(candidate: FusionCandidate) -> bool:
    """Whether the producer still runs after the fusion (its result has other users)."""
    return sum(1 for _ in candidate.producer.results[0].uses) > 1


def time_rule(t_fused: float, t_producer: float, t_consumer: float, survives: bool,
              margin: float) -> tuple[bool, float, float]:
    """``(fuse?, time after, time before)`` under docs/design.md §4's rule with ``margin``."""
    before = t_producer + t_consumer
    after = t_fused + (t_producer if survives else 0.0)
    return after <= (1.0 - margin) * before, after, before


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 4)


@dataclass
class Analytical(EdgePolicy, GroupPolicy):
    """Roofline + launch + liveness spill penalty on ``arch``'s constants (:mod:`costfuse.targets`)."""

    name = "analytical"
    arch: str = "sm_90"
    margin: float = 0.0
    tile_policy: str = "heuristic"
    _target: Target = field(init=False, repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self):
        self._target = get_target(self.arch)
        if self.tile_policy not in TILE_POLICIES:
            raise ValueError(f"--tile-policy must be one of {', '.join(TILE_POLICIES)}, got {self.tile_policy!r}")
        if not 0.0 <= self.margin < 1.0:
            raise ValueError(f"--margin must be in [0, 1), got {self.margin}")

    def decide(self, candidate: FusionCandidate) -> Decision:
        from costfuse.featurize.features import FeatureError

        try:
            feats = candidate_features(candidate, self.tile_policy)
        except FeatureError as err:
            return Decision(False, f"cannot estimate ({err}); left unfused", {})
        return self.decide_features(*feats, producer_survives(candidate))

    def decide_features(self, fused: dict, producer: dict, consumer: dict, survives: bool = False) -> Decision:
        """The decision from the three kernels' feature dicts (what :meth:`decide` computes)."""
        tf, tp, tc = (kernel_time(f, self._target) for f in (fused, producer, consumer))
        ok, after, before = time_rule(tf.total_s, tp.total_s, tc.total_s, survives, self.margin)
        est = {"t_fused_us": _us(after), "t_parts_us": _us(before), "spill_est_bytes": tf.spill_bytes,
               "bytes_saved": tp.bytes + tc.bytes - tf.bytes - (tp.bytes if survives else 0.0)}
        cmp = "<=" if ok else ">"
        why = f"t {after * 1e6:.3g} us {cmp} {1 - self.margin:g} x {before * 1e6:.3g} us (roofline + launch"
        why += f" + est. spill {tf.spill_bytes:.0f} B/thread)" if tf.spill_bytes else " , no spill est.)"
        return Decision(ok, why.replace(" , ", ", "), est)

    def best_config(self, shape) -> GroupEstimate:
        """The fastest config of the kernel by the analytical time (``cost_models/group_time.py``)."""
        from costfuse.cost_models.group_time import score_configs
        from costfuse.launch import config_space, space_arrays

        scores = score_configs(shape, config_space(shape), self._target, arrays=space_arrays(shape))
        i = scores.best()
        why = scores.passed_over(i)
        return scores.estimate(i, f"fastest of {len(scores.configs)} configs by the analytical time"
                               + (f"; {why}" if why else ""))

    def weigh_configs(self, shape):
        """Every config of the space by the analytical time (``--explain=configs``)."""
        from costfuse.cost_models.group_time import score_configs
        from costfuse.launch import config_space, space_arrays

        scores = score_configs(shape, config_space(shape), self._target, arrays=space_arrays(shape))
        return scores.weighed(scores.best(), "the fastest by the analytical time (estimated registers and spills)")
