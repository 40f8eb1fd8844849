#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%0 : tensor<8x16xf32>) attrs =  {costfuse.chain_length = 2 : i64} {
    ^bb0(%in: bf16, %out: f32):
      %4 = arith.extf %in : bf16 to f32
      %5 = math.exp %4 : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x16xbf16>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%2 : tensor<8x16xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %4 = arith.truncf %in : f32 to bf16
      linalg.yield %4 : bf16
    } -> tensor<8x16xbf16>
    return %3 : tensor<8x16xbf16>
  }
}
