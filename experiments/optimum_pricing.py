"""Pricing candidates for the exact optimum, lazily: compile only what an optimum could use (issue #26).

A candidate's price is the bytes (:class:`KernelBytes`: DRAM bytes by the
L2 model, :meth:`costfuse.kernel.KernelShape.dram_bytes_at`, then issued
bytes, :meth:`~costfuse.kernel.KernelShape.issued_bytes`) of its cheapest
*spill-free* config: its configs (:func:`costfuse.launch.config_space`)
fall into byte levels, equal bytes in each (:func:`byte_levels`, fewest DRAM
bytes first, then fewest issued); within a level they are compiled in ascending analytical register
estimate, and the level holds when one compiles spill-free.  A level is given
up only once every one of its configs has been compiled and spills (or fails
to lower or compile; a compile timeout counts as not spill-free).

:class:`Price` keeps where that stands for one candidate.  Until a level is
known to hold, the candidate is worth the level's bytes *at least*
(:attr:`Price.bytes` is a lower bound, :attr:`Price.settled` false): the
optimum's loop solves with those bounds, compiles only the unsettled
candidates of the answer (:func:`price_round`: one level each, then the
answer is solved again), and stops when the answer is all settled.  That
answer is optimal: its value is exact, and every other schedule is worth at
least its bound.  Candidates that no optimum of any round used are never
compiled.

A lone kernel (a generic that is not a row kernel) keeps v1's config as the
pass gives it (:meth:`costfuse.policy.GroupPolicy.lone_estimate`), priced by its
lowering's bytes (one pass: DRAM bytes are the issued bytes) and not compiled: no policy has a choice there.  A singleton
whose every config spills (or none lowers) runs at the heuristic config,
flagged, as formation keeps a refused group apart.

Experiments only: not part of the installed package.
"""

from __future__ import annotations

import functools
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from costfuse.data.compile import CompileResult
from costfuse.estimates import l2_holds
from costfuse.kernel import KernelShape
from costfuse.launch import KernelLaunch, heuristic_launch
from costfuse.targets import Target

sys.path.insert(0, str(Path(__file__).resolve().parent))

from candidate_groups import Priced  # noqa: E402
from spill_free import CompileCounts, by_register_estimate, compile_task, spill_free  # noqa: E402

from costfuse.outline import scratch_function  # noqa: E402


@dataclass(frozen=True)
class KernelBytes:
    """One kernel at one launch: ``dram`` bytes (the L2 model's estimate) and ``issued`` bytes."""

    issued: int
    dram: int

    @property
    def key(self) -> tuple[int, int]:
        """The order a kernel's configs are priced in: the fewest DRAM bytes, then the fewest issued."""
        return self.dram, self.issued


def kernel_bytes(shape: KernelShape, launch: KernelLaunch, target: Target) -> KernelBytes:
    """The bytes ``shape`` moves at ``launch`` on ``target``: costfuse.kernel's two counts, nothing new."""
    return KernelBytes(shape.issued_bytes(launch.mode), shape.dram_bytes_at(launch, target))


def lone_estimate(op):
    """What the pass gives a generic that is not a row kernel (the same under every policy)."""
    from costfuse.cost_models import policy_class

    return policy_class("always", "groups")().lone_estimate(op)


@dataclass
class Level:
    """Configs of one kernel that move the same bytes."""

    bytes: KernelBytes
    configs: list[KernelLaunch]


