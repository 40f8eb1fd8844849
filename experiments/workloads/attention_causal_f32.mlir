// CostFuse workload attention_causal_f32: attention epilogue: scale, causal mask, softmax (experiments/workloads/blocks.py:AttentionCausal); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AttentionCausal --shape 1x16x2048x2048 --dtype f32 -o experiments/workloads/attention_causal_f32.mlir
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> ()>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @main(%arg0: tensor<1x16x2048x2048xf32>) -> tensor<1x16x2048x2048xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<-3.40282347E+38> : tensor<f32>
    %cst_2 = arith.constant 0.088388347648318447 : f64
    %0 = tensor.empty() : tensor<1x16x2048x2048xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x2048x2048xf32>) outs(%0 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.truncf %cst_2 : f64 to f32
      %19 = arith.mulf %in, %18 : f32
      linalg.yield %19 : f32
    } -> tensor<1x16x2048x2048xf32>
    %2 = tensor.empty() : tensor<2048xi64>
    %3 = linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%2 : tensor<2048xi64>) {
    ^bb0(%out: i64):
      %18 = linalg.index 0 : index
      %19 = arith.index_cast %18 : index to i64
      linalg.yield %19 : i64
    } -> tensor<2048xi64>
    %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %expanded_3 = tensor.expand_shape %3 [[0, 1]] output_shape [1, 2048] : tensor<2048xi64> into tensor<1x2048xi64>
    %4 = tensor.empty() : tensor<2048x2048xi1>
    %5 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded_3, %expanded : tensor<1x2048xi64>, tensor<2048x1xi64>) outs(%4 : tensor<2048x2048xi1>) {
    ^bb0(%in: i64, %in_5: i64, %out: i1):
      %18 = arith.cmpi sgt, %in, %in_5 : i64
      linalg.yield %18 : i1
    } -> tensor<2048x2048xi1>
    %6 = linalg.generic {indexing_maps = [#map5, #map6, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %cst_1, %1 : tensor<2048x2048xi1>, tensor<f32>, tensor<1x16x2048x2048xf32>) outs(%0 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: i1, %in_5: f32, %in_6: f32, %out: f32):
      %18 = arith.select %in, %in_5, %in_6 : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x2048x2048xf32>
    %7 = tensor.empty() : tensor<1x16x2048xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<1x16x2048xi64>) -> tensor<1x16x2048xi64>
    %9 = tensor.empty() : tensor<1x16x2048xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<1x16x2048xf32>) -> tensor<1x16x2048xf32>
    %11:2 = linalg.generic {indexing_maps = [#map, #map7, #map7], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%6 : tensor<1x16x2048x2048xf32>) outs(%10, %8 : tensor<1x16x2048xf32>, tensor<1x16x2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %18 = linalg.index 3 : index
      %19 = arith.index_cast %18 : index to i64
      %20 = arith.maximumf %in, %out : f32
      %21 = arith.cmpf ogt, %in, %out : f32
      %22 = arith.select %21, %19, %out_5 : i64
      linalg.yield %20, %22 : f32, i64
    } -> (tensor<1x16x2048xf32>, tensor<1x16x2048xi64>)
    %expanded_4 = tensor.expand_shape %11#0 [[0], [1], [2, 3]] output_shape [1, 16, 2048, 1] : tensor<1x16x2048xf32> into tensor<1x16x2048x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map8, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %expanded_4 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%0 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.subf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x2048x2048xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x16x2048x2048xf32>) outs(%0 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.exp %in : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x2048x2048xf32>
    %14 = tensor.empty() : tensor<1x16x2048x1xf32>
    %15 = linalg.fill ins(%cst_0 : f32) outs(%14 : tensor<1x16x2048x1xf32>) -> tensor<1x16x2048x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map8], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%13 : tensor<1x16x2048x2048xf32>) outs(%15 : tensor<1x16x2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.addf %in, %out : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x2048x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map8, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %16 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%0 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.divf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x2048x2048xf32>
    return %17 : tensor<1x16x2048x2048xf32>
  }
}
