"""Hand-written kernel functions (docs/groups.md) for the v2 lowering tests.

Each builder returns a module holding one ``func.func private @k`` with
``costfuse.kernel``, in the form ``costfuse/outline.py`` writes: arguments
are the tensors the members read from outside, inits are ``tensor.empty`` or
a ``linalg.fill`` of a constant cloned in, results are the member results
used outside.  :func:`generic` writes one member; body lines name block
arguments ``%a0..`` (inputs) and ``%o0..`` (inits) and end with ``yield v, ...``.
"""

from __future__ import annotations

from helpers.lowering_cases import tensor

NEG_INF = {"f32": "0xFF800000", "f16": "0xFC00", "bf16": "0xFF80", "f64": "0xFFF0000000000000"}


def generic(results: str, n_dims: int, iterators: str, ins: list[tuple], outs: list[tuple], body: list[str]) -> str:
    """``results = linalg.generic``: ``ins``/``outs`` are ``(value, shape, dtype, map results)``;
    ``iterators`` one letter per loop (``p`` parallel, ``r`` reduction)."""
    dims = ", ".join(f"d{i}" for i in range(n_dims))
    maps = ", ".join(f"affine_map<({dims}) -> ({m})>" for *_, m in (*ins, *outs))
    its = ", ".join('"parallel"' if c == "p" else '"reduction"' for c in iterators)
    bargs = [f"%a{i}: {t}" for i, (_, _, t, _) in enumerate(ins)]
    bargs += [f"%o{j}: {t}" for j, (_, _, t, _) in enumerate(outs)]
    out_types = ", ".join(tensor(s, t) for _, s, t, _ in outs)
    lines = []
    for line in body:
        if line.startswith("yield "):
            line = f"linalg.yield {line[6:]} : {', '.join(t for _, _, t, _ in outs)}"
        lines.append("      " + line)
    ins_types = ", ".join(tensor(s, t) for _, s, t, _ in ins)
    ins_clause = f"ins({', '.join(v for v, *_ in ins)} : {ins_types}) " if ins else ""
    return (f"  {results} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}\n"
            f"      {ins_clause}outs({', '.join(v for v, *_ in outs)} : {out_types}) {{\n"
            f"    ^bb0({', '.join(bargs)}):\n" + "\n".join(lines) + f"\n  }} -> ({out_types})\n")


def main_function(args: list[tuple], generic: str, result: tuple, outside: tuple[str, ...] = ()) -> str:
    """``func.func @main`` around one ``generic`` (from :func:`generic`) writing into
    ``%e = tensor.empty()``, for the v1 lowering tests: ``args`` and ``result`` are
    ``(value, shape, dtype)`` (shape ``None``: a bare scalar); ``outside`` lines come first."""
    sig = ", ".join(f"{v}: {t if s is None else tensor(s, t)}" for v, s, t in args)
    rv, rs, rt = result
    out = tensor(rs, rt)
    return (f"func.func @main({sig}) -> {out} {{\n" + "".join(f"  {ln}\n" for ln in outside)
            + f"  %e = tensor.empty() : {out}\n" + generic + f"  return {rv} : {out}\n}}\n")


def kernel_function(args: list[tuple], results: list[tuple], body: list[str], launch: str | None = None,
                    name: str = "k") -> str:
    """``func.func private @name``; ``args``/``results`` are ``(value, shape, dtype)``."""
    attrs = "costfuse.kernel" + (f", costfuse.launch = {launch}" if launch else "")
    sig = ", ".join(f"{v}: {tensor(s, t)}" for v, s, t in args)
    res_types = ", ".join(tensor(s, t) for _, s, t in results)
    return (f"func.func private @{name}({sig}) -> ({res_types}) attributes {{{attrs}}} {{\n" + "".join(body)
            + f"  return {', '.join(v for v, _, _ in results)} : {res_types}\n}}\n")


def _fill(name: str, shape, t: str, value: str) -> list[str]:
    return [f"  {name}_c = arith.constant {value} : {t}\n",
            f"  {name}_e = tensor.empty() : {tensor(shape, t)}\n",
            f"  {name} = linalg.fill ins({name}_c : {t}) outs({name}_e : {tensor(shape, t)}) -> {tensor(shape, t)}\n"]


def _empty(name: str, shape, t: str) -> list[str]:
    return [f"  {name} = tensor.empty() : {tensor(shape, t)}\n"]


