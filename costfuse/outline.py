"""Outline kernel groups into private kernel functions (docs/groups.md, "The kernel function").

Each formed kernel (:mod:`costfuse.groups`), singletons included, becomes
``func.func private @<caller>_k<N>`` carrying ``costfuse.kernel`` and its
``costfuse.launch``; the caller reaches it through ``func.call``.  Free inits
(``tensor.empty``, a ``linalg.fill`` of a constant into one) and scalar
constants the bodies capture are cloned into the kernel, so they are not
arguments.  The caller keeps everything else (named ops, ``tensor.*``).

The caller's ops are then put in a dependence order of kernels and other
ops: a kernel's members need not be contiguous, and a call must follow all
of its inputs and precede all users of its outputs.  Formation guarantees no
cycle, so such an order exists; ties keep program order.
"""

from __future__ import annotations

import heapq

from iree.compiler import ir
from iree.compiler.dialects import func, tensor

from costfuse.graph import GENERIC, body, num_inputs
from costfuse.groups import Kernel
from costfuse.kernel import defining_op, free_init
from costfuse.launch import KERNEL_ATTR, LAUNCH_ATTR
from costfuse.policy import GroupEstimate


def _clone_free_init(v: ir.Value, mapping: dict) -> ir.Value:
    """Clone the op chain of a free init (empty, or constant + empty + fill) at the insertion point."""
    if v in mapping:
        return mapping[v]
    op = defining_op(v)
    operands = [_clone_free_init(o, mapping) if defining_op(o) is not None else o for o in op.operands]
    clone = op.clone()
    for k, operand in enumerate(operands):
        clone.operands[k] = operand
    for old, new in zip(op.results, clone.results):
        mapping[old] = new
    return mapping[v]


def _captured(op: ir.Operation) -> list[ir.Value]:
    """Values a member's body uses that are defined outside the member: scalar
    constants (cloned into the kernel) or tensors a gather reads (arguments)."""
    out, block = [], body(op)
    for inner in block.operations:
        for v in inner.operands:
            d = defining_op(v)
            outside = v.owner != block if d is None else d.block != block   # a function argument, or a result
            if outside and v not in out:
                out.append(v)
    return out


def _kernel_io(members: list[ir.Operation], copies=frozenset(),
               read_elsewhere=frozenset()) -> tuple[list[ir.Value], list[ir.Value]]:
    """(arguments, results) of the kernel function for ``members`` (program order); the ``copies``
    (recomputed producers) store nothing; values in ``read_elsewhere`` (inputs of another kernel's
    copies: the same op object, so their use looks internal) are stored."""
    inside = set(members)
    args: list[ir.Value] = []
    for op in members:
        for v in _captured(op):
            if getattr(defining_op(v), "name", None) != "arith.constant" and defining_op(v) not in inside \
                    and v not in args:
                args.append(v)
        n_in = num_inputs(op)
        for k, v in enumerate(op.operands):
            if defining_op(v) in inside:
                continue
            if k >= n_in and (free_init(v) or not _reads(op, k - n_in)):
                continue
            if v not in args:
                args.append(v)
    results = [r for op in members if op not in copies for r in op.results
               if r in read_elsewhere
               or any(u.owner.operation not in inside or u.operand_number >= num_inputs(u.owner.operation)
                      for u in r.uses)]
    return args, results


def _reads(op: ir.Operation, j: int) -> bool:
    return any(True for _ in body(op).arguments[num_inputs(op) + j].uses)


