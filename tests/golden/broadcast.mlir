func.func @main(%x: tensor<4x8x16xf32>, %row: tensor<16xf32>, %col: tensor<4x8x1xf32>, %s: tensor<f32>) -> tensor<4x8x16xf32> {
  %v1 = tensor.empty() : tensor<4x8x16xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %row : tensor<4x8x16xf32>, tensor<16xf32>) outs(%v1 : tensor<4x8x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %v3 = tensor.empty() : tensor<4x8x16xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v2, %col : tensor<4x8x16xf32>, tensor<4x8x1xf32>) outs(%v3 : tensor<4x8x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %r = arith.mulf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %v5 = tensor.empty() : tensor<4x8x16xf32>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v4, %s : tensor<4x8x16xf32>, tensor<f32>) outs(%v5 : tensor<4x8x16xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %r = arith.subf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  %v7 = tensor.empty() : tensor<4x8x16xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v6 : tensor<4x8x16xf32>) outs(%v7 : tensor<4x8x16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.tanh %a0 : f32
    linalg.yield %r : f32
  } -> tensor<4x8x16xf32>
  return %v8 : tensor<4x8x16xf32>
}
