"""Write Linalg-on-tensors programs as MLIR text, one generic per op.

Text, not bindings, because the generator (``data/families.py``), the test
corpus and the benchmarks all want readable, reproducible programs that a
person can paste into ``costfuse-opt``.  The result is parsed and verified by
``costfuse.ir`` before anyone uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def tensor(shape, dtype) -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{dtype}>"


def amap(n: int, results: str) -> str:
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({results})>"


def elem(ty: str) -> str:
    """Element type of ``tensor<4x8xf32>`` or ``tensor<f32>``."""
    return ty[len("tensor<"):-1].split("x")[-1]


def ident(n: int) -> str:
    return amap(n, ", ".join(f"d{i}" for i in range(n)))


@dataclass
class Program:
    """Accumulates SSA lines of one function; ``text()`` renders the module."""

    args: list[tuple[str, str]]
    lines: list[str] = field(default_factory=list)
    n: int = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def empty(self, ty: str) -> str:
        v = self.fresh()
        self.lines.append(f"{v} = tensor.empty() : {ty}")
        return v

    def generic(self, ins: list[tuple[str, str, str]], out_ty: str, out_map: str, iters: list[str],
                body: list[str], init: str | None = None) -> str:
        """``ins`` are (value, type, map); ``body`` uses %a0.. for inputs, %o for the init, yields via 'yield X'."""
        init = init or self.empty(out_ty)
        v = self.fresh()
        maps = ", ".join([m for _, _, m in ins] + [out_map])
        it = ", ".join(f'"{i}"' for i in iters)
        et = elem(out_ty)
        bargs = ", ".join([f"%a{k}: {elem(t)}" for k, (_, t, _) in enumerate(ins)] + [f"%o: {et}"])
        out = [f"{v} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{it}]}}"
               f" ins({', '.join(x for x, _, _ in ins)} : {', '.join(t for _, t, _ in ins)}) outs({init} : {out_ty}) {{",
               f"^bb0({bargs}):"]
        for line in body:
            out.append("  " + (f"linalg.yield {line[6:]} : {et}" if line.startswith("yield ") else line))
        out.append(f"}} -> {out_ty}")
        self.lines.extend(out)
        return v

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def text(self, result: str, result_ty: str) -> str:
        args = ", ".join(f"{a}: {t}" for a, t in self.args)
        body = "\n".join("  " + l for l in self.lines)
        return f"func.func @main({args}) -> {result_ty} {{\n{body}\n  return {result} : {result_ty}\n}}\n"
