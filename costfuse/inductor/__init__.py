"""CostFuse inside Inductor: a choices handler deciding reductions with the learned heads (docs/inductor.md).

    import costfuse.inductor
    costfuse.inductor.install()          # or: with costfuse.inductor.install(mode="prune"): ...
    compiled = torch.compile(model)      # its reduction kernels now take CostFuse's configs

Importing this package loads nothing; :func:`install` loads torch's Inductor and the group heads (NumPy
only: no XGBoost, MLflow or IREE).
"""

from __future__ import annotations


def install(mode: str = "pin", group_model: str = "", arch: str = "sm_90", spill_cut: str | None = None,
            veto: bool = True, prune_cut: str | None = None):
    """See :func:`costfuse.inductor.installation.install`."""
    from costfuse.inductor.installation import install as _install

    return _install(mode, group_model, arch, spill_cut, veto, prune_cut)


def __getattr__(name: str):
    if name == "CostFuseChoices":
        from costfuse.inductor.choices import CostFuseChoices

        return CostFuseChoices
    raise AttributeError(f"module 'costfuse.inductor' has no attribute {name!r}")
