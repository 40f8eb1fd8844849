"""What the workload tests and the GPU campaign's checks share about the workloads' inputs."""

from __future__ import annotations

# Inputs that are non-negative by construction (AdamW's exp_avg_sq, a running mean of squares): the oracle's
# inputs are uniform in [-2, 2], and a negative second moment would make sqrt NaN on both sides, testing nothing.
NON_NEGATIVE = {"adamw": (3,)}
