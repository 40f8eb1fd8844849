#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> ()>
module {
  func.func @main(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<4x8x1xf32>, %arg3: tensor<f32>) -> tensor<4x8x16xf32> {
    %0 = tensor.empty() : tensor<4x8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map3, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1, %arg2, %arg3 : tensor<4x8x16xf32>, tensor<16xf32>, tensor<4x8x1xf32>, tensor<f32>) outs(%0 : tensor<4x8x16xf32>) attrs =  {costfuse.chain_length = 4 : i64} {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %in_2: f32, %out: f32):
      %2 = arith.addf %in, %in_0 : f32
      %3 = arith.mulf %2, %in_1 : f32
      %4 = arith.subf %3, %in_2 : f32
      %5 = math.tanh %4 : f32
      linalg.yield %5 : f32
    } -> tensor<4x8x16xf32>
    return %1 : tensor<4x8x16xf32>
  }
}
