// costfuse-opt chain_f32.mlir --fusion groups --cost-model always --explain
// store g1 + g2: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// store g2 + g3: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// store g3 + g4: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// store g4 + g5: always stores a value another kernel reads (upstream recomputes none) [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// merge g1 + g2: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// merge g1+g2 + g3: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// merge g1+g2+g3 + g4: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// merge g1+g2+g3+g4 + g5: always: the largest legal group [pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated]
// kernel @main_k0 = g1+g2+g3+g4+g5: pointwise x128 r1 w1, regs not estimated, spill 0 B, issued 0.001 MB, dram 0.001 MB, time not estimated (heuristic config)
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
      %6 = math.exp %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.tanh %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.negf %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.absf %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.sin %in : f32
      linalg.yield %6 : f32
    } -> tensor<8x16xf32>
    return %5 : tensor<8x16xf32>
  }
}
