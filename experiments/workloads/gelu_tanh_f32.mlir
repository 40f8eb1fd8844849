// CostFuse workload gelu_tanh_f32: GELU gate (tanh), after a bias add (experiments/workloads/blocks.py:BiasGeluTanh); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:BiasGeluTanh --shape 4096x16384 --shape 16384 --dtype f32 -o experiments/workloads/gelu_tanh_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x16384xf32>, %arg1: tensor<16384xf32>) -> tensor<4096x16384xf32> {
    %c3_i64 = arith.constant 3 : i64
    %cst = arith.constant 4.471500e-02 : f32
    %cst_0 = arith.constant 7.977240e-01 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<4096x16384xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4096x16384xf32>, tensor<16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %3 = arith.addf %in, %in_3 : f32
      linalg.yield %3 : f32
    } -> tensor<4096x16384xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = math.fpowi %in, %c3_i64 : f32, i64
      %4 = arith.mulf %3, %cst : f32
      %5 = arith.addf %in, %4 : f32
      %6 = arith.mulf %5, %cst_0 : f32
      %7 = math.tanh %6 : f32
      %8 = arith.addf %7, %cst_1 : f32
      %9 = arith.mulf %8, %cst_2 : f32
      %10 = arith.mulf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<4096x16384xf32>
    return %2 : tensor<4096x16384xf32>
  }
}
