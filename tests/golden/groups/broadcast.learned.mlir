// costfuse-opt broadcast.mlir --fusion groups --cost-model learned --explain
// merge g1 + g2: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 16, spill 0 B, issued 0.004 MB, dram 0.004 MB, 1.70 us]
// merge g1+g2 + g3: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 17, spill 0 B, issued 0.004 MB, dram 0.004 MB, 1.70 us]
// merge g1+g2+g3 + g4: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 18, spill 0 B, issued 0.004 MB, dram 0.004 MB, 1.70 us]
// kernel @main_k0 = g1+g2+g3+g4: pointwise x64 r1 w2, regs 18, spill 0 B, issued 0.004 MB, dram 0.004 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 15 of 15 configs predicted in analytical-time order)
// # learned groups: 1 kernels, 1 outlined functions, issued 0.004 MB, DRAM 0.004 MB (estimated)
// # learned: 12 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> ()>
module {
  func.func @main(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<4x8x1xf32>, %arg3: tensor<f32>) -> tensor<4x8x16xf32> {
    %0 = call @main_k0(%arg0, %arg1, %arg2, %arg3) : (tensor<4x8x16xf32>, tensor<16xf32>, tensor<4x8x1xf32>, tensor<f32>) -> tensor<4x8x16xf32>
    return %0 : tensor<4x8x16xf32>
  }
  func.func private @main_k0(%arg0: tensor<4x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<4x8x1xf32>, %arg3: tensor<f32>) -> tensor<4x8x16xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<4x8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8x16xf32>, tensor<16xf32>) outs(%0 : tensor<4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<4x8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %arg2 : tensor<4x8x16xf32>, tensor<4x8x1xf32>) outs(%0 : tensor<4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<4x8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %arg3 : tensor<4x8x16xf32>, tensor<f32>) outs(%0 : tensor<4x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.subf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<4x8x16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<4x8x16xf32>) outs(%0 : tensor<4x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.tanh %in : f32
      linalg.yield %5 : f32
    } -> tensor<4x8x16xf32>
    return %4 : tensor<4x8x16xf32>
  }
}
