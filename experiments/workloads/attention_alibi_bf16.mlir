// CostFuse workload attention_alibi_bf16: attention epilogue: scale, ALiBi, causal mask, softmax (experiments/workloads/blocks.py:AttentionAlibi); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AttentionAlibi --shape 1x16x2048x2048 --dtype bf16 -o experiments/workloads/attention_alibi_bf16.mlir
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
  func.func @main(%arg0: tensor<1x16x2048x2048xbf16>) -> tensor<1x16x2048x2048xbf16> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<-3.389530e+38> : tensor<bf16>
    %cst_2 = arith.constant 0.088388347648318447 : f64
    %cst_3 = arith.constant 1.000000e+00 : f32
    %cst_4 = arith.constant -8.000000e+00 : f32
    %cst_5 = arith.constant 1.600000e+01 : f32
    %cst_6 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<16xf32>) {
    ^bb0(%out: f32):
      %34 = linalg.index 0 : index
      %35 = arith.index_cast %34 : index to i64
      %36 = arith.sitofp %35 : i64 to f32
      %37 = arith.addf %36, %cst_0 : f32
      linalg.yield %37 : f32
    } -> tensor<16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %cst_3 : f32
      linalg.yield %34 : f32
    } -> tensor<16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.mulf %in, %cst_4 : f32
      linalg.yield %34 : f32
    } -> tensor<16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%3 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_5 : f32
      linalg.yield %34 : f32
    } -> tensor<16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<16xf32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.powf %cst_6, %in : f32
      linalg.yield %34 : f32
    } -> tensor<16xf32>
    %expanded = tensor.expand_shape %5 [[0, 1, 2]] output_shape [16, 1, 1] : tensor<16xf32> into tensor<16x1x1xf32>
    %6 = tensor.empty() : tensor<2048xf32>
    %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%6 : tensor<2048xf32>) {
    ^bb0(%out: f32):
      %34 = linalg.index 0 : index
      %35 = arith.index_cast %34 : index to i64
      %36 = arith.sitofp %35 : i64 to f32
      %37 = arith.addf %36, %cst_0 : f32
      linalg.yield %37 : f32
    } -> tensor<2048xf32>
    %expanded_7 = tensor.expand_shape %7 [[0, 1, 2]] output_shape [1, 1, 2048] : tensor<2048xf32> into tensor<1x1x2048xf32>
    %8 = tensor.empty() : tensor<16x1x2048xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %expanded_7 : tensor<16x1x1xf32>, tensor<1x1x2048xf32>) outs(%8 : tensor<16x1x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %34 = arith.mulf %in, %in_11 : f32
      linalg.yield %34 : f32
    } -> tensor<16x1x2048xf32>
    %10 = tensor.empty() : tensor<1x16x2048x2048xbf16>
    %11 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x2048x2048xbf16>) outs(%10 : tensor<1x16x2048x2048xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %34 = arith.truncf %cst_2 : f64 to bf16
      %35 = arith.mulf %in, %34 : bf16
      linalg.yield %35 : bf16
    } -> tensor<1x16x2048x2048xbf16>
    %12 = tensor.empty() : tensor<16x1x2048xbf16>
    %13 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<16x1x2048xf32>) outs(%12 : tensor<16x1x2048xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %34 = arith.truncf %in : f32 to bf16
      linalg.yield %34 : bf16
    } -> tensor<16x1x2048xbf16>
    %14 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11, %13 : tensor<1x16x2048x2048xbf16>, tensor<16x1x2048xbf16>) outs(%10 : tensor<1x16x2048x2048xbf16>) {
    ^bb0(%in: bf16, %in_11: bf16, %out: bf16):
      %34 = arith.addf %in, %in_11 : bf16
      linalg.yield %34 : bf16
    } -> tensor<1x16x2048x2048xbf16>
    %15 = tensor.empty() : tensor<2048xi64>
    %16 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%15 : tensor<2048xi64>) {
    ^bb0(%out: i64):
      %34 = linalg.index 0 : index
      %35 = arith.index_cast %34 : index to i64
      linalg.yield %35 : i64
    } -> tensor<2048xi64>
    %expanded_8 = tensor.expand_shape %16 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %expanded_9 = tensor.expand_shape %16 [[0, 1]] output_shape [1, 2048] : tensor<2048xi64> into tensor<1x2048xi64>
    %17 = tensor.empty() : tensor<2048x2048xi1>
    %18 = linalg.generic {indexing_maps = [#map6, #map7, #map8], iterator_types = ["parallel", "parallel"]} ins(%expanded_9, %expanded_8 : tensor<1x2048xi64>, tensor<2048x1xi64>) outs(%17 : tensor<2048x2048xi1>) {
    ^bb0(%in: i64, %in_11: i64, %out: i1):
      %34 = arith.cmpi sgt, %in, %in_11 : i64
      linalg.yield %34 : i1
    } -> tensor<2048x2048xi1>
    %19 = linalg.generic {indexing_maps = [#map9, #map10, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %cst_1, %14 : tensor<2048x2048xi1>, tensor<bf16>, tensor<1x16x2048x2048xbf16>) outs(%10 : tensor<1x16x2048x2048xbf16>) {
    ^bb0(%in: i1, %in_11: bf16, %in_12: bf16, %out: bf16):
      %34 = arith.select %in, %in_11, %in_12 : bf16
      linalg.yield %34 : bf16
    } -> tensor<1x16x2048x2048xbf16>
    %20 = tensor.empty() : tensor<1x16x2048x2048xf32>
    %21 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19 : tensor<1x16x2048x2048xbf16>) outs(%20 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %34 = arith.extf %in : bf16 to f32
      linalg.yield %34 : f32
    } -> tensor<1x16x2048x2048xf32>
    %22 = tensor.empty() : tensor<1x16x2048xi64>
    %23 = linalg.fill ins(%c0_i64 : i64) outs(%22 : tensor<1x16x2048xi64>) -> tensor<1x16x2048xi64>
    %24 = tensor.empty() : tensor<1x16x2048xf32>
    %25 = linalg.fill ins(%cst : f32) outs(%24 : tensor<1x16x2048xf32>) -> tensor<1x16x2048xf32>
    %26:2 = linalg.generic {indexing_maps = [#map4, #map11, #map11], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%21 : tensor<1x16x2048x2048xf32>) outs(%25, %23 : tensor<1x16x2048xf32>, tensor<1x16x2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_11: i64):
      %34 = linalg.index 3 : index
      %35 = arith.index_cast %34 : index to i64
      %36 = arith.maximumf %in, %out : f32
      %37 = arith.cmpf ogt, %in, %out : f32
      %38 = arith.select %37, %35, %out_11 : i64
      linalg.yield %36, %38 : f32, i64
    } -> (tensor<1x16x2048xf32>, tensor<1x16x2048xi64>)
    %expanded_10 = tensor.expand_shape %26#0 [[0], [1], [2, 3]] output_shape [1, 16, 2048, 1] : tensor<1x16x2048xf32> into tensor<1x16x2048x1xf32>
    %27 = linalg.generic {indexing_maps = [#map4, #map12, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21, %expanded_10 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%20 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %34 = arith.subf %in, %in_11 : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x2048x2048xf32>
    %28 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27 : tensor<1x16x2048x2048xf32>) outs(%20 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = math.exp %in : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x2048x2048xf32>
    %29 = tensor.empty() : tensor<1x16x2048x1xf32>
    %30 = linalg.fill ins(%cst_0 : f32) outs(%29 : tensor<1x16x2048x1xf32>) -> tensor<1x16x2048x1xf32>
    %31 = linalg.generic {indexing_maps = [#map4, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%28 : tensor<1x16x2048x2048xf32>) outs(%30 : tensor<1x16x2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.addf %in, %out : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x2048x1xf32>
    %32 = linalg.generic {indexing_maps = [#map4, #map12, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %31 : tensor<1x16x2048x2048xf32>, tensor<1x16x2048x1xf32>) outs(%20 : tensor<1x16x2048x2048xf32>) {
    ^bb0(%in: f32, %in_11: f32, %out: f32):
      %34 = arith.divf %in, %in_11 : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x2048x2048xf32>
    %33 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32 : tensor<1x16x2048x2048xf32>) outs(%10 : tensor<1x16x2048x2048xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %34 = arith.truncf %in : f32 to bf16
      linalg.yield %34 : bf16
    } -> tensor<1x16x2048x2048xbf16>
    return %33 : tensor<1x16x2048x2048xbf16>
  }
}
