"""Lower one ``linalg.generic`` to one Triton kernel (docs/design.md §2).

The kernel follows PyTorch Inductor's shape so the compile labels describe
kernels a real compiler emits:

* the parallel loop dims are flattened into ``xindex`` (the first output's
  layout order, so stores are contiguous), the reduction dims into ``rindex``;
* a pointwise kernel is a 1-D ``[XBLOCK]`` tile; a reduction kernel is an
  ``[XBLOCK, RBLOCK]`` tile, *persistent* (one tile covers the row, guarded by
  ``tl.static_assert(RBLOCK >= rnumel)``) or *looped* (accumulate across
  ``RBLOCK`` chunks, reduce once at the end);
* each operand is loaded once, where it is first used, at the row-major offset
  its indexing map gives (permutations, projections, broadcasts and constant
  results such as ``(d0, d1, d2) -> (d0, d1, 0)``); values that do not depend
  on reduction dims are computed before the reduction loop;
* a tensor the body gathers from (``tensor.extract`` of a value defined
  outside, :func:`costfuse.rowspace.gathers`) is one more input pointer,
  after the operands' inputs, in first-use order (``GenericInfo.gathered``);
* a reduction output's yield must be ``combiner(acc, f(inputs))`` with
  ``combiner`` in :data:`COMBINERS`, or an arg-max/arg-min index
  (:mod:`data.lower_reduction`); f16/bf16 accumulate in f32.

The generated file is self-contained (imports only ``triton``): it carries
the IR as a comment, ``SIGNATURE``, ``CONFIG``, ``INPUTS``/``OUTPUTS`` and a
``launch(*tensors)`` that calls the kernel with outputs pre-filled with the
generic's ``outs`` (destination-passing, as in Linalg), so the GPU profiler
needs nothing from this project.

Anything outside that subset raises :class:`UnsupportedOp`; nothing is
approximated silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iree.compiler import ir

from costfuse.data.dtypes import ELEM_TYPES, MEMORY_TYPES
from costfuse.data.launch_config import LaunchConfig, heuristic_config
from costfuse.data.lower_body import HELPERS, BodyEmitter, UnsupportedOp, Val, tl_type
from costfuse.data.lower_reduction import COMBINERS, acc_type, emit_reductions, final_value, match_reductions
from costfuse.rowspace import gathers

__all__ = [
    "COMBINERS", "GenericInfo", "IndexSpace", "LoweredKernel", "LoweringReport", "TensorArg", "UnsupportedOp",
    "analyze", "elem_bytes", "gathered_arg", "generic_as_function", "generics_of", "lower_generic", "lower_module",
    "render_source", "tensor_arg", "tensor_bytes",
]

KERNEL_NAME = "kernel"
MAX_NUMEL = 2**31 - 1  # offsets are int32, as in Inductor for tensors of this size


# ---------------------------------------------------------------------------
# Analysis


@dataclass(frozen=True)
class TensorArg:
    """One kernel pointer argument: a generic operand's tensor."""

    name: str                 # kernel parameter: in_ptr0, out_ptr0
    shape: tuple[int, ...]
    elem: str                 # MLIR element type
    results: tuple            # the indexing map's results: ("d", dim) or ("c", value)

    @property
    def dims(self) -> set[int]:
        return {v for k, v in self.results if k == "d"}


@dataclass(frozen=True)
class GenericInfo:
    """Static facts about a generic, independent of the launch config."""

    extents: tuple[int, ...]
    iterators: tuple[str, ...]
    inputs: tuple[TensorArg, ...]
    outputs: tuple[TensorArg, ...]
    ir: str
    gathered: tuple[TensorArg, ...] = ()   # tensors the body gathers from (no map): kernel inputs after ``inputs``

    @property
    def parallel(self) -> list[int]:
        return [d for d, it in enumerate(self.iterators) if it == "parallel"]

    @property
    def reduction(self) -> list[int]:
        return [d for d, it in enumerate(self.iterators) if it == "reduction"]

    @property
    def xnumel(self) -> int:
        return _prod(self.extents[d] for d in self.parallel)

    @property
    def rnumel(self) -> int:
        return _prod(self.extents[d] for d in self.reduction)


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def tensor_bytes(arg: TensorArg) -> int:
    """Bytes of ``arg``'s whole tensor in memory (i1 as one byte), the unit of
    ``hbm_bytes``; the same rule as :class:`costfuse.kernel.KernelShape`."""
    return _prod(arg.shape) * elem_bytes(arg.elem)


