#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) attrs =  {costfuse.chain_length = 3 : i64} {
    ^bb0(%in: f32, %out: f32):
      %2 = math.exp %in : f32
      %3 = linalg.index 0 : index
      %4 = arith.index_cast %3 : index to i32
      %5 = arith.sitofp %4 : i32 to f32
      %6 = arith.addf %2, %5 : f32
      %7 = math.tanh %6 : f32
      linalg.yield %7 : f32
    } -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
