// CostFuse workload periln_span_bwd_4096_f32: norm-chain backward (Peri-LN, RMSNorm, hidden 4096) (experiments/workloads/blocks.py:PeriLNSpanBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:PeriLNSpanBackward --shape 4096x4096 --shape 4096x4096 --shape 4096x4096 --shape 4096 --shape 4096 --shape 4096 --shape 4096 --shape 4096 --shape 4096x4096 --shape 4096x4096 --shape 4096x4096 --shape 4096x4096 --dtype f32 --make-fx -o experiments/workloads/periln_span_bwd_4096_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<4096x4096xf32>, %arg1: tensor<4096x4096xf32>, %arg2: tensor<4096x4096xf32>, %arg3: tensor<4096xf32>, %arg4: tensor<4096xf32>, %arg5: tensor<4096xf32>, %arg6: tensor<4096xf32>, %arg7: tensor<4096xf32>, %arg8: tensor<4096x4096xf32>, %arg9: tensor<4096x4096xf32>, %arg10: tensor<4096x4096xf32>, %arg11: tensor<4096x4096xf32>) -> (tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 4.096000e+03 : f32
    %cst_2 = arith.constant -5.000000e-01 : f32
    %cst_3 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x4096xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %2 = tensor.empty() : tensor<4096x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.truncf %cst_0 : f64 to f32
      %118 = arith.addf %in, %117 : f32
      linalg.yield %118 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.rsqrt %in : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %7 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg4, %8 : tensor<4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %9 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%11 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.truncf %cst_0 : f64 to f32
      %118 = arith.addf %in, %117 : f32
      linalg.yield %118 : f32
    } -> tensor<4096x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.rsqrt %in : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %15 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %17 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg6, %16 : tensor<4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %17 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%19 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%21 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.truncf %cst_0 : f64 to f32
      %118 = arith.addf %in, %117 : f32
      linalg.yield %118 : f32
    } -> tensor<4096x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.rsqrt %in : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %23 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%25 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%26 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%27 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.truncf %cst_0 : f64 to f32
      %118 = arith.addf %in, %117 : f32
      linalg.yield %118 : f32
    } -> tensor<4096x1xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.rsqrt %in : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %29 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%31 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%32 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%33 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.truncf %cst_0 : f64 to f32
      %118 = arith.addf %in, %117 : f32
      linalg.yield %118 : f32
    } -> tensor<4096x1xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.rsqrt %in : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %35 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg11, %arg7 : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg11, %36 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %39 = tensor.empty() : tensor<1x4096xf32>
    %40 = linalg.fill ins(%cst : f32) outs(%39 : tensor<1x4096xf32>) -> tensor<1x4096xf32>
    %41 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%38 : tensor<4096x4096xf32>) outs(%40 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<1x4096xf32>
    %collapsed = tensor.collapse_shape %41 [[0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
    %42 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%37, %18 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%37, %35 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%42 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %45 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg10, %43 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %46 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%35 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_2 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%47, %46 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %collapsed_4 = tensor.collapse_shape %48 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %49 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%49 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%51 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_3 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%50, %52 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %54 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%45, %53 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %55 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg9, %arg5 : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %56 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg9, %30 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %57 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%56 : tensor<4096x4096xf32>) outs(%40 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<1x4096xf32>
    %collapsed_5 = tensor.collapse_shape %57 [[0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%55, %10 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %59 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%55, %29 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %60 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%58 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %62 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%60 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_2 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %63 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%62, %61 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %collapsed_6 = tensor.collapse_shape %63 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %64 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_6 : tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %65 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%64 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %67 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_3 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %68 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%65, %67 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %69 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%59, %68 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %70 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8, %arg3 : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %71 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8, %24 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%71 : tensor<4096x4096xf32>) outs(%40 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<1x4096xf32>
    %collapsed_7 = tensor.collapse_shape %72 [[0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%70, %arg0 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %74 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%70, %23 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%73 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %76 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%23 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %77 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%75 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_2 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %78 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%77, %76 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %collapsed_8 = tensor.collapse_shape %78 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %79 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_8 : tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %80 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%79 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %81 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %82 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%81 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_3 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %83 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%80, %82 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %84 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%74, %83 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %85 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%69, %54 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %86 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%54, %arg6 : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %87 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%54, %16 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %88 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%87 : tensor<4096x4096xf32>) outs(%40 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<1x4096xf32>
    %collapsed_9 = tensor.collapse_shape %88 [[0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
    %89 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%86, %arg2 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %90 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%86, %15 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %91 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%89 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %92 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %93 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%91 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_2 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %94 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%93, %92 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %collapsed_10 = tensor.collapse_shape %94 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %95 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_10 : tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %96 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%95 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %97 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %98 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%97 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_3 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %99 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%96, %98 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %100 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%90, %99 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %101 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%84, %85 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %102 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%85, %arg4 : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %103 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%85, %8 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %104 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["reduction", "parallel"]} ins(%103 : tensor<4096x4096xf32>) outs(%40 : tensor<1x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<1x4096xf32>
    %collapsed_11 = tensor.collapse_shape %104 [[0, 1]] : tensor<1x4096xf32> into tensor<4096xf32>
    %105 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%102, %arg1 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %106 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%102, %7 : tensor<4096x4096xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %107 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%105 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.addf %in, %out : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %108 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %109 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%107 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_2 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %110 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%109, %108 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x1xf32>
    %collapsed_12 = tensor.collapse_shape %110 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %111 = linalg.generic {indexing_maps = [#map4, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_12 : tensor<4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x4096xf32>
    %112 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%111 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.divf %in, %cst_1 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %113 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %114 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%113 : tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %117 = arith.mulf %in, %cst_3 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %115 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%112, %114 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.mulf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    %116 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%106, %115 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%0 : tensor<4096x4096xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %117 = arith.addf %in, %in_13 : f32
      linalg.yield %117 : f32
    } -> tensor<4096x4096xf32>
    return %101, %116, %100, %collapsed_7, %collapsed_11, %collapsed_5, %collapsed_9, %collapsed : tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
  }
}
