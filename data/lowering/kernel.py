"""Lower one kernel function (docs/groups.md) to one Triton kernel, and every kernel function of a module.

Under ``--fusion groups`` a kernel is an outlined ``func.func`` carrying
``costfuse.kernel``: member generics sharing rows, inits cloned in, and the
launch the pass chose in ``costfuse.launch`` (:mod:`data.lowering.kernel_function`
reads them).  :func:`lower_kernel` turns one
such function into one Triton kernel at exactly that launch, in its mode:

* ``pointwise``: every member runs over the same loops; one flat ``[XBLOCK]``
  tile, as v1's pointwise kernels.
* ``persistent``: an ``[XBLOCK, RBLOCK]`` tile holds whole rows
  (``tl.static_assert(RBLOCK >= n)``); each input is loaded once and the
  members run in program order: full members on the tile, reductions along
  axis 1 to ``[XBLOCK, 1]``, per-row (rowwise) members on ``[XBLOCK, 1]``.
* ``looped``: pass ``p`` loops over the row in ``RBLOCK`` chunks, computing
  the reductions of level ``p`` and storing the full outputs of that pass,
  *recomputing* the full values they need from loads
  (:attr:`costfuse.kernel.KernelShape.pass_of` and its needed sets); rowwise
  members run between passes, as soon as their inputs exist.

What the kernel reads and stores is decided by :func:`costfuse.kernel.analyze_kernel`,
the same facts group formation uses, and the kernel *reports* the bytes its
own loads and stores move (``hbm_bytes``), so the tests can hold the pass's
estimate (``KernelShape.hbm_bytes``) to the emitted code.

Shared with v1's lowering (:mod:`data.lowering.generic`): offsets and indices
(:class:`~data.lowering.index_space.IndexSpace` over the members' common
loops), bodies (:class:`~data.lowering.body.BodyEmitter`), reductions
(:func:`~data.lowering.reduction.match_reductions`, ``emit_reductions``,
``final_value``: f16/bf16 accumulate in f32), and the self-contained file
(:func:`~data.lowering.source.render_source`).  Kernel arguments are the
function's arguments (inputs) then one pointer per function result (outputs):
results are fresh tensors, so the launch fills nothing.  A member that gathers
(``tensor.extract`` of a function argument) loads through that argument's
pointer (:class:`~data.lowering.body.BodyEmitter`, ``pointer``).

A function whose single member is not a row kernel (two reduction loops, a
reduction that is not innermost) is lowered by v1's
:func:`~data.lowering.generic.lower_generic` at the launch's config, so every
outlined kernel lowers.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Iterator

from iree.compiler import ir

from costfuse.data.lowering.body import BodyEmitter, Val, constant_expr, scalar_value, tl_type
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.index_space import IndexSpace
from costfuse.data.lowering.kernel_args import TensorArg, elem_bytes, prod, tensor_arg, tensor_bytes
from costfuse.data.lowering.kernel_function import (as_function, function_name, kernel_functions, kernel_launch,
                                                    kernel_members)
from costfuse.data.lowering.reduction import (COMBINERS, ReductionCode, acc_type, emit_reductions, final_value,
                                              match_reductions)
from costfuse.data.lowering.report import LoweringReport
from costfuse.data.lowering.source import LoweredKernel, render_source
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, defined_by
from costfuse.graph import body as body_of
from costfuse.graph import body_ops, indexing_maps, num_inputs
from costfuse.kernel import FULL, REDUCE, ROWWISE, KernelShape, NotAKernel, analyze_kernel, defining_op
from costfuse.launch import LAUNCH_ATTR, KernelLaunch, heuristic_launch
from costfuse.rowspace import op_space

# The file's header lines.  ``data/lower_kernel.py`` is where this lowering
# lived when dataset v2 was built: the header is part of every kernel's
# source, hence of its kernel id, so it keeps that name.
ORIGIN = "(data/lower_kernel.py) from one kernel function"
OUTPUTS_NOTE = ("# (parameter, shape, torch dtype name); outputs are written, never read: the\n"
                "# kernel function's results are fresh tensors, so pass any of these shapes.")


def _fill_constant(v: ir.Value) -> ir.Attribute | None:
    """The constant a ``linalg.fill`` of an ``arith.constant`` writes into ``v``, else ``None``."""
    fill = defined_by(v, "linalg.fill")
    scalar = defined_by(fill.operands[0], "arith.constant") if fill is not None else None
    return scalar.attributes["value"] if scalar is not None else None


def _fill_scalar(attr: ir.Attribute, where: str):
    return scalar_value(attr, "linalg.fill", f"{where}: fill constant")


def _elem(v: ir.Value) -> str:
    return str(ir.RankedTensorType(v.type).element_type)


# ---------------------------------------------------------------------------
# Code generation


@dataclass
class _Emitter(BodyEmitter):
    """A body emitter whose names come from one kernel-wide counter, so members
    (and their recomputations in later passes) never reuse a name."""

    names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def fresh(self) -> str:
        return f"t{next(self.names)}"


@dataclass
class _Phase:
    """Code sharing loads: one pass of a looped kernel (its hoisted and
    in-loop lines), the rowwise code between passes, or the whole tile of a
    persistent or pointwise kernel.  ``tensors`` are the arguments it reads:
    each costs its size once per phase."""

    lines: list[tuple[bool, str]] = field(default_factory=list)   # (varies along r, line)
    loads: dict = field(default_factory=dict)                     # (argument, map) -> Val
    tensors: set = field(default_factory=set)


class _KernelCodegen:
    """Builds the body of one kernel function's Triton kernel at one launch."""

    def __init__(self, func: ir.Operation, shape: KernelShape, launch: KernelLaunch):
        self.func, self.shape, self.launch = func, shape, launch
        self.name = function_name(func)
        self.row = launch.mode != "pointwise"
        self.k = len(shape.rows)
        extents = shape.rows + (shape.n,)
        iterators = ("parallel",) * self.k + ("reduction" if self.row else "parallel",)
        block = body_of(func)
        self.arg_index = {a: i for i, a in enumerate(block.arguments)}
        with func.context:
            self.inputs = tuple(tensor_arg(f"in_ptr{i}", a, ir.AffineMap.get_identity(len(a.type.shape)))
                                for i, a in enumerate(block.arguments))
        self.member_index = {m.op: i for i, m in enumerate(shape.members)}
        self.loops = [op_space(m.op).loops for m in shape.members]
        self.out_refs: list[tuple[int, int]] = []
        outputs = []
        for k, v in enumerate(self._return().operands):
            i = self.member_index.get(defining_op(v))
            if i is None:
                raise UnsupportedOp("func.return", f"@{self.name}: result {k} is not a member generic's result")
            r = ir.OpResult(v).result_number
            op = shape.members[i].op
            outputs.append(self._access(i, f"out_ptr{k}", v, indexing_maps(op)[num_inputs(op) + r]))
            self.out_refs.append((i, r))
        self.outputs = tuple(outputs)
        # x follows the first output's layout (contiguous stores), as in v1.
        xdims = [(kind, d) for kind, d in (self.outputs[0].results if self.outputs else ())
                 if kind == "d" and (d < self.k or not self.row)]
        self.space = IndexSpace(extents, iterators, tuple(xdims), "[1, 1]" if self.row else "[1]")
        self.names = itertools.count(1)
        self.helpers: set[str] = set()
        self.notes: list[str] = []
        self.row_values: dict[tuple[int, int], Val] = {}    # per-row results: reductions and rowwise members
        self.full_values: dict[tuple[int, int], Val] = {}   # full results of the phase being emitted
        self.phases: list[_Phase] = []                      # one per pass (one in all for a single tile)
        # Looped kernels: the rowwise members' code between passes, and how
        # per-row loads ([XBLOCK, 1], kept in registers) are shared (see _shared_load).
        self.rowwise = _Phase()
        self.row_loads: dict = {}          # every per-row load emitted so far
        self.pass_read: set = set()        # arguments some pass has read
        self.borrowed: set = set()         # arguments whose rowwise load stands for a pass's read
        self.gathered: dict = {}           # argument -> bytes its gathers read (tensor.extract)
        self.reduced: dict = {}            # reduce member -> {output: the value it reduces} of its latest pass

    def _access(self, i: int, name: str, v: ir.Value, amap: ir.AffineMap) -> TensorArg:
        """Member ``i``'s access to ``v`` through ``amap``, in the kernel's loops:
        a loop of extent 1 (PyTorch's keepdim, ``rows + (1,)``) reads index 0."""
        arg = tensor_arg(name, v, amap)
        loops = self.loops[i]
        return dataclasses.replace(arg, results=tuple(("c", 0) if kind == "d" and loops[d] == 1 else (kind, d)
                                                      for kind, d in arg.results))

    def _return(self) -> ir.Operation:
        return block_ops(body_of(self.func))[-1]

    # -- values -----------------------------------------------------------------

    def _emit(self, phase: _Phase, expr: str, t: str, rdep: bool) -> Val:
        name = f"t{next(self.names)}"
        phase.lines.append((rdep, f"{name} = {expr}"))
        return Val(name, t, rdep)

    def _external(self, i: int, v: ir.Value, amap: ir.AffineMap, phase: _Phase, where: str) -> Val:
        """The element of ``v`` (defined outside the members) that member ``i`` reads at the tile's loop point."""
        if v in self.arg_index:
            arg = self._access(i, self.inputs[self.arg_index[v]].name, v, amap)
            key = (v, arg.results)
            if key not in phase.loads and not self._shared_load(key, phase):
                expr, rdep = self.space.load_expr(arg)
                phase.loads[key] = self._emit(phase, expr, arg.elem, rdep)
                phase.tensors.add(v)
                if not rdep:
                    self.row_loads[key] = phase.loads[key]
            if phase is not self.rowwise:
                self.pass_read.add(v)
            return phase.loads[key]
        const = _fill_constant(v)
        if const is not None:
            expr = constant_expr(_fill_scalar(const, where), _elem(v), self.space.unit)
            return self._emit(phase, expr, _elem(v), False)
        owner = defining_op(v)
        what = owner.name if owner is not None else "a block argument"
        raise UnsupportedOp(what, f"{where} reads a tensor defined by {what}, neither a function argument nor a "
                                  "fill of a constant (a tensor.empty has no values to read)")

    def _shared_load(self, key, phase: _Phase) -> bool:
        """Whether a looped kernel reuses a per-row load already in registers
        for ``key`` (putting it in ``phase.loads``), as docs/groups.md counts
        reads: a rowwise member reuses any earlier per-row load of it; the
        first pass that reads an argument reuses the rowwise members' load of
        it (that load is then this pass's read); later passes load again."""
        v = key[0]
        if phase is self.rowwise and key in self.row_loads:
            phase.loads[key] = self.row_loads[key]
            return True
        if phase is not self.rowwise and key in self.rowwise.loads and v not in self.pass_read:
            phase.loads[key] = self.rowwise.loads[key]
            phase.tensors.add(v)
            self.borrowed.add(v)
            return True
        return False

    def _operand(self, i: int, a: int, phase: _Phase) -> Val:
        """Block argument ``a`` of member ``i``: a member's value in registers, or a load."""
        op = self.shape.members[i].op
        v = op.operands[a]
        j = self.member_index.get(defining_op(v))
        if j is not None:
            key = (j, ir.OpResult(v).result_number)
            return self.row_values[key] if key in self.row_values else self.full_values[key]
        return self._external(i, v, indexing_maps(op)[a], phase, f"@{self.name} member {i} operand {a}")

    def _emitter(self, i: int, phase: _Phase) -> BodyEmitter:
        def index(d: int) -> Val:
            if self.loops[i][d] == 1:
                return self._emit(phase, f"tl.full({self.space.unit}, 0, tl.int64)", "index", False)
            expr, rdep = self.space.index_expr(d)
            return self._emit(phase, expr, "index", rdep)

        op = self.shape.members[i].op
        return _Emitter(body_of(op), lambda a: self._operand(i, a, phase), index, self.space.unit,
                        lines=phase.lines, helpers=self.helpers, notes=self.notes, names=self.names,
                        pointer=lambda v: self._pointer(i, v))

    def _pointer(self, i: int, v: ir.Value) -> tuple[str, tuple[int, ...], str]:
        """The argument pointer member ``i`` gathers from; each gather emitted
        reads one element per loop point of the member."""
        if v not in self.arg_index:
            raise UnsupportedOp("tensor.extract", f"@{self.name} member {i} gathers from a tensor that is not "
                                                  "a function argument")
        arg = self.inputs[self.arg_index[v]]
        self.gathered[v] = self.gathered.get(v, 0) + prod(self.loops[i]) * elem_bytes(arg.elem)
        return arg.name, arg.shape, arg.elem

    # -- members ------------------------------------------------------------------

    def _elementwise(self, i: int, phase: _Phase) -> None:
        """A full or rowwise member: its results' values (full ones only for this phase)."""
        em = self._emitter(i, phase)
        yield_op = em.run()
        target = self.row_values if self.shape.members[i].role == ROWWISE else self.full_values
        for r, v in enumerate(yield_op.operands):
            target[(i, r)] = em.value(v, "linalg.yield")

    def _reduction(self, i: int, phase: _Phase, persistent: bool):
        """A reduce member's body, its outputs' initial values (both in
        ``phase``) and its reduction code; the per-row results exist once the
        code's ``finish`` and :meth:`_finals` lines have run."""
        op = self.shape.members[i].op
        n_in, n_out = num_inputs(op), len(op.results)
        em = self._emitter(i, phase)
        slots, skip = match_reductions(body_of(op), n_in, n_out, [self.k])
        em.run(skip=skip)
        values = {s.out: em.value(s.value, "linalg.yield") for s in slots}
        self.reduced[i] = values
        for s in slots:
            self.helpers.add(COMBINERS[s.combiner].helper)
        code = emit_reductions(slots, values, self._out_types(i), persistent, tag=f"{i}_")
        self._inits(i, slots, phase)
        return slots, code

    def _online_sum(self, i: int, mx: int, r: int, phase: _Phase):
        """Online sum member ``i`` (:mod:`costfuse.online_softmax`): ``sum(exp(x - m))`` where ``m`` is
        output ``r`` of max member ``mx``, which reduces ``x`` in this same pass.  Per lane, ``acc``
        holds the sum of ``exp(x - running max)``, rescaled by ``exp(old max - new max)`` as the max
        member's accumulator grows; after the loop each lane is rescaled to the row's final max and
        the lanes are summed.  A lane whose max is still -inf has summed nothing.  A row whose final
        max is -inf (every element -inf) sums NaN, as the three-pass sum does (each term is
        ``exp(-inf - -inf)``).  The first step line, the old max, goes before the max member's
        update."""
        op = self.shape.members[i].op
        slots, _ = match_reductions(body_of(op), num_inputs(op), 1, [self.k])
        self._inits(i, slots, phase)
        self.helpers.add(COMBINERS["arith.addf"].helper)
        t, y = acc_type(self._out_types(i)[0]), self.reduced[mx][r].expr
        acc, m, old, inf = f"acc{i}_0", f"acc{mx}_{r}", f"mprev{i}_0", 'float("-inf")'
        step = [f"{old} = {m}",
                f"{acc} = tl.where({m} == {inf}, {acc}, {acc} * tl.exp({old} - {m})"
                f" + tl.where(xmask & rmask, tl.exp({y} - {m}), 0.0))"]
        final = f"v{mx}_{r}"
        rescaled = f"tl.where({m} == {inf}, 0.0, {acc} * tl.exp({m} - {final}))"
        finish = [f"red{i}_0 = tl.where({final} == {inf}, float(\"nan\"), "
                  f"{COMBINERS['arith.addf'].reduce(rescaled)}[:, None])"]
        return slots, ReductionCode([f"{acc} = tl.full([XBLOCK, RBLOCK], 0.0, {tl_type(t)})"], step, finish)

    def _welford_sum(self, i: int, m: int, phase: _Phase):
        """Welford sum of squares member ``i`` (:mod:`costfuse.welford`): ``sum((x - mean)^2)`` where
        ``mean`` is the row's mean of the ``x`` that sum member ``m`` reduces in this same pass.  Per
        lane, a count, a running mean and ``m2`` (the sum of squared deviations from it) are updated
        as each element arrives; after the loop the lanes are combined (``_welford_combine``, Chan's
        rule) and the row's ``m2`` is the sum.  Masked elements leave a lane as it was."""
        op = self.shape.members[i].op
        slots, _ = match_reductions(body_of(op), num_inputs(op), 1, [self.k])
        self._inits(i, slots, phase)
        self.helpers.add("_welford_combine")
        t, x = tl_type(acc_type(self._out_types(i)[0])), self.reduced[m][0].expr
        mean, m2, count, seen, delta = (f"w{name}_{i}" for name in ("mean", "m2", "n", "seen", "delta"))
        init = [f"{v} = tl.full([XBLOCK, RBLOCK], 0.0, {t})" for v in (mean, m2, count)]
        step = [f"{seen} = xmask & rmask",
                f"{count} = {count} + tl.where({seen}, 1.0, 0.0)",
                f"{delta} = {x} - {mean}",
                f"{mean} = tl.where({seen}, {mean} + {delta} / tl.maximum({count}, 1.0), {mean})",
                f"{m2} = tl.where({seen}, {m2} + {delta} * ({x} - {mean}), {m2})"]
        finish = [f"_, red{i}_0, _ = tl.reduce(({mean}, {m2}, {count}), 1, _welford_combine)",
                  f"red{i}_0 = red{i}_0[:, None]"]
        return slots, ReductionCode(init, step, finish)

    def _out_types(self, i: int) -> list[str]:
        return [_elem(r) for r in self.shape.members[i].op.results]

    def _inits(self, i: int, slots, phase: _Phase) -> None:
        """``init{tag}{j}`` for each output of reduce member ``i``, per row: the
        constant of a cloned fill, or a load of the init argument."""
        op = self.shape.members[i].op
        n_in, types = num_inputs(op), self._out_types(i)
        for s in slots:
            j, t = s.out, types[s.out]
            at = t if s.arg_of is not None else acc_type(t)
            init = op.operands[n_in + j]
            where = f"@{self.name} member {i} init {j}"
            const = _fill_constant(init)
            if const is not None:
                expr = constant_expr(_fill_scalar(const, where), t, "[XBLOCK, 1]")
            else:
                expr = self._external(i, init, indexing_maps(op)[n_in + j], phase, where).expr
            phase.lines.append((False, f"init{i}_{j} = " + (f"{expr}.to({tl_type(at)})" if at != t else expr)))

    def _finals(self, i: int, slots) -> list[str]:
        """Each output of reduce member ``i``: its initial value combined with the reduced one."""
        types = self._out_types(i)
        lines = []
        for s in slots:
            name = f"v{i}_{s.out}"
            lines.append(f"{name} = {final_value(s, slots, types, f'{i}_')}")
            self.row_values[(i, s.out)] = Val(name, types[s.out], False)
        return lines

    # -- stores -------------------------------------------------------------------

    def _store(self, k: int) -> str:
        i, r = self.out_refs[k]
        out = self.outputs[k]
        full = self.shape.members[i].role == FULL
        value = (self.full_values if full else self.row_values)[(i, r)]
        offset = self.space.store_offset(out)
        mask = "xmask & rmask" if full and self.row else "xmask"
        return f"tl.store({out.name} + ({offset}), {value.expr}, mask={mask})"

    # -- kernel -------------------------------------------------------------------

    def body(self) -> list[str]:
        lines = self._looped() if self.launch.mode == "looped" else self._one_tile()
        return self._header() + lines

    def _one_tile(self) -> list[str]:
        """Pointwise and persistent kernels: every member in order on one tile, stores last."""
        phase = _Phase()
        self.phases.append(phase)
        for i, m in enumerate(self.shape.members):
            if m.role != REDUCE:
                self._elementwise(i, phase)
                continue
            slots, code = self._reduction(i, phase, persistent=True)
            phase.lines += [(False, ln) for ln in code.init + code.step + code.finish + self._finals(i, slots)]
        return [ln for _, ln in phase.lines] + [self._store(k) for k in range(len(self.outputs))]

    def _looped(self) -> list[str]:
        """One loop over the row per pass; rowwise members between passes."""
        shape, n, rowwise = self.shape, self.shape.n, self.rowwise
        out: list[str] = []
        needed = shape._needed
        online = {s: (mx, r) for s, mx, r in shape.online}
        welford = dict(shape.welford)
        for p in range(shape.n_passes + 1):
            before = len(rowwise.lines)
            for i, m in enumerate(shape.members):
                if m.role == ROWWISE and shape.pass_of[i] == p:
                    self._elementwise(i, rowwise)
            out += [ln for _, ln in rowwise.lines[before:]]
            if p == shape.n_passes:
                break
            phase = _Phase()
            self.phases.append(phase)
            self.full_values = {}
            reductions, init, step, finish = [], [], [], []
            step_of: dict[int, int] = {}     # reduce member -> where its step lines start
            late: dict[int, list[str]] = {}  # online sum -> its finish lines
            for i, m in enumerate(shape.members):
                if i not in needed[p]:
                    continue
                if m.role == FULL:
                    self._elementwise(i, phase)
                    continue
                step_of[i] = len(step)
                if i in online:     # its finish needs its max's final value: it goes after that
                    slots, code = self._online_sum(i, *online[i], phase)
                    step.insert(step_of[online[i][0]], code.step.pop(0))    # the max before this pass's update
                    late[i], code.finish = code.finish, []
                elif i in welford:
                    slots, code = self._welford_sum(i, welford[i], phase)
                else:
                    slots, code = self._reduction(i, phase, persistent=False)
                reductions.append((i, slots))
                init, step, finish = init + code.init, step + code.step, finish + code.finish
            stores = [self._store(k) for k, (i, _) in enumerate(self.out_refs)
                      if shape.members[i].role == FULL and shape.pass_of[i] == p]
            loop = ["rindex = roffset + tl.arange(0, RBLOCK)[None, :]", f"rmask = rindex < {n}"]
            loop += self.space.index_setup("r") + [ln for rdep, ln in phase.lines if rdep] + step + stores
            out += [ln for rdep, ln in phase.lines if not rdep] + init
            out += [f"for roffset in range(0, {n}, RBLOCK):"] + ["    " + ln for ln in loop] + finish
            for i, slots in reductions:
                out += late.get(i, []) + self._finals(i, slots)
        out += [self._store(k) for k, (i, _) in enumerate(self.out_refs) if shape.members[i].role != FULL]
        return out

    def _header(self) -> list[str]:
        xnumel = self.shape.n_rows if self.row else self.shape.n_rows * self.shape.n
        lines = ["xoffset = tl.program_id(0) * XBLOCK",
                 f"xindex = xoffset + tl.arange(0, XBLOCK){'[:, None]' if self.row else ''}",
                 f"xmask = xindex < {xnumel}"]
        lines += self.space.index_setup("x")
        if self.space.xzero_needed:
            lines.append(f"xzero = tl.full({'[XBLOCK, 1]' if self.row else '[XBLOCK]'}, 0, tl.int32)")
        if self.launch.mode == "persistent":
            n = self.shape.n
            lines += [f"tl.static_assert(RBLOCK >= {n})", "rindex = tl.arange(0, RBLOCK)[None, :]",
                      f"rmask = rindex < {n}"] + self.space.index_setup("r")
        return lines

    def hbm_bytes(self) -> int:
        """What the emitted code moves: each pass's arguments once, the rowwise
        members' other arguments once, each output once, and the elements
        gathered from arguments no member loads through a map."""
        read = [v for ph in self.phases for v in ph.tensors] + list(self.rowwise.tensors - self.borrowed)
        return (sum(tensor_bytes(self.inputs[self.arg_index[v]]) for v in read)
                + sum(tensor_bytes(o) for o in self.outputs)
                + sum(b for v, b in self.gathered.items() if v not in read))


