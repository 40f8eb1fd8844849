// CostFuse workload gelu_tanh_bf16: GELU gate (tanh), after a bias add (experiments/workloads/blocks.py:BiasGeluTanh); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:BiasGeluTanh --shape 4096x16384 --shape 16384 --dtype bf16 -o experiments/workloads/gelu_tanh_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x16384xbf16>, %arg1: tensor<16384xbf16>) -> tensor<4096x16384xbf16> {
    %c3_i64 = arith.constant 3 : i64
    %cst = arith.constant 4.467770e-02 : bf16
    %cst_0 = arith.constant 7.968750e-01 : bf16
    %cst_1 = arith.constant 1.000000e+00 : bf16
    %cst_2 = arith.constant 5.000000e-01 : bf16
    %0 = tensor.empty() : tensor<4096x16384xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4096x16384xbf16>, tensor<16384xbf16>) outs(%0 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %3 = arith.addf %in, %in_3 : bf16
      linalg.yield %3 : bf16
    } -> tensor<4096x16384xbf16>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x16384xbf16>) outs(%0 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %3 = math.fpowi %in, %c3_i64 : bf16, i64
      %4 = arith.mulf %3, %cst : bf16
      %5 = arith.addf %in, %4 : bf16
      %6 = arith.mulf %5, %cst_0 : bf16
      %7 = math.tanh %6 : bf16
      %8 = arith.addf %7, %cst_1 : bf16
      %9 = arith.mulf %8, %cst_2 : bf16
      %10 = arith.mulf %in, %9 : bf16
      linalg.yield %10 : bf16
    } -> tensor<4096x16384xbf16>
    return %2 : tensor<4096x16384xbf16>
  }
}
