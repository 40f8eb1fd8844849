"""One generic built from its body lines, for the kernel-shape and formation tests."""

from __future__ import annotations

from costfuse.graph import function_blocks, generics_in
from costfuse.ir import parse_module

# --- row spaces in detail (the mutation check's survivors, experiments/results/mutation.md) ---
_ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def _op(body, args="", ins="%x : tensor<4x8xf32>", maps=(_ID2, _ID2), iters=("parallel", "parallel"),
        out="tensor<4x8xf32>", bargs="%a: f32, %o: f32", pre=""):
    """(module, the only generic) of ``@f(%x: tensor<4x8xf32>{args})`` computing ``body``."""
    its = ", ".join(f'"{i}"' for i in iters)
    text = (f"func.func @f(%x: tensor<4x8xf32>{args}) -> {out} {{\n%e = tensor.empty() : {out}\n{pre}\n"
            f"%0 = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{its}]}} ins({ins}) "
            f"outs(%e : {out}) {{\n^bb0({bargs}):\n" + "\n".join(body) + f"\n}} -> {out}\nreturn %0 : {out}\n}}")
    module = parse_module(text)
    return module, generics_in(function_blocks(module)[0])[0]
