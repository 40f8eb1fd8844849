// costfuse-opt transpose_index.mlir --fusion groups --cost-model learned --explain
// skip  g1 + g2: members have different loop extents [(8, 16), (16, 8)]
// skip  g2 + g3: members have different loop extents [(8, 16), (16, 8)]
// kernel @main_k0 = g1: pointwise x64 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// kernel @main_k1 = g2: pointwise x64 r1 w2, regs 9, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// kernel @main_k2 = g3: pointwise x64 r1 w2, regs 13, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// # learned groups: 3 kernels, 3 outlined functions, issued 0.003 MB, DRAM 0.003 MB (estimated)
// # learned: 3 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = call @main_k0(%arg0) : (tensor<8x16xf32>) -> tensor<16x8xf32>
    %1 = call @main_k1(%0) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %2 = call @main_k2(%1) : (tensor<16x8xf32>) -> tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
  func.func private @main_k0(%arg0: tensor<8x16xf32>) -> tensor<16x8xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<16x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = math.exp %in : f32
      linalg.yield %2 : f32
    } -> tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
  func.func private @main_k1(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<16x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x8xf32>) outs(%0 : tensor<16x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = linalg.index 1 : index
      %3 = arith.index_cast %2 : index to i32
      %4 = arith.sitofp %3 : i32 to f32
      %5 = arith.addf %in, %4 : f32
      linalg.yield %5 : f32
    } -> tensor<16x8xf32>
    return %1 : tensor<16x8xf32>
  }
  func.func private @main_k2(%arg0: tensor<16x8xf32>) -> tensor<8x16xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x8xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = math.tanh %in : f32
      linalg.yield %2 : f32
    } -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
}
