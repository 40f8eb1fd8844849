// costfuse-opt multi_use.mlir --fusion groups --cost-model always --explain
// store g1 + g2: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// store g1 + g3: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// store g2 + g4: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.002 MB, dram 0.002 MB, time not estimated]
// store g3 + g4: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.002 MB, dram 0.002 MB, time not estimated]
// merge g1 + g2: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.002 MB, dram 0.002 MB, time not estimated]
// store g1+g2 + g3: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// merge g1+g2 + g3: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.002 MB, dram 0.002 MB, time not estimated]
// merge g1+g2+g3 + g4: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// kernel @main_k0 = g1+g2+g3+g4: pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated (heuristic config)
// # always groups: 1 kernels, 1 outlined functions, issued 0.001 MB, DRAM 0.001 MB (estimated)
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = call @main_k0(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
  func.func private @main_k0(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 1 : i64, rblock = 1 : i64, xblock = 128 : i64}} {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %arg0 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.tanh %in : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %3 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    return %4 : tensor<8x16xf32>
  }
}
