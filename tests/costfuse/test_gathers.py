"""Gathers (``tensor.extract`` of a tensor defined outside a generic's body) in
kernel groups: row spaces, formation's cycle check and outlining (docs/groups.md).

The lowering side (loads, bounds masks, HBM bytes) is in tests/data/test_lower_gather.py.
"""

import pytest

from costfuse.cost_models.always import Always
from costfuse.graph import function_blocks, generics_in
from costfuse.group_pass import GroupFusionPass, run_group_pipeline
from costfuse.groups import _Formation
from costfuse.ir import parse_module, print_module, verify
from costfuse.kernel import NotAKernel, analyze_kernel
from costfuse.reference import assert_same_semantics
from costfuse.rowspace import NotGroupable, gathers, op_space

_MAPS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#kd = affine_map<(d0, d1) -> (d0, 0)>
"""

# The gather as torch.export writes cross-entropy's x[row, label[row]], over keepdim loops (8, 1).
_PICK = """
  %{res} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%label : tensor<8x1xi64>) outs(%e1 : tensor<8x1xf32>) {{
  ^bb0(%l: i64, %o: f32):
    %i = linalg.index 0 : index
    %j = arith.index_cast %l : i64 to index
    %lt = arith.cmpi slt, %j, %c16 : index
    cf.assert %lt, "index must be smaller than dim size"
    %g = tensor.extract {src}[%i, %j] : tensor<8x16xf32>
    linalg.yield %g : f32
  }} -> tensor<8x1xf32>
"""

# t = 2x; p = t[row, label[row]]; y = t - p: t reaches y directly and through the gather.
THROUGH_GATHER = _MAPS + """
func.func @main(%x: tensor<8x16xf32>, %label: tensor<8x1xi64>) -> tensor<8x16xf32> {
  %c16 = arith.constant 16 : index
  %e = tensor.empty() : tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
""" + _PICK.format(res="p", src="%t") + """
  %y = linalg.generic {indexing_maps = [#id, #kd, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %p : tensor<8x16xf32>, tensor<8x1xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
"""

# p = x[row, label[row]] gathered from the caller's own argument; loss = -p.
FROM_ARGUMENT = _MAPS + """
func.func @main(%x: tensor<8x16xf32>, %label: tensor<8x1xi64>) -> tensor<8x1xf32> {
  %c16 = arith.constant 16 : index
  %e1 = tensor.empty() : tensor<8x1xf32>
""" + _PICK.format(res="p", src="%x") + """
  %loss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x1xf32>) outs(%e1 : tensor<8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8x1xf32>
  return %loss : tensor<8x1xf32>
}
"""


def _generics(module):
    return generics_in(function_blocks(module)[0])


def test_a_gather_is_groupable_and_names_what_it_reads():
    module = parse_module(THROUGH_GATHER)
    t, p, _ = _generics(module)
    assert op_space(p).loops == (8, 1)          # no longer NotGroupable
    assert list(gathers(p).items()) == [(t.results[0], 1)]


def test_a_body_using_an_outside_tensor_otherwise_is_not_groupable():
    text = FROM_ARGUMENT.replace("%g = tensor.extract %x[%i, %j] : tensor<8x16xf32>",
                                 "%d = tensor.dim %x, %i : tensor<8x16xf32>\n"
                                 "    %g = arith.constant 0.0 : f32")
    module = parse_module(text)
    (p, _) = _generics(module)
    space = op_space(p)
    assert isinstance(space, NotGroupable) and "function argument from outside" in space.reason


def test_a_member_cannot_gather_from_another_members_result():
    """In a kernel the producer's value is in registers, one tile of rows: no
    index can reach an arbitrary element of it."""
    module = parse_module(THROUGH_GATHER)
    t, p, _ = _generics(module)
    with pytest.raises(NotAKernel, match="gathers .* from another member's result"):
        analyze_kernel([t, p])


def test_the_cycle_check_sees_a_dependence_through_a_gather():
    """t -> y directly and t -> p -> y through p's gather: merging t and y alone
    would close a cycle, and formation must see the gather's use of t."""
    module = parse_module(THROUGH_GATHER)
    block = function_blocks(module)[0]
    f = _Formation([op.operation for op in block.operations], Always())
    pos = {op: i for i, op in enumerate(f.ops)}
    t, p, y = (pos[g] for g in _generics(module))
    assert p in f.successors(t)
    assert f.closes_cycle(t, y)


def test_grouping_through_a_gather_keeps_the_numbers():
    module = parse_module(THROUGH_GATHER)
    p = GroupFusionPass(Always())
    run_group_pipeline(module, p)
    verify(module)
    labels = [r.kernel.label for r in p.kernels]
    assert not any("g1" in lab.split("+") and "g3" in lab.split("+") for lab in labels), labels
    assert_same_semantics(THROUGH_GATHER, print_module(module), "main", seed=0)


def test_a_gathered_function_argument_becomes_a_kernel_argument():
    module = parse_module(FROM_ARGUMENT)
    p = GroupFusionPass(Always())
    run_group_pipeline(module, p)
    verify(module)
    after = print_module(module)
    assert [r.kernel.label for r in p.kernels] == ["g1+g2"]
    kernel = next(ln for ln in after.splitlines() if "func.func private @main_k0" in ln)
    assert "tensor<8x16xf32>" in kernel      # %x is passed in, not captured from the caller
    assert_same_semantics(FROM_ARGUMENT, after, "main", seed=0)
