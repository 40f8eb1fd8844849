func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x12xf32>) -> tensor<8x12xf32> {
  %v1 = tensor.empty() : tensor<8x16xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x16xf32>) outs(%v1 : tensor<8x16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.tanh %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %v3 = arith.constant 0.0 : f32
  %v5 = tensor.empty() : tensor<8x12xf32>
  %v4 = linalg.fill ins(%v3 : f32) outs(%v5 : tensor<8x12xf32>) -> tensor<8x12xf32>
  %v6 = linalg.matmul ins(%v2, %b : tensor<8x16xf32>, tensor<16x12xf32>) outs(%v4 : tensor<8x12xf32>) -> tensor<8x12xf32>
  %v7 = tensor.empty() : tensor<8x12xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6 : tensor<8x12xf32>) outs(%v7 : tensor<8x12xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.exp %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x12xf32>
  %v9 = tensor.empty() : tensor<8x12xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v8 : tensor<8x12xf32>) outs(%v9 : tensor<8x12xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = arith.negf %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x12xf32>
  return %v10 : tensor<8x12xf32>
}
