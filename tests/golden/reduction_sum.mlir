func.func @main(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> tensor<8xf32> {
  %v1 = tensor.empty() : tensor<8x32xf32>
  %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x32xf32>, tensor<8x32xf32>) outs(%v1 : tensor<8x32xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %r = arith.mulf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %v3 = tensor.empty() : tensor<8x32xf32>
  %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v2 : tensor<8x32xf32>) outs(%v3 : tensor<8x32xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.exp %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %v5 = arith.constant 0.0 : f32
  %v7 = tensor.empty() : tensor<8xf32>
  %v6 = linalg.fill ins(%v5 : f32) outs(%v7 : tensor<8xf32>) -> tensor<8xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v4 : tensor<8x32xf32>) outs(%v6 : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = arith.addf %a0, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %v9 = tensor.empty() : tensor<8xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v8 : tensor<8xf32>) outs(%v9 : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %r = math.sqrt %a0 : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %v10 : tensor<8xf32>
}