def byte_levels(shape: KernelShape, target: Target) -> list[Level]:
    """``shape``'s configs by byte level, cheapest first (:attr:`KernelBytes.key`), each in config-space order.

    The same bytes as :func:`kernel_bytes` per config (a test holds them equal), computed once per mode
    and, for looped configs, whether L2 holds the re-read rows (:func:`costfuse.estimates.l2_holds`) for
    all of them at once, and the configs sorted into levels by index arrays shared by every kernel of
    one config space (:func:`_space_index`): the optimum prices every candidate of a function this way,
    tens of thousands on the larger backward graphs, before compiling anything."""
    configs, modes, looped, xblock, warps = _space_index(shape.pointwise, shape.n, shape.n_rows)
    holds = np.ones(len(configs), dtype=bool)
    if len(looped):
        h = l2_holds(shape.reread_row_bytes, xblock, -(-shape.n_rows // xblock), warps, target)
        holds[looped] = np.atleast_1d(h)
    levels: dict[tuple, list] = {}
    for mode, idx in modes.items():
        issued = shape.issued_bytes(mode)
        parts = [(idx[holds[idx]], True), (idx[~holds[idx]], False)] if mode == "looped" else [(idx, True)]
        for part, held in parts:
            if len(part):
                b = KernelBytes(issued, shape.dram_bytes(mode, held))
                levels.setdefault(b.key, [b, []])[1].append(part)
    out = []
    for key in sorted(levels):
        b, parts = levels[key]
        idx = parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts))
        out.append(Level(b, [configs[i] for i in idx.tolist()]))
    return out


@functools.lru_cache(maxsize=256)
def _space_index(pointwise: bool, n: int, n_rows: int):
    """One config space (:func:`costfuse.launch.config_space`'s, for a kernel of this kind, row length and
    row count): (its configs, each mode's config indices in order, the looped ones' indices, their
    ``xblock`` and ``num_warps``)."""
    from costfuse.launch import _space

    configs = _space(pointwise, n, n_rows)
    modes: dict[str, list[int]] = {}
    for i, c in enumerate(configs):
        modes.setdefault(c.mode, []).append(i)
    looped = np.array(modes.get("looped", []), dtype=np.int64)
    return (configs, {m: np.array(ix, dtype=np.int64) for m, ix in modes.items()}, looped,
            np.array([configs[i].xblock for i in looped], dtype=np.int64),
            np.array([configs[i].num_warps for i in looped], dtype=np.int64))


@dataclass
class Price:
    """Where the price of one candidate stands."""

    candidate: Priced
    levels: list[Level] = field(default_factory=list)
    level: int = 0                         # the level under test (or found to hold)
    launch: KernelLaunch | None = None     # the config it runs at, once settled
    result: CompileResult | None = None    # ptxas on that config (row kernels)
    fixed: KernelBytes | None = None       # a price known without compiling (lone kernel, fallback)
    note: str = ""                         # how it was priced, for the report
    tried: int = 0                         # configs of the current level compiled (or refused by the lowering)
    refused: bool = False                  # a group (not a singleton) spilling at every config: out of the MILP
    _order: list[KernelLaunch] | None = None
    _scratch: tuple | None = None          # (module, kernel function) while compiling

    @classmethod
    def of(cls, priced: Priced, target: Target) -> "Price":
        if not priced.candidate.is_kernel:
            return cls(priced, fixed=KernelBytes(0, 0), note="no kernel: every reader recomputes it")
        if priced.shape is None:
            est = lone_estimate(priced.ops[0])
            issued, note = _lone_bytes(priced, est.launch)
            return cls(priced, launch=est.launch, fixed=KernelBytes(issued, issued), note=note)
        return cls(priced, byte_levels(priced.shape, target))

    @property
    def settled(self) -> bool:
        return self.fixed is not None or self.result is not None

    @property
    def bytes(self) -> KernelBytes:
        """The price (settled), or a lower bound on it."""
        return self.fixed if self.fixed is not None else self.levels[self.level].bytes

    def pending(self, target: Target) -> list[KernelLaunch]:
        """Configs of the current level not yet compiled, in the order they are tried."""
        if self._order is None:
            self._order = by_register_estimate(self.candidate.shape, self.levels[self.level].configs, target)
        return self._order[self.tried:]

    def function(self):
        if self._scratch is None:
            self._scratch = scratch_function(self.candidate.ops, self.candidate.unstored, self.levels[0].configs[0])
        return self._scratch[1]

    def holds(self, launch: KernelLaunch, result: CompileResult) -> None:
        self.launch, self.result, self._scratch = launch, result, None
        self.note = f"spill-free under ptxas ({result.regs} registers)" + (
            f"; {self.level} cheaper byte level(s) spill at every config" if self.level else "")

    def give_up_level(self, target: Target) -> None:
        """Every config of the current level spills: on to the next, or, with none left, the fallback."""
        self.level += 1
        self.tried, self._order = 0, None
        if self.level < len(self.levels):
            return
        self._scratch = None
        shape = self.candidate.shape
        if len(self.candidate.candidate.owns) == 1 and not self.candidate.candidate.copies:
            self.launch = heuristic_launch(shape)
            self.fixed = kernel_bytes(shape, self.launch, target)
            self.note = "spills at every config (or none lowers): heuristic config, as formation keeps it apart"
        else:
            self.level = len(self.levels) - 1
            self.note = "refused: spills at every config (or none lowers)"
            self.refused = True

    def cost(self) -> int | None:
        """What the MILP sees: the DRAM bytes (a lower bound until settled), ``None`` once refused."""
        return None if self.refused else self.bytes.dram


