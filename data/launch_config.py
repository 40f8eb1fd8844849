"""Launch configurations for lowered kernels, and the heuristic that picks one.

A kernel's launch config is part of the dataset row (docs/design.md §3): the same
``linalg.generic`` compiled with a different ``XBLOCK``/``RBLOCK``/``num_warps``
is a different kernel with different registers and spills.  The default comes
from a documented heuristic modelled on PyTorch Inductor's
(``torch/_inductor/runtime/triton_heuristics.py``), so the dataset describes
kernels a real compiler would emit; :func:`neighbour_configs` lets the dataset
sample around it.

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
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# Largest row kept in registers in one tile; longer rows loop (Inductor keeps
# persistent reductions up to a few thousand elements; docs/design.md §5 saw softmax
# not spill up to 16384, layernorm spill at 16384, so 4096 is on the safe side).
PERSISTENT_RBLOCK_CAP = 4096
# Tile width of a looped reduction.
LOOPED_RBLOCK = 2048
# Target elements per persistent-reduction tile (XBLOCK * RBLOCK).
TILE_ELEMS = 4096
# Upper bound on rows per program for a reduction.
MAX_XBLOCK_REDUCTION = 128
# Upper bound on XBLOCK for pointwise kernels.
MAX_XBLOCK_POINTWISE = 1024
# Triton blocks must stay below this many elements (tl.arange limit 2**20 is
# Triton's; we stay far lower so no tile is absurd).
MAX_TILE_ELEMS = 1 << 17
ALLOWED_WARPS = (1, 2, 4, 8, 16, 32)


def next_pow2(n: int) -> int:
    """Smallest power of two ``>= n`` (1 for ``n <= 1``)."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


@dataclass(frozen=True)
class LaunchConfig:
    """Block sizes and warps of one kernel launch.

    ``RBLOCK`` is 1 for pointwise kernels.  A reduction is *persistent* when
    ``RBLOCK >= rnumel`` (one tile per row) and *looped* otherwise; the lowering
    emits different code for the two, so a config is bound to a source.
    """

    XBLOCK: int
    RBLOCK: int = 1
    num_warps: int = 4
    num_stages: int = 1

    def __post_init__(self):
        for name in ("XBLOCK", "RBLOCK"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1 or v & (v - 1):
                raise ValueError(f"LaunchConfig.{name} must be a positive power of two, got {v!r}")
        if self.num_warps not in ALLOWED_WARPS:
            raise ValueError(f"LaunchConfig.num_warps must be one of {ALLOWED_WARPS}, got {self.num_warps!r}")
        if self.num_stages < 1:
            raise ValueError(f"LaunchConfig.num_stages must be >= 1, got {self.num_stages!r}")
        if self.XBLOCK * self.RBLOCK > MAX_TILE_ELEMS:
            raise ValueError(f"LaunchConfig tile XBLOCK*RBLOCK={self.XBLOCK * self.RBLOCK} exceeds {MAX_TILE_ELEMS}")

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
