// CostFuse workload layernorm_fwd_bf16: LayerNorm forward (experiments/workloads/blocks.py:LayerNormForward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:LayerNormForward --shape 4096x8192 --shape 8192 --shape 8192 --dtype bf16 -o experiments/workloads/layernorm_fwd_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x8192xbf16>, %arg1: tensor<8192xbf16>, %arg2: tensor<8192xbf16>) -> tensor<4096x8192xbf16> {
    %cst = arith.constant 0.000000e+00 : bf16
    %cst_0 = arith.constant 1.000000e-05 : f64
    %cst_1 = arith.constant 8.192000e+03 : bf16
    %0 = tensor.empty() : tensor<4096x1xbf16>
    %1 = linalg.fill ins(%cst : bf16) outs(%0 : tensor<4096x1xbf16>) -> tensor<4096x1xbf16>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4096x8192xbf16>) outs(%1 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = arith.addf %in, %out : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x1xbf16>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = arith.divf %in, %cst_1 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x1xbf16>
    %4 = tensor.empty() : tensor<4096x8192xbf16>
    %collapsed = tensor.collapse_shape %3 [[0, 1]] : tensor<4096x1xbf16> into tensor<4096xbf16>
    %5 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4096x8192xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %5 : tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %16 = arith.subf %in, %in_3 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x8192xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %16 = arith.mulf %in, %in_3 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x8192xbf16>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<4096x8192xbf16>) outs(%1 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = arith.addf %in, %out : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x1xbf16>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = arith.divf %in, %cst_1 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x1xbf16>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = arith.truncf %cst_0 : f64 to bf16
      %17 = arith.addf %in, %16 : bf16
      linalg.yield %17 : bf16
    } -> tensor<4096x1xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %16 = math.rsqrt %in : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x1xbf16>
    %collapsed_2 = tensor.collapse_shape %11 [[0, 1]] : tensor<4096x1xbf16> into tensor<4096xbf16>
    %12 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_2 : tensor<4096xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4096x8192xbf16>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %12 : tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %16 = arith.mulf %in, %in_3 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x8192xbf16>
    %14 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %arg1 : tensor<4096x8192xbf16>, tensor<8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %16 = arith.mulf %in, %in_3 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x8192xbf16>
    %15 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%14, %arg2 : tensor<4096x8192xbf16>, tensor<8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_3: bf16, %out: bf16):
      %16 = arith.addf %in, %in_3 : bf16
      linalg.yield %16 : bf16
    } -> tensor<4096x8192xbf16>
    return %15 : tensor<4096x8192xbf16>
  }
}
