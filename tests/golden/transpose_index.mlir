func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %v1 = tensor.empty() : tensor<16x8xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%v1 : tensor<16x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.exp %a0 : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %v3 = tensor.empty() : tensor<16x8xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<16x8xf32>) outs(%v3 : tensor<16x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %r = arith.addf %a0, %f : f32
    linalg.yield %r : f32
  } -> tensor<16x8xf32>
  %v5 = tensor.empty() : tensor<8x16xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<16x8xf32>) outs(%v5 : tensor<8x16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.tanh %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %v6 : tensor<8x16xf32>
}
