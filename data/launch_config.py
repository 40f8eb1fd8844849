"""Moved to :mod:`costfuse.launch` (issue #28): the core owns launch configs.  This name stays until
the data package's importers are rewritten in the same change set."""

from costfuse.launch import (  # noqa: F401
    ALLOWED_WARPS, LOOPED_RBLOCK, MAX_TILE_ELEMS, MAX_XBLOCK_POINTWISE, MAX_XBLOCK_REDUCTION, PERSISTENT_RBLOCK_CAP,
    TILE_ELEMS, LaunchConfig, heuristic_config, neighbour_configs, next_pow2,
)
