#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> ()>
module {
  func.func @main(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<4x8x1xf32>, %arg3: tensor<f32>) -> tensor<4x8x16xf32> {
    %0 = tensor.empty() : tensor<4x8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1, %arg2 : tensor<4x8x16xf32>, tensor<16xf32>, tensor<4x8x1xf32>) outs(%0 : tensor<4x8x16xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
      %3 = arith.addf %in, %in_0 : f32
      %4 = arith.mulf %3, %in_1 : f32
      linalg.yield %4 : f32
    } -> tensor<4x8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %arg3 : tensor<4x8x16xf32>, tensor<f32>) outs(%0 : tensor<4x8x16xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.subf %in, %in_0 : f32
      %4 = math.tanh %3 : f32
      linalg.yield %4 : f32
    } -> tensor<4x8x16xf32>
    return %2 : tensor<4x8x16xf32>
  }
}
