"""Where CostFuse keeps its on-disk caches: ``$COSTFUSE_CACHE_DIR``, default ``~/.cache/costfuse``.

One root for every cache (compiled kernels and their ptxas results, the
compiled forest walk), so a user moves or clears them all with one variable.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "COSTFUSE_CACHE_DIR"


def cache_dir() -> Path:
    """Root of CostFuse's on-disk caches (``$COSTFUSE_CACHE_DIR`` or ``~/.cache/costfuse``)."""
    root = os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache", "costfuse")
    return Path(root)
