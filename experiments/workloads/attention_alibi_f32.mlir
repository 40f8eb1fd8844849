// CostFuse workload attention_alibi_f32: attention epilogue: scale, ALiBi, causal mask, softmax (experiments/workloads/blocks.py:AttentionAlibi); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AttentionAlibi --shape 1x16x2048x2048 --dtype f32 -o experiments/workloads/attention_alibi_f32.mlir
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>
#map6 = affine_map<(d0, d1) -> (0, d1)>
#map7 = affine_map<(d0, d1) -> (d0, 0)>
#map8 = affine_map<(d0, d1) -> (d0, d1)>
#map9 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map10 = affine_map<(d0, d1, d2, d3) -> ()>
#map11 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
module {
  func.func @main(%arg0: tensor<1x16x2048x2048xf32>) -> tensor<1x16x2048x2048xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<-3.40282347E+38> : tensor<f32>
    %cst_2 = arith.constant 0.088388347648318447 : f64
    %cst_3 = arith.constant 1.000000e+00 : f32
    %cst_4 = arith.constant -8.000000e+00 : f32
    %cst_5 = arith.constant 1.600000e+01 : f32
    %cst_6 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<16xf32>) {
    ^bb0(%out: f32):
      %29 = linalg.index 0 : index
      %30 = arith.index_cast %29 : index to i64
      %31 = arith.sitofp %30 : i64 to f32
      %32 = arith.addf %31, %cst_0 : f32
      linalg.yield %32 : f32
    } -> tensor<16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %cst_3 : f32
      linalg.yield %29 : f32
    } -> tensor<16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.mulf %in, %cst_4 : f32
      linalg.yield %29 : f32
    } -> tensor<16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%3 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.divf %in, %cst_5 : f32
      linalg.yield %29 : f32
    } -> tensor<16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.powf %cst_6, %in : f32
      linalg.yield %29 : f32
    } -> tensor<16xf32>
    %expanded = tensor.expand_shape %5 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %6 = tensor.empty() : tensor<2048xf32>
    %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%6 : tensor<2048xf32>) {
    ^bb0(%out: f32):
      %29 = linalg.index 0 : index
      %30 = arith.index_cast %29 : index to i64
      %31 = arith.sitofp %30 : i64 to f32
      %32 = arith.addf %31, %cst_0 : f32
      linalg.yield %32 : f32
    } -> tensor<2048xf32>
    %expanded_7 = tensor.expand_shape %7 [[0, 1, 2]] output_shape [1, 1, 2048] : tensor<2048xf32> into tensor<1x1x2048xf32>
    %8 = tensor.empty() : tensor<16x1x2048xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_7 : tensor<16x1x1xf32>, tensor<1x1x2048xf32>) outs(%8 : tensor<16x1x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %29 = arith.mulf %in, %in_11 : f32
      linalg.yield %29 : f32
    } -> tensor<16x1x2048xf32>
    %10 = tensor.empty() : tensor<1x16x2048x2048xf32>
    %11 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x2048x2048xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.truncf %cst_2 : f64 to f32
      %30 = arith.mulf %in, %29 : f32
      linalg.yield %30 : f32
    } -> tensor<1x16x2048x2048xf32>
    %12 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11, %9 : tensor<1x16x2048x2048xf32>, tensor<16x1x2048xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %29 = arith.addf %in, %in_11 : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x2048xf32>
    %13 = tensor.empty() : tensor<2048xi64>
    %14 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%13 : tensor<2048xi64>) {
    ^bb0(%out: i64):
      %29 = linalg.index 0 : index
      %30 = arith.index_cast %29 : index to i64
      linalg.yield %30 : i64
    } -> tensor<2048xi64>
    %expanded_8 = tensor.expand_shape %14 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %expanded_9 = tensor.expand_shape %14 [[0, 1]] output_shape [1, 2048] : tensor<2048xi64> into tensor<1x2048xi64>
    %15 = tensor.empty() : tensor<2048x2048xi1>
    %16 = linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel"]} ins(%expanded_9, %expanded_8 : tensor<1x2048xi64>, tensor<2048x1xi64>) outs(%15 : tensor<2048x2048xi1>) {
    ^bb0(%in: i64, %in_11: i64, %out: i1):
      %29 = arith.cmpi sgt, %in, %in_11 : i64
      linalg.yield %29 : i1
    } -> tensor<2048x2048xi1>
    %17 = linalg.generic {indexing_maps = [#map9, #map10, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %cst_1, %12 : tensor<2048x2048xi1>, tensor<f32>, tensor<1x16x2048x2048xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: i1, %in_11: f32, %in_12: f32, %out: f32):
      %29 = arith.select %in, %in_11, %in_12 : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x2048xf32>
    %18 = tensor.empty() : tensor<1x16x2048xi64>
    %19 = linalg.fill ins(%c0_i64 : i64) outs(%18 : tensor<1x16x2048xi64>) -> tensor<1x16x2048xi64>
    %20 = tensor.empty() : tensor<1x16x2048xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<1x16x2048xf32>) -> tensor<1x16x2048xf32>
    %22:2 = linalg.generic {indexing_maps = [#map4, #map11, #map11], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%17 : tensor<1x16x2048x2048xf32>) outs(%21, %19 : tensor<1x16x2048xf32>, tensor<1x16x2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_11: i64):
      %29 = linalg.index 3 : index
      %30 = arith.index_cast %29 : index to i64
      %31 = arith.maximumf %in, %out : f32
      %32 = arith.cmpf ogt, %in, %out : f32
      %33 = arith.select %32, %30, %out_11 : i64
      linalg.yield %31, %33 : f32, i64
    } -> (tensor<1x16x2048xf32>, tensor<1x16x2048xi64>)
    %expanded_10 = tensor.expand_shape %22#0 [[0], [1], [2, 3]] output_shape [1, 16, 2048, 1] : tensor<1x16x2048xf32> into tensor<1x16x2048x1xf32>
    %23 = linalg.generic {indexing_maps = [#map4, #map12, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_10 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %29 = arith.subf %in, %in_11 : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x2048xf32>
    %24 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23 : tensor<1x16x2048x2048xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = math.exp %in : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x2048xf32>
    %25 = tensor.empty() : tensor<1x16x2048x1xf32>
    %26 = linalg.fill ins(%cst_0 : f32) outs(%25 : tensor<1x16x2048x1xf32>) -> tensor<1x16x2048x1xf32>
    %27 = linalg.generic {indexing_maps = [#map4, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%24 : tensor<1x16x2048x2048xf32>) outs(%26 : tensor<1x16x2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %29 = arith.addf %in, %out : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x1xf32>
    %28 = linalg.generic {indexing_maps = [#map4, #map12, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %27 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%10 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %29 = arith.divf %in, %in_11 : f32
      linalg.yield %29 : f32
    } -> tensor<1x16x2048x2048xf32>
    return %28 : tensor<1x16x2048x2048xf32>
  }
}
