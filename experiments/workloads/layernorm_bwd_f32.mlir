// CostFuse workload layernorm_bwd_f32: LayerNorm backward (experiments/workloads/blocks.py:LayerNormBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:LayerNormBackward --shape 4096x8192 --shape 8192 --shape 8192 --shape 4096x8192 --dtype f32 --make-fx -o experiments/workloads/layernorm_bwd_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x8192xf32>, %arg1: tensor<8192xf32>, %arg2: tensor<8192xf32>, %arg3: tensor<4096x8192xf32>) -> (tensor<4096x8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 8.192000e+03 : f32
    %0 = tensor.empty() : tensor<4096x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4096x8192xf32>) outs(%1 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4096x1xf32>) outs(%0 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst_1 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %4 = tensor.empty() : tensor<4096x8192xf32>
    %collapsed = tensor.collapse_shape %3 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x8192xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %5 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.subf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<4096x8192xf32>) outs(%1 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x1xf32>) outs(%0 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst_1 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x1xf32>) outs(%0 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.truncf %cst_0 : f64 to f32
      %30 = arith.addf %in, %29 : f32
      linalg.yield %30 : f32
    } -> tensor<4096x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x1xf32>) outs(%0 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.rsqrt %in : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %3 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.subf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %11 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3, %arg1 : tensor<4096x8192xf32>, tensor<8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.mulf %in, %cst_1 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%14 : tensor<4096x8192xf32>) outs(%1 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%14, %13 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%17 : tensor<4096x8192xf32>) outs(%1 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %18 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %16 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.subf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %19 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.subf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<4096x1xf32>) outs(%0 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst_1 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x1xf32>
    %23 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%22, %21 : tensor<4096x1xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3, %13 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %29 = arith.mulf %in, %in_2 : f32
      linalg.yield %29 : f32
    } -> tensor<4096x8192xf32>
    %25 = tensor.empty() : tensor<8192xf32>
    %26 = linalg.fill ins(%cst : f32) outs(%25 : tensor<8192xf32>) -> tensor<8192xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%24 : tensor<4096x8192xf32>) outs(%26 : tensor<8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<8192xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%arg3 : tensor<4096x8192xf32>) outs(%26 : tensor<8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<8192xf32>
    return %23, %27, %28 : tensor<4096x8192xf32>, tensor<8192xf32>, tensor<8192xf32>
  }
}
