// CostFuse workload add_layernorm_bf16: residual add + LayerNorm (experiments/workloads/blocks.py:AddLayerNorm); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AddLayerNorm --shape 4096x4096 --shape 4096x4096 --shape 4096 --shape 4096 --dtype bf16 -o experiments/workloads/add_layernorm_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x4096xbf16>, %arg1: tensor<4096x4096xbf16>, %arg2: tensor<4096xbf16>, %arg3: tensor<4096xbf16>) -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
    %cst = arith.constant 0.000000e+00 : bf16
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 4.096000e+03 : bf16
    %0 = tensor.empty() : tensor<4096x4096xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.addf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    %2 = tensor.empty() : tensor<4096x1xbf16>
    %3 = linalg.fill ins(%cst : bf16) outs(%2 : tensor<4096x1xbf16>) -> tensor<4096x1xbf16>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4096x4096xbf16>) outs(%3 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = arith.addf %in, %out : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<4096x1xbf16>) outs(%2 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = arith.divf %in, %cst_1 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<4096x1xbf16> into tensor<4096xbf16>
    %6 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4096x4096xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %6 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.subf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %7 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.mulf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<4096x4096xbf16>) outs(%3 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = arith.addf %in, %out : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x1xbf16>) outs(%2 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = arith.divf %in, %cst_1 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x1xbf16>) outs(%2 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = arith.truncf %cst_0 : f64 to bf16
      %18 = arith.addf %in, %17 : bf16
      linalg.yield %18 : bf16
    } -> tensor<4096x1xbf16>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<4096x1xbf16>) outs(%2 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %17 = math.rsqrt %in : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %collapsed_2 = tensor.collapse_shape %12 [[0, 1]] : tensor<4096x1xbf16> into tensor<4096xbf16>
    %13 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_2 : tensor<4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4096x4096xbf16>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %13 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.mulf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    %15 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%14, %arg2 : tensor<4096x4096xbf16>, tensor<4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.mulf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    %16 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg3 : tensor<4096x4096xbf16>, tensor<4096xbf16>) outs(%0 : tensor<4096x4096xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %17 = arith.addf %in, %in_3 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x4096xbf16>
    return %16, %1 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
  }
}
