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
    """Install CostFuse's handler for every later ``torch.compile`` (see :class:`CostFuseChoices`); usable
    as a context manager (:class:`costfuse.inductor.installation.Installation`).  ``group_model``: a
    group-heads bundle (default: the shipped one); ``spill_cut``: the spill head's cut (default
    :data:`costfuse.inductor.decide.HANDLER_SPILL_CUT`); ``prune_cut``: the cut mode ``prune`` drops
    Inductor's candidates at (default :data:`costfuse.inductor.decide.PRUNE_SPILL_CUT`; ``recall`` drops
    more of the spilling ones and more of the spill-free ones, docs/inductor.md)."""
    from costfuse.inductor.installation import install as _install

    return _install(mode, group_model, arch, spill_cut, veto, prune_cut)


def __getattr__(name: str):
    if name == "CostFuseChoices":
        from costfuse.inductor.choices import CostFuseChoices

        return CostFuseChoices
    raise AttributeError(f"module 'costfuse.inductor' has no attribute {name!r}")
