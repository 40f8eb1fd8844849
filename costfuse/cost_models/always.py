"""``always``: fuse every legal edge, as upstream ``linalg-fuse-elementwise-ops`` does."""

from __future__ import annotations

from dataclasses import dataclass

from costfuse.launch import heuristic_launch
from costfuse.targets import DEFAULT_TARGET
from costfuse.policy import Decision, EdgePolicy, FusionCandidate, GroupEstimate, GroupPolicy, MergeVerdict


@dataclass
class Always(EdgePolicy, GroupPolicy):
    """Upstream behaviour; the reference every other model is compared with."""

    name = "always"

    def decide(self, candidate: FusionCandidate) -> Decision:
        return Decision(True, "always fuse a legal edge", {"chain_length": candidate.chain_length})

    def best_config(self, shape) -> GroupEstimate:
        """The heuristic config; no time is estimated (``always`` never compares)."""
        return heuristic_estimate(shape, "heuristic config")

    def merge_verdict(self, a, b, ab, merged) -> MergeVerdict:
        return MergeVerdict(True, 0.0, "always: the largest legal group")

    def recompute_verdict(self, a, b, a_after, b_after, merged_b, producer_op=None) -> MergeVerdict:
        return MergeVerdict(False, 0.0, "always stores a value another kernel reads (upstream recomputes none)")


def heuristic_estimate(shape, reason: str) -> GroupEstimate:
    """A kernel at :func:`costfuse.launch.heuristic_launch`, with its issued and (sm_90) DRAM bytes."""
    launch = heuristic_launch(shape)
    return GroupEstimate(launch, float("nan"), shape.issued_bytes(launch.mode), reason=reason,
                         dram_bytes=shape.dram_bytes_at(launch, DEFAULT_TARGET))
