// CostFuse workload log_softmax_bf16: log-softmax (experiments/workloads/blocks.py:LogSoftmax); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:LogSoftmax --shape 2048x32000 --dtype bf16 -o experiments/workloads/log_softmax_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @main(%arg0: tensor<2048x32000xbf16>) -> tensor<2048x32000xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2048x32000xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2048x32000xbf16>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %14 = arith.extf %in : bf16 to f32
      linalg.yield %14 : f32
    } -> tensor<2048x32000xf32>
    %2 = tensor.empty() : tensor<2048xi64>
    %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<2048xi64>) -> tensor<2048xi64>
    %4 = tensor.empty() : tensor<2048xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2048xf32>) -> tensor<2048xf32>
    %6:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<2048x32000xf32>) outs(%5, %3 : tensor<2048xf32>, tensor<2048xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %14 = linalg.index 1 : index
      %15 = arith.index_cast %14 : index to i64
      %16 = arith.maximumf %in, %out : f32
      %17 = arith.cmpf ogt, %in, %out : f32
      %18 = arith.select %17, %15, %out_1 : i64
      linalg.yield %16, %18 : f32, i64
    } -> (tensor<2048xf32>, tensor<2048xi64>)
    %expanded = tensor.expand_shape %6#0 [[0, 1]] output_shape [2048, 1] : tensor<2048xf32> into tensor<2048x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %14 = arith.subf %in, %in_1 : f32
      linalg.yield %14 : f32
    } -> tensor<2048x32000xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<2048x32000xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = math.exp %in : f32
      linalg.yield %14 : f32
    } -> tensor<2048x32000xf32>
    %9 = tensor.empty() : tensor<2048x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<2048x32000xf32>) outs(%10 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.addf %in, %out : f32
      linalg.yield %14 : f32
    } -> tensor<2048x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<2048x1xf32>) outs(%9 : tensor<2048x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = math.log %in : f32
      linalg.yield %14 : f32
    } -> tensor<2048x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %12 : tensor<2048x32000xf32>, tensor<2048x1xf32>) outs(%0 : tensor<2048x32000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %14 = arith.subf %in, %in_1 : f32
      linalg.yield %14 : f32
    } -> tensor<2048x32000xf32>
    return %13 : tensor<2048x32000xf32>
  }
}
