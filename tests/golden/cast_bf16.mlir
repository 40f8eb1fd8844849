func.func @main(%x: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
  %v1 = tensor.empty() : tensor<8x16xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xbf16>) outs(%v1 : tensor<8x16xf32>) {
  ^bb0(%a0: bf16, %o: f32):
    %r = arith.extf %a0 : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %v3 = tensor.empty() : tensor<8x16xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<8x16xf32>) outs(%v3 : tensor<8x16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.exp %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %v5 = tensor.empty() : tensor<8x16xbf16>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<8x16xf32>) outs(%v5 : tensor<8x16xbf16>) {
  ^bb0(%a0: f32, %o: bf16):
    %r = arith.truncf %a0 : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  return %v6 : tensor<8x16xbf16>
}
