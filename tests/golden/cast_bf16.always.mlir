#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
    %0 = tensor.empty() : tensor<8x16xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%0 : tensor<8x16xbf16>) attrs =  {costfuse.chain_length = 3 : i64} {
    ^bb0(%in: bf16, %out: bf16):
      %2 = arith.extf %in : bf16 to f32
      %3 = math.exp %2 : f32
      %4 = arith.truncf %3 : f32 to bf16
      linalg.yield %4 : bf16
    } -> tensor<8x16xbf16>
    return %1 : tensor<8x16xbf16>
  }
}