def elem_bytes(elem: str) -> int:
    """Bytes of one element of MLIR type ``elem`` in memory (i1 as one byte)."""
    return max(8, ELEM_TYPES[elem].bits) // 8


def _as_generic(op) -> ir.OpView:
    operation = op.operation if hasattr(op, "operation") else op
    if operation.name != "linalg.generic":
        raise UnsupportedOp(operation.name, "only linalg.generic ops are lowered (named ops stay library calls)")
    return operation.opview


def tensor_arg(name: str, value: ir.Value, amap: ir.AffineMap) -> TensorArg:
    shape, elem = _memory_tensor(name, value)
    results = []
    for j, expr in enumerate(amap.results):
        if isinstance(expr, ir.AffineDimExpr):
            results.append(("d", expr.position))
        elif isinstance(expr, ir.AffineConstantExpr):
            if not 0 <= expr.value < shape[j]:
                raise UnsupportedOp("linalg.generic", f"operand {name} map result {j} is constant {expr.value}, "
                                                      f"outside dim size {shape[j]}")
            results.append(("c", expr.value))
        else:
            raise UnsupportedOp("linalg.generic", f"operand {name} map result {expr} is not a dim or a constant "
                                                  "(only permutations, projections and broadcasts are lowered)")
    return TensorArg(name, shape, elem, tuple(results))


def gathered_arg(name: str, value: ir.Value) -> TensorArg:
    """The pointer argument of a tensor a body gathers from: no indexing map
    (``results`` is empty), the body computes each index."""
    return TensorArg(name, *_memory_tensor(name, value), ())


