"""Lower one ``linalg.generic`` to one Triton kernel (docs/design.md §2), and every generic of a module.

The kernel follows PyTorch Inductor's shape so the compile labels describe
kernels a real compiler emits:

* the parallel loop dims are flattened into ``xindex`` (the first output's
  layout order, so stores are contiguous), the reduction dims into ``rindex``
  (:class:`~data.lowering.index_space.IndexSpace`);
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
  ``combiner`` in :data:`~data.lowering.reduction.COMBINERS`, or an
  arg-max/arg-min index (:mod:`data.lowering.reduction`); f16/bf16 accumulate
  in f32.

The file (:mod:`data.lowering.source`) has a ``launch(*tensors)`` that calls
the kernel with outputs pre-filled with the generic's ``outs``
(destination-passing, as in Linalg).  Anything outside that subset raises
:class:`~data.lowering.unsupported.UnsupportedOp`; nothing is approximated
silently.
"""

from __future__ import annotations

from iree.compiler import ir

from costfuse.launch import LaunchConfig, heuristic_config
from costfuse.data.lowering.body import BodyEmitter, Val, tl_type
from costfuse.data.lowering.generic_info import GenericInfo, analyze, as_generic
from costfuse.data.lowering.index_space import IndexSpace
from costfuse.data.lowering.kernel_args import TensorArg, elem_bytes, prod, tensor_bytes
from costfuse.data.lowering.reduction import COMBINERS, acc_type, emit_reductions, final_value, match_reductions
from costfuse.data.lowering.report import LoweringReport
from costfuse.data.lowering.source import LoweredKernel, render_source
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.graph import body as body_of
from costfuse.graph import body_ops
from costfuse.rowspace import gathers

# The file's header lines.  ``data/lower.py`` is where this lowering lived
# when datasets v1 and v2 were built: the header is part of every kernel's
# source, hence of its kernel id, so it keeps that name.
ORIGIN = "(data/lower.py) from one linalg.generic"
OUTPUTS_NOTE = ("# (parameter, shape, torch dtype name); outputs are read-modify-write: fill\n"
                "# them with the generic's `outs` values before launching.")


class _GenericCodegen:
    """Builds the kernel body for one (generic, config) pair."""

    def __init__(self, op, info: GenericInfo, config: LaunchConfig):
        self.info = info
        self.space = IndexSpace(info.extents, info.iterators, info.outputs[0].results,
                                "[1, 1]" if info.reduction else "[1]")
        self.g = as_generic(op)
        self.reduction = bool(info.reduction)
        self.persistent = config.is_persistent(info.rnumel)
        self.n_in = len(info.inputs)
        self.loaded: set[int] = set()  # operands the kernel reads from memory (for hbm_bytes)
        self.gathered = dict(zip(gathers(self.g.operation), info.gathered))
        self.gathered_bytes: dict = {}   # tensor -> bytes its gathers read
        self.emitter = BodyEmitter(body_of(self.g), self._load, self._index, self.space.unit, pointer=self._pointer)

    def _index(self, d: int) -> Val:
        expr, rdep = self.space.index_expr(d)
        return self.emitter.emit(expr, "index", rdep)

    # -- memory -------------------------------------------------------------------

    def _arg(self, i: int) -> TensorArg:
        return self.info.inputs[i] if i < self.n_in else self.info.outputs[i - self.n_in]

    def _load(self, i: int) -> Val:
        self.loaded.add(i)
        expr, rdep = self.space.load_expr(self._arg(i))
        return self.emitter.emit(expr, self._arg(i).elem, rdep)

    def _pointer(self, v: ir.Value) -> tuple[str, tuple[int, ...], str]:
        """A gathered tensor's pointer; each gather reads one element per loop point."""
        arg = self.gathered[v]
        self.gathered_bytes[v] = self.gathered_bytes.get(v, 0) + prod(self.info.extents) * elem_bytes(arg.elem)
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
        slots, skip = match_reductions(body_of(self.g), self.n_in, len(self.info.outputs), self.info.reduction)
        self.emitter.run(skip=skip)
        return self._reduction_kernel(slots)

    def _header(self, xshape: str) -> list[str]:
        lines = [
            "xoffset = tl.program_id(0) * XBLOCK",
            f"xindex = xoffset + tl.arange(0, XBLOCK){xshape}",
            f"xmask = xindex < {self.info.xnumel}",
        ]
        return lines + self.space.index_setup("x")

    def _pointwise_kernel(self, yield_op: ir.Operation) -> list[str]:
        stores = []
        for out, v in zip(self.info.outputs, yield_op.operands):
            val = self.emitter.value(v, "linalg.yield")
            stores.append(f"tl.store({out.name} + ({self.space.store_offset(out)}), {val.expr}, mask=xmask)")
        lines = self._header("")
        if self.space.xzero_needed:
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
        offsets = [self.space.store_offset(o) for o in self.info.outputs]  # before the header: may add x indices
        r_setup = self.space.index_setup("r")
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
        if self.space.xzero_needed:
            lines.insert(3, "xzero = tl.full([XBLOCK, 1], 0, tl.int32)")
        return lines


def lower_generic(op, config: LaunchConfig | None = None) -> LoweredKernel:
    """Lower ``op`` (a ``linalg.generic`` op or opview) to a Triton kernel.

    ``config`` defaults to :func:`costfuse.launch.heuristic_config`.  Raises
    :class:`UnsupportedOp` (op name + reason) for unsupported constructs and
    ``ValueError`` for a config that does not fit the kernel (an RBLOCK on a
    pointwise kernel).
    """
    info = analyze(op)
    reduction = bool(info.reduction)
    config = config or heuristic_config(info.xnumel, info.rnumel if reduction else 1)
    if not reduction and config.RBLOCK != 1:
        raise ValueError(f"pointwise kernel takes RBLOCK=1, got {config.RBLOCK}")
    cg = _GenericCodegen(op, info, config)
    body = cg.body()
    inputs = info.inputs + info.gathered
    source = render_source(info.ir, inputs, info.outputs, config, info.xnumel, info.rnumel, body,
                           cg.emitter.helpers, reduction, origin=ORIGIN, outputs_note=OUTPUTS_NOTE)
    mode = "looped" if reduction and not cg.persistent else "persistent" if reduction else "pointwise"
    return LoweredKernel(source, config, inputs, info.outputs, info.xnumel, info.rnumel if reduction else 1,
                         info.ir, body_ops(cg.g.operation), reduction, tuple(dict.fromkeys(cg.emitter.notes)),
                         mode=mode, hbm_bytes=cg.hbm_bytes())


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
