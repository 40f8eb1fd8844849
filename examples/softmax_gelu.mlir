// Softmax over the last dim followed by a tanh-GELU, decomposed into one
// linalg.generic per aten op, the way torch-mlir emits them.
// Try: costfuse-opt examples/softmax_gelu.mlir --cost-model threshold --explain
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#rowb = affine_map<(d0, d1) -> (d0)>
func.func @softmax_gelu(%x: tensor<64x1024xf32>, %bias: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  // x + bias (broadcast row vector)
  %xb = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x1024xf32>
  // row max
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%xb : tensor<64x1024xf32>) outs(%minit : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  // exp(x - max)
  %sub = linalg.generic {indexing_maps = [#id, #rowb, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xb, %m : tensor<64x1024xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sub : tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  // row sum
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<64x1024xf32>) outs(%sinit : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %sm = linalg.generic {indexing_maps = [#id, #rowb, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<64x1024xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  // GELU(tanh): 0.5 * s * (1 + tanh(0.7978845608 * (s + 0.044715 * s^3)))
  %cube = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sm : tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %cu = arith.mulf %sq, %a : f32
    linalg.yield %cu : f32
  } -> tensor<64x1024xf32>
  %inner = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sm, %cube : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %k = arith.constant 0.044715 : f32
    %t = arith.mulf %c, %k : f32
    %r = arith.addf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  %th = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%inner : tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 0.7978845608 : f32
    %t = arith.mulf %a, %k : f32
    %r = math.tanh %t : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  %gelu = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sm, %th : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%e2 : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %p = arith.addf %t, %one : f32
    %h = arith.mulf %a, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  return %gelu : tensor<64x1024xf32>
}
