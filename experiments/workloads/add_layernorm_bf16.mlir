// CostFuse workload add_layernorm_bf16: residual add + LayerNorm (experiments/workloads/blocks.py:AddLayerNorm); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AddLayerNorm --shape 4096x4096 --shape 4096x4096 --shape 4096 --shape 4096 --dtype bf16 -o experiments/workloads/add_layernorm_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x4096xbf16>, %arg1: tensor<4096x4096xbf16>, %arg2: tensor<4096xbf16>, %arg3: tensor<4096xbf16>) -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 4.096000e+03 : f32
    %0 = tensor.empty() : tensor<4096x4096xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %20 = arith.addf %in, %in_3 : bf16
      linalg.yield %20 : bf16
    } -> tensor<4096x4096xbf16>
    %2 = tensor.empty() : tensor<4096x4096xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x4096xbf16>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %20 = arith.extf %in : bf16 to f32
      linalg.yield %20 : f32
    } -> tensor<4096x4096xf32>
    %4 = tensor.empty() : tensor<4096x1xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%3 : tensor<4096x4096xf32>) outs(%5 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.divf %in, %cst_1 : f32
      linalg.yield %20 : f32
    } -> tensor<4096x1xf32>
    %collapsed = tensor.collapse_shape %7 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %8 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096xf32>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %8 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %20 = arith.subf %in, %in_3 : f32
      linalg.yield %20 : f32
    } -> tensor<4096x4096xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %9 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %20 = arith.mulf %in, %in_3 : f32
      linalg.yield %20 : f32
    } -> tensor<4096x4096xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%10 : tensor<4096x4096xf32>) outs(%5 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<4096x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<4096x1xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.divf %in, %cst_1 : f32
      linalg.yield %20 : f32
    } -> tensor<4096x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4096x1xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.truncf %cst_0 : f64 to f32
      %21 = arith.addf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4096x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<4096x1xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.rsqrt %in : f32
      linalg.yield %20 : f32
    } -> tensor<4096x1xf32>
    %collapsed_2 = tensor.collapse_shape %14 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %15 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_2 : tensor<4096xf32>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %15 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %20 = arith.mulf %in, %in_3 : f32
      linalg.yield %20 : f32
    } -> tensor<4096x4096xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %arg2 : tensor<4096x4096xf32>, tensor<4096xbf16>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_3: bf16, %out: f32):
      %20 = arith.extf %in_3 : bf16 to f32
      %21 = arith.mulf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4096x4096xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %arg3 : tensor<4096x4096xf32>, tensor<4096xbf16>) outs(%2 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_3: bf16, %out: f32):
      %20 = arith.extf %in_3 : bf16 to f32
      %21 = arith.addf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4096x4096xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %20 = arith.truncf %in : f32 to bf16
      linalg.yield %20 : bf16
    } -> tensor<4096x4096xbf16>
    return %19, %1 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
  }
}
