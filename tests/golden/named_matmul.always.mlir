#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x12xf32>) -> tensor<8x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.tanh %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x12xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x12xf32>) -> tensor<8x12xf32>
    %4 = linalg.matmul ins(%1, %arg1 : tensor<8x16xf32>, tensor<16x12xf32>) outs(%3 : tensor<8x12xf32>) -> tensor<8x12xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x12xf32>) outs(%2 : tensor<8x12xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %out: f32):
      %6 = math.exp %in : f32
      %7 = arith.negf %6 : f32
      linalg.yield %7 : f32
    } -> tensor<8x12xf32>
    return %5 : tensor<8x12xf32>
  }
}
