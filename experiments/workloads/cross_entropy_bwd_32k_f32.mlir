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
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<f32>
    %c0_i64 = arith.constant 0 : i64
    %cst_4 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<2048xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<2048xi64>) -> tensor<2048xi64>
    %2 = tensor.empty() : tensor<2048xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2048xf32>) -> tensor<2048xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2048x32000xf32>) outs(%3, %1 : tensor<2048xf32>, tensor<2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_7: i64):
      %36 = linalg.index 1 : index
      %37 = arith.index_cast %36 : index to i64
      %38 = arith.maximumf %in, %out : f32
      %39 = arith.cmpf ogt, %in, %out : f32
      %40 = arith.select %39, %37, %out_7 : i64
      linalg.yield %38, %40 : f32, i64
    } -> (tensor<2048xf32>, tensor<2048xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
    %5 = tensor.empty() : tensor<2048x32000xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.subf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = math.exp %in : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %8 = tensor.empty() : tensor<2048x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<2048x32000xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.addf %in, %out : f32
      linalg.yield %36 : f32
    } -> tensor<2048x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<2048x1xf32>) outs(%8 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = math.log %in : f32
      linalg.yield %36 : f32
    } -> tensor<2048x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.subf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %13 = tensor.empty() : tensor<2048xi1>
    %14 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<2048xi64>) outs(%13 : tensor<2048xi1>) {
    ^bb0(%in: i64, %out: i1):
      %36 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %36 : i1
    } -> tensor<2048xi1>
    %15 = tensor.empty() : tensor<i64>
    %16 = linalg.fill ins(%c0_i64 : i64) outs(%15 : tensor<i64>) -> tensor<i64>
    %17 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%14 : tensor<2048xi1>) outs(%16 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %36 = arith.extui %in : i1 to i64
      %37 = arith.addi %36, %out : i64
      linalg.yield %37 : i64
    } -> tensor<i64>
    %18 = tensor.empty() : tensor<f32>
    %19 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%17 : tensor<i64>) outs(%18 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %36 = arith.sitofp %in : i64 to f32
      linalg.yield %36 : f32
    } -> tensor<f32>
    %20 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%cst_3, %19 : tensor<f32>, tensor<f32>) outs(%18 : tensor<f32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.divf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<f32>
    %expanded_5 = tensor.expand_shape %arg1 [[0, 1]] output_shape [2048, 1] : tensor<2048xi64> into tensor<2048x1xi64>
    %21 = tensor.empty() : tensor<2048x1xi1>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_5 : tensor<2048x1xi64>) outs(%21 : tensor<2048x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %36 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %36 : i1
    } -> tensor<2048x1xi1>
    %23 = tensor.empty() : tensor<2048x1xi64>
    %24 = linalg.generic {indexing_maps = [#map, #map, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%22, %expanded_5, %cst_4 : tensor<2048x1xi1>, tensor<2048x1xi64>, tensor<i64>) outs(%23 : tensor<2048x1xi64>) {
    ^bb0(%in: i1, %in_7: i64, %in_8: i64, %out: i64):
      %36 = arith.select %in, %in_7, %in_8 : i64
      linalg.yield %36 : i64
    } -> tensor<2048x1xi64>
    %25 = tensor.empty() : tensor<32000xi64>
    %26 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%25 : tensor<32000xi64>) {
    ^bb0(%out: i64):
      %36 = linalg.index 0 : index
      %37 = arith.index_cast %36 : index to i64
      linalg.yield %37 : i64
    } -> tensor<32000xi64>
    %expanded_6 = tensor.expand_shape %26 [[0, 1]] output_shape [1, 32000] : tensor<32000xi64> into tensor<1x32000xi64>
    %27 = tensor.empty() : tensor<2048x32000xi1>
    %28 = linalg.generic {indexing_maps = [#map2, #map7, #map], iterator_types = ["parallel", "parallel"]} ins(%24, %expanded_6 : tensor<2048x1xi64>, tensor<1x32000xi64>) outs(%27 : tensor<2048x32000xi1>) {
    ^bb0(%in: i64, %in_7: i64, %out: i1):
      %36 = arith.cmpi eq, %in, %in_7 : i64
      linalg.yield %36 : i1
    } -> tensor<2048x32000xi1>
    %29 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%28, %cst_2, %cst_1 : tensor<2048x32000xi1>, tensor<f32>, tensor<f32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %36 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%22, %20, %cst_1 : tensor<2048x1xi1>, tensor<f32>, tensor<f32>) outs(%8 : tensor<2048x1xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %36 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x1xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %30 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.mulf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = math.exp %in : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%31 : tensor<2048x32000xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.addf %in, %out : f32
      linalg.yield %36 : f32
    } -> tensor<2048x1xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %33 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.mulf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %34 : tensor<2048x32000xf32>, tensor<2048x32000xf32>) outs(%5 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %36 = arith.subf %in, %in_7 : f32
      linalg.yield %36 : f32
    } -> tensor<2048x32000xf32>
    return %35 : tensor<2048x32000xf32>
  }
}
