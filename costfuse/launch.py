"""Launch configs: the one home of a kernel's blocks and warps, their space and their default.

A kernel's launch config is part of its label (docs/design.md §3): the same
kernel compiled at another ``XBLOCK``/``RBLOCK``/``num_warps`` is another
kernel, with other registers and spills.  Two views of the same numbers live
here, because two contracts need them:

* :class:`KernelLaunch` (mode, ``xblock``, ``rblock``, ``num_warps``): what
  ``--fusion groups`` writes on an outlined kernel function as
  ``costfuse.launch`` (docs/groups.md), and what every group policy scores;
* :class:`LaunchConfig` (``XBLOCK``, ``RBLOCK``, ``num_warps``,
  ``num_stages``): v1's view of one generic's launch, a dataset row's config
  columns (``to_dict``/``from_dict``), where the mode follows from ``rnumel``.

:func:`heuristic_config` is the documented default modelled on PyTorch
Inductor's (``torch/_inductor/runtime/triton_heuristics.py``), so the dataset
describes kernels a real compiler would emit; :func:`heuristic_launch` is the
same default read as a mode, so ``always`` at the heuristic config is v1's
kernel when a group is one generic.  :func:`config_space` lists every config
worth scoring for a row kernel; :func:`neighbour_configs` and
:func:`wide_configs` are the configs the v1 dataset samples around the default.

The heuristic, for ``xnumel`` parallel elements and ``rnumel`` reduced ones:

* **Pointwise** (``rnumel == 1``): ``XBLOCK = min(1024, next_pow2(xnumel))``
  and ``num_warps = clamp(XBLOCK // 256, 1, 8)`` -- Inductor's 1-D pointwise
  config (``triton_config(size_hints, 1024)`` with 256 elements per warp).
* **Persistent reduction** (``rnumel <= PERSISTENT_RBLOCK_CAP``): one tile holds a
  whole row, ``RBLOCK = next_pow2(rnumel)``; rows per program
  ``XBLOCK = clamp(TILE_ELEMS // RBLOCK, 1, min(next_pow2(xnumel), MAX_XBLOCK_REDUCTION))``.
* **Looped reduction** (``rnumel > PERSISTENT_RBLOCK_CAP``): ``XBLOCK = 1``,
  ``RBLOCK = LOOPED_RBLOCK``, accumulating across iterations (Inductor's
  ``triton_config_reduction(size_hints, 1, 2048)`` for long rows).
* Reductions use ``num_warps = clamp(next_pow2(XBLOCK * RBLOCK // 256), 2, 8)``,
  Inductor's ``_num_warps(..., min_num_warps=2)`` with 8 elements per thread.

The compiler core owns this module (no ``costfuse.data`` import): the pass,
the policies, the features, the dataset job and the lowering all read the
same configs from here.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:   # the MLIR bindings load only for the attribute (the Inductor handler runs without IREE)
    from iree.compiler import ir

    from costfuse.kernel import KernelShape

MODES = ("pointwise", "persistent", "looped")
LAUNCH_ATTR = "costfuse.launch"
KERNEL_ATTR = "costfuse.kernel"
ALLOWED_WARPS = (1, 2, 4, 8, 16, 32)
# Triton blocks must stay below this many elements (tl.arange's limit 2**20 is
# Triton's; we stay far lower so no tile is absurd).
MAX_TILE_ELEMS = 1 << 17
# Largest row kept in registers in one tile by the heuristic; longer rows loop (Inductor keeps
# persistent reductions up to a few thousand elements; docs/design.md §5 saw softmax
# not spill up to 16384, layernorm spill at 16384, so 4096 is on the safe side).
PERSISTENT_RBLOCK_CAP = 4096
# Tile width of the heuristic's looped reduction.
LOOPED_RBLOCK = 2048
# Target elements per persistent-reduction tile (XBLOCK * RBLOCK).
TILE_ELEMS = 4096
# Upper bound on rows per program for a reduction, and on XBLOCK for pointwise kernels.
MAX_XBLOCK_REDUCTION = 128
MAX_XBLOCK_POINTWISE = 1024
# A looped chunk never needs more than this many elements per program, and a
# pointwise block no more than this many: larger tiles only add registers.
MAX_LOOPED_TILE = 8192
MAX_POINTWISE_BLOCK = 4096
MIN_RBLOCK = 32


def next_pow2(n: int) -> int:
    """Smallest power of two ``>= n`` (1 for ``n <= 1``)."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def pow2_upto(hi: int, lo: int = 1) -> list[int]:
    """The powers of two from ``lo`` up to ``hi`` (``lo`` a power of two)."""
    out, v = [], lo
    while v <= hi:
        out.append(v)
        v *= 2
    return out


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def check_tile(who: str, xblock, rblock, num_warps) -> None:
    """Raise ``ValueError`` unless the blocks are positive powers of two, the warps allowed and the
    tile within :data:`MAX_TILE_ELEMS` (``who`` names the fields in the message)."""
    for name, v in ((f"{who}XBLOCK", xblock), (f"{who}RBLOCK", rblock)):
        if not isinstance(v, int) or v < 1 or v & (v - 1):
            raise ValueError(f"{name} must be a positive power of two, got {v!r}")
    if num_warps not in ALLOWED_WARPS:
        raise ValueError(f"{who}num_warps must be one of {ALLOWED_WARPS}, got {num_warps!r}")
    if xblock * rblock > MAX_TILE_ELEMS:
        raise ValueError(f"{who}tile XBLOCK*RBLOCK={xblock * rblock} exceeds {MAX_TILE_ELEMS}")


