"""``threshold``: the seed's CostFuse, two fixed limits on the fused op's size.

Fusing a long chain or a large body raises register pressure; the seed's
answer was to stop fusing past a maximum chain length and a maximum number of
payload ops.  It is what the learned model must beat.
"""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.cost_models.always import heuristic_estimate
from costfuse.graph import body_ops
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy, MergeVerdict


@dataclass
class Threshold(EdgePolicy, GroupPolicy):
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

    def best_config(self, shape) -> GroupEstimate:
        return heuristic_estimate(shape, "heuristic config")

    def merge_verdict(self, a, b, ab, merged) -> MergeVerdict:
        """The two knobs on the merged group: members <= max_chain_length, body ops <= max_body_ops."""
        size, ops = len(merged.members), sum(body_ops(m.op) for m in merged.members)
        if size > self.max_chain_length:
            return MergeVerdict(False, 0.0, f"group size {size} > {self.max_chain_length}")
        if ops > self.max_body_ops:
            return MergeVerdict(False, 0.0, f"body ops {ops} > {self.max_body_ops}")
        return MergeVerdict(True, 0.0, f"group size {size} <= {self.max_chain_length}, body ops {ops} <= {self.max_body_ops}")

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None) -> MergeVerdict:
        return MergeVerdict(False, 0.0, "threshold stores a value another kernel reads")
