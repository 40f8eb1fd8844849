"""Kernels whose bytes, flops and live values are easy to count by hand, with sm_90's figures.

The analytical config time's tests and the xla model's derive their expected values from these, so
both files must see the same kernels.
"""

from __future__ import annotations

from costfuse.data.mlir_text import Program, ident, tensor

from costfuse.targets import get_target
from helpers.peer_kernels import _fill, chain, softmax, whole

SM90 = get_target("sm_90")
BW, PEAK, LAUNCH, WAVE = 4.8e12, 67e12, 1e-6, 0.1e-6     # targets.py's sm_90 row; group_time.WAVE_S
ROW = "affine_map<(d0, d1) -> (d0)>"


# --- kernels with easy counts ------------------------------------------------------------
def tanh16(dtype: str, shape=(256, 1024)) -> str:
    """One elementwise generic applying tanh 16 times: 16 x 8 = 128 flops per element, so compute-bound."""
    ty = tensor(shape, dtype)
    p = Program([("%x", ty)])
    body = [f"%t1 = math.tanh %a0 : {dtype}"] + [f"%t{i} = math.tanh %t{i - 1} : {dtype}" for i in range(2, 17)]
    return p.text(p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, body + ["yield %t16"]), ty)


def tanh16_normalized(rows: int = 256, n: int = 1024) -> str:
    """e = tanh^16(x) (128 flops), s = row sum of e (1), y = e / s (divf: 2).

    Looped, s takes pass 0 and y pass 1, and both need e: e is computed twice
    and x read twice, so the looped kernel does 128 more flops per element.
    """
    ty, rty = tensor((rows, n), "f32"), tensor((rows,), "f32")
    p = Program([("%x", ty)])
    body = ["%t1 = math.tanh %a0 : f32"] + [f"%t{i} = math.tanh %t{i - 1} : f32" for i in range(2, 17)]
    e = p.generic([("%x", ty, ident(2))], ty, ident(2), ["parallel"] * 2, body + ["yield %t16"])
    s = p.generic([(e, ty, ident(2))], rty, ROW, ["parallel", "reduction"],
                  ["%r = arith.addf %a0, %o : f32", "yield %r"], init=_fill(p, rty, "0.0"))
    y = p.generic([(e, ty, ident(2)), (s, rty, ROW)], ty, ident(2), ["parallel"] * 2,
                  ["%r = arith.divf %a0, %a1 : f32", "yield %r"])
    return p.text(y, ty)


# A position generator (an iota): it reads no tensor at all, so its row runs
# are made of the default 32-bit elements.  3 flops per element.
IOTA = """func.func @main() -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<64x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %r = arith.sitofp %c : i32 to f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
"""

# x + float(i) with i an index tensor: index has no bit width in MLIR's type
# API and counts as 64 bits (8-byte elements, 2 registers per value).  3 flops per element.
INDEX_INPUT = """func.func @main(%x: tensor<64x8xf32>, %i: tensor<64x8xindex>) -> tensor<64x8xf32> {
  %e = tensor.empty() : tensor<64x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %i : tensor<64x8xf32>, tensor<64x8xindex>) outs(%e : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: index, %o: f32):
    %c = arith.index_cast %b : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.addf %a, %f : f32
    linalg.yield %r : f32
  } -> tensor<64x8xf32>
  return %y : tensor<64x8xf32>
}
"""

KERNELS = {
    # softmax: max (1 flop), exp(x - max) (5), sum (1), divide (2) = 9 flops per element; x and e
    # live at once (live_full 2); 2 reductions; looped: 2 passes (the sum runs online in the max's), x read
    # in each, e computed in both (5 + 5) plus the online rescale (sub, exp, mul: 6): 1 + 10 + 1 + 6 + 2 = 20 flops
    "softmax 4096x1024": lambda: softmax(4096, 1024),
    "softmax 4096x512": lambda: softmax(4096, 512),
    "softmax 16x1024": lambda: softmax(16, 1024),
    "exp 4608x256": lambda: chain(1, (4608, 256)),        # pointwise, 4 flops per element, live_full 2
    "exp 64x1": lambda: chain(1, (64, 1)),                # keepdim: one rowwise member, live_full 1
    "tanh16 f32": lambda: tanh16("f32"),
    "tanh16 f64": lambda: tanh16("f64"),                  # 64-bit: 2 registers per value, half the peak
    "tanh16 normalized": tanh16_normalized,
    "iota": lambda: IOTA,
    "index input": lambda: INDEX_INPUT,
}


SOFTMAX_1024_HBM = 2 * 4096 * 1024 * 4                   # x read once, y stored: 33554432
SOFTMAX_1024_FLOPS = 9 * 4096 * 1024                     # 37748736


def _kernel(name: str):
    """``(Kernels, the shape of all its members as one kernel)`` for the kernel named in :data:`KERNELS`."""
    return whole(KERNELS[name]())
