"""Scores for fuse/keep decisions against ptxas's answer, with the baselines they must beat.

Almost every candidate is safe to fuse, so raw agreement flatters: fusing
everything (``always``) already agrees with ptxas on every candidate whose
fused kernel does not spill.  An agreement figure therefore only means
something next to the always-fuse and never-fuse baselines, and the goals are
stated on the rare class instead: a *spilling candidate* is one where ptxas
says keep (the fused kernel spills more than its parts, beyond the budget).
Recall: the share of spilling candidates the model keeps apart; precision:
the share of the model's keeps that are spilling candidates.  A score whose
denominator is empty is ``None`` (undefined), never a goal met.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RECALL_GOAL = 0.95
PRECISION_GOAL = 0.8


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


@dataclass(frozen=True)
class DecisionMetrics:
    """Confusion counts of ``model keeps`` against ``ptxas says keep`` (positive = spilling candidate)."""

    tp: int  # model keeps, ptxas keeps
    fp: int  # model keeps, ptxas fuses
    fn: int  # model fuses, ptxas keeps
    tn: int  # model fuses, ptxas fuses

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def spilling(self) -> int:
        """Candidates where ptxas says keep."""
        return self.tp + self.fn

    @property
    def agreement(self) -> float | None:
        return _ratio(self.tp + self.tn, self.n)

    @property
    def always_fuse_agreement(self) -> float | None:
        """Agreement of a model that fuses every candidate."""
        return _ratio(self.n - self.spilling, self.n)

    @property
    def never_fuse_agreement(self) -> float | None:
        """Agreement of a model that keeps every candidate apart."""
        return _ratio(self.spilling, self.n)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def specificity(self) -> float | None:
        return _ratio(self.tn, self.tn + self.fp)

    @property
    def balanced_accuracy(self) -> float | None:
        """Mean of recall and specificity: 0.5 for always-fuse and never-fuse alike."""
        r, s = self.recall, self.specificity
        return None if r is None or s is None else (r + s) / 2

    @property
    def goals_met(self) -> bool:
        """Recall >= :data:`RECALL_GOAL` and precision >= :data:`PRECISION_GOAL` on spilling candidates."""
        r, p = self.recall, self.precision
        return r is not None and p is not None and r >= RECALL_GOAL and p >= PRECISION_GOAL


def decision_metrics(model_fuses: Sequence[bool], ptxas_fuses: Sequence[bool]) -> DecisionMetrics:
    """Score one decision per candidate (``True``: fuse) against ptxas's answer for the same candidate."""
    if len(model_fuses) != len(ptxas_fuses):
        raise ValueError(f"decision_metrics: {len(model_fuses)} decisions but {len(ptxas_fuses)} ptxas answers")
    pairs = list(zip(model_fuses, ptxas_fuses))
    return DecisionMetrics(tp=pairs.count((False, False)), fp=pairs.count((False, True)),
                           fn=pairs.count((True, False)), tn=pairs.count((True, True)))


def fmt(x: float | None, pct: bool = False) -> str:
    """A score for a report: ``n/a`` when undefined."""
    if x is None:
        return "n/a"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"
