#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @softmax_gelu(%arg0: tensor<64x1024xf32>, %arg1: tensor<1024xf32>) -> tensor<64x1024xf32> {
    %cst = arith.constant 5.000000e-01 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 0.797884583 : f32
    %cst_2 = arith.constant 4.471500e-02 : f32
    %cst_3 = arith.constant 0xFF800000 : f32
    %cst_4 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x1024xf32>
    %1 = tensor.empty() : tensor<64xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<64x1024xf32>, tensor<1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.addf %in, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<64x1024xf32>
    %3 = linalg.fill ins(%cst_3 : f32) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<64x1024xf32>) outs(%3 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.maximumf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %4 : tensor<64x1024xf32>, tensor<64xf32>) outs(%0 : tensor<64x1024xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.subf %in, %in_5 : f32
      %10 = math.exp %9 : f32
      linalg.yield %10 : f32
    } -> tensor<64x1024xf32>
    %6 = linalg.fill ins(%cst_4 : f32) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<64x1024xf32>) outs(%6 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.addf %in, %out : f32
      linalg.yield %9 : f32
    } -> tensor<64xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %7 : tensor<64x1024xf32>, tensor<64xf32>) outs(%0 : tensor<64x1024xf32>) attrs =  {costfuse.chain_length = 5 : i64} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.divf %in, %in_5 : f32
      %10 = arith.mulf %9, %9 : f32
      %11 = arith.mulf %10, %9 : f32
      %12 = arith.mulf %11, %cst_2 : f32
      %13 = arith.addf %9, %12 : f32
      %14 = arith.mulf %13, %cst_1 : f32
      %15 = math.tanh %14 : f32
      %16 = arith.addf %15, %cst_0 : f32
      %17 = arith.mulf %9, %cst : f32
      %18 = arith.mulf %17, %16 : f32
      linalg.yield %18 : f32
    } -> tensor<64x1024xf32>
    return %8 : tensor<64x1024xf32>
  }
}
