"""Single-``linalg.generic`` modules for the lowering tests, as MLIR text.

:func:`generic_module` writes one function ``@main`` whose arguments are the
generic's operands (inputs, then output inits) and which returns its results,
so the same text feeds both the lowering and the IREE reference.  Body lines
name block arguments ``%a0..`` (inputs) and ``%o0..`` (outputs) and end with
``yield v, ...``.  :func:`random_generic` is the hypothesis strategy over
random generics.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st


def tensor(shape, dtype: str) -> str:
    return f"tensor<{''.join(f'{s}x' for s in shape)}{dtype}>"


@dataclass(frozen=True)
class Operand:
    shape: tuple[int, ...]
    dtype: str
    results: str  # affine map results, e.g. "d0, 0"


def generic_module(n_dims: int, iterators: list[str], ins: list[Operand], outs: list[Operand], body: list[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(n_dims))
    maps = ", ".join(f"affine_map<({dims}) -> ({o.results})>" for o in (*ins, *outs))
    its = ", ".join(f'"{i}"' for i in iterators)
    args = [f"%in{i}: {tensor(o.shape, o.dtype)}" for i, o in enumerate(ins)]
    args += [f"%init{j}: {tensor(o.shape, o.dtype)}" for j, o in enumerate(outs)]
    out_types = ", ".join(tensor(o.shape, o.dtype) for o in outs)
    bargs = [f"%a{i}: {o.dtype}" for i, o in enumerate(ins)] + [f"%o{j}: {o.dtype}" for j, o in enumerate(outs)]
    lines = []
    for line in body:
        if line.startswith("yield "):
            vals = [v.strip() for v in line[6:].split(",")]
            line = f"linalg.yield {', '.join(vals)} : {', '.join(o.dtype for o in outs)}"
        lines.append("      " + line)
    ins_clause = (f"ins({', '.join(f'%in{i}' for i in range(len(ins)))} : "
                  f"{', '.join(tensor(o.shape, o.dtype) for o in ins)}) ") if ins else ""
    results = ", ".join(f"%r#{j}" for j in range(len(outs))) if len(outs) > 1 else "%r"
    res_decl = f"%r:{len(outs)}" if len(outs) > 1 else "%r"
    return (
        f"func.func @main({', '.join(args)}) -> ({out_types}) {{\n"
        f"  {res_decl} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}\n"
        f"      {ins_clause}outs({', '.join(f'%init{j}' for j in range(len(outs)))} : {out_types}) {{\n"
        f"    ^bb0({', '.join(bargs)}):\n" + "\n".join(lines) + "\n"
        f"  }} -> ({out_types})\n"
        f"  return {results} : {out_types}\n"
        "}\n"
    )


def refusal_of(text: str):
    """The :class:`UnsupportedOp` that lowering the one generic of module ``text`` raises (the test
    fails if it lowers)."""
    import pytest
    from costfuse.data.lowering.generic import lower_generic
    from costfuse.data.lowering.unsupported import UnsupportedOp
    from costfuse.data.lowering.walk import generics_of

    from costfuse.ir import parse_module

    module = parse_module(text)  # kept alive while the generic is lowered
    (g,) = generics_of(module)
    with pytest.raises(UnsupportedOp) as err:
        lower_generic(g)
    return err.value


def signature(kernel) -> dict[str, str]:
    """The Triton signature of a lowered kernel, from its own arguments: what its file's ``SIGNATURE`` holds."""
    from costfuse.data.lowering.source import kernel_signature

    return kernel_signature(kernel.inputs, kernel.outputs, kernel.reduction)


def ident(n: int) -> str:
    return ", ".join(f"d{i}" for i in range(n))


def elementwise(shape, dtype: str, body: list[str], n_inputs: int = 1, out_dtype: str | None = None) -> str:
    """All-parallel generic over identity maps."""
    n = len(shape)
    ins = [Operand(tuple(shape), dtype, ident(n))] * n_inputs
    outs = [Operand(tuple(shape), out_dtype or dtype, ident(n))]
    return generic_module(n, ["parallel"] * n, ins, outs, body)


def row_reduction(shape, dtype: str, combiner: str, pre: list[str] | None = None) -> str:
    """Reduce the last dim of ``shape`` with ``combiner`` after optional body lines ``pre``
    (which must define ``%v``; default: ``%v`` is the input)."""
    n = len(shape)
    pre = pre or []
    v = "%v" if pre else "%a0"
    body = pre + [f"%r = {combiner} {v}, %o0 : {dtype}", "yield %r"]
    return generic_module(n, ["parallel"] * (n - 1) + ["reduction"], [Operand(tuple(shape), dtype, ident(n))],
                          [Operand(tuple(shape[:-1]), dtype, ident(n - 1))], body)


# ---------------------------------------------------------------------------
# Random generics (hypothesis)

UNARY = ["math.exp", "math.tanh", "math.absf", "arith.negf", "math.sin", "math.cos", "math.erf", "math.log1p",
         "math.sqrt", "math.rsqrt", "math.log", "math.exp2"]