def _build_kernel(name: str, members: list[ir.Operation], kernel: Kernel, ip: ir.InsertionPoint,
                  copies=frozenset(), read_elsewhere=frozenset(),
                  resolve=lambda v: v) -> tuple[func.FuncOp, list[ir.Value], list[ir.Value]]:
    """The kernel function of ``members``; (it, the caller's values to pass, the values it returns).

    ``resolve`` maps a value the members read to the caller's value that carries it now (an earlier
    call's result): two reads can resolve to one value (a member's own read, already rewired, and its
    copy's read of the same producer), which is then one argument (docs/groups.md: each tensor once)."""
    args, results = _kernel_io(members, copies, read_elsewhere)
    outer: list[ir.Value] = []
    for a in args:
        if resolve(a) not in outer:
            outer.append(resolve(a))
    with ip, members[0].location:
        fn = func.FuncOp(name, ir.FunctionType.get([a.type for a in outer], [r.type for r in results]))
        fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        fn.attributes[KERNEL_ATTR] = ir.UnitAttr.get()
        fn.attributes[LAUNCH_ATTR] = kernel.estimate.launch.to_attr()
        entry = fn.add_entry_block()
    mapping: dict = {a: entry.arguments[outer.index(resolve(a))] for a in args}
    with ir.InsertionPoint(entry), members[0].location:
        for op in members:
            for v in _captured(op):
                if v not in mapping:
                    mapping[v] = _clone_free_init(v, mapping)
            n_in = num_inputs(op)
            for k, v in enumerate(op.operands):
                if v in mapping:
                    continue
                if k >= n_in and free_init(v):
                    _clone_free_init(v, mapping)
                elif k >= n_in:   # an init the body never reads: a fresh empty tensor of its type
                    t = ir.RankedTensorType(v.type)
                    mapping[v] = tensor.EmptyOp(t.shape, t.element_type).result
            clone = op.clone()
            for k, v in enumerate(op.operands):
                clone.operands[k] = mapping[v]
            for inner in body(clone).operations:
                for k, v in enumerate(inner.operands):
                    if v in mapping:
                        inner.operands[k] = mapping[v]
            for old, new in zip(op.results, clone.results):
                mapping[old] = new
        func.ReturnOp([mapping[r] for r in results])
    return fn, outer, results


def _order(ops: list[ir.Operation], unit_of: dict, extra: list[tuple] = (), held=frozenset()) -> list:
    """Units (an op, or a kernel index) in a dependence order; ties keep program order.
    ``extra``: more ``(op, unit)`` dependences (a kernel recomputing a producer reads its inputs).
    ``held``: recomputed producers no kernel owns (every reader holds a copy): no unit of their own,
    since they go with their readers, and one would close a false cycle when a reader's kernel also
    holds the producer's own producer."""
    pos = {op: i for i, op in enumerate(ops)}
    units = {}
    for i, op in enumerate(ops):
        if op in held and op not in unit_of:
            continue
        units.setdefault(unit_of.get(op, ("op", i)), []).append(op)
    succ: dict = {u: set() for u in units}
    indeg: dict = {u: 0 for u in units}
    for u, members in units.items():
        for op in members:
            for res in op.results:
                for use in res.uses:
                    owner = use.owner.operation
                    while owner is not None and owner not in pos:
                        owner = owner.parent
                    if owner is None:
                        continue
                    if owner in held and owner not in unit_of:
                        continue
                    v = unit_of.get(owner, ("op", pos[owner]))
                    if v != u and v not in succ[u]:
                        succ[u].add(v)
                        indeg[v] += 1
    for op, v in extra:
        if op in held and op not in unit_of:
            continue
        u = unit_of.get(op, ("op", pos[op]))
        if u != v and v not in succ[u]:
            succ[u].add(v)
            indeg[v] += 1
    first = {u: min(pos[o] for o in m) for u, m in units.items()}
    ready = [(first[u], u) for u, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, u = heapq.heappop(ready)
        out.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, (first[v], v))
    if len(out) != len(units):
        raise RuntimeError("kernel groups form a cycle; formation should have refused the merge")
    return out


