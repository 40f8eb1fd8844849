// CostFuse workload cross_entropy_bwd_32k_f32: cross-entropy backward (experiments/workloads/blocks.py:CrossEntropyBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:CrossEntropyBackward --shape 2048x32000 --shape 2048:i64 --dtype f32 --make-fx -o experiments/workloads/cross_entropy_bwd_32k_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
#map6 = affine_map<(d0, d1) -> ()>
#map7 = affine_map<(d0, d1) -> (0, d1)>
module {
  func.func @main(%arg0: tensor<2048x32000xf32>, %arg1: tensor<2048xi64>) -> tensor<2048x32000xf32> {
    %c-100_i64 = arith.constant -100 : i64
    %cst = arith.constant 0xFF800000 : f32
    %c32000 = arith.constant 32000 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<2048x32000xf32>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<f32>
    %c0_i64 = arith.constant 0 : i64
    %cst_5 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<2048xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<2048xi64>) -> tensor<2048xi64>
    %2 = tensor.empty() : tensor<2048xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2048xf32>) -> tensor<2048xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2048x32000xf32>) outs(%3, %1 : tensor<2048xf32>, tensor<2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %38 = linalg.index 1 : index
      %39 = arith.index_cast %38 : index to i64
      %40 = arith.maximumf %in, %out : f32
      %41 = arith.cmpf ogt, %in, %out : f32
      %42 = arith.select %41, %39, %out_9 : i64
      linalg.yield %40, %42 : f32, i64
    } -> (tensor<2048xf32>, tensor<2048xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
    %5 = tensor.empty() : tensor<2048x32000xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.subf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = math.exp %in : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %8 = tensor.empty() : tensor<2048x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<2048x32000xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<2048x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<2048x1xf32>) outs(%8 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = math.log %in : f32
      linalg.yield %38 : f32
    } -> tensor<2048x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.subf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %13 = tensor.empty() : tensor<2048xi1>
    %14 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<2048xi64>) outs(%13 : tensor<2048xi1>) {
    ^bb0(%in: i64, %out: i1):
      %38 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %38 : i1
    } -> tensor<2048xi1>
    %15 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%14, %arg1, %cst_5 : tensor<2048xi1>, tensor<2048xi64>, tensor<i64>) outs(%0 : tensor<2048xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %38 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %38 : i64
    } -> tensor<2048xi64>
    %expanded_6 = tensor.expand_shape %15 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_6 : tensor<2048x1xi64>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %38 = linalg.index 0 : index
      %39 = arith.index_cast %in : i64 to index
      %40 = arith.cmpi slt, %39, %c32000 : index
      cf.assert %40, "index must be smaller than dim size"
      %41 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %41, "index must be larger or equal to 0"
      %extracted = tensor.extract %12[%38, %39] : tensor<2048x32000xf32>
      linalg.yield %extracted : f32
    } -> tensor<2048x1xf32>
    %17 = tensor.empty() : tensor<i64>
    %18 = linalg.fill ins(%c0_i64 : i64) outs(%17 : tensor<i64>) -> tensor<i64>
    %19 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%14 : tensor<2048xi1>) outs(%18 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %38 = arith.extui %in : i1 to i64
      %39 = arith.addi %38, %out : i64
      linalg.yield %39 : i64
    } -> tensor<i64>
    %20 = tensor.empty() : tensor<f32>
    %21 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%19 : tensor<i64>) outs(%20 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %38 = arith.sitofp %in : i64 to f32
      linalg.yield %38 : f32
    } -> tensor<f32>
    %22 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%cst_3, %21 : tensor<f32>, tensor<f32>) outs(%20 : tensor<f32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.divf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<f32>
    %expanded_7 = tensor.expand_shape %arg1 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %23 = tensor.empty() : tensor<2048x1xi1>
    %24 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_7 : tensor<2048x1xi64>) outs(%23 : tensor<2048x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %38 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %38 : i1
    } -> tensor<2048x1xi1>
    %25 = tensor.empty() : tensor<2048x1xi64>
    %26 = linalg.generic {indexing_maps = [#map, #map, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%24, %expanded_7, %cst_5 : tensor<2048x1xi1>, tensor<2048x1xi64>, tensor<i64>) outs(%25 : tensor<2048x1xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %38 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %38 : i64
    } -> tensor<2048x1xi64>
    %27 = tensor.empty() : tensor<32000xi64>
    %28 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%27 : tensor<32000xi64>) {
    ^bb0(%out: i64):
      %38 = linalg.index 0 : index
      %39 = arith.index_cast %38 : index to i64
      linalg.yield %39 : i64
    } -> tensor<32000xi64>
    %expanded_8 = tensor.expand_shape %28 [[0, 1]] output_shape [1, 32000] : tensor<32000xi64> into tensor<1x32000xi64>
    %29 = tensor.empty() : tensor<2048x32000xi1>
    %30 = linalg.generic {indexing_maps = [#map2, #map7, #map], iterator_types = ["parallel", "parallel"]} ins(%26, %expanded_8 : tensor<2048x1xi64>, tensor<1x32000xi64>) outs(%29 : tensor<2048x32000xi1>) {
    ^bb0(%in: i64, %in_9: i64, %out: i1):
      %38 = arith.cmpi eq, %in, %in_9 : i64
      linalg.yield %38 : i1
    } -> tensor<2048x32000xi1>
    %31 = linalg.generic {indexing_maps = [#map, #map6, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%30, %cst_1, %cst_2 : tensor<2048x32000xi1>, tensor<f32>, tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %38 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%24, %22, %cst_4 : tensor<2048x1xi1>, tensor<f32>, tensor<f32>) outs(%8 : tensor<2048x1xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %38 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x1xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %32 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = math.exp %in : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%33 : tensor<2048x32000xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %38 = arith.addf %in, %out : f32
      linalg.yield %38 : f32
    } -> tensor<2048x1xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%34, %35 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.mulf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%33, %36 : tensor<2048x32000xf32>, tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %38 = arith.subf %in, %in_9 : f32
      linalg.yield %38 : f32
    } -> tensor<2048x32000xf32>
    return %37 : tensor<2048x32000xf32>
  }
}