@dataclass(frozen=True)
class LaunchConfig:
    """Block sizes and warps of one v1 kernel launch.

    ``RBLOCK`` is 1 for pointwise kernels.  A reduction is *persistent* when
    ``RBLOCK >= rnumel`` (one tile per row) and *looped* otherwise; the lowering
    emits different code for the two, so a config is bound to a source.
    """

    XBLOCK: int
    RBLOCK: int = 1
    num_warps: int = 4
    num_stages: int = 1

    def __post_init__(self):
        check_tile("LaunchConfig.", self.XBLOCK, self.RBLOCK, self.num_warps)
        if self.num_stages < 1:
            raise ValueError(f"LaunchConfig.num_stages must be >= 1, got {self.num_stages!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "LaunchConfig":
        return cls(**{k: int(d[k]) for k in ("XBLOCK", "RBLOCK", "num_warps", "num_stages") if k in d})

    def short(self) -> str:
        """Compact label for tables: ``X1024 R1 w4``."""
        return f"X{self.XBLOCK} R{self.RBLOCK} w{self.num_warps}"

    def is_persistent(self, rnumel: int) -> bool:
        return self.RBLOCK >= rnumel

    def elems_per_thread(self) -> float:
        """Tile elements each thread holds: ``XBLOCK * RBLOCK / (32 * num_warps)``."""
        return self.XBLOCK * self.RBLOCK / (32 * self.num_warps)


@dataclass(frozen=True, order=True)
class KernelLaunch:
    """One kernel's launch: ``mode``, ``xblock`` rows (or elements, pointwise)
    per program, ``rblock`` row elements per tile (1 when pointwise), warps."""

    mode: str
    xblock: int
    rblock: int
    num_warps: int

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"launch mode must be one of {MODES}, got {self.mode!r}")
        if self.mode == "pointwise" and self.rblock != 1:
            raise ValueError(f"a pointwise launch has rblock 1, got {self.rblock}")
        check_tile("KernelLaunch.", self.xblock, self.rblock, self.num_warps)

    def as_config(self) -> LaunchConfig:
        """The v1 lowering's view of the same numbers."""
        return LaunchConfig(XBLOCK=self.xblock, RBLOCK=self.rblock, num_warps=self.num_warps)

    def short(self) -> str:
        """``persistent x1 r8192 w8``, for ``--explain`` and tables."""
        return f"{self.mode} x{self.xblock} r{self.rblock} w{self.num_warps}"

    def elems_per_thread(self) -> float:
        return self.xblock * self.rblock / (32 * self.num_warps)

    def to_attr(self) -> ir.Attribute:
        """``{mode = "persistent", xblock = 1 : i64, rblock = 8192 : i64, num_warps = 8 : i64}``."""
        from iree.compiler import ir

        i64 = ir.IntegerType.get_signless(64)
        return ir.DictAttr.get({
            "mode": ir.StringAttr.get(self.mode),
            "xblock": ir.IntegerAttr.get(i64, self.xblock),
            "rblock": ir.IntegerAttr.get(i64, self.rblock),
            "num_warps": ir.IntegerAttr.get(i64, self.num_warps),
        })

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> "KernelLaunch":
        from iree.compiler import ir

        d = ir.DictAttr(attr)
        keys = ("mode", "xblock", "rblock", "num_warps")
        missing = [k for k in keys if k not in d]  # named here: the binding's KeyError does not say which
        if missing:
            raise ValueError(f"{LAUNCH_ATTR} {attr} lacks {', '.join(missing)}; expected {', '.join(keys)}")
        return cls(ir.StringAttr(d["mode"]).value, *(ir.IntegerAttr(d[k]).value for k in keys[1:]))