def _memory_tensor(name: str, value: ir.Value) -> tuple[tuple[int, ...], str]:
    """(shape, element type) of a tensor a kernel can take a pointer to; else :class:`UnsupportedOp`."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType):
        raise UnsupportedOp("linalg.generic", f"operand {name} has type {t}; only ranked tensors are lowered")
    if not t.has_static_shape:
        raise UnsupportedOp("linalg.generic", f"operand {name} has dynamic shape {t}; shapes must be static")
    elem = str(t.element_type)
    if elem not in MEMORY_TYPES:
        raise UnsupportedOp("linalg.generic", f"operand {name} has element type {elem} (supported: {', '.join(MEMORY_TYPES)})")
    shape = tuple(t.shape)
    if _prod(shape) > MAX_NUMEL:
        raise UnsupportedOp("linalg.generic", f"operand {name} has {_prod(shape)} elements; int32 offsets need < 2**31")
    return shape, elem


def analyze(op) -> GenericInfo:
    """Operands, loop extents and iterator kinds of ``op``; raise
    :class:`UnsupportedOp` for anything the kernel template cannot express."""
    g = _as_generic(op)
    maps = [ir.AffineMapAttr(a).value for a in g.indexing_maps]
    iterators = tuple("reduction" if "reduction" in str(t) else "parallel" for t in g.iterator_types)
    ins = tuple(tensor_arg(f"in_ptr{i}", v, maps[i]) for i, v in enumerate(g.inputs))
    outs = tuple(tensor_arg(f"out_ptr{j}", v, maps[len(ins) + j]) for j, v in enumerate(g.outputs))
    if not outs:
        raise UnsupportedOp("linalg.generic", "has no outputs")
    extents: list[int | None] = [None] * len(iterators)
    for arg in ins + outs:
        for (kind, d), size in zip(arg.results, arg.shape):
            if kind != "d":
                continue
            if extents[d] is not None and extents[d] != size:
                raise UnsupportedOp("linalg.generic", f"loop dim d{d} has inconsistent sizes {extents[d]} and {size}")
            extents[d] = size
    missing = [f"d{d}" for d, e in enumerate(extents) if e is None]
    if missing:
        raise UnsupportedOp("linalg.generic", f"loop dims {', '.join(missing)} appear in no indexing map")
    gathered = tuple(gathered_arg(f"in_ptr{len(ins) + k}", v) for k, v in enumerate(gathers(g.operation)))
    info = GenericInfo(tuple(extents), iterators, ins, outs, str(g.operation), gathered)
    _check_outputs(info)
    return info


def _check_outputs(info: GenericInfo) -> None:
    red, par = set(info.reduction), set(info.parallel)
    for out in info.outputs:
        used = [v for k, v in out.results if k == "d"]
        if len(set(used)) != len(used):
            raise UnsupportedOp("linalg.generic", f"{out.name} map repeats a dim; outputs must be projected permutations")
        if red & set(used):
            raise UnsupportedOp("linalg.generic", f"{out.name} map uses reduction dims; outputs index parallel dims only")
        if par - set(used):
            missing = ", ".join(f"d{d}" for d in sorted(par - set(used)))
            raise UnsupportedOp("linalg.generic", f"{out.name} map omits parallel dims {missing} (writes would race)")


# ---------------------------------------------------------------------------
# Kernel description


@dataclass(frozen=True)
class LoweredKernel:
    """A generated Triton kernel: the file text plus what a caller needs to
    compile it (``signature``, ``constexprs``, ``config``) or run it
    (``inputs``/``outputs`` in kernel argument order, ``grid``)."""

    source: str
    config: LaunchConfig
    inputs: tuple[TensorArg, ...]
    outputs: tuple[TensorArg, ...]
    xnumel: int
    rnumel: int
    ir: str
    body_ops: int            # body ops other than linalg.yield
    reduction: bool          # a reduction kernel (it takes an RBLOCK constexpr)
    notes: tuple[str, ...] = ()
    name: str = KERNEL_NAME
    kernel: str = ""         # the kernel function's name (``data.lower_kernel``); "" for a bare generic
    mode: str = ""           # pointwise | persistent | looped
    hbm_bytes: int = 0       # bytes its loads and stores move (docs/groups.md, "HBM bytes")

    @property
    def signature(self) -> dict[str, str]:
        return kernel_signature(self.inputs, self.outputs, self.reduction)

    @property
    def constexprs(self) -> dict[str, int]:
        c = {"XBLOCK": self.config.XBLOCK}
        if self.reduction:
            c["RBLOCK"] = self.config.RBLOCK
        return c

    @property
    def grid(self) -> tuple[int]:
        return (-(-self.xnumel // self.config.XBLOCK),)


def kernel_signature(inputs, outputs, has_rblock: bool) -> dict[str, str]:
    sig = {a.name: ELEM_TYPES[a.elem].pointer for a in (*inputs, *outputs)}
    sig["XBLOCK"] = "constexpr"
    if has_rblock:
        sig["RBLOCK"] = "constexpr"
    return sig


# ---------------------------------------------------------------------------
# Code generation


class IndexSpace:
    """Index and offset code over one loop space (``info``'s extents and
    iterator kinds): x (parallel) and r (reduction) indices, the partial
    indices operands need, and the load/store expressions of an operand.
    :class:`_Codegen` uses it for one generic; ``data.lower_kernel`` for the
    common loops of a kernel function's members."""

    def __init__(self, info: GenericInfo, unit: str):
        self.info = info
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
        first output's layout so stores are contiguous; r follows loop order."""
        if kind == "r":
            dims = self.info.reduction
        else:
            first = [v for k, v in self.info.outputs[0].results if k == "d"]
            dims = first + [d for d in self.info.parallel if d not in first]
        return [d for d in dims if self.info.extents[d] > 1]

    def _kind(self, d: int) -> str:
        return "r" if self.info.iterators[d] == "reduction" else "x"

    def _run(self, kind: str, i: int, j: int) -> str:
        """Name of the index of positions ``i..j`` of ``order(kind)`` (emitting its line once)."""
        dims = self.order(kind)
        ext = [self.info.extents[d] for d in dims]
        flat = f"{kind}index"
        if i == 0 and j == len(dims) - 1:
            return flat
        name = f"{kind}{dims[i]}" if i == j else f"{kind}{dims[i]}_{dims[j]}"
        if name not in self.index_lines[kind]:
            inner = _prod(ext[j + 1:])
            expr = flat if inner == 1 else f"({flat} // {inner})"
            if i > 0:
                expr = f"{expr} % {_prod(ext[i:j + 1])}"
            self.index_lines[kind][name] = expr
        return name

    def _var(self, d: int) -> str | None:
        """Name of loop dim ``d``'s own index tensor, ``None`` if the dim has size 1."""
        if self.info.extents[d] == 1:
            return None
        kind = self._kind(d)
        pos = self.order(kind).index(d)
        return self._run(kind, pos, pos)

    def index_setup(self, kind: str) -> list[str]:
        return [f"{name} = {expr}" for name, expr in self.index_lines[kind].items()]

    def offset(self, arg: TensorArg) -> tuple[str, bool, bool]:
        """(offset expression, uses x dims, uses r dims) of ``arg``'s element."""
        strides, s = [], 1
        for size in reversed(arg.shape):
            strides.append(s)
            s *= size
        strides.reverse()
        const, items = 0, []  # items: (kind, position in order(kind), stride, extent)
        for (kind, v), stride in zip(arg.results, strides):
            if kind == "c":
                const += v * stride
            elif self.info.extents[v] > 1:
                k = self._kind(v)
                items.append((k, self.order(k).index(v), stride, self.info.extents[v]))
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
        rdep = self.info.iterators[d] == "reduction" and var is not None
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
        offset, uses_x, _ = self.offset(arg)
        if not uses_x:
            self.xzero_needed = True
            return f"xzero + {offset}"
        return offset


