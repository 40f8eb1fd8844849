// CostFuse workload rmsnorm_bwd_16k_bf16: RMSNorm backward (hidden 16384) (experiments/workloads/blocks.py:RMSNormBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:RMSNormBackward --shape 4096x16384 --shape 16384 --shape 4096x16384 --dtype bf16 --make-fx -o experiments/workloads/rmsnorm_bwd_16k_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<4096x16384xbf16>, %arg1: tensor<16384xbf16>, %arg2: tensor<4096x16384xbf16>) -> (tensor<4096x16384xbf16>, tensor<16384xbf16>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : bf16
    %cst_1 = arith.constant 9.9999999999999995E-7 : f64
    %cst_2 = arith.constant 1.638400e+04 : f32
    %cst_3 = arith.constant -5.000000e-01 : f32
    %cst_4 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x16384xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x16384xbf16>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %31 = arith.extf %in : bf16 to f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %3 = tensor.empty() : tensor<4096x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<4096x16384xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.addf %in, %out : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.divf %in, %cst_2 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.truncf %cst_1 : f64 to f32
      %32 = arith.addf %in, %31 : f32
      linalg.yield %32 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.rsqrt %in : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<4096x16384xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.mulf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %10 = tensor.empty() : tensor<4096x16384xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x16384xf32>) outs(%10 : tensor<4096x16384xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %31 = arith.truncf %in : f32 to bf16
      linalg.yield %31 : bf16
    } -> tensor<4096x16384xbf16>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %arg1 : tensor<4096x16384xbf16>, tensor<16384xbf16>) outs(%10 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %31 = arith.mulf %in, %in_6 : bf16
      linalg.yield %31 : bf16
    } -> tensor<4096x16384xbf16>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %11 : tensor<4096x16384xbf16>, tensor<4096x16384xbf16>) outs(%10 : tensor<4096x16384xbf16>) {
    ^bb0(%in: bf16, %in_6: bf16, %out: bf16):
      %31 = arith.mulf %in, %in_6 : bf16
      linalg.yield %31 : bf16
    } -> tensor<4096x16384xbf16>
    %14 = tensor.empty() : tensor<1x16384xbf16>
    %15 = linalg.fill ins(%cst_0 : bf16) outs(%14 : tensor<1x16384xbf16>) -> tensor<1x16384xbf16>
    %16 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%13 : tensor<4096x16384xbf16>) outs(%15 : tensor<1x16384xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %31 = arith.addf %in, %out : bf16
      linalg.yield %31 : bf16
    } -> tensor<1x16384xbf16>
    %collapsed = tensor.collapse_shape %16 [[0, 1]] : tensor<1x16384xbf16> into tensor<16384xbf16>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4096x16384xbf16>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %31 = arith.extf %in : bf16 to f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %1 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.mulf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %8 : tensor<4096x16384xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.mulf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%18 : tensor<4096x16384xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.addf %in, %out : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.mulf %in, %cst_3 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%22, %21 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.mulf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x1xf32>
    %collapsed_5 = tensor.collapse_shape %23 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %24 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_5 : tensor<4096xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x16384xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%24 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.divf %in, %cst_2 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%26 : tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.mulf %in, %cst_4 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %27 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.mulf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %28 : tensor<4096x16384xf32>, tensor<4096x16384xf32>) outs(%0 : tensor<4096x16384xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.addf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<4096x16384xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<4096x16384xf32>) outs(%10 : tensor<4096x16384xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %31 = arith.truncf %in : f32 to bf16
      linalg.yield %31 : bf16
    } -> tensor<4096x16384xbf16>
    return %30, %collapsed : tensor<4096x16384xbf16>, tensor<16384xbf16>
  }
}
