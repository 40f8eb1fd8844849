"""``always``: fuse every legal edge, as upstream ``linalg-fuse-elementwise-ops`` does."""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.cost_models.base import CostModel, Decision, FusionCandidate


@dataclass
class Always(CostModel):
    """Upstream behaviour; the reference every other model is compared with."""

    name = "always"

    def decide(self, candidate: FusionCandidate) -> Decision:
        return Decision(True, "always fuse a legal edge", {"chain_length": candidate.chain_length})
