// CostFuse workload swiglu_bf16: SiLU gate (SwiGLU) (experiments/workloads/blocks.py:SwiGLU); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:SwiGLU --shape 4096x11008 --shape 4096x11008 --dtype bf16 -o experiments/workloads/swiglu_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<4096x11008xbf16>, %arg1: tensor<4096x11008xbf16>) -> tensor<4096x11008xbf16> {
    %cst = arith.constant 1.000000e+00 : bf16
    %0 = tensor.empty() : tensor<4096x11008xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x11008xbf16>) outs(%0 : tensor<4096x11008xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %4 = arith.negf %in : bf16
      %5 = math.exp %4 : bf16
      %6 = arith.addf %5, %cst : bf16
      %7 = arith.divf %cst, %6 : bf16
      linalg.yield %7 : bf16
    } -> tensor<4096x11008xbf16>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %arg0 : tensor<4096x11008xbf16>, tensor<4096x11008xbf16>) outs(%0 : tensor<4096x11008xbf16>) {
    ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
      %4 = arith.mulf %in, %in_0 : bf16
      linalg.yield %4 : bf16
    } -> tensor<4096x11008xbf16>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg1 : tensor<4096x11008xbf16>, tensor<4096x11008xbf16>) outs(%0 : tensor<4096x11008xbf16>) {
    ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
      %4 = arith.mulf %in, %in_0 : bf16
      linalg.yield %4 : bf16
    } -> tensor<4096x11008xbf16>
    return %3 : tensor<4096x11008xbf16>
  }
}
