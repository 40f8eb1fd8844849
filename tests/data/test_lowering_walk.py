"""data.lowering.walk: the one way the lowering walks the IR, checked on one small module.

The lowering tests exercise every traversal through whole kernels; these pin
the traversals themselves (order, repeats, where a walk stops), so a change
to one shows here rather than as a kernel that differs somewhere.
"""

from __future__ import annotations

import pytest
from iree.compiler import ir

from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import (block_ops, defined_by, defining_block, depends_on, expect_op, generics_of,
                                         nested_ops, operation, outside_uses, use_counts)
from costfuse.graph import body
from costfuse.ir import parse_module

# @gather: one generic whose body takes a captured constant twice, gathers from a function argument and
# indexes with linalg.index; @twice: two generics in program order, the second reading the first;
# @nested: a generic whose body computes with a generic of its own.
MODULE = """
#id = affine_map<(d0) -> (d0)>
func.func @gather(%x: tensor<4xf32>, %t: tensor<8xf32>) -> tensor<4xf32> {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %g = tensor.extract %t[%i] : tensor<8xf32>
    %m = arith.mulf %in, %c : f32
    %s = arith.addf %m, %g : f32
    %y = arith.mulf %s, %c : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = math.exp %in : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %m = arith.negf %a : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    %g = tensor.extract %n[%i] : tensor<4xf32>
    linalg.yield %g : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


@pytest.fixture(scope="module")
def module():
    return parse_module(MODULE)


def _gather(module):
    first = generics_of(module)[0]
    block = body(first)
    return first, block, {op.name: op for op in block_ops(block)}


def test_generics_of_finds_every_generic_in_order_but_not_inside_one(module):
    found = generics_of(module)
    assert [g.operation.name for g in found] == ["linalg.generic"] * 4
    assert [str(g.inputs[0].type) for g in found] == ["tensor<4xf32>"] * 4
    assert found[2].inputs[0] == found[1].results[0]  # @twice's second generic reads its first
    # Nested ops are visited pre-order; a generic's body is there unless the walk is told to stop.
    names = [op.name for op in nested_ops(module.operation)]
    assert names.index("arith.constant") < names.index("linalg.generic") < names.index("linalg.index")
    stopped = [op.name for op in nested_ops(module.operation, lambda op: op.name != "linalg.generic")]
    assert "linalg.index" not in stopped and stopped.count("linalg.generic") == 4
    assert names.count("linalg.generic") == 5                           # @nested's inner one too


def test_generics_of_does_not_enter_a_generic(module):
    """A generic inside a generic's body is part of the outer generic's computation, not a kernel of its
    own: ``generics_of`` lists the outer one only, as the index of each generic in the lowering report
    (and the kernel lowered for it) counts top-level generics."""
    outer = generics_of(module)[-1]                                      # @nested's
    (inner,) = [op for op in block_ops(body(outer)) if op.name == "linalg.generic"]
    assert inner not in [g.operation for g in generics_of(module)]


def test_block_ops_are_operations_in_program_order(module):
    _, block, _ = _gather(module)
    ops = block_ops(block)
    assert [op.name for op in ops] == ["linalg.index", "tensor.extract", "arith.mulf", "arith.addf", "arith.mulf",
                                       "linalg.yield"]
    assert all(type(op) is ir.Operation for op in ops)                   # never an OpView
    assert all(operation(op) == op and operation(op.opview) == op for op in ops)
    assert all(type(operation(op.opview)) is ir.Operation for op in ops)  # an OpView comes back as its op


def test_defining_ops_and_blocks_of_results_and_arguments(module):
    first, block, ops = _gather(module)
    gather, mul = ops["tensor.extract"], ops["arith.mulf"]
    scale, table = mul.operands[1], gather.operands[0]
    assert defined_by(scale, "arith.constant") is not None and defined_by(scale, "arith.addf") is None
    assert defined_by(table, "arith.constant") is None                        # a function argument
    assert defining_block(block.arguments[0]) == block                        # the body's own argument
    assert defining_block(mul.results[0]) == block
    assert defining_block(table) == defining_block(scale) != block            # both from the function


def test_outside_uses_in_program_order_with_repeats(module):
    _, block, ops = _gather(module)
    uses = [(user.name, v) for user, v in outside_uses(block)]
    scale, table = ops["arith.mulf"].operands[1], ops["tensor.extract"].operands[0]
    assert uses == [("tensor.extract", table), ("arith.mulf", scale), ("arith.mulf", scale)]


def test_use_counts_and_dependence(module):
    _, block, ops = _gather(module)
    counts = use_counts(block_ops(block))
    scale = ops["arith.mulf"].operands[1]
    assert counts[scale] == 2 and counts[block.arguments[0]] == 1 and block.arguments[1] not in counts
    y = block_ops(block)[-1].operands[0]
    assert depends_on(y, {block.arguments[0]}, block)                    # through mulf and addf
    assert depends_on(y, {ops["tensor.extract"].results[0]}, block)      # the gathered value
    assert not depends_on(y, {block.arguments[1]}, block)                # the init is never read
    assert not depends_on(block.arguments[0], {y}, block)                # dependence runs one way


def test_expect_op_names_what_it_got(module):
    first, _, _ = _gather(module)
    assert expect_op(first, "linalg.generic", "unused") == first.operation
    with pytest.raises(UnsupportedOp) as err:
        expect_op(first, "func.func", "only func.func kernel functions are lowered")
    assert (err.value.op, err.value.reason) == ("linalg.generic", "only func.func kernel functions are lowered")
