"""Inductor's reduction configs and CostFuse's launches, one as the other.

Inductor spells a reduction kernel's launch as a Triton config: ``XBLOCK``
(rows per program), ``R0_BLOCK`` (row elements per loop step; absent from a
persistent kernel, whose block is the whole padded row), ``num_warps`` and
``num_stages``, with persistence a property of the kernel's source (its
``persistent_reduction`` or ``reduction`` heuristic).  CostFuse spells it as a
:class:`costfuse.launch.KernelLaunch` (mode, ``xblock``, ``rblock``,
``num_warps``).  The report's ``config`` objects use a third, flat spelling
for users: ``{persistent, xblock, rblock, num_warps}``
(:func:`config_dict`).  The three convert here and nowhere else.
"""

from __future__ import annotations

from costfuse.launch import KernelLaunch, next_pow2

NUM_STAGES = 1   # Inductor's reduction configs use one stage; the pinned ones keep it
MAX_R0_BLOCK = 65536
"""The longest row block Inductor generates (``torch._inductor.runtime.hints.TRITON_MAX_BLOCK["R0_"]``,
2.13): a longer row has no persistent kernel in Inductor, whatever the handler would pick."""


def inductor_can_launch(launch: KernelLaunch) -> bool:
    """Whether Inductor can generate ``launch``: its row block within :data:`MAX_R0_BLOCK`."""
    return launch.rblock <= MAX_R0_BLOCK


def launch_of(kwargs: dict, num_warps: int, persistent: bool, n: int) -> KernelLaunch:
    """The launch of an Inductor config (``kwargs``: its ``XBLOCK``/``R0_BLOCK``) for a kernel reducing rows
    of ``n``: persistent kernels hold the padded row, whatever ``R0_BLOCK`` says."""
    x = int(kwargs.get("XBLOCK", 1))
    if persistent:
        return KernelLaunch("persistent", x, next_pow2(n), int(num_warps))
    return KernelLaunch("looped", x, int(kwargs["R0_BLOCK"]), int(num_warps))


def fixed_config(launch: KernelLaunch) -> dict[str, int]:
    """The ``FixedTritonConfig`` dict pinning ``launch`` (``R0_BLOCK`` is the padded row when persistent)."""
    return {"XBLOCK": launch.xblock, "R0_BLOCK": launch.rblock, "num_warps": launch.num_warps,
            "num_stages": NUM_STAGES}


def triton_kwargs(launch: KernelLaunch) -> dict[str, int]:
    """The block constexprs of a Triton config for ``launch`` (no ``R0_BLOCK`` in a persistent kernel)."""
    return {"XBLOCK": launch.xblock} if launch.mode == "persistent" else {"XBLOCK": launch.xblock,
                                                                           "R0_BLOCK": launch.rblock}


def config_dict(launch: KernelLaunch) -> dict:
    """The report's spelling: ``{persistent, xblock, rblock, num_warps}``."""
    return {"persistent": launch.mode == "persistent", "xblock": launch.xblock, "rblock": launch.rblock,
            "num_warps": launch.num_warps}