class _Codegen(IndexSpace):
    """Builds the kernel body for one (generic, config) pair."""

    def __init__(self, op, info: GenericInfo, config: LaunchConfig):
        super().__init__(info, "[1, 1]" if info.reduction else "[1]")
        self.g = _as_generic(op)
        self.config = config
        self.reduction = bool(info.reduction)
        self.persistent = config.is_persistent(info.rnumel)
        self.n_in = len(info.inputs)
        self.loaded: set[int] = set()  # operands the kernel reads from memory (for hbm_bytes)
        self.gathered = dict(zip(gathers(self.g.operation), info.gathered))
        self.gathered_bytes: dict = {}   # tensor -> bytes its gathers read
        self.emitter = BodyEmitter(self.g.regions[0].blocks[0], self._load, self._index, self.unit,
                                   pointer=self._pointer)

    def _index(self, d: int) -> Val:
        expr, rdep = self.index_expr(d)
        return self.emitter.emit(expr, "index", rdep)

    # -- memory -------------------------------------------------------------------

    def _arg(self, i: int) -> TensorArg:
        return self.info.inputs[i] if i < self.n_in else self.info.outputs[i - self.n_in]

    def _load(self, i: int) -> Val:
        self.loaded.add(i)
        expr, rdep = self.load_expr(self._arg(i))
        return self.emitter.emit(expr, self._arg(i).elem, rdep)

    def _pointer(self, v: ir.Value) -> tuple[str, tuple[int, ...], str]:
        """A gathered tensor's pointer; each gather reads one element per loop point."""
        arg = self.gathered[v]
        self.gathered_bytes[v] = self.gathered_bytes.get(v, 0) + _prod(self.info.extents) * elem_bytes(arg.elem)
        return arg.name, arg.shape, arg.elem

    def hbm_bytes(self) -> int:
        """Bytes the kernel moves in its one pass: every operand it loads (a
        reduction also loads each output's initial value), every output once,
        and the elements gathered from a tensor no operand loads (docs/groups.md)."""
        read = set(self.loaded) | ({self.n_in + j for j in range(len(self.info.outputs))} if self.reduction else set())
        loaded = {self.g.operands[i] for i in read}
        return (sum(tensor_bytes(self._arg(i)) for i in read)
                + sum(tensor_bytes(o) for o in self.info.outputs)
                + sum(b for v, b in self.gathered_bytes.items() if v not in loaded))

    # -- kernel -------------------------------------------------------------------

    def body(self) -> list[str]:
        """Kernel body lines (without the ``def``), indented by the caller."""
        if not self.reduction:
            return self._pointwise_kernel(self.emitter.run())
        block = self.g.regions[0].blocks[0]
        slots, skip = match_reductions(block, self.n_in, len(self.info.outputs), self.info.reduction)
        self.emitter.run(skip=skip)
        return self._reduction_kernel(slots)

    def _header(self, xshape: str) -> list[str]:
        lines = [
            "xoffset = tl.program_id(0) * XBLOCK",
            f"xindex = xoffset + tl.arange(0, XBLOCK){xshape}",
            f"xmask = xindex < {self.info.xnumel}",
        ]
        return lines + self.index_setup("x")

    def _pointwise_kernel(self, yield_op: ir.Operation) -> list[str]:
        stores = []
        for out, v in zip(self.info.outputs, yield_op.operands):
            val = self.emitter.value(v, "linalg.yield")
            stores.append(f"tl.store({out.name} + ({self.store_offset(out)}), {val.expr}, mask=xmask)")
        lines = self._header("")
        if self.xzero_needed:
            lines.append("xzero = tl.full([XBLOCK], 0, tl.int32)")
        return lines + [ln for _, ln in self.emitter.lines] + stores

    def _reduction_kernel(self, slots) -> list[str]:
        em = self.emitter
        values = {s.out: em.value(s.value, "linalg.yield") for s in slots}
        out_types = [o.elem for o in self.info.outputs]
        for s in slots:
            em.helpers.add(COMBINERS[s.combiner].helper)
        code = emit_reductions(slots, values, out_types, self.persistent)
        outer = [ln for rdep, ln in em.lines if not rdep]
        inner = [ln for rdep, ln in em.lines if rdep]
        offsets = [self.store_offset(o) for o in self.info.outputs]  # before the header: may add x indices
        r_setup = self.index_setup("r")
        rn = self.info.rnumel
        lines = self._header("[:, None]")
        if self.persistent:
            lines += [f"tl.static_assert(RBLOCK >= {rn})", "rindex = tl.arange(0, RBLOCK)[None, :]",
                      f"rmask = rindex < {rn}"]
            lines += r_setup + outer + inner + code.init + code.step
        else:
            loop = ["rindex = roffset + tl.arange(0, RBLOCK)[None, :]", f"rmask = rindex < {rn}"]
            loop += r_setup + inner + code.step
            lines += outer + code.init + [f"for roffset in range(0, {rn}, RBLOCK):"] + ["    " + ln for ln in loop]
        lines += code.finish
        for s, out, off in zip(slots, self.info.outputs, offsets):
            init = f"tl.load({out.name} + ({off}), mask=xmask)"
            at = out.elem if s.arg_of is not None else acc_type(out.elem)
            lines.append(f"init{s.out} = " + (f"{init}.to({tl_type(at)})" if at != out.elem else init))
        for s, out, off in zip(slots, self.info.outputs, offsets):
            lines.append(f"tl.store({out.name} + ({off}), {final_value(s, slots, out_types)}, mask=xmask)")
        if self.xzero_needed:
            lines.insert(3, "xzero = tl.full([XBLOCK, 1], 0, tl.int32)")
        return lines


