"""The catalog of cost models: which class answers each seam for each CLI name.

A CLI name (``--cost-model learned``) stands for a policy on both seams of
:mod:`costfuse.policy`: v1's edges (``--fusion elementwise``) and kernel
groups (``--fusion groups``).  Most models answer both in one class; the
learned model has one class per seam.  The catalog names the classes as
``module:Class`` and imports one only when asked for it, so importing a pass
or the group formation never loads every model (nor XGBoost-format bundles,
featurize or NumPy trees it does not use).  Add a model here and its
dataclass fields become CLI options.
"""

from __future__ import annotations

import importlib

SEAMS = ("edges", "groups")
CATALOG: dict[str, dict[str, str]] = {
    "always": {"edges": "always:Always", "groups": "always:Always"},
    "threshold": {"edges": "threshold:Threshold", "groups": "threshold:Threshold"},
    "analytical": {"edges": "analytical:Analytical", "groups": "analytical:Analytical"},
    "learned": {"edges": "learned:LearnedEdges", "groups": "learned_groups:LearnedGroups"},
    "inductor": {"edges": "inductor:Inductor", "groups": "inductor:Inductor"},
    "xla": {"edges": "xla:Xla", "groups": "xla:Xla"},
    "xla-triton": {"edges": "xla_triton:XlaTriton", "groups": "xla_triton:XlaTriton"},
}
NAMES = tuple(CATALOG)


def policy_class(name: str, seam: str) -> type:
    """The class that answers ``seam`` (``edges`` or ``groups``) for the CLI name ``name``."""
    if name not in CATALOG:
        raise ValueError(f"unknown cost model {name!r}; choose from {', '.join(NAMES)}")
    if seam not in SEAMS:
        raise ValueError(f"unknown seam {seam!r}; choose from {', '.join(SEAMS)}")
    module, cls = CATALOG[name][seam].split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def make_policy(name: str, seam: str, **options):
    """An instance of :func:`policy_class` with ``options`` (its fields), its model loaded now where it
    has one (``load``), so a bad model file fails before any pass runs."""
    cls = policy_class(name, seam)
    return cls.load(**options) if hasattr(cls, "load") else cls(**options)


def policy_classes() -> list[type]:
    """Every distinct class of the catalog, in catalog order (the CLI reads their fields)."""
    return list(dict.fromkeys(policy_class(n, s) for n in NAMES for s in SEAMS))
