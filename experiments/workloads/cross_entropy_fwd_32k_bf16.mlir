// CostFuse workload cross_entropy_fwd_32k_bf16: cross-entropy forward (experiments/workloads/blocks.py:CrossEntropyForward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:CrossEntropyForward --shape 2048x32000 --shape 2048:i64 --dtype bf16 --make-fx -o experiments/workloads/cross_entropy_fwd_32k_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
module {
  func.func @main(%arg0: tensor<2048x32000xbf16>, %arg1: tensor<2048xi64>) -> tensor<f32> {
    %c-100_i64 = arith.constant -100 : i64
    %c32000 = arith.constant 32000 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<2048x32000xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2048x32000xbf16>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %28 = arith.extf %in : bf16 to f32
      linalg.yield %28 : f32
    } -> tensor<2048x32000xf32>
    %2 = tensor.empty() : tensor<2048xi64>
    %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<2048xi64>) -> tensor<2048xi64>
    %4 = tensor.empty() : tensor<2048xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2048xf32>) -> tensor<2048xf32>
    %6:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<2048x32000xf32>) outs(%5, %3 : tensor<2048xf32>, tensor<2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %28 = linalg.index 1 : index
      %29 = arith.index_cast %28 : index to i64
      %30 = arith.maximumf %in, %out : f32
      %31 = arith.cmpf ogt, %in, %out : f32
      %32 = arith.select %31, %29, %out_4 : i64
      linalg.yield %30, %32 : f32, i64
    } -> (tensor<2048xf32>, tensor<2048xi64>)
    %expanded = tensor.expand_shape %6#0 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.subf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<2048x32000xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<2048x32000xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.exp %in : f32
      linalg.yield %28 : f32
    } -> tensor<2048x32000xf32>
    %9 = tensor.empty() : tensor<2048x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<2048x32000xf32>) outs(%10 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<2048x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2048x1xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.log %in : f32
      linalg.yield %28 : f32
    } -> tensor<2048x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %12 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.subf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<2048x32000xf32>
    %14 = tensor.empty() : tensor<2048xi1>
    %15 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<2048xi64>) outs(%14 : tensor<2048xi1>) {
    ^bb0(%in: i64, %out: i1):
      %28 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %28 : i1
    } -> tensor<2048xi1>
    %16 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%15, %arg1, %cst_2 : tensor<2048xi1>, tensor<2048xi64>, tensor<i64>) outs(%2 : tensor<2048xi64>) {
    ^bb0(%in: i1, %in_4: i64, %in_5: i64, %out: i64):
      %28 = arith.select %in, %in_4, %in_5 : i64
      linalg.yield %28 : i64
    } -> tensor<2048xi64>
    %expanded_3 = tensor.expand_shape %16 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<2048x1xi64>) outs(%10 : tensor<2048x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %28 = linalg.index 0 : index
      %29 = arith.index_cast %in : i64 to index
      %30 = arith.cmpi slt, %29, %c32000 : index
      cf.assert %30, "index must be smaller than dim size"
      %31 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %31, "index must be larger or equal to 0"
      %extracted = tensor.extract %13[%28, %29] : tensor<2048x32000xf32>
      linalg.yield %extracted : f32
    } -> tensor<2048x1xf32>
    %collapsed = tensor.collapse_shape %17 [[0, 1]] : tensor<2048x1xf32> into tensor<2048xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<2048xf32>) outs(%4 : tensor<2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.negf %in : f32
      linalg.yield %28 : f32
    } -> tensor<2048xf32>
    %19 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%15, %18, %cst_1 : tensor<2048xi1>, tensor<2048xf32>, tensor<f32>) outs(%4 : tensor<2048xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %28 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %28 : f32
    } -> tensor<2048xf32>
    %20 = tensor.empty() : tensor<i64>
    %21 = linalg.fill ins(%c0_i64 : i64) outs(%20 : tensor<i64>) -> tensor<i64>
    %22 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%15 : tensor<2048xi1>) outs(%21 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %28 = arith.extui %in : i1 to i64
      %29 = arith.addi %28, %out : i64
      linalg.yield %29 : i64
    } -> tensor<i64>
    %23 = tensor.empty() : tensor<f32>
    %24 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%22 : tensor<i64>) outs(%23 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %28 = arith.sitofp %in : i64 to f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    %25 = linalg.fill ins(%cst_0 : f32) outs(%23 : tensor<f32>) -> tensor<f32>
    %26 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%19 : tensor<2048xf32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%26, %24 : tensor<f32>, tensor<f32>) outs(%23 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.divf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    return %27 : tensor<f32>
  }
}
