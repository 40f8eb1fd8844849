#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) attrs =  {costfuse.chain_length = 5 : i64} {
    ^bb0(%in: f32, %out: f32):
      %2 = math.exp %in : f32
      %3 = math.tanh %2 : f32
      %4 = arith.negf %3 : f32
      %5 = math.absf %4 : f32
      %6 = math.sin %5 : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
