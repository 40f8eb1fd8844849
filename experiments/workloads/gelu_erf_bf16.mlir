// CostFuse workload gelu_erf_bf16: GELU gate (erf), after a bias add (experiments/workloads/blocks.py:BiasGeluErf); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:BiasGeluErf --shape 4096x16384 --shape 16384 --dtype bf16 -o experiments/workloads/gelu_erf_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x16384xbf16>, %arg1: tensor<16384xbf16>) -> tensor<4096x16384xbf16> {
    %cst = arith.constant 1.000000e+00 : bf16
    %cst_0 = arith.constant 2.000000e+00 : bf16
    %cst_1 = arith.constant 5.000000e-01 : bf16
    %0 = tensor.empty() : tensor<4096x16384xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4096x16384xbf16>, tensor<16384xbf16>) outs(%0 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: bf16):
      %3 = arith.addf %in, %in_2 : bf16
      linalg.yield %3 : bf16
    } -> tensor<4096x16384xbf16>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x16384xbf16>) outs(%0 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %3 = math.sqrt %cst_0 : bf16
      %4 = arith.divf %in, %3 : bf16
      %5 = math.erf %4 : bf16
      %6 = arith.addf %5, %cst : bf16
      %7 = arith.mulf %6, %cst_1 : bf16
      %8 = arith.mulf %in, %7 : bf16
      linalg.yield %8 : bf16
    } -> tensor<4096x16384xbf16>
    return %2 : tensor<4096x16384xbf16>
  }
}
