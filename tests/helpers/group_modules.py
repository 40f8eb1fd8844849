"""Kernel-group programs as MLIR text, shared by the group-feature and learned-group tests."""

from __future__ import annotations

NEG_INF = {"bf16": "0xFF80", "f32": "0xFF800000", "f64": "0xFFF0000000000000"}


def softmax(rows: int, n: int, t: str) -> str:
    """``y = exp(x - max(x)) / sum(exp(x - max(x)))`` as 4 generics: 2 row reductions, 2 full-row members."""
    x, r = f"tensor<{rows}x{n}x{t}>", f"tensor<{rows}x{t}>"
    full = 'iterator_types = ["parallel", "parallel"]'
    red = 'iterator_types = ["parallel", "reduction"]'
    return f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: {x}) -> {x} {{
  %ninf = arith.constant {NEG_INF[t]} : {t}
  %zero = arith.constant 0.0 : {t}
  %e2 = tensor.empty() : {x}
  %e1 = tensor.empty() : {r}
  %minit = linalg.fill ins(%ninf : {t}) outs(%e1 : {r}) -> {r}
  %m = linalg.generic {{indexing_maps = [#id, #row], {red}}} ins(%x : {x}) outs(%minit : {r}) {{
  ^bb0(%a: {t}, %acc: {t}):
    %v = arith.maximumf %a, %acc : {t}
    linalg.yield %v : {t}
  }} -> {r}
  %ex = linalg.generic {{indexing_maps = [#id, #row, #id], {full}}} ins(%x, %m : {x}, {r}) outs(%e2 : {x}) {{
  ^bb0(%a: {t}, %b: {t}, %o: {t}):
    %d = arith.subf %a, %b : {t}
    %v = math.exp %d : {t}
    linalg.yield %v : {t}
  }} -> {x}
  %sinit = linalg.fill ins(%zero : {t}) outs(%e1 : {r}) -> {r}
  %s = linalg.generic {{indexing_maps = [#id, #row], {red}}} ins(%ex : {x}) outs(%sinit : {r}) {{
  ^bb0(%a: {t}, %acc: {t}):
    %v = arith.addf %a, %acc : {t}
    linalg.yield %v : {t}
  }} -> {r}
  %y = linalg.generic {{indexing_maps = [#id, #row, #id], {full}}} ins(%ex, %s : {x}, {r}) outs(%e2 : {x}) {{
  ^bb0(%a: {t}, %b: {t}, %o: {t}):
    %v = arith.divf %a, %b : {t}
    linalg.yield %v : {t}
  }} -> {x}
  return %y : {x}
}}
"""
