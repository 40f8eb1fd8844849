// CostFuse workload adamw_f32: AdamW step (experiments/workloads/blocks.py:AdamWStep); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:AdamWStep --shape 4096x4096 --shape 4096x4096 --shape 4096x4096 --shape 4096x4096 --dtype f32 -o experiments/workloads/adamw_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<4096x4096xf32>, %arg1: tensor<4096x4096xf32>, %arg2: tensor<4096x4096xf32>, %arg3: tensor<4096x4096xf32>) -> (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>) {
    %cst = arith.constant -4.6060197983628886E-4 : f64
    %cst_0 = arith.constant 1.000000e-08 : f64
    %cst_1 = arith.constant 0.099775346605520565 : f64
    %cst_2 = arith.constant 0.0010000000000000009 : f64
    %cst_3 = arith.constant 0.99899999999999999 : f64
    %cst_4 = arith.constant 0.099999999999999978 : f64
    %cst_5 = arith.constant 9.999700e-01 : f64
    %0 = tensor.empty() : tensor<4096x4096xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_5 : f64 to f32
      %14 = arith.mulf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<4096x4096xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.subf %in, %in_6 : f32
      linalg.yield %13 : f32
    } -> tensor<4096x4096xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_4 : f64 to f32
      %14 = arith.mulf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<4096x4096xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %3 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.addf %in, %in_6 : f32
      linalg.yield %13 : f32
    } -> tensor<4096x4096xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_3 : f64 to f32
      %14 = arith.mulf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<4096x4096xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg1 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.mulf %in, %in_6 : f32
      linalg.yield %13 : f32
    } -> tensor<4096x4096xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.truncf %cst_2 : f64 to f32
      %14 = arith.mulf %in_6, %13 : f32
      %15 = arith.addf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<4096x4096xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.sqrt %in : f32
      linalg.yield %13 : f32
    } -> tensor<4096x4096xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_1 : f64 to f32
      %14 = arith.divf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<4096x4096xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_0 : f64 to f32
      %14 = arith.addf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<4096x4096xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %10 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.divf %in, %in_6 : f32
      linalg.yield %13 : f32
    } -> tensor<4096x4096xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %11 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %13 = arith.truncf %cst : f64 to f32
      %14 = arith.mulf %in_6, %13 : f32
      %15 = arith.addf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<4096x4096xf32>
    return %12, %4, %7 : tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>
  }
}