def _maps(k: int) -> tuple[str, str]:
    """(full map results, row map results) over ``k`` row dims and the row dim."""
    rows = ", ".join(f"d{i}" for i in range(k))
    return (f"{rows}, d{k}" if k else f"d{k}"), rows


def softmax(rows=(6,), n=100, t="f32") -> str:
    """max-reduce, sub, exp, sum-reduce, div: 2 reductions, 2 looped passes in f32/f64 (the sum runs
    online in the max's pass, costfuse/online_softmax.py), 3 in bf16/f16."""
    k, full, row = len(rows), *_maps(len(rows))
    shape, it = tuple(rows) + (n,), "p" * len(rows) + "r"
    fx = [("%x", shape, t, full)]
    body = _fill("%m0", rows, t, NEG_INF[t]) + _fill("%s0", rows, t, "0.0") + _empty("%e", shape, t)
    body.append(generic("%max", k + 1, it, fx, [("%m0", rows, t, row)],
                        [f"%r = arith.maximumf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%sub", k + 1, "p" * (k + 1), fx + [("%max", rows, t, row)], [("%e", shape, t, full)],
                        [f"%r = arith.subf %a0, %a1 : {t}", "yield %r"]))
    body.append(generic("%exp", k + 1, "p" * (k + 1), [("%sub", shape, t, full)], [("%e", shape, t, full)],
                        [f"%r = math.exp %a0 : {t}", "yield %r"]))
    body.append(generic("%sum", k + 1, it, [("%exp", shape, t, full)], [("%s0", rows, t, row)],
                        [f"%r = arith.addf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%y", k + 1, "p" * (k + 1), [("%exp", shape, t, full), ("%sum", rows, t, row)],
                        [("%e", shape, t, full)], [f"%r = arith.divf %a0, %a1 : {t}", "yield %r"]))
    return kernel_function([("%x", shape, t)], [("%y", shape, t)], body)


def layernorm_fwd(m=6, n=100, t="f32") -> str:
    """LayerNorm forward storing y, mean and rstd (rowwise members), broadcast
    weight and bias ``(d0, d1) -> (d1)``, f32 statistics: 2 looped passes in f32 (the variance is a Welford
    sum in its mean's pass, costfuse/welford.py), 3 in a narrower type (its own extf, not the sum's, feeds it)."""
    x, w, b = ("%x", (m, n), t, "d0, d1"), ("%w", (n,), t, "d1"), ("%b", (n,), t, "d1")
    row = lambda v: (v, (m,), "f32", "d0")  # noqa: E731
    ext = (lambda v, o: [f"{o} = arith.extf {v} : {t} to f32"]) if t != "f32" else (lambda v, o: [])
    xv = "%xf" if t != "f32" else "%a0"
    body = _fill("%z", (m,), "f32", "0.0") + _empty("%er", (m,), "f32") + _empty("%ey", (m, n), t)
    body.append(f"  %inv_n = arith.constant {1.0 / n!r} : f32\n  %eps = arith.constant 1.0e-05 : f32\n")
    body.append(generic("%sum", 2, "pr", [x], [row("%z")], ext("%a0", "%xf") + [
        f"%r = arith.addf {xv}, %o0 : f32", "yield %r"]))
    body.append(generic("%mean", 1, "p", [("%sum", (m,), "f32", "d0")], [row("%er")],
                        ["%r = arith.mulf %a0, %inv_n : f32", "yield %r"]))
    body.append(generic("%var", 2, "pr", [x, row("%mean")], [row("%z")], ext("%a0", "%xf") + [
        f"%d = arith.subf {xv}, %a1 : f32", "%q = arith.mulf %d, %d : f32", "%r = arith.addf %q, %o0 : f32",
        "yield %r"]))
    body.append(generic("%rstd", 1, "p", [("%var", (m,), "f32", "d0")], [row("%er")],
                        ["%v = arith.mulf %a0, %inv_n : f32", "%s = arith.addf %v, %eps : f32",
                         "%r = math.rsqrt %s : f32", "yield %r"]))
    narrow = t != "f32"
    y_body = ext("%a0", "%xf") + [f"%d = arith.subf {xv}, %a1 : f32", "%n = arith.mulf %d, %a2 : f32"]
    y_body += ([f"%wf = arith.extf %a3 : {t} to f32", f"%bf = arith.extf %a4 : {t} to f32"] if narrow else [])
    y_body += [f"%s = arith.mulf %n, {'%wf' if narrow else '%a3'} : f32",
               f"%y = arith.addf %s, {'%bf' if narrow else '%a4'} : f32"]
    y_body += ([f"%r = arith.truncf %y : f32 to {t}", "yield %r"] if narrow else ["yield %y"])
    body.append(generic("%y", 2, "pp", [x, row("%mean"), row("%rstd"), w, b], [("%ey", (m, n), t, "d0, d1")],
                        y_body))
    return kernel_function([("%x", (m, n), t), ("%w", (n,), t), ("%b", (n,), t)],
                           [("%y", (m, n), t), ("%mean", (m,), "f32"), ("%rstd", (m,), "f32")], body)


def rmsnorm_bwd(m=6, n=100) -> str:
    """The row part of RMSNorm backward: ``dx = g*rstd - x * rstd^3 * sum(g*x)/n``
    with ``g = dy*w``; ``rstd`` is an external per-row tensor read by a rowwise
    member and a full one: 2 looped passes."""
    full, row = "d0, d1", "d0"
    x, dy, w, rstd = ("%x", (m, n), "f32", full), ("%dy", (m, n), "f32", full), ("%w", (n,), "f32", "d1"), \
        ("%rstd", (m,), "f32", row)
    body = _fill("%z", (m,), "f32", "0.0") + _empty("%er", (m,), "f32") + _empty("%ef", (m, n), "f32")
    body.append(f"  %inv_n = arith.constant {1.0 / n!r} : f32\n")
    body.append(generic("%g", 2, "pp", [dy, w], [("%ef", (m, n), "f32", full)],
                        ["%r = arith.mulf %a0, %a1 : f32", "yield %r"]))
    body.append(generic("%s", 2, "pr", [("%g", (m, n), "f32", full), x], [("%z", (m,), "f32", row)],
                        ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %p, %o0 : f32", "yield %r"]))
    body.append(generic("%c", 1, "p", [("%s", (m,), "f32", "d0"), ("%rstd", (m,), "f32", "d0")],
                        [("%er", (m,), "f32", "d0")],
                        ["%r2 = arith.mulf %a1, %a1 : f32", "%r3 = arith.mulf %r2, %a1 : f32",
                         "%p = arith.mulf %a0, %r3 : f32", "%r = arith.mulf %p, %inv_n : f32", "yield %r"]))
    body.append(generic("%dx", 2, "pp", [("%g", (m, n), "f32", full), rstd, x, ("%c", (m,), "f32", row)],
                        [("%ef", (m, n), "f32", full)],
                        ["%u = arith.mulf %a0, %a1 : f32", "%v = arith.mulf %a2, %a3 : f32",
                         "%r = arith.subf %u, %v : f32", "yield %r"]))
    return kernel_function([("%dy", (m, n), "f32"), ("%w", (n,), "f32"), ("%x", (m, n), "f32"),
                            ("%rstd", (m,), "f32")], [("%dx", (m, n), "f32")], body)


def pointwise_chain(shape=(2, 3, 40), t="f32") -> str:
    """``h = x * sigmoid(1.702 x)`` and ``y = h + res``, both stored (two outputs)."""
    r = len(shape)
    ident = ", ".join(f"d{i}" for i in range(r))
    x, res = ("%x", shape, t, ident), ("%res", shape, t, ident)
    body = _empty("%e", shape, t)
    body.append(f"  %c1 = arith.constant 1.0 : {t}\n  %c = arith.constant 1.702 : {t}\n")
    body.append(generic("%h", r, "p" * r, [x], [("%e", shape, t, ident)],
                        [f"%s = arith.mulf %a0, %c : {t}", f"%n = arith.negf %s : {t}", f"%ex = math.exp %n : {t}",
                         f"%d = arith.addf %ex, %c1 : {t}", f"%r = arith.divf %a0, %d : {t}", "yield %r"]))
    body.append(generic("%y", r, "p" * r, [("%h", shape, t, ident), res], [("%e", shape, t, ident)],
                        [f"%r = arith.addf %a0, %a1 : {t}", "yield %r"]))
    return kernel_function([("%x", shape, t), ("%res", shape, t)], [("%h", shape, t), ("%y", shape, t)], body)


def log_softmax_keepdim(m=6, n=100, t="f32") -> str:
    """Keepdim statistics on ``tensor<Mx1>``: reductions store through
    ``(d0, d1) -> (d0, 0)``, ``lse = log(sum) + max`` is a rowwise member over
    loops ``(M, 1)`` (PyTorch's keepdim form), and the row max and ``lse`` are
    outputs besides ``y``."""
    full, kd = "d0, d1", "d0, 0"
    x = ("%x", (m, n), t, full)
    body = _fill("%m0", (m, 1), t, NEG_INF[t]) + _fill("%s0", (m, 1), t, "0.0") + _empty("%e", (m, n), t)
    body += _empty("%e1", (m, 1), t)
    body.append(generic("%max", 2, "pr", [x], [("%m0", (m, 1), t, kd)],
                        [f"%r = arith.maximumf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%sum", 2, "pr", [x, ("%max", (m, 1), t, kd)], [("%s0", (m, 1), t, kd)],
                        [f"%d = arith.subf %a0, %a1 : {t}", f"%ex = math.exp %d : {t}",
                         f"%r = arith.addf %ex, %o0 : {t}", "yield %r"]))
    body.append(generic("%lse", 2, "pp", [("%sum", (m, 1), t, full), ("%max", (m, 1), t, full)],
                        [("%e1", (m, 1), t, full)],
                        [f"%l = math.log %a0 : {t}", f"%r = arith.addf %l, %a1 : {t}", "yield %r"]))
    body.append(generic("%y", 2, "pp", [x, ("%lse", (m, 1), t, kd)], [("%e", (m, n), t, full)],
                        [f"%r = arith.subf %a0, %a1 : {t}", "yield %r"]))
    return kernel_function([("%x", (m, n), t)], [("%y", (m, n), t), ("%max", (m, 1), t), ("%lse", (m, 1), t)],
                           body)


def sum_into_init(m=6, n=100) -> str:
    """A reduction whose init is an argument (loaded, not a fill): ``s = acc + sum(x*x)``, ``y = x * s``."""
    x = ("%x", (m, n), "f32", "d0, d1")
    body = _empty("%e", (m, n), "f32")
    body.append(generic("%s", 2, "pr", [x], [("%acc", (m,), "f32", "d0")],
                        ["%q = arith.mulf %a0, %a0 : f32", "%r = arith.addf %q, %o0 : f32", "yield %r"]))
    body.append(generic("%y", 2, "pp", [x, ("%s", (m,), "f32", "d0")], [("%e", (m, n), "f32", "d0, d1")],
                        ["%r = arith.mulf %a0, %a1 : f32", "yield %r"]))
    return kernel_function([("%x", (m, n), "f32"), ("%acc", (m,), "f32")],
                           [("%y", (m, n), "f32"), ("%s", (m,), "f32")], body)


def argmax_shift(m=6, n=100) -> str:
    """The arg-max pair ``torch.export`` writes for ``aten.max.dim``, then ``x - max``."""
    x = ("%x", (m, n), "f32", "d0, d1")
    body = _fill("%m0", (m,), "f32", NEG_INF["f32"]) + _fill("%i0", (m,), "i64", "0") + _empty("%e", (m, n), "f32")
    body.append(generic("%mx:2", 2, "pr", [x], [("%m0", (m,), "f32", "d0"), ("%i0", (m,), "i64", "d0")],
                        ["%j = linalg.index 1 : index", "%ji = arith.index_cast %j : index to i64",
                         "%v = arith.maximumf %a0, %o0 : f32", "%gt = arith.cmpf ogt, %a0, %o0 : f32",
                         "%i = arith.select %gt, %ji, %o1 : i64", "yield %v, %i"]))
    body.append(generic("%z", 2, "pp", [x, ("%mx#0", (m,), "f32", "d0")], [("%e", (m, n), "f32", "d0, d1")],
                        ["%r = arith.subf %a0, %a1 : f32", "yield %r"]))
    return kernel_function([("%x", (m, n), "f32")], [("%z", (m, n), "f32"), ("%mx#1", (m,), "i64")], body)


def softmax_argmax(m=6, n=100) -> str:
    """Softmax whose row max is the arg-max pair ``torch.export`` writes for ``aten.max.dim`` (the
    index also stored): the sum of ``exp(x - max)`` still runs online in the max's pass."""
    x, t = ("%x", (m, n), "f32", "d0, d1"), "f32"
    body = (_fill("%m0", (m,), t, NEG_INF[t]) + _fill("%i0", (m,), "i64", "0") + _fill("%s0", (m,), t, "0.0")
            + _empty("%e", (m, n), t))
    body.append(generic("%mx:2", 2, "pr", [x], [("%m0", (m,), t, "d0"), ("%i0", (m,), "i64", "d0")],
                        ["%j = linalg.index 1 : index", "%ji = arith.index_cast %j : index to i64",
                         "%v = arith.maximumf %a0, %o0 : f32", "%gt = arith.cmpf ogt, %a0, %o0 : f32",
                         "%i = arith.select %gt, %ji, %o1 : i64", "yield %v, %i"]))
    body.append(generic("%ex", 2, "pp", [x, ("%mx#0", (m,), t, "d0")], [("%e", (m, n), t, "d0, d1")],
                        ["%d = arith.subf %a0, %a1 : f32", "%r = math.exp %d : f32", "yield %r"]))
    body.append(generic("%sum", 2, "pr", [("%ex", (m, n), t, "d0, d1")], [("%s0", (m,), t, "d0")],
                        ["%r = arith.addf %a0, %o0 : f32", "yield %r"]))
    body.append(generic("%y", 2, "pp", [("%ex", (m, n), t, "d0, d1"), ("%sum", (m,), t, "d0")],
                        [("%e", (m, n), t, "d0, d1")], ["%r = arith.divf %a0, %a1 : f32", "yield %r"]))
    return kernel_function([("%x", (m, n), t)], [("%y", (m, n), t), ("%mx#1", (m,), "i64")], body)


def scaled_softmax(m=6, n=100, scale=0.125) -> str:
    """Softmax of ``x * scale`` (attention's scaled scores): a full member comes first, so the max
    is member 1, not 0; the sum of ``exp(s - max)`` still runs online in the max's pass."""
    x, t = ("%x", (m, n), "f32", "d0, d1"), "f32"
    body = _fill("%m0", (m,), t, NEG_INF[t]) + _fill("%s0", (m,), t, "0.0") + _empty("%e", (m, n), t)
    body.append(f"  %c = arith.constant {scale!r} : {t}\n")
    body.append(generic("%s", 2, "pp", [x], [("%e", (m, n), t, "d0, d1")],
                        [f"%r = arith.mulf %a0, %c : {t}", "yield %r"]))
    s = ("%s", (m, n), t, "d0, d1")
    body.append(generic("%max", 2, "pr", [s], [("%m0", (m,), t, "d0")],
                        [f"%r = arith.maximumf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%ex", 2, "pp", [s, ("%max", (m,), t, "d0")], [("%e", (m, n), t, "d0, d1")],
                        [f"%d = arith.subf %a0, %a1 : {t}", f"%r = math.exp %d : {t}", "yield %r"]))
    body.append(generic("%sum", 2, "pr", [("%ex", (m, n), t, "d0, d1")], [("%s0", (m,), t, "d0")],
                        [f"%r = arith.addf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%y", 2, "pp", [("%ex", (m, n), t, "d0, d1"), ("%sum", (m,), t, "d0")],
                        [("%e", (m, n), t, "d0, d1")], [f"%r = arith.divf %a0, %a1 : {t}", "yield %r"]))
    return kernel_function([("%x", (m, n), t)], [("%y", (m, n), t)], body)


def column_sum(m=6, n=40) -> str:
    """Not a row kernel (the reduction loop is not innermost): lowered by v1."""
    body = _fill("%z", (n,), "f32", "0.0")
    body.append(generic("%s", 2, "rp", [("%x", (m, n), "f32", "d0, d1")], [("%z", (n,), "f32", "d1")],
                        ["%r = arith.addf %a0, %o0 : f32", "yield %r"]))
    return kernel_function([("%x", (m, n), "f32")], [("%s", (n,), "f32")], body)


def gather_body(x: str, shape: tuple[int, int], t: str) -> list[str]:
    """Body lines of PyTorch's gather ``x[row, label[row]]`` over keepdim loops
    ``(M, 1)``, the label in ``%a0``, the gathered value in ``%g``: the bounds
    asserts and the ``tensor.extract`` of ``x`` (defined outside the generic),
    as ``torch.export`` writes them.  Needs ``%cn`` (the row length, index)
    and ``%c0i`` (0, i64) defined outside."""
    return ["%i = linalg.index 0 : index", "%j = arith.index_cast %a0 : i64 to index",
            "%lt = arith.cmpi slt, %j, %cn : index", 'cf.assert %lt, "index must be smaller than dim size"',
            "%ge = arith.cmpi sge, %a0, %c0i : i64", 'cf.assert %ge, "index must be larger or equal to 0"',
            f"%g = tensor.extract {x}[%i, %j] : {tensor(shape, t)}"]


def cross_entropy(m=6, n=100, t="f32") -> str:
    """Per-row cross-entropy ``loss = log(sum(exp(x - max))) + max - x[row, label[row]]``
    on keepdim statistics: two reductions, then rowwise members, one of them
    gathering the row's label logit from the argument ``x`` that the
    reductions also read (so the gather costs no HBM bytes of its own)."""
    full, kd = "d0, d1", "d0, 0"
    x, lab = ("%x", (m, n), t, full), ("%label", (m, 1), "i64", full)
    body = _fill("%m0", (m, 1), t, NEG_INF[t]) + _fill("%s0", (m, 1), t, "0.0") + _empty("%e1", (m, 1), t)
    body.append(f"  %cn = arith.constant {n} : index\n  %c0i = arith.constant 0 : i64\n")
    body.append(generic("%max", 2, "pr", [x], [("%m0", (m, 1), t, kd)],
                        [f"%r = arith.maximumf %a0, %o0 : {t}", "yield %r"]))
    body.append(generic("%sum", 2, "pr", [x, ("%max", (m, 1), t, kd)], [("%s0", (m, 1), t, kd)],
                        [f"%d = arith.subf %a0, %a1 : {t}", f"%ex = math.exp %d : {t}",
                         f"%r = arith.addf %ex, %o0 : {t}", "yield %r"]))
    body.append(generic("%lse", 2, "pp", [("%sum", (m, 1), t, full), ("%max", (m, 1), t, full)],
                        [("%e1", (m, 1), t, full)],
                        [f"%l = math.log %a0 : {t}", f"%r = arith.addf %l, %a1 : {t}", "yield %r"]))
    body.append(generic("%picked", 2, "pp", [lab], [("%e1", (m, 1), t, full)],
                        gather_body("%x", (m, n), t) + ["yield %g"]))
    body.append(generic("%loss", 2, "pp", [("%lse", (m, 1), t, full), ("%picked", (m, 1), t, full)],
                        [("%e1", (m, 1), t, full)], [f"%r = arith.subf %a0, %a1 : {t}", "yield %r"]))
    return kernel_function([("%x", (m, n), t), ("%label", (m, 1), "i64")], [("%loss", (m, 1), t)], body)


def gather_only(m=6, n=100, t="f32") -> str:
    """``loss = -x[row, label[row]]``: ``x`` is only gathered, never read
    through a map, so the kernel reads ``m`` of its elements, not the tensor."""
    full = "d0, d1"
    body = _empty("%e1", (m, 1), t)
    body.append(f"  %cn = arith.constant {n} : index\n  %c0i = arith.constant 0 : i64\n")
    body.append(generic("%picked", 2, "pp", [("%label", (m, 1), "i64", full)], [("%e1", (m, 1), t, full)],
                        gather_body("%x", (m, n), t) + ["yield %g"]))
    body.append(generic("%loss", 2, "pp", [("%picked", (m, 1), t, full)], [("%e1", (m, 1), t, full)],
                        [f"%r = arith.negf %a0 : {t}", "yield %r"]))
    return kernel_function([("%x", (m, n), t), ("%label", (m, 1), "i64")], [("%loss", (m, 1), t)], body)


def gather_rows(m=6, n=100) -> str:
    """``g[r, j] = y[r, idx[r, j]]`` (a full member gathering from ``y``), then
    ``out = g - max_j g``: a looped kernel recomputes ``g``, so it gathers twice."""
    full, row = "d0, d1", "d0"
    body = _fill("%m0", (m,), "f32", NEG_INF["f32"]) + _empty("%e", (m, n), "f32")
    body.append(generic("%g", 2, "pp", [("%idx", (m, n), "i64", full)], [("%e", (m, n), "f32", full)],
                        ["%i = linalg.index 0 : index", "%j = arith.index_cast %a0 : i64 to index",
                         f"%v = tensor.extract %y[%i, %j] : {tensor((m, n), 'f32')}", "yield %v"]))
    body.append(generic("%max", 2, "pr", [("%g", (m, n), "f32", full)], [("%m0", (m,), "f32", row)],
                        ["%r = arith.maximumf %a0, %o0 : f32", "yield %r"]))
    body.append(generic("%out", 2, "pp", [("%g", (m, n), "f32", full), ("%max", (m,), "f32", row)],
                        [("%e", (m, n), "f32", full)], ["%r = arith.subf %a0, %a1 : f32", "yield %r"]))
    return kernel_function([("%idx", (m, n), "i64"), ("%y", (m, n), "f32")], [("%out", (m, n), "f32")], body)
