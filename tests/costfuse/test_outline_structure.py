"""The outlined IR, op by op: kernel signatures, what a kernel clones and what the caller passes,
the order of the calls, names (docs/groups.md, "The kernel function"; costfuse/outline.py).

tests/costfuse/test_groups_pass.py checks that outlined modules keep their numbers, through IREE (slow).
These tests are fast and structural: each program is outlined by the pass as it runs (or, where
a partition formation reached in a regression is needed, by :func:`outline` on that partition),
and the result is compared with what the contract says, written out by hand.  Ops are written
``%<index in the block> = <op>(<operands>)`` (``argN``: the block's arguments, ``%i#r``: result
``r`` of a multi-result op), so a wrong argument, a stored value that should not be, a missing
clone or a call before its producer shows as one differing line.
"""

from __future__ import annotations

import pytest
from iree.compiler import ir

from costfuse.cost_models.always import Always
from costfuse.cost_models.analytical import Analytical
from costfuse.cost_models.inductor import Inductor
from costfuse.group_pass import GroupFusionPass
from costfuse.groups import Kernel
from costfuse.ir import parse_module, verify
from costfuse.launch import KERNEL_ATTR, LAUNCH_ATTR, KernelLaunch
from costfuse.outline import outline
from costfuse.policy import GroupEstimate