# ---------------------------------------------------------------------------
# Source assembly


_FILE_TEMPLATE = '''\
# Generated by CostFuse {origin}.  Do not edit.
# Self-contained: needs only triton (and torch tensors to launch it).
#
{ir_comment}
import triton
import triton.language as tl

KERNEL_NAME = "{name}"
SIGNATURE = {signature!r}
CONFIG = {config!r}
XNUMEL = {xnumel}
RNUMEL = {rnumel}
{outputs_note}
INPUTS = {inputs!r}
OUTPUTS = {outputs!r}


def grid(meta):
    return (triton.cdiv(XNUMEL, meta["XBLOCK"]),)


def launch(*tensors):
    """Run the kernel on torch tensors (inputs then outputs, as INPUTS/OUTPUTS)."""
    consts = {{k: v for k, v in CONFIG.items() if k in SIGNATURE}}
    return {name}[grid(CONFIG)](*tensors, **consts, num_warps=CONFIG["num_warps"], num_stages=CONFIG["num_stages"])

{helpers}
@triton.jit
def {name}({params}):
{body}
'''


_GENERIC_ORIGIN = "(data/lower.py) from one linalg.generic"
_GENERIC_OUTPUTS_NOTE = ("# (parameter, shape, torch dtype name); outputs are read-modify-write: fill\n"
                         "# them with the generic's `outs` values before launching.")


