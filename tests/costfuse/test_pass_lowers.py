"""Every kernel the group pass emits lowers and compiles (issue #27, item 9).

The pass once outlined an ``arith.xori`` column reduction as ``@a_k0``, which
``costfuse-data compile`` then called unsupported.  ``costfuse-opt`` now asks
the lowering first (``data/refusals.py``, injected into the pass: the core
does not import the lowering), and a generic it refuses stays in the caller,
with the reason in ``--explain``.  Checked on generated programs (one per v1
family) and on programs holding ops the lowering refuses; each kernel is
compiled for sm_90 with ptxas on the CPU.
"""

from __future__ import annotations

import pytest

from costfuse.cli import opt_main
from costfuse.data.families import FAMILIES, generate
from costfuse.ir import load_module

XORI_BETWEEN_KERNELS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
func.func @a(%x: tensor<64x128xi32>) -> tensor<128xi32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<64x128xi32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x128xi32>) outs(%e : tensor<64x128xi32>) {
  ^bb0(%in: i32, %o: i32):
    %s = arith.addi %in, %c1 : i32
    linalg.yield %s : i32
  } -> tensor<64x128xi32>
  %e1 = tensor.empty() : tensor<128xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e1 : tensor<128xi32>) -> tensor<128xi32>
  %r = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%y : tensor<64x128xi32>) outs(%f : tensor<128xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %t = arith.xori %in, %acc : i32
    linalg.yield %t : i32
  } -> tensor<128xi32>
  %z = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%r : tensor<128xi32>) outs(%e1 : tensor<128xi32>) {
  ^bb0(%in: i32, %o: i32):
    %m = arith.muli %in, %in : i32
    linalg.yield %m : i32
  } -> tensor<128xi32>
  return %z : tensor<128xi32>
}
"""

ATAN_IN_A_ROW_CHAIN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @b(%x: tensor<32x256xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x256xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x256xf32>) outs(%e : tensor<32x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<32x256xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x256xf32>) outs(%e : tensor<32x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.atan %in : f32
    linalg.yield %v : f32
  } -> tensor<32x256xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<32x256xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}
"""

REFUSED = {"xori": (XORI_BETWEEN_KERNELS, "g2", "arith.xori"), "atan": (ATAN_IN_A_ROW_CHAIN, "g2", "math.atan")}


def _opt(tmp_path, name: str, text: str, *args) -> tuple:
    src, out = tmp_path / f"{name}.mlir", tmp_path / f"{name}.out.mlir"
    src.write_text(text)
    assert opt_main([str(src), "-o", str(out), "--explain", *args]) == 0
    return out, src


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_generic_the_lowering_refuses_stays_in_the_caller_and_explain_says_why(tmp_path, capsys, case):
    text, gnum, op = REFUSED[case]
    out, _ = _opt(tmp_path, case, text, "--cost-model", "analytical")
    err = capsys.readouterr().err
    assert f"stay  {gnum}: the lowering refuses it ({op}: " in err and "left in the caller, not outlined" in err
    from costfuse.data.lowering.kernel_function import kernel_functions, kernel_members

    module = load_module(str(out))
    funcs = kernel_functions(module)
    assert funcs, "the generics around it are still outlined"
    assert all(op not in str(f) for f in funcs)                        # not inside any kernel
    assert all(len(kernel_members(f)) >= 1 for f in funcs)


def test_every_kernel_the_pass_emits_on_generated_inputs_lowers_and_compiles(tmp_path, capsys, monkeypatch):
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.data.lowering.kernel import lower_kernels

    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    inputs = {f"{f}-0": generate(f, 0).text for f in FAMILIES}
    inputs.update({case: text for case, (text, _, _) in REFUSED.items()})
    tasks, names = [], []
    for name, text in inputs.items():
        out, _ = _opt(tmp_path, name, text)
        report = lower_kernels(load_module(str(out)))
        assert not report.unsupported, f"{name}: {report.summary()}"
        tasks += [CompileTask(k.source, k.config, parse_arch("sm_90")) for _, k in report.kernels]
        names += [f"{name}:{k.kernel}" for _, k in report.kernels]
    capsys.readouterr()
    with CompilePool(2, 120.0, None, cache=False) as pool:
        results = pool.run(tasks)
    bad = [f"{n}: {r.status} {r.error}" for n, r in zip(names, results) if r.status != "ok"]
    assert not bad and len(results) >= len(inputs), bad
