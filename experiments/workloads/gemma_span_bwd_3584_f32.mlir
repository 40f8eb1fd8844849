// CostFuse workload gemma_span_bwd_3584_f32: norm-chain backward (Gemma-2 9B sandwich norms) (experiments/workloads/blocks.py:GemmaNormSpanBackward); written by experiments/workloads/export.py
// costfuse import-torch experiments/workloads/blocks.py:GemmaNormSpanBackward --shape 4096x3584 --shape 4096x3584 --shape 4096x3584 --shape 3584 --shape 3584 --shape 3584 --shape 3584 --shape 3584 --shape 4096x3584 --shape 4096x3584 --shape 4096x3584 --shape 4096x3584 --dtype f32 --make-fx -o experiments/workloads/gemma_span_bwd_3584_f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (0, d1)>
#map5 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @main(%arg0: tensor<4096x3584xf32>, %arg1: tensor<4096x3584xf32>, %arg2: tensor<4096x3584xf32>, %arg3: tensor<3584xf32>, %arg4: tensor<3584xf32>, %arg5: tensor<3584xf32>, %arg6: tensor<3584xf32>, %arg7: tensor<3584xf32>, %arg8: tensor<4096x3584xf32>, %arg9: tensor<4096x3584xf32>, %arg10: tensor<4096x3584xf32>, %arg11: tensor<4096x3584xf32>) -> (tensor<4096x3584xf32>, tensor<4096x3584xf32>, tensor<4096x3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>) {
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999995E-7 : f64
    %cst_1 = arith.constant 3.584000e+03 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant -5.000000e-01 : f32
    %cst_4 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x3584xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %2 = tensor.empty() : tensor<4096x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4096x1xf32>) -> tensor<4096x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.truncf %cst_0 : f64 to f32
      %124 = arith.addf %in, %123 : f32
      linalg.yield %124 : f32
    } -> tensor<4096x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.rsqrt %in : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %7 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %9 = tensor.empty() : tensor<3584xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg4 : tensor<3584xf32>) outs(%9 : tensor<3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %cst_2 : f32
      linalg.yield %123 : f32
    } -> tensor<3584xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %10 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %11 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%13 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.truncf %cst_0 : f64 to f32
      %124 = arith.addf %in, %123 : f32
      linalg.yield %124 : f32
    } -> tensor<4096x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.rsqrt %in : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2, %17 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %19 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg6 : tensor<3584xf32>) outs(%9 : tensor<3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %cst_2 : f32
      linalg.yield %123 : f32
    } -> tensor<3584xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %19 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %20 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%22 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%23 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%24 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.truncf %cst_0 : f64 to f32
      %124 = arith.addf %in, %123 : f32
      linalg.yield %124 : f32
    } -> tensor<4096x1xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%25 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.rsqrt %in : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %26 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %28 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg3 : tensor<3584xf32>) outs(%9 : tensor<3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %cst_2 : f32
      linalg.yield %123 : f32
    } -> tensor<3584xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%29 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%30 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%31 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.truncf %cst_0 : f64 to f32
      %124 = arith.addf %in, %123 : f32
      linalg.yield %124 : f32
    } -> tensor<4096x1xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%32 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.rsqrt %in : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %33 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %35 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg5 : tensor<3584xf32>) outs(%9 : tensor<3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %cst_2 : f32
      linalg.yield %123 : f32
    } -> tensor<3584xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%21 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%36 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%37 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %39 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.truncf %cst_0 : f64 to f32
      %124 = arith.addf %in, %123 : f32
      linalg.yield %124 : f32
    } -> tensor<4096x1xf32>
    %40 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.rsqrt %in : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %41 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%21, %40 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %42 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<3584xf32>) outs(%9 : tensor<3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %cst_2 : f32
      linalg.yield %123 : f32
    } -> tensor<3584xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg11, %41 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%arg11, %42 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %45 = tensor.empty() : tensor<1x3584xf32>
    %46 = linalg.fill ins(%cst : f32) outs(%45 : tensor<1x3584xf32>) -> tensor<1x3584xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%43 : tensor<4096x3584xf32>) outs(%46 : tensor<1x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<1x3584xf32>
    %collapsed = tensor.collapse_shape %47 [[0, 1]] : tensor<1x3584xf32> into tensor<3584xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%44, %21 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %49 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%44, %40 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%48 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg10, %49 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%40 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%50 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_3 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %54 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%53, %52 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %collapsed_5 = tensor.collapse_shape %54 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %55 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_5 : tensor<4096xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x3584xf32>
    %56 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%55 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %57 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%21 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%57 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_4 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %59 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%56, %58 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %60 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%51, %59 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg9, %34 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %62 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%arg9, %35 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %63 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%61 : tensor<4096x3584xf32>) outs(%46 : tensor<1x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<1x3584xf32>
    %collapsed_6 = tensor.collapse_shape %63 [[0, 1]] : tensor<1x3584xf32> into tensor<3584xf32>
    %64 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%62, %12 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %65 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%62, %33 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%64 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %67 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%33 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%66 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_3 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %69 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%68, %67 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %collapsed_7 = tensor.collapse_shape %69 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %70 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_7 : tensor<4096xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x3584xf32>
    %71 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%70 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%72 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_4 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %74 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%71, %73 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%65, %74 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %76 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8, %27 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %77 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%arg8, %28 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %78 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%76 : tensor<4096x3584xf32>) outs(%46 : tensor<1x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<1x3584xf32>
    %collapsed_8 = tensor.collapse_shape %78 [[0, 1]] : tensor<1x3584xf32> into tensor<3584xf32>
    %79 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%77, %arg0 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %80 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%77, %26 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %81 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%79 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %82 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%26 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %83 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%81 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_3 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %84 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%83, %82 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %collapsed_9 = tensor.collapse_shape %84 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %85 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_9 : tensor<4096xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x3584xf32>
    %86 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%85 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %87 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %88 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%87 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_4 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %89 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%86, %88 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %90 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%80, %89 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %91 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%75, %60 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %92 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%60, %18 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %93 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%60, %19 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %94 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%92 : tensor<4096x3584xf32>) outs(%46 : tensor<1x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<1x3584xf32>
    %collapsed_10 = tensor.collapse_shape %94 [[0, 1]] : tensor<1x3584xf32> into tensor<3584xf32>
    %95 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%93, %arg2 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %96 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%93, %17 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %97 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%95 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %98 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %99 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%97 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_3 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %100 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%99, %98 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %collapsed_11 = tensor.collapse_shape %100 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %101 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_11 : tensor<4096xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x3584xf32>
    %102 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%101 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %103 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %104 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%103 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_4 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %105 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%102, %104 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %106 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%96, %105 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %107 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%90, %91 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %108 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%91, %8 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %109 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%91, %10 : tensor<4096x3584xf32>, tensor<3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %110 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction", "parallel"]} ins(%108 : tensor<4096x3584xf32>) outs(%46 : tensor<1x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<1x3584xf32>
    %collapsed_12 = tensor.collapse_shape %110 [[0, 1]] : tensor<1x3584xf32> into tensor<3584xf32>
    %111 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%109, %arg1 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %112 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%109, %7 : tensor<4096x3584xf32>, tensor<4096x1xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %113 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%111 : tensor<4096x3584xf32>) outs(%3 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.addf %in, %out : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %114 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %115 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%113 : tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_3 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %116 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%115, %114 : tensor<4096x1xf32>, tensor<4096x1xf32>) outs(%2 : tensor<4096x1xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x1xf32>
    %collapsed_13 = tensor.collapse_shape %116 [[0, 1]] : tensor<4096x1xf32> into tensor<4096xf32>
    %117 = linalg.generic {indexing_maps = [#map5, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_13 : tensor<4096xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4096x3584xf32>
    %118 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%117 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.divf %in, %cst_1 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %119 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = math.fpowi %in, %c1_i64 : f32, i64
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %120 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%119 : tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %out: f32):
      %123 = arith.mulf %in, %cst_4 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %121 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%118, %120 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.mulf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    %122 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%112, %121 : tensor<4096x3584xf32>, tensor<4096x3584xf32>) outs(%0 : tensor<4096x3584xf32>) {
    ^bb0(%in: f32, %in_14: f32, %out: f32):
      %123 = arith.addf %in, %in_14 : f32
      linalg.yield %123 : f32
    } -> tensor<4096x3584xf32>
    return %107, %122, %106, %collapsed_8, %collapsed_12, %collapsed_6, %collapsed_10, %collapsed : tensor<4096x3584xf32>, tensor<4096x3584xf32>, tensor<4096x3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>, tensor<3584xf32>
  }
}
