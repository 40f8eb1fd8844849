"""Indices, offsets, loads and stores over one loop space, as Triton code.

A kernel's tile walks a loop nest: parallel dims flattened into ``xindex``,
reduction dims into ``rindex``.  Every operand's element is then an offset
computed from those two, and every load and store is masked by them.  One
generic's kernel (``generic.py``) and a kernel function's (``kernel.py``: the
members' common loops) address memory the same way, so the arithmetic lives
here once and the labels of both describe the same kind of code.
"""

from __future__ import annotations

from costfuse.data.lowering.kernel_args import TensorArg, prod, row_major_strides


class IndexSpace:
    """Index and offset code over one loop space: ``extents`` and ``iterators``
    (``"parallel"`` or ``"reduction"``) per loop dim, x following ``layout``
    (the map results of the output whose stores should be contiguous); ``unit``
    is the shape of a one-element tile (``[1]`` or ``[1, 1]``).  Gives the x
    (parallel) and r (reduction) indices, the partial indices operands need,
    and the load/store expressions of an operand; records the index lines it
    used (:meth:`index_setup`) and whether a store needs ``xzero``."""

    def __init__(self, extents: tuple[int, ...], iterators: tuple[str, ...], layout: tuple, unit: str):
        self.extents = extents
        self.iterators = iterators
        self.layout = layout
        self.unit = unit
        self.xzero_needed = False
        self.index_lines: dict[str, dict[str, str]] = {"x": {}, "r": {}}

    # -- indices ----------------------------------------------------------------

    # Loop dims of one kind (x: parallel, r: reduction) are flattened row-major
    # into xindex/rindex.  An operand whose dims appear as a contiguous run of
    # that order (an identity map, a row of a broadcast) is addressed with one
    # partial index of the run -- ``xindex`` itself for the whole run -- as
    # Inductor does, rather than with one div/mod per dim: fewer integer ops,
    # and the contiguity is plain for Triton's axis analysis.

    def order(self, kind: str) -> list[int]:
        """Loop dims of ``kind`` with extent > 1, slowest first.  x follows the
        layout's order so stores are contiguous; r follows loop order."""
        if kind == "r":
            dims = [d for d, it in enumerate(self.iterators) if it == "reduction"]
        else:
            first = [v for k, v in self.layout if k == "d"]
            dims = first + [d for d, it in enumerate(self.iterators) if it == "parallel" and d not in first]
        return [d for d in dims if self.extents[d] > 1]

    def _kind(self, d: int) -> str:
        return "r" if self.iterators[d] == "reduction" else "x"

    def _run(self, kind: str, i: int, j: int) -> str:
        """Name of the index of positions ``i..j`` of ``order(kind)`` (emitting its line once)."""
        dims = self.order(kind)
        ext = [self.extents[d] for d in dims]
        flat = f"{kind}index"
        if i == 0 and j == len(dims) - 1:
            return flat
        name = f"{kind}{dims[i]}" if i == j else f"{kind}{dims[i]}_{dims[j]}"
        if name not in self.index_lines[kind]:
            inner = prod(ext[j + 1:])
            expr = flat if inner == 1 else f"({flat} // {inner})"
            if i > 0:
                expr = f"{expr} % {prod(ext[i:j + 1])}"
            self.index_lines[kind][name] = expr
        return name

    def _var(self, d: int) -> str | None:
        """Name of loop dim ``d``'s own index tensor, ``None`` if the dim has size 1."""
        if self.extents[d] == 1:
            return None
        kind = self._kind(d)
        pos = self.order(kind).index(d)
        return self._run(kind, pos, pos)

    def index_setup(self, kind: str) -> list[str]:
        """The lines defining the partial indices of ``kind`` used so far."""
        return [f"{name} = {expr}" for name, expr in self.index_lines[kind].items()]

    def offset(self, arg: TensorArg) -> tuple[str, bool, bool]:
        """(offset expression, uses x dims, uses r dims) of ``arg``'s element."""
        const, items = 0, []  # items: (kind, position in order(kind), stride, extent)
        for (kind, v), stride in zip(arg.results, row_major_strides(arg.shape)):
            if kind == "c":
                const += v * stride
            elif self.extents[v] > 1:
                k = self._kind(v)
                items.append((k, self.order(k).index(v), stride, self.extents[v]))
        terms, uses = [], set()
        while items:  # peel the innermost run off the end
            kind, last, stride, _ = items[-1]
            first, n = last, 1
            while n < len(items):
                pk, pp, ps, _ = items[-1 - n]
                _, cp, cs, ce = items[-n]
                if pk != kind or pp != first - 1 or ps != cs * ce:
                    break
                first, n = pp, n + 1
            del items[-n:]
            var = self._run(kind, first, last)
            uses.add(kind)
            terms.insert(0, var if stride == 1 else f"{stride} * {var}")
        if const or not terms:
            terms.append(str(const))
        return " + ".join(terms), "x" in uses, "r" in uses

    def index_expr(self, d: int) -> tuple[str, bool]:
        """(int64 index tile of loop dim ``d``, whether it varies along r)."""
        var = self._var(d)
        rdep = self.iterators[d] == "reduction" and var is not None
        return (f"tl.full({self.unit}, 0, tl.int64)" if var is None else f"{var}.to(tl.int64)"), rdep

    def load_expr(self, arg: TensorArg) -> tuple[str, bool]:
        """(masked load of ``arg``'s element at the current tile, whether it varies along r)."""
        offset, uses_x, uses_r = self.offset(arg)
        if not (uses_r or uses_x):
            # A constant offset is always in bounds: one scalar load, broadcast
            # (as Inductor does) to a one-element tile.
            return f"tl.broadcast_to(tl.load({arg.name} + ({offset})), {self.unit})", False
        mask = "xmask & rmask" if uses_r else "xmask"
        return f"tl.load({arg.name} + ({offset}), mask={mask})", uses_r

    def store_offset(self, arg: TensorArg) -> str:
        """The offset ``arg``'s element is stored at, shaped like the x tile even
        when the output does not vary along x (``xzero + c``), so the store takes
        the tile's mask."""
        offset, uses_x, _ = self.offset(arg)
        if not uses_x:
            self.xzero_needed = True
            return f"xzero + {offset}"
        return offset
