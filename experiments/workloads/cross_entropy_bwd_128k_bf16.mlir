// CostFuse workload cross_entropy_bwd_128k_bf16: cross-entropy backward (experiments/workloads/blocks.py:CrossEntropyBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:CrossEntropyBackward --shape 1024x128256 --shape 1024:i64 --dtype bf16 --make-fx -o experiments/workloads/cross_entropy_bwd_128k_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
#map6 = affine_map<(d0, d1) -> ()>
#map7 = affine_map<(d0, d1) -> (0, d1)>
module {
  func.func @main(%arg0: tensor<1024x128256xbf16>, %arg1: tensor<1024xi64>) -> tensor<1024x128256xbf16> {
    %c-100_i64 = arith.constant -100 : i64
    %c128256 = arith.constant 128256 : index
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<1024x128256xf32>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<f32>
    %c0_i64 = arith.constant 0 : i64
    %cst_5 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<1024x128256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1024x128256xbf16>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %41 = arith.extf %in : bf16 to f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %2 = tensor.empty() : tensor<1024xi64>
    %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<1024xi64>) -> tensor<1024xi64>
    %4 = tensor.empty() : tensor<1024xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<1024xf32>) -> tensor<1024xf32>
    %6:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<1024x128256xf32>) outs(%5, %3 : tensor<1024xf32>, tensor<1024xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %41 = linalg.index 1 : index
      %42 = arith.index_cast %41 : index to i64
      %43 = arith.maximumf %in, %out : f32
      %44 = arith.cmpf ogt, %in, %out : f32
      %45 = arith.select %44, %42, %out_9 : i64
      linalg.yield %43, %45 : f32, i64
    } -> (tensor<1024xf32>, tensor<1024xi64>)
    %expanded = tensor.expand_shape %6#0 [[0, 1]] output_shape [1024, 1] : tensor<1024xf32> into tensor<1024x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.subf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %41 = math.exp %in : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %9 = tensor.empty() : tensor<1024x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<1024x1xf32>) -> tensor<1024x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<1024x128256xf32>) outs(%10 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %41 = arith.addf %in, %out : f32
      linalg.yield %41 : f32
    } -> tensor<1024x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1024x1xf32>) outs(%9 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %41 = math.log %in : f32
      linalg.yield %41 : f32
    } -> tensor<1024x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %12 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.subf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %14 = tensor.empty() : tensor<1024xi1>
    %15 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<1024xi64>) outs(%14 : tensor<1024xi1>) {
    ^bb0(%in: i64, %out: i1):
      %41 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %41 : i1
    } -> tensor<1024xi1>
    %16 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%15, %arg1, %cst_5 : tensor<1024xi1>, tensor<1024xi64>, tensor<i64>) outs(%2 : tensor<1024xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %41 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %41 : i64
    } -> tensor<1024xi64>
    %expanded_6 = tensor.expand_shape %16 [[0, 1]] output_shape [1024, 1] : tensor<1024xi64> into tensor<1024x1xi64>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_6 : tensor<1024x1xi64>) outs(%10 : tensor<1024x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %41 = linalg.index 0 : index
      %42 = arith.index_cast %in : i64 to index
      %43 = arith.cmpi slt, %42, %c128256 : index
      cf.assert %43, "index must be smaller than dim size"
      %44 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %44, "index must be larger or equal to 0"
      %extracted = tensor.extract %13[%41, %42] : tensor<1024x128256xf32>
      linalg.yield %extracted : f32
    } -> tensor<1024x1xf32>
    %18 = tensor.empty() : tensor<i64>
    %19 = linalg.fill ins(%c0_i64 : i64) outs(%18 : tensor<i64>) -> tensor<i64>
    %20 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%15 : tensor<1024xi1>) outs(%19 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %41 = arith.extui %in : i1 to i64
      %42 = arith.addi %41, %out : i64
      linalg.yield %42 : i64
    } -> tensor<i64>
    %21 = tensor.empty() : tensor<f32>
    %22 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%20 : tensor<i64>) outs(%21 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %41 = arith.sitofp %in : i64 to f32
      linalg.yield %41 : f32
    } -> tensor<f32>
    %23 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%cst_3, %22 : tensor<f32>, tensor<f32>) outs(%21 : tensor<f32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.divf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<f32>
    %expanded_7 = tensor.expand_shape %arg1 [[0, 1]] output_shape [1024, 1] : tensor<1024xi64> into tensor<1024x1xi64>
    %24 = tensor.empty() : tensor<1024x1xi1>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_7 : tensor<1024x1xi64>) outs(%24 : tensor<1024x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %41 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %41 : i1
    } -> tensor<1024x1xi1>
    %26 = tensor.empty() : tensor<1024x1xi64>
    %27 = linalg.generic {indexing_maps = [#map, #map, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %expanded_7, %cst_5 : tensor<1024x1xi1>, tensor<1024x1xi64>, tensor<i64>) outs(%26 : tensor<1024x1xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %41 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %41 : i64
    } -> tensor<1024x1xi64>
    %28 = tensor.empty() : tensor<128256xi64>
    %29 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%28 : tensor<128256xi64>) {
    ^bb0(%out: i64):
      %41 = linalg.index 0 : index
      %42 = arith.index_cast %41 : index to i64
      linalg.yield %42 : i64
    } -> tensor<128256xi64>
    %expanded_8 = tensor.expand_shape %29 [[0, 1]] output_shape [1, 128256] : tensor<128256xi64> into tensor<1x128256xi64>
    %30 = tensor.empty() : tensor<1024x128256xi1>
    %31 = linalg.generic {indexing_maps = [#map2, #map7, #map], iterator_types = ["parallel", "parallel"]} ins(%27, %expanded_8 : tensor<1024x1xi64>, tensor<1x128256xi64>) outs(%30 : tensor<1024x128256xi1>) {
    ^bb0(%in: i64, %in_9: i64, %out: i1):
      %41 = arith.cmpi eq, %in, %in_9 : i64
      linalg.yield %41 : i1
    } -> tensor<1024x128256xi1>
    %32 = linalg.generic {indexing_maps = [#map, #map6, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %cst_1, %cst_2 : tensor<1024x128256xi1>, tensor<f32>, tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %41 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %23, %cst_4 : tensor<1024x1xi1>, tensor<f32>, tensor<f32>) outs(%9 : tensor<1024x1xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %41 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x1xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %33 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.mulf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %41 = math.exp %in : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%34 : tensor<1024x128256xf32>) outs(%10 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %41 = arith.addf %in, %out : f32
      linalg.yield %41 : f32
    } -> tensor<1024x1xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%35, %36 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.mulf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%34, %37 : tensor<1024x128256xf32>, tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %41 = arith.subf %in, %in_9 : f32
      linalg.yield %41 : f32
    } -> tensor<1024x128256xf32>
    %39 = tensor.empty() : tensor<1024x128256xbf16>
    %40 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<1024x128256xf32>) outs(%39 : tensor<1024x128256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %41 = arith.truncf %in : f32 to bf16
      linalg.yield %41 : bf16
    } -> tensor<1024x128256xbf16>
    return %40 : tensor<1024x128256xbf16>
  }
}
