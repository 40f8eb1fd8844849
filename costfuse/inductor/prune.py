"""Mode ``prune``: Inductor's candidate configs, minus those predicted to spill, plus CostFuse's pick.

Inductor builds a reduction kernel's candidate configs when it loads the
kernel (``triton_heuristics.reduction`` / ``persistent_reduction``, which hand
them to ``cached_autotune``), long after codegen, and no choices hook sees
that list.  So ``prune`` works in two steps:

1. at codegen the handler decides the kernel (:class:`CostFuseChoices`) and,
   in ``customize_fused_kernel_name``, the one hook that sees the finished
   source, files the decision under the source's hash in its :class:`Registry`;
2. :func:`patched` wraps ``triton_heuristics.cached_autotune`` so that, when
   Inductor loads a kernel filed in that registry, :func:`prune_configs` drops
   the candidates the heads predict to spill (at the decider's ``prune_cut``, by default their F1 cut,
   :data:`costfuse.inductor.decide.PRUNE_SPILL_CUT`) and adds the heads' pick in the
   kernel's mode.

The key is Inductor's own lookup hash of the ``@triton.jit`` function's
source (``generate_lookup_hash_from_source_code``, which ignores the kernel's
name), the same key Inductor's ``autotune_lookup_table`` uses for the same
reason.  Both steps must run in one process: :func:`costfuse.inductor.install`
in this mode sets ``compile_threads = 1`` (Inductor's compile workers are
fresh processes that would load the kernel unpruned).  ``cached_autotune`` is
not a public seam: :func:`patched` checks it exists and refuses, naming it,
when it does not (docs/inductor.md lists what was verified on which torch).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections import Counter
from dataclasses import dataclass, field

log = logging.getLogger("costfuse.inductor")
JIT = "@triton.jit\n"
DEF_NAME = re.compile(r"^def [^(]+\(")


def source_key(src: str) -> str:
    """The key of a kernel source: the hash of its ``@triton.jit`` function with the name left out (the
    source at codegen still has a placeholder where the loaded kernel has its name)."""
    import hashlib

    body = src.split(JIT, 1)[1] if JIT in src else src
    body = body[body.index("def "):] if "def " in body else body
    return hashlib.sha256(DEF_NAME.sub("(", body.strip(), count=1).encode()).hexdigest()


@dataclass
class Registry:
    """Decisions filed at codegen, by :func:`source_key`, until Inductor loads the kernel; and what pruning
    did (``stats``: candidates kept, dropped and added)."""

    entries: dict = field(default_factory=dict)
    stats: Counter = field(default_factory=Counter)

    def file(self, src: str, decision, decider) -> None:
        self.entries[source_key(src)] = (decision, decider)

    def take(self, src: str):
        return self.entries.get(source_key(src))


def prune_configs(configs: list, decision, decider, persistent: bool, no_x_dim: bool = False,
                  stats: Counter | None = None) -> list:
    """Inductor's ``configs`` (``triton.Config``) of a kernel ``decision`` decided: those the heads predict
    spill-free, then the heads' pick in the kernel's mode if it is not among them.  When every candidate
    is predicted to spill and there is no pick, Inductor's list stands (the heads cannot help)."""
    import triton

    from costfuse.inductor.configs import NUM_STAGES, launch_of, triton_kwargs

    kernel = decision.kernel
    launches = [launch_of(c.kwargs, c.num_warps, persistent, kernel.n) for c in configs]
    spills = decider.predict(kernel, launches, decider.prune_cut)["spills"] if launches else []
    kept = [c for c, s in zip(configs, spills) if not s]
    pick, _ = decider.pick(kernel, "persistent" if persistent else "looped")
    added = 0
    if pick is not None and (not no_x_dim or pick.launch.xblock == 1) and pick.launch not in \
            [launch for launch, s in zip(launches, spills) if not s]:
        kwargs = triton_kwargs(pick.launch)
        kept.append(triton.Config(kwargs, num_warps=pick.launch.num_warps, num_stages=NUM_STAGES))
        added = 1
    if not kept:
        return configs
    stats = Counter() if stats is None else stats
    stats["kept"] += len(kept) - added
    stats["dropped"] += len(configs) - (len(kept) - added)
    stats["added"] += added
    log.info("costfuse.inductor: prune %d of %d candidates%s", len(configs) - (len(kept) - added), len(configs),
             ", add the pick " + pick.launch.short() if added else "")
    return kept


@contextlib.contextmanager
def patched(registry: Registry):
    """Inside the block, Inductor's ``cached_autotune`` prunes the candidates of every kernel filed in
    ``registry`` (a handler's :attr:`CostFuseChoices.registry`; see the module docstring)."""
    from torch._inductor.runtime import triton_heuristics as th

    original = getattr(th, "cached_autotune", None)
    kinds = getattr(th, "HeuristicType", None)
    if original is None or kinds is None:
        raise RuntimeError("costfuse.inductor: mode prune needs torch._inductor.runtime.triton_heuristics."
                           "cached_autotune and HeuristicType, which this torch lacks; use mode pin")
    reductions = {kinds.REDUCTION: False, kinds.PERSISTENT_REDUCTION: True}

    def cached_autotune(size_hints, configs, triton_meta, heuristic_type, *args, **kwargs):
        if heuristic_type not in reductions:
            return original(size_hints, configs, triton_meta, heuristic_type, *args, **kwargs)
        inductor_meta = kwargs.get("inductor_meta") or {}

        def decorator(fn):
            filed = registry.take(getattr(fn, "src", ""))
            kept = configs
            if filed is not None:
                kept = prune_configs(list(configs), *filed, reductions[heuristic_type],
                                     bool(inductor_meta.get("no_x_dim")), registry.stats)
            return original(size_hints, kept, triton_meta, heuristic_type, *args, **kwargs)(fn)

        return decorator

    th.cached_autotune = cached_autotune
    try:
        yield
    finally:
        th.cached_autotune = original