def _lone_bytes(priced: Priced, launch: KernelLaunch) -> tuple[int, str]:
    """A lone kernel's issued bytes as its lowering counts them (as compare_groups.py does), and how priced."""
    from costfuse.data.lowering.kernel import lower_kernel
    from costfuse.data.lowering.unsupported import UnsupportedOp

    _module, fn = scratch_function(priced.ops, priced.unstored, launch)
    try:
        return lower_kernel(fn, launch).hbm_bytes, "not a row kernel: v1's config, as every policy; not compiled"
    except (UnsupportedOp, ValueError) as err:
        est = lone_estimate(priced.ops[0])
        return est.issued_bytes, f"not a row kernel, and its lowering refuses it ({err}): the pass's estimate"


def price_round(prices: list[Price], pool, arch: int, target: Target, counts: CompileCounts,
                max_compiles: int | None = None, deadline: float = math.inf) -> str:
    """Settle the current level of each of ``prices``: compile its configs in order until one is spill-free
    (the level holds) or none is (:meth:`Price.give_up_level`).  Candidates take turns, one config each, so
    ``pool.jobs`` workers compile configs of different candidates and no candidate compiles past its first
    spill-free config (except when fewer candidates than workers are left).  Returns why it stopped early
    (``max_compiles`` reached, ``deadline`` (``time.monotonic()``) passed), or "" when done."""
    active = [p for p in prices if not p.settled and not p.refused]
    while active:
        if time.monotonic() >= deadline:
            return "time budget"
        batch: list[tuple[Price, KernelLaunch]] = []
        queues = {id(p): list(p.pending(target)) for p in active}
        while len(batch) < max(1, pool.jobs) and any(queues.values()):
            for p in active:
                if queues[id(p)] and len(batch) < max(1, pool.jobs):
                    batch.append((p, queues[id(p)].pop(0)))
        if max_compiles is not None and counts.compiles + len(batch) > max_compiles:
            return f"compile budget ({max_compiles})"
        tasks, sent = [], []
        for p, launch in batch:
            task = compile_task(p.function(), launch, arch)
            if task is None:
                counts.unlowered += 1
                p.tried += 1
                continue
            tasks.append(task)
            sent.append((p, launch))
        results = pool.run(tasks) if tasks else []
        done = set()
        for (p, launch), res in zip(sent, results):
            counts.add(res)
            if id(p) in done:
                continue
            p.tried += 1
            if spill_free(res):
                p.holds(launch, res)
                counts.decisions += 1
                done.add(id(p))
        for p in active:
            if not p.settled and not p.pending(target):
                p.give_up_level(target)
                done.add(id(p))
                if p.refused or p.fixed is not None:
                    counts.refused += 1
        active = [p for p in active if id(p) not in done]
    return ""
