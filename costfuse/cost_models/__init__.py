"""Cost models by CLI name.  Add a model here and its dataclass fields become CLI options."""

from __future__ import annotations

from costfuse.cost_models.always import Always
from costfuse.cost_models.base import CostModel, Decision, FusionCandidate
from costfuse.cost_models.threshold import Threshold

MODELS: dict[str, type[CostModel]] = {m.name: m for m in (Always, Threshold)}

__all__ = ["MODELS", "Always", "CostModel", "Decision", "FusionCandidate", "Threshold"]
