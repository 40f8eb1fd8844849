"""CostFuse: a learned cost model for fusing MLIR ``linalg.generic`` ops.

Kept deliberately light: importing ``costfuse`` must not pull in MLIR, Triton,
XGBoost or torch, so that ``data``, ``featurize`` and ``train`` can import
pieces of it without cycles (docs/design.md §7).
"""

__version__ = "0.1.0"