X, R, XT = "tensor<8x16xf32>", "tensor<8xf32>", "tensor<16x8xf32>"   # rows 8 of 16, one value per row, transposed
MAPS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
"""


def _generic(res: str, ins: list[tuple[str, str, str]], out: str, body: str, out_ty: str = X,
             out_map: str = "#id", iters: str = '"parallel", "parallel"') -> str:
    """One ``linalg.generic``: ``ins`` are (value, type, map); ``body`` is its payload over block
    arguments ``%i0, %i1, ...`` and ``%o``, ending in ``linalg.yield``."""
    maps = ", ".join([m for _, _, m in ins] + [out_map])
    args = ", ".join([f"%i{k}: f32" for k in range(len(ins))] + ["%o: f32"])
    return (f"  {res} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iters}]}}\n"
            f"      ins({', '.join(v for v, _, _ in ins)} : {', '.join(t for _, t, _ in ins)}) "
            f"outs({out} : {out_ty}) {{\n  ^bb0({args}):\n{body}\n  }} -> {out_ty}\n")


def _square(res: str, src: str, ty: str = X, read: str = "#id", out: str = "%e", out_ty: str = X) -> str:
    return _generic(res, [(src, ty, read)], out, "    %r = arith.mulf %i0, %i0 : f32\n    linalg.yield %r : f32",
                    out_ty)


def _row_sum(res: str, src: str) -> str:
    return _generic(res, [(src, X, "#id")], "%init", "    %r = arith.addf %i0, %o : f32\n    linalg.yield %r : f32",
                    R, "#row", '"parallel", "reduction"')


# A per-row sum sent through a reshape round trip that the pass keeps (it splits a real dim), so
# that whatever reads ``%b`` cannot join the sum's kernel without a cycle (tests/costfuse/test_groups_pass.py).
_ROUND_TRIP = """\
  %a = tensor.expand_shape %s [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %b = tensor.collapse_shape %a [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
"""
_DIVIDE = "    %r = arith.divf %i0, %i1 : f32\n    linalg.yield %r : f32"


# -- reading the IR ------------------------------------------------------------------------------


def _label(v: ir.Value, index: dict) -> str:
    if isinstance(v.owner, ir.Block):
        return f"arg{ir.BlockArgument(v).arg_number}"
    op = v.owner.operation
    r = ir.OpResult(v).result_number
    return f"%{index[op]}" + (f"#{r}" if len(op.results) > 1 else "")


def _ops(block: ir.Block) -> list[str]:
    """``%3 = call @main_k0(arg0, %1)`` / ``%4 = linalg.generic(%3, arg1)`` per op of ``block``."""
    ops = [o.operation for o in block.operations]
    index = {op: k for k, op in enumerate(ops)}
    lines = []
    for k, op in enumerate(ops):
        name = op.name
        if name == "func.call":
            name = "call @" + ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        lines.append(f"%{k} = {name}({', '.join(_label(v, index) for v in op.operands)})")
    return lines


def _functions(module: ir.Module) -> dict[str, ir.Operation]:
    return {ir.StringAttr(op.attributes["sym_name"]).value: op.operation for op in module.body.operations}


def _body(module: ir.Module, name: str) -> list[str]:
    return _ops(_functions(module)[name].regions[0].blocks[0])


def _signature(module: ir.Module, name: str) -> tuple[list[str], list[str]]:
    t = ir.FunctionType(ir.TypeAttr(_functions(module)[name].attributes["function_type"]).value)
    return [str(x) for x in t.inputs], [str(x) for x in t.results]


def _grouped(text: str, model) -> tuple[ir.Module, list[tuple[str, str]]]:
    """Run the pass as it runs (no cleanup after it, so what is checked is what outlining wrote);
    the module, verified, and each kernel's (function name, members)."""
    module = parse_module(text)
    p = GroupFusionPass(model)
    records = p.run(module)
    verify(module)
    return module, [(r.name, r.kernel.label) for r in records]


# The config of a partition given by hand: outline only writes it on the kernel function.
_EST = GroupEstimate(KernelLaunch("pointwise", 128, 1, 4), float("nan"), 0)


def _outlined(text: str, kernels: list[Kernel]) -> tuple[ir.Module, list[str]]:
    """``outline`` of a given partition of ``@main`` (members as generic numbers), verified."""
    module = parse_module(text)
    with module.context:
        names = outline(_functions(module)["main"], kernels)
    verify(module)
    return module, names


@pytest.fixture(autouse=True)
def _erasing_a_used_op_fails_the_test(monkeypatch):
    """Erasing an op whose results are still read is a fatal error in MLIR: it aborts the whole test
    run.  Here it fails the test, naming the readers.  outline erases the members last, users first,
    once every read outside a kernel goes through its call."""
    erase = ir.Operation.erase

    def checked(op):
        used = [str(u.owner.operation.name) for r in op.results for u in r.uses]
        assert not used, f"{op.name} erased while {used} still read it"
        erase(op)

    monkeypatch.setattr(ir.Operation, "erase", checked)


# -- arguments, results, inits and constants ---------------------------------------------------------

INITS = MAPS + f"""
func.func @main(%x: {X}, %m: {X}, %acc: {R}, %w: {X}, %v: {X}) -> ({R}, {X}, {X}) {{
  %c2 = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {X}
  %er = tensor.empty() : {R}
  %init = linalg.fill ins(%zero : f32) outs(%er : {R}) -> {R}
  %a = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %m : {X}, {X}) outs(%e : {X}) {{
  ^bb0(%i: f32, %unused: f32, %o: f32):
    %r = arith.mulf %i, %c2 : f32
    linalg.yield %r : f32
  }} -> {X}
  %s, %t = linalg.generic {{indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}}
      ins(%a : {X}) outs(%init, %acc : {R}, {R}) {{
  ^bb0(%i: f32, %o1: f32, %o2: f32):
    %r1 = arith.addf %i, %o1 : f32
    %r2 = arith.addf %i, %o2 : f32
    linalg.yield %r1, %r2 : f32, f32
  }} -> ({R}, {R})
  %y, %z = linalg.generic {{indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%a, %s : {X}, {R}) outs(%w, %v : {X}, {X}) {{
  ^bb0(%i: f32, %j: f32, %o1: f32, %o2: f32):
    %r = arith.subf %i, %j : f32
    linalg.yield %r, %i : f32, f32
  }} -> ({X}, {X})
  return %t, %y, %z : {R}, {X}, {X}
}}
"""


INITS_KERNEL = [   # the body of INITS' one kernel function
    "%0 = arith.constant()",
    "%1 = tensor.empty()",
    "%2 = linalg.generic(arg0, arg1, %1)",
    "%3 = arith.constant()",
    "%4 = tensor.empty()",
    "%5 = linalg.fill(%3, %4)",
    "%6 = linalg.generic(%2, %5, arg2)",
    "%7 = tensor.empty()",
    "%8 = tensor.empty()",
    "%9 = linalg.generic(%2, %6#0, %7, %8)",
    "%10 = func.return(%6#1, %9#0, %9#1)",
]


def test_a_kernel_passes_what_it_reads_and_clones_free_inits_and_constants():
    """``a = 2x`` (``%m`` an input its body never reads), ``s, t = sum(a)`` into a zero fill and onto
    ``%acc`` (an init the body reads), ``y, z = a - s, a`` into ``%w, %v`` (inits never read): one
    kernel.  Arguments, in first-use order: ``x``, ``m`` (an input is passed whether read or not) and
    ``acc``; the constant ``2`` and the fill of ``0`` into an empty tensor are cloned in, and the
    unread ``%w``, ``%v`` become fresh empty tensors.  Results: what the caller uses, ``t, y, z``;
    ``a`` and ``s`` stay inside.  The function is private and carries the config formation chose."""
    module = parse_module(INITS)
    (record,) = GroupFusionPass(Always()).run(module)
    verify(module)
    assert (record.name, record.kernel.label) == ("main_k0", "g1+g2+g3")
    attrs = _functions(module)["main_k0"].attributes
    assert ir.StringAttr(attrs["sym_visibility"]).value == "private" and KERNEL_ATTR in attrs
    assert KernelLaunch.from_attr(attrs[LAUNCH_ATTR]) == record.kernel.estimate.launch
    assert _signature(module, "main_k0") == ([X, X, R], [R, X, X])
    assert _body(module, "main_k0") == INITS_KERNEL
    assert _body(module, "main")[5:] == ["%5 = call @main_k0(arg0, arg1, arg2)",
                                         "%6 = func.return(%5#0, %5#1, %5#2)"]


# -- the order of the calls and the kernels' names ----------------------------------------------------

ORDER = MAPS + f"""
func.func @main(%x: {X}) -> ({X}, {XT}) {{
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : {X}
  %et = tensor.empty() : {XT}
""" + _generic("%a", [("%x", X, "#id")], "%e", "    %r = arith.addf %i0, %one : f32\n    linalg.yield %r : f32") \
    + _square("%b", "%x", read="#tr", out="%et", out_ty=XT) \
    + _generic("%c", [("%x", X, "#tr")], "%et", "    %r = arith.subf %i0, %one : f32\n    linalg.yield %r : f32",
               XT) \
    + _generic("%y", [("%a", X, "#id"), ("%b", XT, "#tr"), ("%c", XT, "#tr")], "%e",
               "    %r = arith.addf %i0, %i1 : f32\n    %r2 = arith.mulf %r, %i2 : f32\n    linalg.yield %r2 : f32") \
    + f"""  return %y, %c : {X}, {XT}
}}
"""


def test_calls_follow_their_producers_and_are_numbered_in_that_order():
    """``y = (a + b^T) * c^T`` with ``a = x + 1`` and ``b``, ``c`` written transposed: ``b`` and ``c``
    cannot join ``y`` (they are read at another row), so ``a`` and ``y`` form a kernel whose first
    member comes before them in the program but which needs both: its call comes last, and the
    functions are numbered in call order.  ``c`` is also returned, and its use by the return (the
    first of its uses) does not hide its use by ``y``."""
    module, records = _grouped(ORDER, Always())
    assert records == [("main_k0", "g2"), ("main_k1", "g3"), ("main_k2", "g1+g4")]
    assert _body(module, "main") == [
        "%0 = arith.constant()",
        "%1 = tensor.empty()",
        "%2 = tensor.empty()",
        "%3 = call @main_k0(arg0)",
        "%4 = call @main_k1(arg0)",
        "%5 = call @main_k2(arg0, %3, %4)",
        "%6 = func.return(%5, %4)",
    ]
    assert _signature(module, "main_k2") == ([X, XT, XT], [X])


GATHER_ORDER = MAPS + f"""
func.func @main(%x: {X}) -> {X} {{
  %e = tensor.empty() : {X}
  %et = tensor.empty() : {XT}
""" + _square("%a", "%x") + _square("%t", "%x", read="#tr", out="%et", out_ty=XT) + _generic(
    "%y", [("%a", X, "#id")], "%e",
    "    %r = linalg.index 0 : index\n    %c = linalg.index 1 : index\n"
    f"    %g = tensor.extract %t[%c, %r] : {XT}\n    %gx = tensor.extract %x[%r, %c] : {X}\n"
    "    %s = arith.addf %i0, %g : f32\n    %s2 = arith.addf %s, %gx : f32\n    linalg.yield %s2 : f32") + f"""\
  return %y : {X}
}}
"""


def test_a_kernel_that_gathers_from_another_kernels_result_is_called_after_it():
    """``y = a + t[col, row] + x[row, col]`` gathers from ``t``, computed by another kernel (a kernel
    never gathers from its own members): the only use of ``t`` is inside ``y``'s body, and it still
    orders the calls.  The tensors a kernel gathers from are its arguments, ``x`` once although ``a``
    reads it too."""
    module, records = _grouped(GATHER_ORDER, Always())
    assert records == [("main_k0", "g2"), ("main_k1", "g1+g3")]
    assert _body(module, "main")[2:] == ["%2 = call @main_k0(arg0)", "%3 = call @main_k1(arg0, %2)",
                                         "%4 = func.return(%3)"]
    assert _signature(module, "main_k1") == ([X, XT], [X])


def test_kernels_that_form_a_cycle_are_refused_with_the_reason():
    """``a`` feeds ``b`` directly and through a reshape pair that stays in the caller: one kernel of
    ``a`` and ``b`` would need its own output before its call.  Formation refuses that merge
    (tests/costfuse/test_groups_pass.py); ``outline`` given it says so instead of writing a broken caller."""
    text = MAPS + f"""
func.func @main(%x: {X}) -> {X} {{
  %e = tensor.empty() : {X}
""" + _square("%a", "%x") + f"""\
  %c = tensor.collapse_shape %a [[0, 1]] : {X} into tensor<128xf32>
  %ex = tensor.expand_shape %c [[0, 1]] output_shape [8, 16] : tensor<128xf32> into {X}
""" + _generic("%b", [("%a", X, "#id"), ("%ex", X, "#id")], "%e", _DIVIDE) + f"""\
  return %b : {X}
}}
"""
    module = parse_module(text)
    with module.context, pytest.raises(RuntimeError) as err:
        outline(_functions(module)["main"], [Kernel((0, 1), None, _EST)])
    assert str(err.value) == "kernel groups form a cycle; formation should have refused the merge"


def test_a_function_with_nothing_to_outline_is_left_as_it_is():
    """The pass outlines every function of the module; one whose body is only its return keeps it."""
    text = MAPS + f"""
func.func @identity(%x: {X}) -> {X} {{
  return %x : {X}
}}
func.func @main(%x: {X}) -> {X} {{
  %e = tensor.empty() : {X}
""" + _square("%a", "%x") + f"""\
  return %a : {X}
}}
"""
    module, records = _grouped(text, Always())
    assert records == [("main_k0", "g1")]
    assert _body(module, "identity") == ["%0 = func.return(arg0)"]
    assert _body(module, "main") == ["%0 = tensor.empty()", "%1 = call @main_k0(arg0)", "%2 = func.return(%1)"]


def test_a_generic_with_dynamic_shapes_stays_in_the_caller_reading_the_kernels_result():
    """``a = x²`` and ``s = sum(a)`` form one kernel; ``g = d²`` over ``d = a`` cast to ``?x16`` has no
    static extents (no launch config, no lowering, and its ``tensor.empty(%n)`` needs a size from the
    caller), so it is no kernel: it stays in ``@main`` as it was, reading the call's result, and
    ``--explain`` says so.  Outlining it used to fail verification ('tensor.dim' op using value
    defined outside the region)."""
    dyn = "tensor<?x16xf32>"
    text = MAPS + f"""
func.func @main(%x: {X}) -> ({R}, {dyn}) {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : {X}
  %e8 = tensor.empty() : {R}
  %init = linalg.fill ins(%zero : f32) outs(%e8 : {R}) -> {R}
""" + _square("%a", "%x") + _row_sum("%s", "%a") + f"""\
  %d = tensor.cast %a : {X} to {dyn}
  %n = tensor.dim %d, %c0 : {dyn}
  %ed = tensor.empty(%n) : {dyn}
""" + _square("%g", "%d", ty=dyn, out="%ed", out_ty=dyn) + f"""\
  return %s, %g : {R}, {dyn}
}}
"""
    module = parse_module(text)
    p = GroupFusionPass(Always())
    records = p.run(module)
    verify(module)
    assert [(r.name, r.kernel.label) for r in records] == [("main_k0", "g1+g2")]
    assert p.decisions[-1].line() == "stay  g3: dynamic or non-tensor shapes: not outlined"
    assert _signature(module, "main_k0") == ([X], [X, R])
    assert _body(module, "main")[5:] == [
        "%5 = call @main_k0(arg0)",
        "%6 = tensor.cast(%5#0)",
        "%7 = tensor.dim(%6, %1)",
        "%8 = tensor.empty(%7)",
        "%9 = linalg.generic(%6, %8)",
        "%10 = func.return(%5#1, %9)",
    ]


def test_a_generic_writing_buffers_is_neither_erased_nor_outlined():
    """A generic on ``memref`` operands has no results: what it does is write ``%y``.  The pass drops
    generics whose results nobody reads (exported programs keep some), but this one has no results to
    read, so it stays in the caller as it is, next to the kernel of the tensor generic before it.
    It used to be erased, deleting the program's work."""
    m = "memref<8x16xf32>"
    text = MAPS + f"""
func.func @main(%x: {X}, %y: {m}) -> {X} {{
  %e = tensor.empty() : {X}
""" + _square("%a", "%x") + f"""\
  linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%y : {m}) outs(%y : {m}) {{
  ^bb0(%i0: f32, %o: f32):
    %r = math.exp %i0 : f32
    linalg.yield %r : f32
  }}
  return %a : {X}
}}
"""
    module = parse_module(text)
    p = GroupFusionPass(Always())
    records = p.run(module)
    verify(module)
    assert [(r.name, r.kernel.label) for r in records] == [("main_k0", "g1")]
    assert [d.line() for d in p.decisions] == ["stay  g2: dynamic or non-tensor shapes: not outlined"]
    assert _body(module, "main") == ["%0 = tensor.empty()", "%1 = call @main_k0(arg0)",
                                     "%2 = linalg.generic(arg1, arg1)", "%3 = func.return(%1)"]


# -- recomputed producers (docs/groups.md, "Stored or recomputed") ----------------------------------------


def _recompute_program(src: str = "%x", before: str = "", src_ty: str = X, src_map: str = "#id",
                       early_member: bool = False, returns_p: bool = False) -> str:
    """``p = src*src`` feeds a row sum ``s`` and, through the sum's reshape round trip, ``q = p / s``:
    ``p`` and ``s`` form one kernel and ``q`` another, which may recompute ``p``.  ``before``: ops
    defining ``src``; ``early_member``: a first generic ``u = h*h`` that ``q`` adds (it joins ``q``'s
    kernel, which then starts before ``p``'s); ``returns_p``: ``p`` is returned too.  The last generic,
    ``r = q^T``, is a kernel of its own."""
    ret = [("%s", R)] + ([("%p", X)] if returns_p else []) + [("%r", XT)]
    text = MAPS + f"""
func.func @main(%x: {X}, %h: {X}) -> ({', '.join(t for _, t in ret)}) {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {X}
  %et = tensor.empty() : {XT}
  %er = tensor.empty() : {R}
"""
    if early_member:
        text += _square("%u", "%h")
    text += before + _square("%p", src, src_ty, src_map)
    text += f"  %init = linalg.fill ins(%zero : f32) outs(%er : {R}) -> {R}\n" + _row_sum("%s", "%p") + _ROUND_TRIP
    if early_member:
        text += _generic("%q", [("%p", X, "#id"), ("%b", R, "#row"), ("%u", X, "#id")], "%e",
                         "    %d = arith.divf %i0, %i1 : f32\n    %r = arith.addf %d, %i2 : f32\n"
                         "    linalg.yield %r : f32")
    else:
        text += _generic("%q", [("%p", X, "#id"), ("%b", R, "#row")], "%e", _DIVIDE)
    text += _square("%r", "%q", read="#tr", out="%et", out_ty=XT)
    return text + f"  return {', '.join(v for v, _ in ret)} : {', '.join(t for _, t in ret)}\n}}\n"


# ``x`` through a reshape pair the caller keeps (it splits a real dim).
_X_RESHAPED = f"""\
  %flat = tensor.collapse_shape %x [[0, 1]] : {X} into tensor<128xf32>
  %xr = tensor.expand_shape %flat [[0, 1]] output_shape [8, 16] : tensor<128xf32> into {X}
"""


# The caller of the partition where q's kernel recomputes p and the return reads p: calls in dependence order.
_RECOMPUTED_P_MAIN = ["%5 = call @main_k0(arg0)", "%6 = tensor.expand_shape(%5#1)", "%7 = tensor.collapse_shape(%6)",
                      "%8 = call @main_k1(arg0, %7)", "%9 = call @main_k2(%8)", "%10 = func.return(%5#1, %5#0, %9)"]


def test_a_recomputed_producer_is_stored_by_no_kernel():
    """analytical recomputes ``p`` in ``q``'s kernel: ``p``'s own kernel stores only ``s``, and ``q``'s
    reads what ``p`` reads (``x`` through the reshape pair the caller keeps) instead of ``p``, and
    stores only ``q``.  ``q``'s kernel starts before ``p``'s (``u``) yet is called after it, after the
    reshape pair and after the sum's round trip; ``r``'s kernel comes last."""
    module, records = _grouped(_recompute_program("%xr", _X_RESHAPED, early_member=True), Analytical())
    assert records == [("main_k0", "g2+g3"), ("main_k1", "g1+g2'+g4"), ("main_k2", "g5")]
    assert _body(module, "main") == [
        "%0 = arith.constant()",
        "%1 = tensor.empty()",
        "%2 = tensor.empty()",
        "%3 = tensor.empty()",
        "%4 = tensor.collapse_shape(arg0)",
        "%5 = tensor.expand_shape(%4)",
        "%6 = linalg.fill(%0, %3)",
        "%7 = call @main_k0(%5)",
        "%8 = tensor.expand_shape(%7)",
        "%9 = tensor.collapse_shape(%8)",
        "%10 = call @main_k1(arg1, %5, %9)",
        "%11 = call @main_k2(%10)",
        "%12 = func.return(%7, %11)",
    ]
    assert _signature(module, "main_k0") == ([X], [R])
    assert _signature(module, "main_k1") == ([X, X, R], [X])
    assert _body(module, "main_k1") == [
        "%0 = tensor.empty()",
        "%1 = linalg.generic(arg0, %0)",           # u
        "%2 = linalg.generic(arg1, %0)",           # the copy of p
        "%3 = linalg.generic(%2, arg2, %1, %0)",   # q
        "%4 = func.return(%3)",
    ]


def test_a_producer_stored_for_the_caller_and_recomputed_by_a_reader_is_read_from_the_copy():
    """``p = x*x`` is also returned, so its kernel stores it, while ``q``'s kernel recomputes it (a
    partition outlined as given): ``q`` reads its own copy, not the stored ``p``, and stores only ``q``."""
    kernels = [Kernel((0, 1), None, _EST), Kernel((0, 2), None, _EST, recomputed=(0,), unstored=(0,)),
               Kernel((3,), None, _EST)]
    module, names = _outlined(_recompute_program(returns_p=True), kernels)
    assert names == ["main_k0", "main_k1", "main_k2"]
    assert _signature(module, "main_k0") == ([X], [X, R])
    assert _signature(module, "main_k1") == ([X, R], [X])
    assert _body(module, "main_k1") == ["%0 = tensor.empty()", "%1 = linalg.generic(arg0, %0)",
                                        "%2 = linalg.generic(%1, arg1, %0)", "%3 = func.return(%2)"]
    assert _body(module, "main")[5:] == _RECOMPUTED_P_MAIN


def test_the_order_a_partition_lists_its_kernels_in_changes_only_which_name_comes_back_where():
    """The partition above, its kernels listed ``r``'s first and ``q``'s (the one recomputing ``p``)
    last: the calls and their numbers follow the dependences as before, and each kernel's name comes
    back at its place in the list.  The return still reads ``p`` from its kernel's call: the copy a
    kernel holds keeps only that kernel's own reads of ``p`` off the call."""
    kernels = [Kernel((3,), None, _EST), Kernel((0, 1), None, _EST),
               Kernel((0, 2), None, _EST, recomputed=(0,), unstored=(0,))]
    module, names = _outlined(_recompute_program(returns_p=True), kernels)
    assert names == ["main_k2", "main_k0", "main_k1"]
    assert _body(module, "main")[5:] == _RECOMPUTED_P_MAIN
    assert _signature(module, "main_k1") == ([X, R], [X])


_P_READS_A_KERNEL = dict(src="%t", before=_square("%t", "%x", read="#tr", out="%et", out_ty=XT), src_ty=XT,
                         src_map="#tr")


def test_a_recomputed_producer_reading_another_kernels_output_is_called_after_it():
    """``p`` reads ``t = (x*x)^T``, a kernel of its own (``p`` reads it transposed): that kernel is
    called first, then ``p``'s, then ``q``'s, which recomputes ``p`` from ``t``."""
    module, records = _grouped(_recompute_program(**_P_READS_A_KERNEL), Analytical())
    assert records == [("main_k0", "g1"), ("main_k1", "g2+g3"), ("main_k2", "g2'+g4"), ("main_k3", "g5")]
    assert [line.split(" = ")[1].split("(")[0] for line in _body(module, "main") if "call @" in line] == [
        "call @main_k0", "call @main_k1", "call @main_k2", "call @main_k3"]


def test_a_recomputed_producer_reading_another_kernels_output_is_stored_by_no_kernel():
    """What the contract asks of the program above: ``p``'s kernel stores only ``s``, ``q``'s reads ``t``
    and ``b`` and stores only ``q``.  It once failed: outline kept sets of ops across calls, and an op's
    hash changes once a call rewires its operands, so ``p``'s kernel stored ``p`` too and ``q``'s read
    it (and stored its unused copy): the numbers held, the bytes the cost model counted did not."""
    module, _ = _grouped(_recompute_program(**_P_READS_A_KERNEL), Analytical())
    assert _signature(module, "main_k1") == ([XT], [R])
    assert _signature(module, "main_k2") == ([XT, R], [X])


READ_ELSEWHERE = MAPS + f"""
func.func @main(%x: {X}, %w: {X}) -> {X} {{
  %e = tensor.empty() : {X}
""" + _generic("%a", [("%x", X, "#id")], "%e", "    %r = arith.addf %i0, %i0 : f32\n    linalg.yield %r : f32") \
    + _square("%b", "%a") + _generic("%y", [("%b", X, "#id"), ("%w", X, "#id")], "%e", _DIVIDE) + f"""\
  return %y : {X}
}}
"""


def test_a_value_only_another_kernels_copy_reads_is_stored_and_passed_from_its_call():
    """The partition learned formed on cross-entropy backward (tests/costfuse/test_groups_pass.py): ``y``'s
    kernel recomputes ``b = a*a``, then ``a`` joined ``b``'s own kernel.  There the only use of ``a``
    is ``b``, an op the copy shares, so it looks internal; that kernel must still store ``a`` (and not
    ``b``), and ``y``'s kernel reads ``a`` from its call."""
    kernels = [Kernel((0, 1), None, _EST, unstored=(1,)),
               Kernel((1, 2), None, _EST, recomputed=(1,), unstored=(1,))]
    module, names = _outlined(READ_ELSEWHERE, kernels)
    assert names == ["main_k0", "main_k1"]
    assert _signature(module, "main_k0") == ([X], [X])
    assert _body(module, "main_k0") == ["%0 = tensor.empty()", "%1 = linalg.generic(arg0, %0)",
                                        "%2 = linalg.generic(%1, %0)", "%3 = func.return(%1)"]
    assert _body(module, "main") == ["%0 = tensor.empty()", "%1 = call @main_k0(arg0)",
                                     "%2 = call @main_k1(%1, arg1)", "%3 = func.return(%2)"]
    assert _signature(module, "main_k1") == ([X, X], [X])
    assert sorted(_functions(module)) == ["main", "main_k0", "main_k1"]


def test_a_value_read_both_directly_and_by_a_copy_is_one_argument():
    """The partition above with ``y = b / a``: ``y``'s kernel reads ``a`` itself and through its copy
    of ``b``.  Arguments are each tensor a member reads, once (docs/groups.md, "The kernel function");
    ``main_k1`` took ``a`` twice (``call @main_k1(%1, %1)``) until the caller's values were deduplicated
    after rerouting, not before."""
    text = READ_ELSEWHERE.replace(f"ins(%b, %w : {X}, {X})", f"ins(%b, %a : {X}, {X})")   # %w now unread
    kernels = [Kernel((0, 1), None, _EST, unstored=(1,)),
               Kernel((1, 2), None, _EST, recomputed=(1,), unstored=(1,))]
    module, _ = _outlined(text, kernels)
    assert _body(module, "main")[1:] == ["%1 = call @main_k0(arg0)", "%2 = call @main_k1(%1)",
                                         "%3 = func.return(%2)"]
    assert _signature(module, "main_k1") == ([X], [X])
    assert _body(module, "main_k1") == ["%0 = tensor.empty()", "%1 = linalg.generic(arg0, %0)",
                                        "%2 = linalg.generic(%1, arg0, %0)", "%3 = func.return(%2)"]


@pytest.mark.parametrize("model", [Analytical(), Inductor()], ids=["analytical", "inductor"])
def test_a_producer_the_caller_keeps_is_recomputed_once_and_formation_ends(model):
    """``p`` is returned, so its kernel keeps storing it after ``q``'s kernel recomputes it; formation
    once took ``p`` as a recompute target again and again for ever (it now skips a producer the reader
    already copies)."""
    import signal

    def hang(*_):
        raise TimeoutError("formation did not end in 20 s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(20)
    try:
        p = GroupFusionPass(model)
        module = parse_module(_recompute_program(returns_p=True))
        records = p.run(module)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    verify(module)
    # g1 = p, g2 = its row sum, g3 = q, g4 = r: q's kernel copies p once; p's kernel still stores it
    assert [(d.verdict, d.a, d.b) for d in p.decisions if d.verdict in ("merge", "recompute")] == [
        ("merge", "g1", "g2"), ("recompute", "g1+g2", "g1'+g3")]
    assert [(r.name, r.kernel.label) for r in records] == [("main_k0", "g1+g2"), ("main_k1", "g1'+g3"),
                                                           ("main_k2", "g4")]


# -- scratch functions: the kernel outlining would write, before anything is rewritten -------------------


def test_a_scratch_function_is_the_function_outlining_writes():
    """The three generics of INITS as one kernel: the scratch function returns the results read outside it
    (``t, y, z``) and is, op for op and type for type, ``main_k0`` as the pass outlines it (above); the
    caller is left as it was.  A member marked unstored returns nothing, even what the caller reads."""
    from costfuse.outline import scratch_function

    launch = KernelLaunch("looped", 2, 8, 4)
    module = parse_module(INITS)
    before = str(module)
    with module.context:
        a, s, y = [op.operation for op in module.body.operations[0].regions[0].blocks[0].operations
                   if op.operation.name == "linalg.generic"]
        scratch, fn = scratch_function([a, s, y], frozenset({a}), launch, "main_k0")
        assert str(module) == before
        assert ir.StringAttr(fn.attributes["sym_name"]).value == "main_k0"
        assert KernelLaunch.from_attr(fn.attributes[LAUNCH_ATTR]) == launch and KERNEL_ATTR in fn.attributes
        assert _signature(scratch, "main_k0") == ([X, X, R], [R, X, X])
        assert _body(scratch, "main_k0") == INITS_KERNEL
        unstored, fn = scratch_function([a, s, y], frozenset({a, s}), launch)   # ``t`` is no longer returned
        assert ir.StringAttr(fn.attributes["sym_name"]).value == "scratch_kernel"
        assert _signature(unstored, "scratch_kernel") == ([X, X, R], [X, X])
        assert _body(unstored, "scratch_kernel")[-1] == "%10 = func.return(%9#0, %9#1)"
        lone, fn = scratch_function([a], frozenset(), launch)                   # one op is a kernel too
        assert _signature(lone, "scratch_kernel") == ([X, X], [X])


def test_a_scratch_kernel_function_stores_what_the_kernel_shape_outputs():
    from costfuse.kernel import analyze_kernel
    from costfuse.outline import scratch_kernel_function

    module = parse_module(INITS)
    with module.context:
        ops = [op.operation for op in module.body.operations[0].regions[0].blocks[0].operations
               if op.operation.name == "linalg.generic"]
        shape = analyze_kernel(ops)
        scratch, fn = scratch_kernel_function(shape, KernelLaunch("looped", 2, 8, 4))
        assert ir.StringAttr(fn.attributes["sym_name"]).value == "scratch_kernel"
        assert _signature(scratch, "scratch_kernel") == ([X, X, R], [R, X, X])   # a and s stay inside
        assert _body(scratch, "scratch_kernel") == INITS_KERNEL
        _, named = scratch_kernel_function(shape, KernelLaunch("looped", 2, 8, 4), "k7")
        assert ir.StringAttr(named.attributes["sym_name"]).value == "k7"


HELD = MAPS + f"""
func.func @main(%x: {X}, %w: {X}) -> ({X}, {X}) {{
  %e = tensor.empty() : {X}
""" + _generic("%z", [("%w", X, "#id")], "%e", "    %r = arith.addf %i0, %i0 : f32\n    linalg.yield %r : f32") \
    + _generic("%u", [("%x", X, "#id")], "%e", "    %r = arith.addf %i0, %i0 : f32\n    linalg.yield %r : f32") \
    + _square("%p1", "%u") \
    + _generic("%p2", [("%p1", X, "#id")], "%e", "    %r = arith.negf %i0 : f32\n    linalg.yield %r : f32") \
    + _generic("%q", [("%p2", X, "#id"), ("%w", X, "#id")], "%e", _DIVIDE) \
    + _generic("%y", [("%p2", X, "#id"), ("%z", X, "#id")], "%e", _DIVIDE) + f"""\
  return %q, %y : {X}, {X}
}}
"""


def test_producers_every_reader_recomputes_belong_to_no_kernel_and_order_nothing():
    """``p1 = u*u`` and ``p2 = -p1`` are recomputed by both their readers' kernels, ``q``'s (which owns ``u``)
    and ``y``'s (which owns ``z``, the first generic of the program): no kernel owns them and they get no
    call of their own (one would close a false cycle through ``q``'s kernel).  ``y``'s kernel starts first
    in the program, but its copy of ``p1`` reads ``u``, so it is called after ``q``'s, which stores ``u``
    for it."""
    kernels = [Kernel((1, 2, 3, 4), None, _EST, recomputed=(2, 3), unstored=(2, 3)),
               Kernel((0, 2, 3, 5), None, _EST, recomputed=(2, 3), unstored=(2, 3))]
    module, names = _outlined(HELD, kernels)
    assert names == ["main_k0", "main_k1"]
    assert _body(module, "main") == ["%0 = tensor.empty()", "%1 = call @main_k0(arg0, arg1)",
                                     "%2 = call @main_k1(arg1, %1#0)", "%3 = func.return(%1#1, %2)"]
    assert _signature(module, "main_k0") == ([X, X], [X, X])    # u (for y's kernel's copies), q
    assert _signature(module, "main_k1") == ([X, X], [X])


def test_every_reader_of_a_member_follows_its_kernel_whatever_copies_read_it_too():
    """``a = x*x`` feeds ``w = -a`` (in the caller), ``h = a*a`` (recomputed by ``c``'s kernel, no kernel
    owns it) and ``d = a + p`` (``a``'s kernel, which waits for ``p = -y``).  Skipping ``h``'s read of ``a``
    skips only that read: ``w`` comes after the call that computes ``a``, although it is before ``p`` in the
    program."""
    neg = "    %r = arith.negf %i0 : f32\n    linalg.yield %r : f32"
    add = "    %r = arith.addf %i0, %i1 : f32\n    linalg.yield %r : f32"
    text = MAPS + f"""
func.func @main(%x: {X}, %y: {X}) -> ({X}, {X}, {X}) {{
  %e = tensor.empty() : {X}
""" + _square("%a", "%x") + _generic("%w", [("%a", X, "#id")], "%e", neg) \
        + _generic("%p", [("%y", X, "#id")], "%e", neg) + _square("%h", "%a") \
        + _generic("%d", [("%a", X, "#id"), ("%p", X, "#id")], "%e", add) \
        + _generic("%c", [("%h", X, "#id"), ("%x", X, "#id")], "%e", add) + f"""\
  return %w, %d, %c : {X}, {X}, {X}
}}
"""
    kernels = [Kernel((0, 4), None, _EST), Kernel((3, 5), None, _EST, recomputed=(3,), unstored=(3,))]
    module, names = _outlined(text, kernels)
    assert _body(module, "main") == ["%0 = tensor.empty()", "%1 = linalg.generic(arg1, %0)",    # p
                                     "%2 = call @main_k0(arg0, %1)",                             # a, d
                                     "%3 = linalg.generic(%2#0, %0)",                            # w
                                     "%4 = call @main_k1(%2#0, arg0)",                           # h', c
                                     "%5 = func.return(%3, %2#1, %4)"]