@dataclass(frozen=True)
class LaunchArrays:
    """Configs as aligned arrays, one entry per config: what the vectorized scorers (the group time, the
    register estimate, the group features) read of a config space, built once per space scored instead
    of each scorer asking every config for its fields (issue #28: a decision asked 199 configs for
    their elements per thread, a module boundary each)."""

    mode: np.ndarray             # mode names
    mode_index: np.ndarray       # index into MODES
    xblock: np.ndarray           # floats, as every formula takes them
    rblock: np.ndarray
    num_warps: np.ndarray
    elems_per_thread: np.ndarray  # KernelLaunch.elems_per_thread


def launch_arrays(launches: list[KernelLaunch]) -> LaunchArrays:
    """:class:`LaunchArrays` of ``launches``."""
    mode = np.array([c.mode for c in launches])
    x = np.array([c.xblock for c in launches], dtype=float)
    r = np.array([c.rblock for c in launches], dtype=float)
    w = np.array([c.num_warps for c in launches], dtype=float)
    return LaunchArrays(mode, np.array([MODES.index(c.mode) for c in launches], dtype=int), x, r, w,
                        x * r / (32.0 * w))


def space_arrays(shape: KernelShape) -> LaunchArrays:
    """:func:`launch_arrays` of :func:`config_space`'s configs, cached with the space (read-only arrays):
    the Inductor handler's fusion verdict orders a space by its register estimate, for every pair of nodes
    Inductor asks about."""
    return _space_arrays(shape.pointwise, shape.n, shape.n_rows)


@functools.lru_cache(maxsize=4096)
def _space_arrays(pointwise: bool, n: int, n_rows: int) -> LaunchArrays:
    return frozen_launch_arrays(_space(pointwise, n, n_rows))


def frozen_launch_arrays(launches) -> LaunchArrays:
    """:func:`launch_arrays` with read-only arrays: for a cache that hands the same arrays to every caller."""
    arrays = launch_arrays(list(launches))
    for a in vars(arrays).values():
        a.setflags(write=False)
    return arrays


def numel(shape: KernelShape) -> int:
    return shape.n_rows * shape.n


def config_space(shape: KernelShape) -> list[KernelLaunch]:
    """Every config worth scoring for ``shape``, in a fixed order (see :func:`_space`)."""
    return list(_space(shape.pointwise, shape.n, shape.n_rows))


def space_of(pointwise: bool, n: int, n_rows: int) -> tuple[KernelLaunch, ...]:
    """:func:`config_space` of a kernel of this kind, row length and row count, without a shape (cached)."""
    return _space(pointwise, n, n_rows)


