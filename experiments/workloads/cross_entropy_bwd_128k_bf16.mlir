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
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<f32>
    %c0_i64 = arith.constant 0 : i64
    %cst_4 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<1024x128256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1024x128256xbf16>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %39 = arith.extf %in : bf16 to f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %2 = tensor.empty() : tensor<1024xi64>
    %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<1024xi64>) -> tensor<1024xi64>
    %4 = tensor.empty() : tensor<1024xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<1024xf32>) -> tensor<1024xf32>
    %6:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<1024x128256xf32>) outs(%5, %3 : tensor<1024xf32>, tensor<1024xi64>) {
    ^bb0(%in: f32, %out: f32, %out_7: i64):
      %39 = linalg.index 1 : index
      %40 = arith.index_cast %39 : index to i64
      %41 = arith.maximumf %in, %out : f32
      %42 = arith.cmpf ogt, %in, %out : f32
      %43 = arith.select %42, %40, %out_7 : i64
      linalg.yield %41, %43 : f32, i64
    } -> (tensor<1024xf32>, tensor<1024xi64>)
    %expanded = tensor.expand_shape %6#0 [[0, 1]] output_shape [1024, 1] : tensor<1024xf32> into tensor<1024x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.subf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = math.exp %in : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %9 = tensor.empty() : tensor<1024x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<1024x1xf32>) -> tensor<1024x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<1024x128256xf32>) outs(%10 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<1024x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<1024x1xf32>) outs(%9 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = math.log %in : f32
      linalg.yield %39 : f32
    } -> tensor<1024x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %12 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.subf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %14 = tensor.empty() : tensor<1024xi1>
    %15 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<1024xi64>) outs(%14 : tensor<1024xi1>) {
    ^bb0(%in: i64, %out: i1):
      %39 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %39 : i1
    } -> tensor<1024xi1>
    %16 = tensor.empty() : tensor<i64>
    %17 = linalg.fill ins(%c0_i64 : i64) outs(%16 : tensor<i64>) -> tensor<i64>
    %18 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%15 : tensor<1024xi1>) outs(%17 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %39 = arith.extui %in : i1 to i64
      %40 = arith.addi %39, %out : i64
      linalg.yield %40 : i64
    } -> tensor<i64>
    %19 = tensor.empty() : tensor<f32>
    %20 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%18 : tensor<i64>) outs(%19 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %39 = arith.sitofp %in : i64 to f32
      linalg.yield %39 : f32
    } -> tensor<f32>
    %21 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%cst_3, %20 : tensor<f32>, tensor<f32>) outs(%19 : tensor<f32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.divf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<f32>
    %expanded_5 = tensor.expand_shape %arg1 [[0, 1]] output_shape [1024, 1] : tensor<1024xi64> into tensor<1024x1xi64>
    %22 = tensor.empty() : tensor<1024x1xi1>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_5 : tensor<1024x1xi64>) outs(%22 : tensor<1024x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %39 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %39 : i1
    } -> tensor<1024x1xi1>
    %24 = tensor.empty() : tensor<1024x1xi64>
    %25 = linalg.generic {indexing_maps = [#map, #map, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %expanded_5, %cst_4 : tensor<1024x1xi1>, tensor<1024x1xi64>, tensor<i64>) outs(%24 : tensor<1024x1xi64>) {
    ^bb0(%in: i1, %in_7: i64, %in_8: i64, %out: i64):
      %39 = arith.select %in, %in_7, %in_8 : i64
      linalg.yield %39 : i64
    } -> tensor<1024x1xi64>
    %26 = tensor.empty() : tensor<128256xi64>
    %27 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%26 : tensor<128256xi64>) {
    ^bb0(%out: i64):
      %39 = linalg.index 0 : index
      %40 = arith.index_cast %39 : index to i64
      linalg.yield %40 : i64
    } -> tensor<128256xi64>
    %expanded_6 = tensor.expand_shape %27 [[0, 1]] output_shape [1, 128256] : tensor<128256xi64> into tensor<1x128256xi64>
    %28 = tensor.empty() : tensor<1024x128256xi1>
    %29 = linalg.generic {indexing_maps = [#map2, #map7, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %expanded_6 : tensor<1024x1xi64>, tensor<1x128256xi64>) outs(%28 : tensor<1024x128256xi1>) {
    ^bb0(%in: i64, %in_7: i64, %out: i1):
      %39 = arith.cmpi eq, %in, %in_7 : i64
      linalg.yield %39 : i1
    } -> tensor<1024x128256xi1>
    %30 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %cst_2, %cst_1 : tensor<1024x128256xi1>, tensor<f32>, tensor<f32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %39 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map6, #map6, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %21, %cst_1 : tensor<1024x1xi1>, tensor<f32>, tensor<f32>) outs(%9 : tensor<1024x1xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %39 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x1xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%30, %31 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.mulf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = math.exp %in : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%32 : tensor<1024x128256xf32>) outs(%10 : tensor<1024x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %39 = arith.addf %in, %out : f32
      linalg.yield %39 : f32
    } -> tensor<1024x1xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%33, %34 : tensor<1024x128256xf32>, tensor<1024x1xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.mulf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %35 : tensor<1024x128256xf32>, tensor<1024x128256xf32>) outs(%0 : tensor<1024x128256xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %39 = arith.subf %in, %in_7 : f32
      linalg.yield %39 : f32
    } -> tensor<1024x128256xf32>
    %37 = tensor.empty() : tensor<1024x128256xbf16>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%36 : tensor<1024x128256xf32>) outs(%37 : tensor<1024x128256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %39 = arith.truncf %in : f32 to bf16
      linalg.yield %39 : bf16
    } -> tensor<1024x128256xbf16>
    return %38 : tensor<1024x128256xbf16>
  }
}