def render_source(ir_text: str, inputs, outputs, config: LaunchConfig, xnumel: int, rnumel: int, body: list[str],
                  helpers: set[str], has_rblock: bool, origin: str = _GENERIC_ORIGIN,
                  outputs_note: str = _GENERIC_OUTPUTS_NOTE) -> str:
    """The self-contained kernel file: ``ir_text`` as a comment, the metadata
    (``SIGNATURE``, ``CONFIG``, ``INPUTS``/``OUTPUTS``), ``launch`` and the
    kernel.  ``origin`` and ``outputs_note`` are the header lines that say
    what it was lowered from and how its outputs are passed."""
    params = [a.name for a in (*inputs, *outputs)] + ["XBLOCK: tl.constexpr"]
    if has_rblock:
        params.append("RBLOCK: tl.constexpr")
    ir_comment = "\n".join("# " + ln if ln else "#" for ln in ir_text.splitlines())
    return _FILE_TEMPLATE.format(
        origin=origin,
        outputs_note=outputs_note,
        ir_comment=ir_comment,
        name=KERNEL_NAME,
        signature=kernel_signature(inputs, outputs, has_rblock),
        config=config.to_dict(),
        xnumel=xnumel,
        rnumel=rnumel,
        inputs=[(a.name, a.shape, ELEM_TYPES[a.elem].torch) for a in inputs],
        outputs=[(a.name, a.shape, ELEM_TYPES[a.elem].torch) for a in outputs],
        helpers="".join(HELPERS[h] + "\n\n" for h in sorted(helpers)),
        params=", ".join(params),
        body="\n".join("    " + ln for ln in body),
    )


def lower_generic(op, config: LaunchConfig | None = None) -> LoweredKernel:
    """Lower ``op`` (a ``linalg.generic`` op or opview) to a Triton kernel.

    ``config`` defaults to :func:`data.launch_config.heuristic_config`.  Raises
    :class:`UnsupportedOp` (op name + reason) for unsupported constructs and
    ``ValueError`` for a config that does not fit the kernel (an RBLOCK on a
    pointwise kernel).
    """
    info = analyze(op)
    reduction = bool(info.reduction)
    config = config or heuristic_config(info.xnumel, info.rnumel if reduction else 1)
    if not reduction and config.RBLOCK != 1:
        raise ValueError(f"pointwise kernel takes RBLOCK=1, got {config.RBLOCK}")
    cg = _Codegen(op, info, config)
    body = cg.body()
    inputs = info.inputs + info.gathered
    source = render_source(info.ir, inputs, info.outputs, config, info.xnumel, info.rnumel, body,
                           cg.emitter.helpers, reduction)
    n_ops = sum(1 for o in cg.g.regions[0].blocks[0].operations if o.operation.name != "linalg.yield")
    mode = "looped" if reduction and not cg.persistent else "persistent" if reduction else "pointwise"
    return LoweredKernel(source, config, inputs, info.outputs, info.xnumel, info.rnumel if reduction else 1,
                         info.ir, n_ops, reduction, tuple(dict.fromkeys(cg.emitter.notes)),
                         mode=mode, hbm_bytes=cg.hbm_bytes())


# ---------------------------------------------------------------------------
# Modules


