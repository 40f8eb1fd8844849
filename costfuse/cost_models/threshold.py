"""``threshold``: the seed's CostFuse, two fixed limits on the fused op's size.

Fusing a long chain or a large body raises register pressure; the seed's
answer was to stop fusing past a maximum chain length and a maximum number of
payload ops.  It is what the learned model must beat.
"""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.cost_models.base import CostModel, Decision, FusionCandidate


@dataclass
class Threshold(CostModel):
    """Fuse iff chain length ≤ ``max_chain_length`` and body ops ≤ ``max_body_ops``."""

    name = "threshold"
    max_chain_length: int = 4
    max_body_ops: int = 32

    def __post_init__(self):
        if self.max_chain_length < 1 or self.max_body_ops < 1:
            raise ValueError("threshold: --max-chain-length and --max-body-ops must be >= 1")

    def decide(self, candidate: FusionCandidate) -> Decision:
        chain, ops = candidate.chain_length, candidate.body_ops
        est = {"chain_length": chain, "body_ops": ops}
        if chain > self.max_chain_length:
            return Decision(False, f"chain length {chain} > {self.max_chain_length}", est)
        if ops > self.max_body_ops:
            return Decision(False, f"body ops {ops} > {self.max_body_ops}", est)
        return Decision(True, f"chain length {chain} <= {self.max_chain_length}, body ops {ops} <= {self.max_body_ops}", est)