def outline(fn_op: ir.Operation, kernels: list[Kernel]) -> list[str]:
    """Outline ``kernels`` of ``fn_op``; return each kernel's function name, in ``kernels``' order.

    Functions are numbered in the caller's new (dependence) order.
    """
    block = fn_op.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    terminator = ops[-1]
    ops = ops[:-1]
    generics = [op for op in ops if op.name == GENERIC]
    groups = [[generics[m] for m in k.members] for k in kernels]

    def op_sets():
        """(copies, unstored, unit_of) keyed by op.  An ``ir.Operation``'s hash changes once its operands
        are reassigned (IREE 3.13's bindings), and each call below rewires the ops reading its kernel's
        results: so these are rebuilt from the member numbers before each kernel, never kept across."""
        copies = [frozenset(generics[m] for m in k.recomputed) for k in kernels]
        unstored = [frozenset(generics[m] for m in k.unstored) | copies[i] for i, k in enumerate(kernels)]
        unit_of = {op: ("k", i) for i, g in enumerate(groups) for op in g if op not in copies[i]}
        return copies, unstored, unit_of

    copies, unstored, unit_of = op_sets()
    in_block = set(ops)
    extra = [(defining_op(v), ("k", i)) for i, cs in enumerate(copies) for c in cs
             for v in list(c.operands) + _captured(c) if defining_op(v) in in_block]
    caller = ir.StringAttr(fn_op.attributes["sym_name"]).value
    names: list[str] = [""] * len(kernels)
    module_body = fn_op.parent.regions[0].blocks[0]
    calls_made = 0
    stored: dict = {}   # a member's result -> the call result that now carries it
    for unit in _order(ops, unit_of, extra, frozenset().union(*copies)):
        if unit[0] == "op":
            ops[unit[1]].move_before(terminator)
            continue
        i = unit[1]
        members = groups[i]
        copies, unstored, unit_of = op_sets()
        name = f"{caller}_k{calls_made}"
        calls_made += 1
        ip = ir.InsertionPoint(module_body)
        inside = set(members)       # building the kernel rewires no member: valid until the calls below
        stored_here = inside - unstored[i]
        # Inputs of copies held by other kernels: a member here defining one must store it, although
        # its only use (the copied op's own operand) looks internal.
        read_elsewhere = frozenset(v for j, cs in enumerate(copies) if j != i for c in cs
                                   for v in list(c.operands)[:num_inputs(c)] if defining_op(v) in stored_here)
        # A producer that an earlier kernel both holds and stores keeps its in-kernel use by a member
        # that this kernel recomputes, so that argument is rerouted to the earlier call's result.
        kfn, args, results = _build_kernel(name, members, kernels[i], ip, unstored[i], read_elsewhere,
                                           lambda v: stored.get(v, v))
        with ir.InsertionPoint(terminator), fn_op.location:
            call = func.CallOp([r.type for r in results], ir.FlatSymbolRefAttr.get(name), args)
        stored.update(zip(results, call.results))
        rewire = []     # decided first, then done: rewiring an op changes its hash
        for old, new in zip(results, call.results):
            for owner, k in [(u.owner.operation, u.operand_number) for u in old.uses]:
                # A member of another kernel that recomputes this value keeps reading its own copy.
                j = unit_of.get(owner, ("op", -1))[1]
                if owner not in inside and not (unit_of.get(owner, ("op",))[0] == "k"
                                                and old.owner.operation in copies[j]):
                    rewire.append((owner, k, new))
        for owner, k, new in rewire:
            owner.operands[k] = new
        names[i] = name
    position = {op: k for k, op in enumerate(generics)}
    for op in sorted({op for g in groups for op in g}, key=position.get, reverse=True):
        op.erase()      # users first; a recomputed producer sits in several groups but goes once
    return names


def scratch_function(ops: list[ir.Operation], unstored: frozenset, launch,
                     name: str = "scratch_kernel") -> tuple[ir.Module, ir.Operation]:
    """A scratch module holding ``ops`` (generics of one block, program order) as an outlined kernel
    function at ``launch``, and the function; members in ``unstored`` return nothing.

    Built by :func:`_build_kernel` from the ops, which stay where they are (the caller's block,
    mid-formation): the function is the one outlining would write for this group, so what compiles it
    (the compile-checked policies, ``--verify-picks``, the exact optimum's pricing) compiles the kernel
    the pass would emit, before anything is rewritten.  The module must outlive the function's use.
    """
    kernel = Kernel(tuple(range(len(ops))), None, GroupEstimate(launch, float("nan"), 0))
    with ops[0].context, ir.Location.unknown():
        module = ir.Module.create()
    fn, _, _ = _build_kernel(name, ops, kernel, ir.InsertionPoint(module.body), unstored)
    return module, fn.operation


def scratch_kernel_function(kernel_shape, launch, name: str = "scratch_kernel") -> tuple[ir.Module, ir.Operation]:
    """:func:`scratch_function` of ``kernel_shape``'s members (a ``costfuse.kernel.KernelShape``): members
    whose results the shape does not store (recomputed copies, values every reader recomputes) return
    nothing."""
    stored = {o.member for o in kernel_shape.outputs}
    unstored = frozenset(m.op for i, m in enumerate(kernel_shape.members) if i not in stored)
    return scratch_function([m.op for m in kernel_shape.members], unstored, launch, name)
