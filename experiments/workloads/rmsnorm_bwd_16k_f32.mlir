// CostFuse workload rmsnorm_bwd_16k_f32: RMSNorm backward (hidden 16384) (experiments/workloads/blocks.py:RMSNormBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:RMSNormBackward --shape 4096x16384 --shape 16384 --shape 4096x16384 --dtype f32 --make-fx -o experiments/workloads/rmsnorm_bwd_16k_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<4096x16384xf32>, %arg1: tensor<16384xf32>, %arg2: tensor<4096x16384xf32>) -> (tensor<4096x16384xf32>, tensor<16384xf32>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 1.638400e+04 : f32
    %cst_2 = arith.constant -5.000000e-01 : f32
    %cst_3 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x16384xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %2 = tensor.empty() : tensor<4096x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4096x16384xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_1 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.truncf %cst_0 : f64 to f32
      %27 = arith.addf %in, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.rsqrt %in : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<4096x16384xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %arg1 : tensor<4096x16384xf32>, tensor<16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %8 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %11 = tensor.empty() : tensor<1x16384xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<1x16384xf32>) -> tensor<1x16384xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%10 : tensor<4096x16384xf32>) outs(%12 : tensor<1x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<1x16384xf32>
    %collapsed = tensor.collapse_shape %13 [[0, 1]] : tensor<1x16384xf32> into tensor<16384xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg0 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %7 : tensor<4096x16384xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%14 : tensor<4096x16384xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.mulf %in, %cst_2 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %17 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x1xf32>
    %collapsed_4 = tensor.collapse_shape %19 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %20 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<4096xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x16384xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_1 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.mulf %in, %cst_3 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%21, %23 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.mulf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %24 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %26 = arith.addf %in, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4096x16384xf32>
    return %25, %collapsed : tensor<4096x16384xf32>, tensor<16384xf32>
  }
}