@functools.lru_cache(maxsize=4096)
def _space(pointwise: bool, n: int, n_rows: int) -> tuple[KernelLaunch, ...]:
    """Every config of a kernel of this kind, row length and row count, in a fixed order; cached,
    since formation prices many candidates of one program, which share a few spaces.

    Pointwise kernels tile the flat elements (at least one element per
    thread); others tile rows × row chunk, persistent with the whole (padded)
    row, looped with chunks from 32 up to half the padded row.  Configs whose
    threads would have no element to work on are dropped (except a
    persistent tile smaller than one warp, which tiny rows need).
    """
    out = []
    if pointwise:
        for x in pow2_upto(min(MAX_POINTWISE_BLOCK, next_pow2(n_rows * n))):
            out += [KernelLaunch("pointwise", x, 1, w) for w in ALLOWED_WARPS if 32 * w <= x]
        return tuple(out) or (KernelLaunch("pointwise", next_pow2(n_rows * n), 1, 1),)   # fewer elements than a warp
    rfull = next_pow2(n)
    xmax = next_pow2(n_rows)
    for x in pow2_upto(xmax):
        if x * rfull <= MAX_TILE_ELEMS:
            out += [KernelLaunch("persistent", x, rfull, w) for w in ALLOWED_WARPS if 32 * w <= max(32, x * rfull)]
    for r in pow2_upto(rfull // 2, MIN_RBLOCK):
        for x in pow2_upto(xmax):
            if x * r <= MAX_LOOPED_TILE:
                out += [KernelLaunch("looped", x, r, w) for w in ALLOWED_WARPS if 32 * w <= x * r]
    return tuple(out)


def heuristic_config(xnumel: int, rnumel: int = 1) -> LaunchConfig:
    """The default config for a kernel with ``xnumel`` outputs and ``rnumel`` reduced elements."""
    if rnumel <= 1:
        xblock = min(MAX_XBLOCK_POINTWISE, next_pow2(xnumel))
        return LaunchConfig(XBLOCK=xblock, RBLOCK=1, num_warps=_clamp(xblock // 256, 1, 8))
    if rnumel <= PERSISTENT_RBLOCK_CAP:
        rblock = next_pow2(rnumel)
        xblock = _clamp(TILE_ELEMS // rblock, 1, min(next_pow2(xnumel), MAX_XBLOCK_REDUCTION))
    else:
        rblock, xblock = LOOPED_RBLOCK, 1
    warps = _clamp(next_pow2(xblock * rblock // 256), 2, 8)
    return LaunchConfig(XBLOCK=xblock, RBLOCK=rblock, num_warps=warps)


def heuristic_launch_for(xnumel: int, rnumel: int = 1) -> KernelLaunch:
    """:func:`heuristic_config` read as a mode: pointwise when nothing is reduced, persistent when the
    block holds the whole row, looped otherwise."""
    c = heuristic_config(xnumel, rnumel)
    mode = "pointwise" if rnumel <= 1 else ("persistent" if c.RBLOCK >= rnumel else "looped")
    return KernelLaunch(mode, c.XBLOCK, c.RBLOCK, c.num_warps)


def heuristic_launch(shape: KernelShape) -> KernelLaunch:
    """The default config of a row kernel: a pointwise kernel tiles its flat elements."""
    return heuristic_launch_for(numel(shape), 1) if shape.pointwise else heuristic_launch_for(shape.n_rows, shape.n)


def wide_configs(xnumel: int, rnumel: int = 1) -> list[LaunchConfig]:
    """v1's wide space of one generic's launches, in a fixed order, which the v1 dataset samples
    around the heuristic (``data/config_sampling.py``): autotuners try wider tiles and fewer warps
    than the default, and that is where fused bodies start to spill.

    * pointwise: ``XBLOCK`` in 256..8192 (at most ``max(256, next_pow2(xnumel))``), ``num_warps``
      in 1..8 with at least one element per thread;
    * reductions: persistent ``RBLOCK = next_pow2(rnumel)`` up to 16384, or a looped ``RBLOCK`` in
      512..4096 below ``rnumel``; ``XBLOCK`` in 1..64 (at most ``next_pow2(xnumel)``, the tile at
      most :data:`MAX_TILE_ELEMS`), ``num_warps`` in 2..16.
    """
    out = []
    if rnumel <= 1:
        for xb in (256, 512, 1024, 2048, 4096, 8192):
            if xb <= max(256, next_pow2(xnumel)):
                out += [LaunchConfig(xb, 1, w) for w in (1, 2, 4, 8) if xb >= 32 * w]
        return out
    rblocks = [next_pow2(rnumel)] if next_pow2(rnumel) <= 16384 else []
    rblocks += [r for r in (512, 1024, 2048, 4096) if r < rnumel]
    for rb in rblocks:
        for xb in (1, 2, 4, 8, 16, 32, 64):
            if xb <= next_pow2(xnumel) and xb * rb <= MAX_TILE_ELEMS:
                out += [LaunchConfig(xb, rb, w) for w in (2, 4, 8, 16) if xb * rb >= 32 * w]
    return out


def neighbour_configs(xnumel: int, rnumel: int = 1, base: LaunchConfig | None = None) -> list[LaunchConfig]:
    """``base`` (default: the heuristic) and its neighbours: each of XBLOCK,
    RBLOCK and num_warps halved or doubled, one at a time.

    Neighbours that are pointless (an XBLOCK above ``next_pow2(xnumel)``, an
    RBLOCK on a pointwise kernel or above ``next_pow2(rnumel)``) or invalid are
    dropped, so every returned config is a distinct kernel worth compiling.
    """
    base = base or heuristic_config(xnumel, rnumel)
    out = [base]
    for field, factor in [(f, k) for f in ("XBLOCK", "RBLOCK", "num_warps") for k in (0.5, 2)]:
        value = int(getattr(base, field) * factor)
        if value < 1 or (field == "RBLOCK" and (rnumel <= 1 or value > next_pow2(rnumel))):
            continue
        if field == "XBLOCK" and value > next_pow2(xnumel):
            continue
        try:
            cand = LaunchConfig(**{**base.to_dict(), field: value})
        except ValueError:
            continue
        if cand not in out:
            out.append(cand)
    return out
