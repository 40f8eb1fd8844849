"""``install``: make ``torch.compile`` take its reduction configs from CostFuse (docs/inductor.md).

Inductor builds its choices handler from ``torch._inductor.config.inductor_choices_class``,
a factory it calls once per thread and, in torch 2.13, once more for the cache
key (``save_config_portable`` replaces the factory by the handler's ``uuid()``).
The factory installed here is a small picklable dataclass holding the
handler's options and that uuid, so the key also carries the model where a
torch pickles the factory itself instead.  What differs on torch 2.11 is
guarded in :mod:`costfuse.inductor.compat`.  The handler is built once per factory and
process, so its counters (:attr:`CostFuseChoices.stats`) cover every compile.

:func:`install` checks that this torch has the hooks the handler overrides and
refuses with one line naming the missing one.  It also replaces the handler
of the calling thread, which Inductor may have created already.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

HOOKS = ("triton_kernel_kwargs", "should_use_persistent_reduction", "can_fuse_vertical", "uuid")
_HANDLERS: dict = {}


def check_torch() -> None:
    """Raise ``RuntimeError`` naming what this torch lacks of the seam the handler uses."""
    import torch
    from torch._inductor import config
    from torch._inductor.choices import InductorChoices

    missing = [f"InductorChoices.{h}" for h in HOOKS if h != "uuid" and not hasattr(InductorChoices, h)]
    if not hasattr(config, "inductor_choices_class"):
        missing.append("torch._inductor.config.inductor_choices_class")
    try:
        from torch._inductor.codegen.triton import FixedTritonConfig  # noqa: F401
    except ImportError:
        missing.append("torch._inductor.codegen.triton.FixedTritonConfig")
    if missing:
        raise RuntimeError(f"costfuse.inductor: torch {torch.__version__} lacks {', '.join(missing)}")


@dataclass(frozen=True)
class ChoicesFactory:
    """What ``inductor_choices_class`` holds: the handler's options and its uuid (see the module docstring)."""

    mode: str
    group_model: str
    arch: str
    spill_cut: str | None
    veto: bool
    prune_cut: str | None = None
    uuid: str = ""

    def options(self) -> tuple:
        return (self.mode, self.group_model, self.arch, self.spill_cut, self.veto, self.prune_cut)

    def __call__(self):
        handler = _HANDLERS.get(self.options())
        if handler is None:
            from costfuse.inductor.choices import CostFuseChoices

            handler = _HANDLERS[self.options()] = CostFuseChoices(*self.options())
        return handler


class Installation:
    """An installed handler (:attr:`handler`); :meth:`uninstall`, or leave the ``with`` block, to restore
    Inductor's own choices."""

    def __init__(self, factory: ChoicesFactory):
        from torch._inductor import config
        from torch._inductor.virtualized import V

        from costfuse.inductor.compat import source_hook, x_dim_kept   # where torch 2.11 differs

        self.handler = factory()
        self.factory = ChoicesFactory(*factory.options(), uuid=self.handler.uuid())
        self._saved = {"inductor_choices_class": config.inductor_choices_class}
        self._stack = contextlib.ExitStack()
        if factory.mode == "prune":
            from costfuse.inductor.prune import patched

            self._saved["compile_threads"] = config.compile_threads
            config.compile_threads = 1   # the kernels must load where they were decided (costfuse.inductor.prune)
            self._stack.enter_context(patched(self.handler.registry))
            self._stack.enter_context(source_hook(self.handler))
        self._stack.enter_context(x_dim_kept())
        # The thread's handler first: restoring it must find Inductor's own, not one built by our factory.
        self._stack.enter_context(V.set_choices_handler(self.handler))
        config.inductor_choices_class = self.factory

    def uninstall(self) -> None:
        from torch._inductor import config

        self._stack.close()
        for name, value in self._saved.items():
            setattr(config, name, value)

    def __enter__(self) -> "Installation":
        return self

    def __exit__(self, *exc) -> None:
        self.uninstall()


def install(mode: str, group_model: str, arch: str, spill_cut: str | None, veto: bool,
            prune_cut: str | None) -> Installation:
    """:func:`costfuse.inductor.install`'s work (its defaults and documentation are there, where importing
    loads nothing; this module loads torch)."""
    check_torch()
    return Installation(ChoicesFactory(mode, group_model, arch, spill_cut, veto, prune_cut))
