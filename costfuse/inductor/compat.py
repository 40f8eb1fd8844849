"""Where the handler's seam differs between the torch versions it runs on (2.13 here, 2.11 on the GPU machine).

Two differences matter to :class:`costfuse.inductor.choices.CostFuseChoices`,
found by reading ``torch/_inductor/choices.py`` of torch 2.13 beside an
earlier one (docs/inductor.md, "Torch versions"):

* ``InductorChoices.should_use_cooperative_reduction`` takes
  ``(device, numel, reduction_numel)`` in 2.13, and the kernel's
  ``SIMDKernelFeatures`` alone before;
* ``InductorChoices.customize_fused_kernel_name``, the one choices hook that
  sees a kernel's finished source (where mode ``prune`` files its decision,
  :mod:`costfuse.inductor.prune`), was added in March 2026
  (pytorch/pytorch#177590); a torch without it never calls it, so ``prune``
  files the decision from ``TritonScheduling.define_kernel`` instead, which
  receives the same source on both.

Both are told apart by what the installed torch has, not by its version
string, so a torch between the two works too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect


@functools.lru_cache(maxsize=8)
def _arity(fn) -> int:
    """How many parameters ``fn`` takes: read once per function (``inspect.signature`` cost a twentieth of
    a decision, asked for every reduction)."""
    return len(inspect.signature(fn).parameters)


def should_use_cooperative_reduction(choices, features) -> bool:
    """``choices.should_use_cooperative_reduction`` for ``features``, in whichever signature this torch has."""
    from torch._inductor.choices import InductorChoices

    if _arity(InductorChoices.should_use_cooperative_reduction) == 1:
        return choices.should_use_cooperative_reduction(features)
    nodes = list(features.scheduler_nodes())
    device = nodes[0].get_device() if nodes else None
    if device is None:
        return False
    return choices.should_use_cooperative_reduction(device, features.numel, features.reduction_numel)


def has_source_hook() -> bool:
    """Whether Inductor calls ``customize_fused_kernel_name`` with each kernel's source."""
    from torch._inductor.choices import InductorChoices

    return hasattr(InductorChoices, "customize_fused_kernel_name")


@contextlib.contextmanager
def source_hook(handler, needed: bool | None = None):
    """Inside the block, ``handler.file_source(src)`` sees every Triton kernel's source: through
    ``customize_fused_kernel_name`` when this torch calls it (nothing to do here), else by wrapping
    ``TritonScheduling.define_kernel``.  ``needed``: force the wrapper on (True) or off (False)."""
    needed = (not has_source_hook()) if needed is None else needed
    if not needed:
        yield
        return
    from torch._inductor.codegen.triton import TritonScheduling

    original = TritonScheduling.define_kernel

    def define_kernel(self, src_code, node_schedule, kernel):
        handler.file_source(src_code)
        return original(self, src_code, node_schedule, kernel)

    TritonScheduling.define_kernel = define_kernel
    try:
        yield
    finally:
        TritonScheduling.define_kernel = original
