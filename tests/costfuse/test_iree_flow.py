"""IREE's dispatch formation as a measured peer: parsing and a real run on an example."""

from pathlib import Path

import pytest

from costfuse.iree_flow import IreeFlowError, iree_dispatches, parse_dispatches, tensor_bytes

FLOW = """
    %2 = flow.dispatch @m_dispatch_0::@m_dispatch_0_elementwise_64x1024_f32(%0, %1) : (tensor<64x1024xf32>, tensor<1024xbf16>) -> tensor<64x1024xf32>
    %3:2 = flow.dispatch @m_dispatch_1::@m_dispatch_1_softmax(%2) : (tensor<64x1024xf32>) -> (tensor<64x1024xf16>, tensor<64xf32>)
"""


def test_parse_counts_each_dispatch_and_its_bytes():
    d = parse_dispatches(FLOW)
    assert [x.name.split("::")[0] for x in d] == ["m_dispatch_0", "m_dispatch_1"]
    assert d[0].read_bytes == 64 * 1024 * 4 + 1024 * 2 and d[0].write_bytes == 64 * 1024 * 4
    assert d[1].read_bytes == 64 * 1024 * 4 and d[1].write_bytes == 64 * 1024 * 2 + 64 * 4


def test_dynamic_dims_are_an_error_not_a_guess():
    with pytest.raises(IreeFlowError, match="dynamic"):
        tensor_bytes("?x1024xf32")
    assert tensor_bytes("8xi1") == 8


def test_softmax_gelu_example_through_iree():
    d = iree_dispatches(Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir")
    assert len(d) == 2   # x + bias, then softmax fused with its GELU epilogue
    assert sum(x.hbm_bytes for x in d) == 2 * (64 * 1024 * 4) * 2 + 1024 * 4


def test_bad_input_names_the_file(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(")
    with pytest.raises(IreeFlowError, match="bad.mlir"):
        iree_dispatches(bad)
