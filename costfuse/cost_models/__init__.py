"""Cost models by CLI name.  Add a model here and its dataclass fields become CLI options."""

from __future__ import annotations

from costfuse.cost_models.always import Always
from costfuse.cost_models.analytical import Analytical
from costfuse.cost_models.base import CostModel, Decision, FusionCandidate
from costfuse.cost_models.inductor import Inductor
from costfuse.cost_models.learned import Learned
from costfuse.cost_models.threshold import Threshold
from costfuse.cost_models.xla import Xla

MODELS: dict[str, type[CostModel]] = {m.name: m for m in (Always, Threshold, Analytical, Learned, Inductor, Xla)}

__all__ = ["MODELS", "Always", "Analytical", "CostModel", "Decision", "FusionCandidate", "Inductor", "Learned",
           "Threshold", "Xla"]
