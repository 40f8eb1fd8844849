// costfuse-opt cast_bf16.mlir --fusion groups --cost-model learned --explain
// merge g1 + g2: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us]
// merge g1+g2 + g3: saves 1.70 us (1.70 vs 3.40) [pointwise x64 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us]
// kernel @main_k0 = g1+g2+g3: pointwise x64 r1 w2, regs 10, spill 0 B, issued 0.001 MB, dram 0.001 MB, 1.70 us (learned: the pointwise config predicted spill-free of least expected time (P(spill)=0.00, 5.05x the time if it spills), 6 of 6 configs predicted in analytical-time order)
// # learned groups: 1 kernels, 1 outlined functions, issued 0.001 MB, DRAM 0.001 MB (estimated)
// # learned: 8 group decisions, 0 by the analytical fallback
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @main(%arg0: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
    %0 = call @main_k0(%arg0) : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
    return %0 : tensor<8x16xbf16>
  }
  func.func private @main_k0(%arg0: tensor<8x16xbf16>) -> tensor<8x16xbf16> attributes {costfuse.kernel, costfuse.launch = {mode = "pointwise", num_warps = 2 : i64, rblock = 1 : i64, xblock = 64 : i64}} {
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xbf16>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %5 = arith.extf %in : bf16 to f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<8x16xf32>
    %3 = tensor.empty() : tensor<8x16xbf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x16xf32>) outs(%3 : tensor<8x16xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %5 = arith.truncf %in : f32 to bf16
      linalg.yield %5 : bf16
    } -> tensor<8x16xbf16>
    return %4 : tensor<8x16xbf16>
  }
}
