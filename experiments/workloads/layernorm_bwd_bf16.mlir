// CostFuse workload layernorm_bwd_bf16: LayerNorm backward (experiments/workloads/blocks.py:LayerNormBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:LayerNormBackward --shape 4096x8192 --shape 8192 --shape 8192 --shape 4096x8192 --dtype bf16 --make-fx -o experiments/workloads/layernorm_bwd_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @main(%arg0: tensor<4096x8192xbf16>, %arg1: tensor<8192xbf16>, %arg2: tensor<8192xbf16>, %arg3: tensor<4096x8192xbf16>) -> (tensor<4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>) {
    %cst = arith.constant 0.000000e+00 : bf16
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 8.192000e+03 : bf16
    %cst_3 = arith.constant 8.192000e+03 : f32
    %0 = tensor.empty() : tensor<4096x1xbf16>
    %1 = linalg.fill ins(%cst : bf16) outs(%0 : tensor<4096x1xbf16>) -> tensor<4096x1xbf16>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4096x8192xbf16>) outs(%1 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.addf %in, %out : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.divf %in, %cst_2 : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %4 = tensor.empty() : tensor<4096x8192xbf16>
    %collapsed = tensor.collapse_shape %3 [[0, 1]] : tensor<4096x1xbf16> into tensor<4096xbf16>
    %5 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<4096xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<4096x8192xbf16>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %5 : tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
      %39 = arith.subf %in, %in_4 : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x8192xbf16>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<4096x8192xbf16>, tensor<4096x8192xbf16>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: bf16, %in_4: bf16, %out: bf16):
      %39 = arith.mulf %in, %in_4 : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x8192xbf16>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<4096x8192xbf16>) outs(%1 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.addf %in, %out : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.divf %in, %cst_2 : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.truncf %cst_1 : f64 to bf16
      %40 = arith.addf %in, %39 : bf16
      linalg.yield %40 : bf16
    } -> tensor<4096x1xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = math.rsqrt %in : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %12 = tensor.empty() : tensor<4096x8192xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<4096x8192xbf16>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %39 = arith.extf %in : bf16 to f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x8192xbf16>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %39 = arith.extf %in : bf16 to f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %15 = tensor.empty() : tensor<8192xf32>
    %16 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<8192xbf16>) outs(%15 : tensor<8192xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %39 = arith.extf %in : bf16 to f32
      linalg.yield %39 : f32
    } -> tensor<8192xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%14, %3 : tensor<4096x8192xf32>, tensor<4096x1xbf16>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: bf16, %out: f32):
      %39 = arith.extf %in_4 : bf16 to f32
      %40 = arith.subf %in, %39 : f32
      linalg.yield %40 : f32
    } -> tensor<4096x8192xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %11 : tensor<4096x8192xf32>, tensor<4096x1xbf16>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: bf16, %out: f32):
      %39 = arith.extf %in_4 : bf16 to f32
      %40 = arith.mulf %in, %39 : f32
      linalg.yield %40 : f32
    } -> tensor<4096x8192xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %16 : tensor<4096x8192xf32>, tensor<8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.mulf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4096x8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.mulf %in, %cst_3 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %21 = tensor.empty() : tensor<4096x1xf32>
    %22 = linalg.fill ins(%cst_0 : f32) outs(%21 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%19 : tensor<4096x8192xf32>) outs(%22 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<4096x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %18 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.mulf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%24 : tensor<4096x8192xf32>) outs(%22 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<4096x1xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %25 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.mulf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %23 : tensor<4096x8192xf32>, tensor<4096x1xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.subf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%27, %26 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.subf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<4096x1xbf16>) outs(%0 : tensor<4096x1xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %39 = arith.divf %in, %cst_2 : bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x1xbf16>
    %30 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %28 : tensor<4096x1xbf16>, tensor<4096x8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: bf16, %in_4: f32, %out: f32):
      %39 = arith.extf %in : bf16 to f32
      %40 = arith.mulf %39, %in_4 : f32
      linalg.yield %40 : f32
    } -> tensor<4096x8192xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %18 : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%12 : tensor<4096x8192xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %39 = arith.mulf %in, %in_4 : f32
      linalg.yield %39 : f32
    } -> tensor<4096x8192xf32>
    %32 = linalg.fill ins(%cst_0 : f32) outs(%15 : tensor<8192xf32>) -> tensor<8192xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%31 : tensor<4096x8192xf32>) outs(%32 : tensor<8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<8192xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%13 : tensor<4096x8192xf32>) outs(%32 : tensor<8192xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<8192xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%30 : tensor<4096x8192xf32>) outs(%4 : tensor<4096x8192xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %39 = arith.truncf %in : f32 to bf16
      linalg.yield %39 : bf16
    } -> tensor<4096x8192xbf16>
    %36 = tensor.empty() : tensor<8192xbf16>
    %37 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%33 : tensor<8192xf32>) outs(%36 : tensor<8192xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %39 = arith.truncf %in : f32 to bf16
      linalg.yield %39 : bf16
    } -> tensor<8192xbf16>
    %38 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%34 : tensor<8192xf32>) outs(%36 : tensor<8192xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %39 = arith.truncf %in : f32 to bf16
      linalg.yield %39 : bf16
    } -> tensor<8192xbf16>
    return %35, %37, %38 : tensor<4096x8192xbf16>, tensor<8192xbf16>, tensor<8192xbf16>
  }
}
