"""Feature vectors of fused ``linalg.generic`` ops (docs/design.md §1): what the learned
cost model sees.

* ``featurize.features``: ``features(generic, config) -> dict[str, float]`` in
  the stable order ``FEATURE_COLUMNS``, versioned by ``FEATURE_SCHEMA_VERSION``.
* ``featurize.liveness``: live values and Sethi-Ullman numbers of a body.

Deliberately empty otherwise: importing ``featurize`` loads nothing (no MLIR),
and the function ``features`` never shadows the module ``featurize.features``.
"""
