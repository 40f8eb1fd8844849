#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = math.exp %in : f32
      %5 = math.tanh %4 : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.negf %in : f32
      %5 = math.absf %4 : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = math.sin %in : f32
      linalg.yield %4 : f32
    } -> tensor<8x16xf32>
    return %3 : tensor<8x16xf32>
  }
}
