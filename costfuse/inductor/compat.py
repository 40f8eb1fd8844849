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

A third is in Inductor's code generation, not the hook's signatures:

* a persistent reduction pinned at ``XBLOCK=1`` (``fixed_config``) drops its
  x dimension (``TritonKernel.want_no_x_dim``); torch 2.13's
  ``TritonSymbols.get_block_shape`` then skips the row's range tree, 2.11's
  indexes the shape with its missing dimension and raises, on every kernel
  that computes with its row index (a causal mask's ``index_expr``).  Where
  that is so, :func:`x_dim_kept` keeps the dimension, of size 1, as Inductor
  does for its own configs, in the kernels that compute with an index
  (``index_expr``); the others stay as 2.13, and the training data, have them
  (found by ``experiments/torch_compat.sh`` and ``experiments/inductor_report.py``
  on torch 2.11, docs/inductor.md).

All are told apart by what the installed torch has, not by its version
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


def drops_x_dim_safely() -> bool:
    """Whether this torch's block shapes skip a range tree with no tensor dimension (see the module
    docstring); read from ``TritonSymbols.get_block_shape``'s source, and False where it cannot be read."""
    from torch._inductor.codegen.triton import TritonSymbols

    return _skips_trees_without_a_dim(TritonSymbols.get_block_shape)


@functools.lru_cache(maxsize=8)
def _skips_trees_without_a_dim(get_block_shape) -> bool:
    """Read once per function (every install and every harness codegen asks; the source is a file read)."""
    try:
        return "tensor_dim is None" in inspect.getsource(get_block_shape)
    except (OSError, TypeError):
        return False


def computes_with_an_index(kernel) -> bool:
    """Whether Inductor's ``kernel`` computes with an index (an ``index_expr`` op: a causal mask, an iota),
    the kernels whose block shapes torch 2.11 cannot make without an x dimension; true when it cannot tell."""
    features = getattr(kernel, "features", None)
    return features is None or bool(features.contains_op("index_expr"))


@contextlib.contextmanager
def x_dim_kept(needed: bool | None = None):
    """Inside the block, a kernel pinned at ``XBLOCK=1`` that computes with an index keeps its x dimension
    where this torch would fail without it (:func:`drops_x_dim_safely`).  ``needed``: force it on (True) or
    off (False)."""
    needed = (not drops_x_dim_safely()) if needed is None else needed
    if not needed:
        yield
        return
    from torch._inductor.codegen.triton import TritonKernel

    original = TritonKernel.__dict__["want_no_x_dim"]
    TritonKernel.want_no_x_dim = lambda self: original(self) and not computes_with_an_index(self)
    try:
        yield
    finally:
        TritonKernel.want_no_x_dim = original
