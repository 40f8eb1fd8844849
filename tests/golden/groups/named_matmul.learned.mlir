// costfuse-opt named_matmul.mlir --fusion groups --cost-model learned --explain
// merge g2 + g3: saves 1.55 us (1.55 vs 3.10) [pointwise x128 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.55 us]
// kernel @main_k0 = g1: pointwise x64 r1 w2, regs 13, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// kernel @main_k1 = g2+g3: pointwise x128 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.55 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// # learned groups: 2 kernels, 2 outlined functions, issued 0.002 MB, DRAM 0.002 MB (estimated)
// # learned: 5 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16x12xf32>) -> tensor<8x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = call @main_k0(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = tensor.empty() : tensor<8x12xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x12xf32>) -> tensor<8x12xf32>
    %3 = linalg.matmul ins(%0, %arg1 : tensor<8x16xf32>, tensor<16x12xf32>) outs(%2 : tensor<8x12xf32>) -> tensor<8x12xf32>
    %4 = call @main_k1(%3) : (tensor<8x12xf32>) -> tensor<8x12xf32>
    return %4 : tensor<8x12xf32>
  }
  func.func private @main_k0(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = math.tanh %in : f32
      linalg.yield %2 : f32
    } -> tensor<8x16xf32>
    return %1 : tensor<8x16xf32>
  }
  func.func private @main_k1(%arg0: tensor<8x12xf32>) -> tensor<8x12xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 128 : i64}} {
    %0 = tensor.empty() : tensor<8x12xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x12xf32>) outs(%0 : tensor<8x12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = math.exp %in : f32
      linalg.yield %3 : f32
    } -> tensor<8x12xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x12xf32>) outs(%0 : tensor<8x12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = arith.negf %in : f32
      linalg.yield %3 : f32
    } -> tensor<8x12xf32>
    return %2 : tensor<8x12xf32>
  }
}
