"""A workload's ``@main`` after one policy's pass, as a plan the GPU machine can run without CostFuse (issue #14).

The GPU machine has torch and triton but no IREE (docs/design.md §5), so it
cannot read MLIR.  This module, on the CPU, runs a policy's pass the way
``experiments/compare_groups.py`` does (``run_v1``: elementwise fusion, one
kernel per generic, :func:`costfuse.data.lowering.generic.lower_module`; ``run_groups``:
kernel groups, one kernel per outlined function,
:func:`costfuse.data.lowering.kernel.lower_kernels`), then walks ``@main`` in
order and writes what each op does in terms ``experiments/gpu_run.py``
executes with torch alone:

* ``full``: a tensor of one value (``tensor.empty`` as zeros, ``linalg.fill``
  of a scalar constant, a splat ``arith.constant``);
* ``reshape``: ``tensor.expand_shape`` / ``tensor.collapse_shape`` (a view);
* ``kernel``: one lowered Triton kernel (its source file beside the plan), the
  value ids of its ``INPUTS`` in order, and per output the value whose copy it
  starts from (v1's outputs are read-modify-write) or none (a kernel
  function's results are fresh), and the ids its outputs become.

Scalar constants only feed fills and generic bodies (which the kernel sources
embed), so they are no step.  Any other op in ``@main`` is refused with
:class:`PlanError`, naming the op: nothing is approximated.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

# Short policy names (the folder of each plan) -> compare_groups' policy names.
POLICIES = {"v1": "v1 always", "inductor": "groups inductor", "xla": "groups xla", "analytical": "groups analytical",
            "learned": "groups learned"}
PLAN_VERSION = 1
_RESHAPES = ("tensor.expand_shape", "tensor.collapse_shape")


class PlanError(ValueError):
    """``@main`` holds something the GPU plan cannot express."""


def passed_module(text: str, path: Path, policy: str, model=None):
    """(module after ``policy``'s pass, its lowering report, pass seconds), as compare_groups' run_v1/run_groups."""
    from costfuse.ir import parse_module

    module = parse_module(text, str(path))
    t0 = time.perf_counter()
    if policy == "v1":
        from costfuse.data.lowering.generic import lower_module

        from costfuse.cost_models.always import Always
        from costfuse.fusion_pass import FusionPass, run_pipeline

        run_pipeline(module, FusionPass(Always()))
        dt = time.perf_counter() - t0
        return module, lower_module(module), dt
    from costfuse.data.lowering.kernel import lower_kernels

    from costfuse.group_pass import GroupFusionPass, run_group_pipeline

    run_group_pipeline(module, GroupFusionPass(model))
    dt = time.perf_counter() - t0
    return module, lower_kernels(module), dt


def main_function(module):
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and str(op.attributes["sym_name"]) == '"main"':
            return op
    raise PlanError("no func.func @main")


def _tensor(v) -> tuple[list[int], str]:
    """(shape, torch dtype name) of a ranked static tensor value."""
    from costfuse.data.lowering.element_types import ELEM_TYPES
    from iree.compiler import ir

    t = ir.RankedTensorType(v.type)
    elem = str(t.element_type)
    if elem not in ELEM_TYPES:
        raise PlanError(f"element type {elem} has no torch dtype")
    return list(t.shape), ELEM_TYPES[elem].torch


def _number(attr, where: str):
    """A scalar FloatAttr/IntegerAttr as a JSON value (inf and nan as strings, which float() reads back)."""
    from iree.compiler import ir

    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int(attr.value)
    if isinstance(attr, ir.FloatAttr):
        x = float(attr.value)
        return x if math.isfinite(x) else repr(x)
    raise PlanError(f"{where}: constant {attr} is not a scalar float or integer")


def _init_value(v):
    """The one value a tensor holds when nothing computed it: 0 for ``tensor.empty`` (it has no values; zeros
    keep runs deterministic), a ``linalg.fill`` of a scalar ``arith.constant``, a splat ``arith.constant``."""
    from iree.compiler import ir

    from costfuse.kernel import defining_op

    op = defining_op(v)
    name = op.name if op is not None else "a block argument"
    if name == "tensor.empty":
        return 0
    if name == "linalg.fill":
        scalar = defining_op(op.operands[0])
        if scalar is None or scalar.name != "arith.constant":
            raise PlanError(f"linalg.fill of {op.operands[0].type} that is not an arith.constant")
        return _number(scalar.attributes["value"], name)
    if name == "arith.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.DenseElementsAttr) and attr.is_splat:
            return _number(attr.get_splat_value(), f"{name} {v.type}")
        raise PlanError(f"{name} of a non-splat tensor {v.type}: the plan carries no data")
    raise PlanError(f"{v.type} defined by {name}, which is neither computed by a kernel nor a constant")


def predicted_dram_bytes(func) -> int | None:
    """The pass's DRAM bytes of a kernel function at its ``costfuse.launch`` (``KernelShape.dram_bytes_at`` on
    sm_90, the L2 model of docs/design.md), for ``experiments/gpu_dram.py`` to hold against ncu's; ``None``
    where the pass has no row-kernel shape (v1's generics, a kernel lowered as its one generic)."""
    from costfuse.data.lowering.kernel_function import kernel_members

    from costfuse.kernel import NotAKernel, analyze_kernel
    from costfuse.launch import LAUNCH_ATTR, KernelLaunch
    from costfuse.targets import DEFAULT_TARGET

    if func is None or LAUNCH_ATTR not in func.attributes:
        return None
    try:
        shape = analyze_kernel(kernel_members(func))
    except NotAKernel:
        return None
    return int(shape.dram_bytes_at(KernelLaunch.from_attr(func.attributes[LAUNCH_ATTR]), DEFAULT_TARGET))


class _Walker:
    """Builds the plan of one ``@main``: value ids, steps, kernel files."""

    def __init__(self, module, kernels: dict, out: Path):
        self.ids: dict = {}
        self.steps: list[dict] = []
        self.kernels, self.out = kernels, out
        self.funcs = {str(op.operation.attributes["sym_name"]).strip('"'): op.operation
                      for op in module.body.operations if op.operation.name == "func.func"}
        block = main_function(module).regions[0].blocks[0]
        self.inputs = []
        for i, a in enumerate(block.arguments):
            shape, dtype = _tensor(a)
            self.ids[a] = f"arg{i}"
            self.inputs.append({"id": f"arg{i}", "shape": shape, "dtype": dtype})
        self.n_values = 0
        self.returns: list[str] = []
        for op in block.operations:
            self.op(op.operation)

    def new(self, v) -> str:
        self.ids[v] = f"v{self.n_values}"
        self.n_values += 1
        return self.ids[v]

    def id(self, v, where: str) -> str:
        if v not in self.ids:
            raise PlanError(f"{where} reads a value no earlier step defines ({v.type})")
        return self.ids[v]

    def full(self, v) -> str:
        value = _init_value(v)
        shape, dtype = _tensor(v)
        self.steps.append({"op": "full", "result": self.new(v), "shape": shape, "dtype": dtype, "value": value})
        return self.ids[v]

    def op(self, op) -> None:
        from iree.compiler import ir

        name = op.name
        if name == "arith.constant" and not isinstance(op.results[0].type, ir.RankedTensorType):
            return   # a scalar: read by fills and generic bodies, which the kernel sources embed
        if name in ("arith.constant", "tensor.empty", "linalg.fill"):
            self.full(op.results[0])
        elif name in _RESHAPES:
            src = self.id(op.operands[0], name)
            shape, dtype = _tensor(op.results[0])
            self.steps.append({"op": "reshape", "args": [src], "result": self.new(op.results[0]), "shape": shape,
                               "dtype": dtype})
        elif name in ("linalg.generic", "func.call"):
            self.kernel(op)
        elif name == "func.return":
            self.returns = [self.id(v, name) for v in op.operands]
        else:
            raise PlanError(f"{name}: an op the GPU plan cannot run (it runs kernels, fills, constants and "
                            f"reshapes only)")

    def kernel(self, op) -> None:
        from costfuse.rowspace import gathers

        key = str(op.attributes["callee"]).lstrip("@") if op.name == "func.call" else op
        if key not in self.kernels:
            raise PlanError(f"{op.name} {key if isinstance(key, str) else ''}: no lowered kernel for it")
        index, k = self.kernels[key]
        where = f"{op.name} (kernel {index})"
        if op.name == "linalg.generic":
            g = op.opview
            ins = [self.id(v, where) for v in [*g.inputs, *gathers(op)]]
            inits = [self.id(v, where) for v in g.outputs]
            results = [self.new(r) for r in op.results]
        elif any(n.startswith("not a row kernel") for n in k.notes):
            ins, inits, results = self.generic_call(op, self.funcs[key], where)
        else:   # a kernel function: its arguments, then one fresh output per result
            ins, inits = [self.id(v, where) for v in op.operands], [None] * len(op.results)
            results = [self.new(r) for r in op.results]
        if len(ins) != len(k.inputs) or len(inits) != len(k.outputs):
            raise PlanError(f"{where}: {len(ins)} inputs and {len(inits)} outputs, but the kernel takes "
                            f"{len(k.inputs)} and {len(k.outputs)}")
        source = f"k{sum(s['op'] == 'kernel' for s in self.steps):02d}.py"
        (self.out / source).write_text(k.source)
        self.steps.append({"op": "kernel", "source": source, "kernel": k.kernel or f"generic {index}",
                           "mode": k.mode, "config": k.config.short(), "hbm_bytes": k.hbm_bytes,
                           "dram_bytes": predicted_dram_bytes(self.funcs.get(key)), "inputs": ins,
                           "outputs": [{"init": i} for i in inits], "results": results})

    def generic_call(self, call, func, where: str) -> tuple[list[str], list[str], list[str]]:
        """A kernel function lowered as its one generic (``data.lowering.kernel``: not a row kernel): the kernel
        takes the generic's operands, so map each to the call's operand or to the init the function clones,
        and the generic's results to the call's results through ``func.return``."""
        from costfuse.data.lowering.kernel_function import kernel_members

        from costfuse.rowspace import gathers

        (member,) = kernel_members(func)
        block = func.regions[0].blocks[0]
        outer = dict(zip(block.arguments, call.operands))

        def value(v) -> str:
            return self.id(outer[v], where) if v in outer else self.full(v)

        g = member.opview
        ins = [value(v) for v in [*g.inputs, *gathers(member)]]
        inits = [value(v) for v in g.outputs]
        results: list[str | None] = [None] * len(member.results)
        ret = list(block.operations)[-1].operation
        for j, v in enumerate(ret.operands):
            if isinstance(v.owner, type(block)) or v.owner.operation != member:
                raise PlanError(f"{where}: result {j} of @{func.attributes['sym_name']} is not its generic's")
            r = v.result_number
            if results[r] is None:
                results[r] = self.new(call.results[j])
            else:
                self.ids[call.results[j]] = results[r]
        return ins, inits, [r if r is not None else self.new(member.results[i]) for i, r in enumerate(results)]


def kernel_index(module, report) -> dict:
    """What each kernel-launching op of ``@main`` lowers to: callee name (groups) or generic op (v1) ->
    (index in the report, LoweredKernel).  Unsupported kernels raise :class:`PlanError`."""
    if report.unsupported:
        i, err = report.unsupported[0]
        raise PlanError(f"{len(report.unsupported)} of {report.total} {report.what} did not lower "
                        f"(first: {i}: {err})")
    if report.what == "generics":
        from costfuse.data.lowering.walk import generics_of

        generics = generics_of(module)
        return {generics[i].operation: (i, k) for i, k in report.kernels}
    return {k.kernel: (i, k) for i, k in report.kernels}


def write_plan(module, report, out: Path, meta: dict) -> dict:
    """Write ``out/plan.json`` and the kernel sources of ``module``'s ``@main``; return the plan."""
    out.mkdir(parents=True, exist_ok=True)
    w = _Walker(module, kernel_index(module, report), out)
    plan = {"version": PLAN_VERSION, **meta, "inputs": w.inputs, "steps": w.steps, "returns": w.returns}
    (out / "plan.json").write_text(json.dumps(plan, indent=1) + "\n")
    return plan