# ---------------------------------------------------------------------------
# Entry points


def _check_launch(name: str, shape: KernelShape, launch: KernelLaunch) -> None:
    if launch.mode == "pointwise" and not shape.pointwise:
        raise ValueError(f"@{name}: {LAUNCH_ATTR} {launch.short()} is pointwise, but the kernel has "
                         "reductions or per-row members")
    if launch.mode == "persistent" and launch.rblock < shape.n:
        raise ValueError(f"@{name}: {LAUNCH_ATTR} {launch.short()} is persistent, but RBLOCK {launch.rblock} "
                         f"cannot hold a row of {shape.n}")


def lower_kernel(func_op, launch: KernelLaunch | None = None, target=None) -> LoweredKernel:
    """Lower the kernel function ``func_op`` to one Triton kernel at ``launch``
    (default: its ``costfuse.launch``, else :func:`costfuse.launch.heuristic_launch`).
    With a ``target`` (:class:`costfuse.targets.Target`), a row kernel's ``dram_bytes`` is
    :meth:`costfuse.kernel.KernelShape.dram_bytes_at` that launch on it (the pass's L2 model).

    Raises :class:`UnsupportedOp` for what the lowering cannot express (and
    for members that cannot share a kernel), ``ValueError`` for a launch that
    does not fit the kernel.
    """
    func = as_function(func_op)
    name = function_name(func)
    members = kernel_members(func)
    launch = launch or kernel_launch(func)
    try:
        shape = analyze_kernel(members)
    except NotAKernel as err:
        if len(members) != 1:
            raise UnsupportedOp("func.func", f"@{name}: {err}") from None
        kernel = lower_generic(members[0], launch.as_config() if launch else None)
        note = f"not a row kernel ({err}): lowered as one generic, outputs read-modify-write"
        return dataclasses.replace(kernel, kernel=name, notes=kernel.notes + (note,))
    launch = launch or heuristic_launch(shape)
    _check_launch(name, shape, launch)
    cg = _KernelCodegen(func, shape, launch)
    body = cg.body()
    xnumel = shape.n_rows if cg.row else shape.n_rows * shape.n
    rnumel = shape.n if cg.row else 1
    config = launch.as_config()
    source = render_source(str(func), cg.inputs, cg.outputs, config, xnumel, rnumel, body, cg.helpers, cg.row,
                           origin=ORIGIN, outputs_note=OUTPUTS_NOTE)
    n_ops = sum(body_ops(m) for m in members)
    return LoweredKernel(source, config, cg.inputs, cg.outputs, xnumel, rnumel, str(func), n_ops, cg.row,
                         tuple(dict.fromkeys(cg.notes)), kernel=name, mode=launch.mode, hbm_bytes=cg.hbm_bytes(),
                         dram_bytes=None if target is None else int(shape.dram_bytes_at(launch, target)))


def lower_kernels(module: ir.Module, target=None) -> LoweringReport:
    """Lower every kernel function of ``module`` (indices in :func:`kernel_functions`
    order; ``target``: as :func:`lower_kernel`).  Unsupported ones, and ones whose
    ``costfuse.launch`` does not fit, are collected with the reason rather than raised."""
    report = LoweringReport(what="kernel functions")
    for i, func in enumerate(kernel_functions(module)):
        try:
            report.kernels.append((i, lower_kernel(func, target=target)))
        except UnsupportedOp as err:
            report.unsupported.append((i, err))
        except ValueError as err:
            report.unsupported.append((i, UnsupportedOp(LAUNCH_ATTR, str(err))))
    return report

