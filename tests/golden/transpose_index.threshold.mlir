#map = affine_map<(d0, d1) -> (d1, d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = tensor.empty() : tensor<16x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<16x8xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = math.exp %in : f32
      %5 = linalg.index 1 : index
      %6 = arith.index_cast %5 : index to i32
      %7 = arith.sitofp %6 : i32 to f32
      %8 = arith.addf %4, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<16x8xf32>
    %2 = tensor.empty() : tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<16x8xf32>) outs(%2 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = math.tanh %in : f32
      linalg.yield %4 : f32
    } -> tensor<8x16xf32>
    return %3 : tensor<8x16xf32>
  }
}
