// costfuse-opt reduction_sum.mlir --fusion groups --cost-model learned --explain
// merge g3 + g4: saves 3.50 us (1.70 vs 5.20) [persistent x2 r32 w2, regs 12, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us]
// merge g1 + g2: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 15, spill 0 B, issued 0.003 MB, dram 0.003 MB, 1.70 us]
// merge g1+g2 + g3+g4: saves 1.70 us (1.70 vs 3.40) [persistent x8 r32 w2, regs 17, spill 0 B, issued 0.002 MB, dram 0.002 MB, 1.70 us]
// kernel @main_k0 = g1+g2+g3+g4: persistent x8 r32 w2, regs 17, spill 0 B, issued 0.002 MB, dram 0.002 MB, 1.70 us (learned: the persistent config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 10 of 10 configs predicted in analytical-time order)
// # learned groups: 1 kernels, 1 outlined functions, issued 0.002 MB, DRAM 0.002 MB (estimated)
// # learned: 12 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @main(%arg0: tensor<8x32xf32>, %arg1: tensor<8x32xf32>) -> tensor<8xf32> {
    %0 = call @main_k0(%arg0, %arg1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @main_k0(%arg0: tensor<8x32xf32>, %arg1: tensor<8x32xf32>) -> tensor<8xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "persistent", num_warps = 2 : i64, rblock = 32 : i64, xblock = 8 : i64}} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<8x32xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x32xf32>) outs(%0 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.exp %in : f32
      linalg.yield %7 : f32
    } -> tensor<8x32xf32>
    %3 = tensor.empty() : tensor<8xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<8xf32>) -> tensor<8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<8x32xf32>) outs(%4 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<8xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%5 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.sqrt %in : f32
      linalg.yield %7 : f32
    } -> tensor<8xf32>
    return %6 : tensor<8xf32>
  }
}