BINARY = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.minimumf", "math.powf"]
COMBINERS = ["arith.addf", "arith.maximumf", "arith.minimumf", "arith.mulf"]
FLOATS = ["f32", "f16", "bf16", "f64"]
SIZES = [1, 2, 3, 5, 8, 16, 33]


@st.composite
def random_generic(draw, max_numel: int = 2048) -> str:
    """A random supported generic: rank 1-3 (sometimes 4), float dtype, inputs
    with identity / broadcast / constant-0 / permuted maps, a body of 1-8
    random ops, and optionally a reduction over the trailing dims."""
    n = draw(st.integers(1, 4) if draw(st.booleans()) else st.integers(1, 3))
    shape = []
    for _ in range(n):
        shape.append(draw(st.sampled_from(SIZES)))
    while _prod(shape) > max_numel:
        shape[shape.index(max(shape))] //= 2
    dtype = draw(st.sampled_from(FLOATS))
    n_red = draw(st.sampled_from([0, 0, 1, 1, 2])) if n >= 1 else 0
    n_red = min(n_red, n)
    iterators = ["parallel"] * (n - n_red) + ["reduction"] * n_red
    ins = []
    for k_in in range(draw(st.integers(1, 3))):
        # the first input covers every loop dim, so the maps stay invertible
        kind = "ident" if k_in == 0 else draw(st.sampled_from(["ident", "broadcast", "const0", "perm"]))
        dims = list(range(n))
        if kind == "broadcast" and n > 1:
            keep = sorted(draw(st.sets(st.sampled_from(dims), min_size=1, max_size=n - 1)))
            results, op_shape = [f"d{d}" for d in keep], [shape[d] for d in keep]
        elif kind == "const0":
            drop = draw(st.sampled_from(dims))
            results = [f"d{d}" if d != drop else "0" for d in dims]
            op_shape = [shape[d] if d != drop else 1 for d in dims]
        elif kind == "perm" and n > 1:
            perm = draw(st.permutations(dims))
            results, op_shape = [f"d{d}" for d in perm], [shape[d] for d in perm]
        else:
            results, op_shape = [f"d{d}" for d in dims], list(shape)
        in_dtype = dtype if draw(st.integers(0, 3)) else draw(st.sampled_from(FLOATS))
        ins.append(Operand(tuple(op_shape), in_dtype, ", ".join(results)))
    body, values, k = [], [], 0
    for i, op in enumerate(ins):
        if op.dtype == dtype:
            values.append(f"%a{i}")
            continue
        k += 1
        cast = "arith.extf" if _bits(op.dtype) < _bits(dtype) else "arith.truncf"
        if {op.dtype, dtype} == {"f16", "bf16"}:  # not ordered by width: go through f32
            body.append(f"%c{k} = arith.extf %a{i} : {op.dtype} to f32")
            body.append(f"%v{k} = arith.truncf %c{k} : f32 to {dtype}")
        else:
            body.append(f"%v{k} = {cast} %a{i} : {op.dtype} to {dtype}")
        values.append(f"%v{k}")
    if draw(st.booleans()):
        k += 1
        body.append(f"%v{k} = arith.constant {draw(st.sampled_from(['0.5', '2.0', '-1.25', '3.0']))} : {dtype}")
        values.append(f"%v{k}")
    for _ in range(draw(st.integers(1, 8))):
        k += 1
        kind = draw(st.sampled_from(["unary", "binary", "binary", "select"]))
        if kind == "unary":
            ops = [o for o in UNARY if not (dtype == "f64" and o == "math.erf")]  # llvm-cpu: no f64 erf
            body.append(f"%v{k} = {draw(st.sampled_from(ops))} {draw(st.sampled_from(values))} : {dtype}")
        elif kind == "binary":
            a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
            body.append(f"%v{k} = {draw(st.sampled_from(BINARY))} {a}, {b} : {dtype}")
        else:
            a, b = draw(st.sampled_from(values)), draw(st.sampled_from(values))
            pred = draw(st.sampled_from(["ogt", "olt", "oge", "une", "ule"]))
            body.append(f"%p{k} = arith.cmpf {pred}, {a}, {b} : {dtype}")
            body.append(f"%v{k} = arith.select %p{k}, {a}, {b} : {dtype}")
        values.append(f"%v{k}")
    out_dims = [d for d in range(n) if iterators[d] == "parallel"]
    out = Operand(tuple(shape[d] for d in out_dims), dtype, ", ".join(f"d{d}" for d in out_dims))
    if n_red:
        comb = draw(st.sampled_from(COMBINERS))
        if comb == "arith.mulf":
            body.append(f"%m = math.tanh %v{k} : {dtype}")  # keep long products finite
            body.append(f"%r = {comb} %m, %o0 : {dtype}")
        else:
            body.append(f"%r = {comb} %v{k}, %o0 : {dtype}")
        body.append("yield %r")
    else:
        body.append(f"yield %v{k}")
    return generic_module(n, iterators, ins, [out], body)


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _bits(t: str) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t]
