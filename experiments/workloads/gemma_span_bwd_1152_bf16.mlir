// CostFuse workload gemma_span_bwd_1152_bf16: norm-chain backward (Gemma-3 1B sandwich norms) (experiments/workloads/blocks.py:GemmaNormSpanBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:GemmaNormSpanBackward --shape 4096x1152 --shape 4096x1152 --shape 4096x1152 --shape 1152 --shape 1152 --shape 1152 --shape 1152 --shape 1152 --shape 4096x1152 --shape 4096x1152 --shape 4096x1152 --shape 4096x1152 --dtype bf16 --make-fx -o experiments/workloads/gemma_span_bwd_1152_bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<4096x1152xbf16>, %arg1: tensor<4096x1152xbf16>, %arg2: tensor<4096x1152xbf16>, %arg3: tensor<1152xbf16>, %arg4: tensor<1152xbf16>, %arg5: tensor<1152xbf16>, %arg6: tensor<1152xbf16>, %arg7: tensor<1152xbf16>, %arg8: tensor<4096x1152xbf16>, %arg9: tensor<4096x1152xbf16>, %arg10: tensor<4096x1152xbf16>, %arg11: tensor<4096x1152xbf16>) -> (tensor<4096x1152xbf16>, tensor<4096x1152xbf16>, tensor<4096x1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 1.152000e+03 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant -5.000000e-01 : f32
    %cst_4 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x1152xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %3 = tensor.empty() : tensor<4096x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.truncf %cst_0 : f64 to f32
      %153 = arith.addf %in, %152 : f32
      linalg.yield %153 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.rsqrt %in : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %10 = tensor.empty() : tensor<1152xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg4 : tensor<1152xbf16>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %12 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%11 : tensor<1152xf32>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %cst_2 : f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %12 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %14 = tensor.empty() : tensor<4096x1152xbf16>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %16 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %15 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: bf16, %in_14: bf16, %out: bf16):
      %152 = arith.addf %in, %in_14 : bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%18 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.truncf %cst_0 : f64 to f32
      %153 = arith.addf %in, %152 : f32
      linalg.yield %153 : f32
    } -> tensor<4096x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%21 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.rsqrt %in : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %22 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %24 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg6 : tensor<1152xbf16>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %25 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%24 : tensor<1152xf32>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %cst_2 : f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %25 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%26 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %28 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %27 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: bf16, %in_14: bf16, %out: bf16):
      %152 = arith.addf %in, %in_14 : bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%30 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%31 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%32 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.truncf %cst_0 : f64 to f32
      %153 = arith.addf %in, %152 : f32
      linalg.yield %153 : f32
    } -> tensor<4096x1xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%33 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.rsqrt %in : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %34 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %36 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg3 : tensor<1152xbf16>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %37 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%36 : tensor<1152xf32>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %cst_2 : f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %39 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %40 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%39 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %41 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %42 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.truncf %cst_0 : f64 to f32
      %153 = arith.addf %in, %152 : f32
      linalg.yield %153 : f32
    } -> tensor<4096x1xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.rsqrt %in : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%38, %43 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %45 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg5 : tensor<1152xbf16>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %46 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%45 : tensor<1152xf32>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %cst_2 : f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %49 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%48 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%49 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%50 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.truncf %cst_0 : f64 to f32
      %153 = arith.addf %in, %152 : f32
      linalg.yield %153 : f32
    } -> tensor<4096x1xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%51 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.rsqrt %in : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%47, %52 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %54 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<1152xbf16>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %55 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%54 : tensor<1152xf32>) outs(%10 : tensor<1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %cst_2 : f32
      linalg.yield %152 : f32
    } -> tensor<1152xf32>
    %56 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg11 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %57 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%56, %53 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%56, %55 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %59 = tensor.empty() : tensor<1x1152xf32>
    %60 = linalg.fill ins(%cst : f32) outs(%59 : tensor<1x1152xf32>) -> tensor<1x1152xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%57 : tensor<4096x1152xf32>) outs(%60 : tensor<1x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<1x1152xf32>
    %collapsed = tensor.collapse_shape %61 [[0, 1]] : tensor<1x1152xf32> into tensor<1152xf32>
    %62 = tensor.empty() : tensor<1152xbf16>
    %63 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed : tensor<1152xf32>) outs(%62 : tensor<1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<1152xbf16>
    %64 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%58, %47 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %65 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%58, %52 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%64 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %67 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%52 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_3 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %69 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%68, %67 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %collapsed_5 = tensor.collapse_shape %69 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %70 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_5 : tensor<4096xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x1152xf32>
    %71 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%70 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%47 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%72 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_4 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %74 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%71, %73 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%65, %74 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.addf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %76 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%75 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %77 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg10, %76 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: bf16, %in_14: bf16, %out: bf16):
      %152 = arith.addf %in, %in_14 : bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %78 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg9 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %79 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%78, %44 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %80 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%78, %46 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %81 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%79 : tensor<4096x1152xf32>) outs(%60 : tensor<1x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<1x1152xf32>
    %collapsed_6 = tensor.collapse_shape %81 [[0, 1]] : tensor<1x1152xf32> into tensor<1152xf32>
    %82 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed_6 : tensor<1152xf32>) outs(%62 : tensor<1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<1152xbf16>
    %83 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%80, %38 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %84 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%80, %43 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %85 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%83 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %86 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %87 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%85 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_3 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %88 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%87, %86 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %collapsed_7 = tensor.collapse_shape %88 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %89 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_7 : tensor<4096xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x1152xf32>
    %90 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%89 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %91 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %92 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%91 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_4 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %93 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%90, %92 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %94 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%84, %93 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.addf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %95 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%94 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %96 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %97 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%96, %35 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %98 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%96, %37 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %99 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%97 : tensor<4096x1152xf32>) outs(%60 : tensor<1x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<1x1152xf32>
    %collapsed_8 = tensor.collapse_shape %99 [[0, 1]] : tensor<1x1152xf32> into tensor<1152xf32>
    %100 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed_8 : tensor<1152xf32>) outs(%62 : tensor<1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<1152xbf16>
    %101 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%98, %29 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %102 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%98, %34 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %103 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%101 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %104 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %105 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%103 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_3 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %106 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%105, %104 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %collapsed_9 = tensor.collapse_shape %106 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %107 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_9 : tensor<4096xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x1152xf32>
    %108 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%107 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %109 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %110 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%109 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_4 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %111 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%108, %110 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %112 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%102, %111 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.addf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %113 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%112 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %114 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%95, %77 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: bf16, %in_14: bf16, %out: bf16):
      %152 = arith.addf %in, %in_14 : bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %115 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%77 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %116 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%115, %23 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %117 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%115, %25 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %118 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%116 : tensor<4096x1152xf32>) outs(%60 : tensor<1x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<1x1152xf32>
    %collapsed_10 = tensor.collapse_shape %118 [[0, 1]] : tensor<1x1152xf32> into tensor<1152xf32>
    %119 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed_10 : tensor<1152xf32>) outs(%62 : tensor<1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<1152xbf16>
    %120 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%117, %17 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %121 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%117, %22 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %122 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%120 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %123 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %124 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%122 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_3 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %125 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%124, %123 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %collapsed_11 = tensor.collapse_shape %125 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %126 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_11 : tensor<4096xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x1152xf32>
    %127 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%126 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %128 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %129 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%128 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_4 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %130 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%127, %129 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %131 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%121, %130 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.addf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %132 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%131 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %133 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%113, %114 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: bf16, %in_14: bf16, %out: bf16):
      %152 = arith.addf %in, %in_14 : bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    %134 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%114 : tensor<4096x1152xbf16>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %152 = arith.extf %in : bf16 to f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %135 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%134, %9 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %136 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%134, %12 : tensor<4096x1152xf32>, tensor<1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %137 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%135 : tensor<4096x1152xf32>) outs(%60 : tensor<1x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<1x1152xf32>
    %collapsed_12 = tensor.collapse_shape %137 [[0, 1]] : tensor<1x1152xf32> into tensor<1152xf32>
    %138 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%collapsed_12 : tensor<1152xf32>) outs(%62 : tensor<1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<1152xbf16>
    %139 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%136, %1 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %140 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%136, %8 : tensor<4096x1152xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %141 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%139 : tensor<4096x1152xf32>) outs(%4 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.addf %in, %out : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %142 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %143 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%141 : tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_3 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %144 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%143, %142 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1xf32>
    %collapsed_13 = tensor.collapse_shape %144 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %145 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_13 : tensor<4096xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x1152xf32>
    %146 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%145 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.divf %in, %cst_1 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %147 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %148 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%147 : tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %out: f32):
      %152 = arith.mulf %in, %cst_4 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %149 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%146, %148 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.mulf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %150 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%140, %149 : tensor<4096x1152xf32>, tensor<4096x1152xf32>) outs(%0 : tensor<4096x1152xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %152 = arith.addf %in, %in_14 : f32
      linalg.yield %152 : f32
    } -> tensor<4096x1152xf32>
    %151 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%150 : tensor<4096x1152xf32>) outs(%14 : tensor<4096x1152xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %152 = arith.truncf %in : f32 to bf16
      linalg.yield %152 : bf16
    } -> tensor<4096x1152xbf16>
    return %133, %151, %132, %100, %138, %82, %119, %63 : tensor<4096x1152xbf16>, tensor<4096x1152xbf16>, tensor<4096x1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>, tensor<1152xbf16>
  }
}
