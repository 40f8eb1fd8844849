// CostFuse workload rmsnorm_fwd_f32: RMSNorm forward (experiments/workloads/blocks.py:RMSNormForward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:RMSNormForward --shape 4096x8192 --shape 8192 --dtype f32 -o experiments/workloads/rmsnorm_fwd_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x8192xf32>, %arg1: tensor<8192xf32>) -> tensor<4096x8192xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 8.192000e+03 : f32
    %0 = tensor.empty() : tensor<4096x8192xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x8192xf32>) outs(%0 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %10 : f32
    } -> tensor<4096x8192xf32>
    %2 = tensor.empty() : tensor<4096x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4096x8192xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.divf %in, %cst_1 : f32
      linalg.yield %10 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.truncf %cst_0 : f64 to f32
      %11 = arith.addf %in, %10 : f32
      linalg.yield %11 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.rsqrt %in : f32
      linalg.yield %10 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<4096x8192xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %8 : tensor<8192xf32>, tensor<4096x8192xf32>) outs(%0 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<4096x8192xf32>
    return %9 : tensor<4096x8192xf32>
  }
}
