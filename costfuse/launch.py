"""Launch configs of row kernels: the space a cost model searches, and its default.

Under ``--fusion groups`` the pass chooses a kernel's config together with
its members, and writes it on the outlined function as ``costfuse.launch``
(docs/groups.md).  A config is a :class:`KernelLaunch`: the mode (pointwise,
persistent or looped), the rows per program ``xblock``, the row chunk
``rblock`` and ``num_warps``.  :func:`config_space` lists every config worth
scoring for a kernel; :func:`heuristic_launch` is the Inductor-shaped default
that v1's lowering uses (``data/launch_config.py``), so ``always`` at the
heuristic config is v1's kernel when the group is one generic.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from iree.compiler import ir

from costfuse.data.launch_config import ALLOWED_WARPS, MAX_TILE_ELEMS, LaunchConfig, heuristic_config, next_pow2
from costfuse.kernel import KernelShape

MODES = ("pointwise", "persistent", "looped")
LAUNCH_ATTR = "costfuse.launch"
KERNEL_ATTR = "costfuse.kernel"
# A looped chunk never needs more than this many elements per program, and a
# pointwise block no more than this many: larger tiles only add registers.
MAX_LOOPED_TILE = 8192
MAX_POINTWISE_BLOCK = 4096
MIN_RBLOCK = 32


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
        # LaunchConfig checks powers of two, warps and the tile cap.
        self.as_config()

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
        i64 = ir.IntegerType.get_signless(64)
        return ir.DictAttr.get({
            "mode": ir.StringAttr.get(self.mode),
            "xblock": ir.IntegerAttr.get(i64, self.xblock),
            "rblock": ir.IntegerAttr.get(i64, self.rblock),
            "num_warps": ir.IntegerAttr.get(i64, self.num_warps),
        })

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> "KernelLaunch":
        d = ir.DictAttr(attr)
        keys = ("mode", "xblock", "rblock", "num_warps")
        missing = [k for k in keys if k not in d]  # named here: the binding's KeyError does not say which
        if missing:
            raise ValueError(f"{LAUNCH_ATTR} {attr} lacks {', '.join(missing)}; expected {', '.join(keys)}")
        return cls(ir.StringAttr(d["mode"]).value, *(ir.IntegerAttr(d[k]).value for k in keys[1:]))


def _pow2_upto(hi: int, lo: int = 1) -> list[int]:
    out, v = [], lo
    while v <= hi:
        out.append(v)
        v *= 2
    return out


def numel(shape: KernelShape) -> int:
    return shape.n_rows * shape.n


def config_space(shape: KernelShape) -> list[KernelLaunch]:
    """Every config worth scoring for ``shape``, in a fixed order (see :func:`_space`)."""
    return list(_space(shape.pointwise, shape.n, shape.n_rows))


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
        for x in _pow2_upto(min(MAX_POINTWISE_BLOCK, next_pow2(n_rows * n))):
            out += [KernelLaunch("pointwise", x, 1, w) for w in ALLOWED_WARPS if 32 * w <= x]
        return tuple(out) or (KernelLaunch("pointwise", next_pow2(n_rows * n), 1, 1),)   # fewer elements than a warp
    rfull = next_pow2(n)
    xmax = next_pow2(n_rows)
    for x in _pow2_upto(xmax):
        if x * rfull <= MAX_TILE_ELEMS:
            out += [KernelLaunch("persistent", x, rfull, w) for w in ALLOWED_WARPS if 32 * w <= max(32, x * rfull)]
    for r in _pow2_upto(rfull // 2, MIN_RBLOCK):
        for x in _pow2_upto(xmax):
            if x * r <= MAX_LOOPED_TILE:
                out += [KernelLaunch("looped", x, r, w) for w in ALLOWED_WARPS if 32 * w <= x * r]
    return tuple(out)


def heuristic_launch(shape: KernelShape) -> KernelLaunch:
    """The default config: v1's Inductor-shaped heuristic, read as a mode."""
    if shape.pointwise:
        c = heuristic_config(numel(shape), 1)
        return KernelLaunch("pointwise", c.XBLOCK, 1, c.num_warps)
    c = heuristic_config(shape.n_rows, shape.n)
    mode = "persistent" if c.RBLOCK >= shape.n else "looped"
    return KernelLaunch(mode, c.XBLOCK, c.RBLOCK, c.num_warps)

