// costfuse-opt softmax_gelu.mlir --fusion groups --cost-model learned --explain
// merge g1 + g2: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 28, spill 0 B, issued 0.529 MB, dram 0.529 MB, 1.70 us]
// merge g1+g2 + g3: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 26, spill 0 B, issued 0.528 MB, dram 0.528 MB, 1.70 us]
// merge g1+g2+g3 + g4: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 31, spill 0 B, issued 0.528 MB, dram 0.528 MB, 1.70 us]
// merge g1+g2+g3+g4 + g5: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 33, spill 0 B, issued 0.529 MB, dram 0.529 MB, 1.70 us]
// merge g1+g2+g3+g4+g5 + g6: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 30, spill 0 B, issued 0.528 MB, dram 0.528 MB, 1.70 us]
// merge g1+g2+g3+g4+g5+g6 + g7: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 32, spill 0 B, issued 0.791 MB, dram 0.791 MB, 1.70 us]
// merge g1+g2+g3+g4+g5+g6+g7 + g8: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 32, spill 0 B, issued 0.791 MB, dram 0.791 MB, 1.70 us]
// merge g1+g2+g3+g4+g5+g6+g7+g8 + g9: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 32, spill 0 B, issued 0.791 MB, dram 0.791 MB, 1.70 us]
// merge g1+g2+g3+g4+g5+g6+g7+g8+g9 + g10: saves 1.70 us (1.70 vs 3.40) [persistent x1 r1024 w4, regs 28, spill 0 B, issued 0.528 MB, dram 0.528 MB, 1.70 us]
// kernel @softmax_gelu_k0 = g1+g2+g3+g4+g5+g6+g7+g8+g9+g10: persistent x1 r1024 w4, regs 28, spill 0 B, issued 0.528 MB, dram 0.528 MB, 1.70 us (learned: the persistent config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 39 of 199 configs predicted in analytical-time order)
// # learned groups: 1 kernels, 1 outlined functions, issued 0.528 MB, DRAM 0.528 MB (estimated)
// # learned: 47 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @softmax_gelu(%arg0: tensor<64x1024xf32>, %arg1: tensor<1024xf32>) -> tensor<64x1024xf32> {
    %0 = call @softmax_gelu_k0(%arg0, %arg1) : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
    return %0 : tensor<64x1024xf32>
  }
  func.func private @softmax_gelu_k0(%arg0: tensor<64x1024xf32>, %arg1: tensor<1024xf32>) -> tensor<64x1024xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "persistent", num_warps = 4 : i64, rblock = 1024 : i64, xblock = 1 : i64}} {
    %cst = arith.constant 5.000000e-01 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 0.797884583 : f32
    %cst_2 = arith.constant 4.471500e-02 : f32
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<64x1024xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<64x1024xf32>, tensor<1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %14 = arith.addf %in, %in_5 : f32
      linalg.yield %14 : f32
    } -> tensor<64x1024xf32>
    %2 = tensor.empty() : tensor<64xf32>
    %3 = linalg.fill ins(%cst_4 : f32) outs(%2 : tensor<64xf32>) -> tensor<64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<64x1024xf32>) outs(%3 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.maximumf %in, %out : f32
      linalg.yield %14 : f32
    } -> tensor<64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %4 : tensor<64x1024xf32>, tensor<64xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %14 = arith.subf %in, %in_5 : f32
      linalg.yield %14 : f32
    } -> tensor<64x1024xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = math.exp %in : f32
      linalg.yield %14 : f32
    } -> tensor<64x1024xf32>
    %7 = linalg.fill ins(%cst_3 : f32) outs(%2 : tensor<64xf32>) -> tensor<64xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<64x1024xf32>) outs(%7 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.addf %in, %out : f32
      linalg.yield %14 : f32
    } -> tensor<64xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %8 : tensor<64x1024xf32>, tensor<64xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %14 = arith.divf %in, %in_5 : f32
      linalg.yield %14 : f32
    } -> tensor<64x1024xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<64x1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.mulf %in, %in : f32
      %15 = arith.mulf %14, %in : f32
      linalg.yield %15 : f32
    } -> tensor<64x1024xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %10 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %14 = arith.mulf %in_5, %cst_2 : f32
      %15 = arith.addf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<64x1024xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<64x1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %14 = arith.mulf %in, %cst_1 : f32
      %15 = math.tanh %14 : f32
      linalg.yield %15 : f32
    } -> tensor<64x1024xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %12 : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%0 : tensor<64x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %14 = arith.addf %in_5, %cst_0 : f32
      %15 = arith.mulf %in, %cst : f32
      %16 = arith.mulf %15, %14 : f32
      linalg.yield %16 : f32
    } -> tensor<64x1024xf32>
    return %13 : tensor<64x1024xf32>
  }
}