def generics_of(module: ir.Module) -> list[ir.OpView]:
    """Every ``linalg.generic`` in ``module``, in textual order (nested regions included)."""
    found = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    if inner.operation.name == "linalg.generic":
                        found.append(inner.operation.opview)
                    else:
                        walk(inner.operation)

    walk(module.operation)
    return found


@dataclass
class LoweringReport:
    """Result of lowering every generic of a module: ``kernels`` holds
    ``(index, LoweredKernel)``, ``unsupported`` ``(index, UnsupportedOp)``, where
    ``index`` is the generic's position in :func:`generics_of` order (or the
    kernel function's, for ``data.lower_kernel.lower_kernels``: ``what`` says which)."""

    kernels: list[tuple[int, LoweredKernel]] = field(default_factory=list)
    unsupported: list[tuple[int, UnsupportedOp]] = field(default_factory=list)
    what: str = "generics"

    @property
    def total(self) -> int:
        return len(self.kernels) + len(self.unsupported)

    def summary(self) -> str:
        reasons: dict[str, int] = {}
        for _, err in self.unsupported:
            reasons[str(err)] = reasons.get(str(err), 0) + 1
        lines = [f"{len(self.kernels)}/{self.total} {self.what} lowered, {len(self.unsupported)} unsupported"]
        lines += [f"  {n} x {r}" for r, n in sorted(reasons.items(), key=lambda kv: -kv[1])]
        return "\n".join(lines)


def lower_module(module: ir.Module, config_for=None) -> LoweringReport:
    """Lower every generic of ``module``.  ``config_for(info) -> LaunchConfig``
    overrides the heuristic per generic.  Unsupported generics are collected,
    not raised, so one odd op never stops a whole model."""
    report = LoweringReport()
    for i, g in enumerate(generics_of(module)):
        try:
            config = config_for(analyze(g)) if config_for else None
            report.kernels.append((i, lower_generic(g, config)))
        except UnsupportedOp as err:
            report.unsupported.append((i, err))
    return report


# ---------------------------------------------------------------------------
# Reference wrapper


def generic_as_function(op, name: str = "generic") -> str:
    """A module holding ``func.func @name`` that runs just ``op``: its
    arguments are the generic's operand tensors (inputs, then outputs, one
    argument per operand) and it returns the generic's results.  Scalar constants the body
    captures from outside are cloned in; tensors it gathers from
    (:func:`costfuse.rowspace.gathers`) are arguments after the inputs, in
    first-use order, as in the kernel's ``INPUTS``.  This is what the IREE
    oracle runs to check the Triton kernel of the same generic."""
    g = _as_generic(op)
    gathered = list(gathers(g.operation))
    operands = list(g.inputs) + gathered + list(g.outputs)
    block = g.regions[0].blocks[0]
    captured = []
    for inner in block.operations:
        for v in inner.operation.operands:
            if v in gathered or v in captured:
                continue
            if isinstance(v, ir.OpResult) and v.owner.operation.block != block:
                if v.owner.name != "arith.constant":
                    raise UnsupportedOp(v.owner.name, "generic body captures a non-constant value")
                captured.append(v)
            elif isinstance(v, ir.BlockArgument) and v.owner != block:
                raise UnsupportedOp(inner.operation.name, "generic body captures a function argument")
    from iree.compiler.dialects import func

    with g.context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            ftype = ir.FunctionType.get([v.type for v in operands], [r.type for r in g.results])
            fn = func.FuncOp(name, ftype)
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                outside = {}
                for v in captured:
                    outside[v] = v.owner.clone().results[0]
                n_in = len(g.inputs)
                args = list(entry.arguments)
                outside.update(zip(gathered, args[n_in:n_in + len(gathered)]))
                clone = g.operation.clone()
                for i, arg in enumerate(args[:n_in] + args[n_in + len(gathered):]):
                    clone.operands[i] = arg
                for inner in clone.regions[0].blocks[0].operations:
                    for k, v in enumerate(inner.operation.operands):
                        if v in outside:
                            inner.operation.operands[k] = outside[v]
                func.ReturnOp(list(clone.results))
        text = str(module)
    return text
