"""Spill predictors the group heads must beat, on the group-at-launch features (group schema v5).

* the seed's thresholds (:class:`train.baselines.ThresholdRule` on members and
  body work per element), the live-value rule (one cut on
  ``live_values_per_thread``), and HistGradientBoosting on the same features;
* the peers' fixed rules read as spill predictors, i.e. "this launch is
  outside what the rule would ever run":

  - :class:`InductorRule`: Inductor keeps a reduction persistent only for
    rows up to 1,024 (I1), a persistent tile of more than one row only up to
    4,096 elements (I3), and loops with RBLOCK at most 2,048 (I4) --
    ``costfuse/cost_models/inductor.py`` and docs/peers.md;
  - :class:`XlaRule`: XLA refuses a tile of more than 0.4 x the register
    file's elements (X2, 26,214 on sm_90).

  Both are 0/1 rules: their AUC is that of a hard decision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from costfuse.train.baselines import HistGBBaseline, LiveValueRule, ThresholdRule

from costfuse.cost_models.inductor import MAX_PERSISTENT_BLOCK_NUMEL, PERSISTENT_INNER_MAX
from costfuse.cost_models.xla_triton import TILE_REGISTER_FRACTION
from costfuse.targets import DEFAULT_TARGET

LOOPED_MAX_RBLOCK = 2048            # Inductor I4: max_r on sm_80/sm_90


@dataclass
class _FixedRule:
    """A rule with nothing to fit: ``fit`` is a no-op, ``score`` the 0/1 decision."""

    threshold: float = 0.5

    def fit(self, X: pd.DataFrame, y: np.ndarray, groups=None):
        return self

    def score(self, X: pd.DataFrame) -> np.ndarray:
        return self.predict(X).astype(float)


@dataclass
class InductorRule(_FixedRule):
    name: str = "inductor_rule"

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        x, r = 2.0 ** X["log2_xblock"].to_numpy(), 2.0 ** X["log2_rblock"].to_numpy()
        persistent, looped = X["mode_persistent"].to_numpy() > 0, X["mode_looped"].to_numpy() > 0
        return ((persistent & (r > PERSISTENT_INNER_MAX)) | (persistent & (x > 1) & (x * r > MAX_PERSISTENT_BLOCK_NUMEL))
                | (looped & (r > LOOPED_MAX_RBLOCK)))

    def describe(self) -> str:
        return (f"persistent rblock > {PERSISTENT_INNER_MAX}, or a multi-row persistent tile > "
                f"{MAX_PERSISTENT_BLOCK_NUMEL}, or looped rblock > {LOOPED_MAX_RBLOCK}")


@dataclass
class XlaRule(_FixedRule):
    name: str = "xla_rule"

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return 2.0 ** X["log2_tile"].to_numpy() > TILE_REGISTER_FRACTION * DEFAULT_TARGET.regs_per_sm

    def describe(self) -> str:
        return f"tile elements > {TILE_REGISTER_FRACTION} x {DEFAULT_TARGET.regs_per_sm}"


def group_baselines(n_estimators: int = 300, learning_rate: float = 0.05, seed: int = 0) -> list:
    """Fresh, unfitted spill baselines for the group heads."""
    return [ThresholdRule(chain="n_members", ops="flops_per_elem"), LiveValueRule(feature="live_values_per_thread"),
            HistGBBaseline(n_estimators, learning_rate, seed), InductorRule(), XlaRule()]
