"""costfuse/estimates.py: one width, one flop weight, one register and one spill unit for every model."""

import numpy as np
import pytest

from costfuse.estimates import (
    BASE_REGS, CLASS_FLOP_WEIGHTS, FLOP_WEIGHTS, SPILL_BYTES_PER_REGISTER, elem_bits, flop_weight, memory_bytes,
    spill_bytes, spill_traffic, tile_registers, words,
)


def test_unknown_element_type_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown element type"):
        elem_bits("f8E4M3FN")
    assert elem_bits("i7") == 7


def test_elem_bits_accepts_only_integer_spellings_beyond_the_table_and_names_the_known_ones():
    assert (elem_bits("i4"), elem_bits("i128"), elem_bits("index"), elem_bits("bf16")) == (4, 128, 64, 16)
    with pytest.raises(ValueError, match=r"^unknown element type 'f128' \(known: f64, f32, f16, bf16, i64, i32, i16, "
                                         r"i8, i1, index\)$"):
        elem_bits("f128")


def test_a_sub_byte_element_takes_a_whole_byte_in_memory():
    """An i1 tensor is a bool tensor: one byte an element (the group time once read it as 1/8)."""
    assert [memory_bytes(elem_bits(t)) for t in ("i1", "i8", "bf16", "f32", "f64", "index")] == [1, 1, 2, 4, 8, 8]
    assert all(type(memory_bytes(b)) is int for b in (1, 16, 64))   # whole bytes: they multiply element counts


def test_words_round_up_to_whole_registers():
    assert [words(b) for b in (1, 16, 32, 33, 40, 64, 65)] == [1, 1, 1, 2, 2, 2, 3]


def test_flop_weights_are_one_table_and_the_class_weights_read_it():
    assert flop_weight("math.tanh") == 8 and flop_weight("math.exp") == 4 and flop_weight("arith.divf") == 2
    assert flop_weight("arith.addf") == 1 and flop_weight("arith.constant") == 0 and flop_weight("linalg.yield") == 0
    assert CLASS_FLOP_WEIGHTS["div_sqrt"] == FLOP_WEIGHTS["arith.divf"] == FLOP_WEIGHTS["math.sqrt"]
    assert CLASS_FLOP_WEIGHTS["transcendental"] == FLOP_WEIGHTS["math.tanh"]


def test_registers_and_the_spill_unit():
    """A register past the cap is stored and loaded once: 8 bytes a thread, the unit ptxas's stores + loads
    give; its traffic is that times threads and chunks, never doubled again."""
    regs = tile_registers(np.array([2.0, 4.0]), np.array([64.0, 64.0]), BASE_REGS)
    assert list(regs) == [BASE_REGS + 128, BASE_REGS + 256]
    assert tile_registers(3, 8) == 24
    assert list(spill_bytes(regs, 255)) == [0.0, SPILL_BYTES_PER_REGISTER * (BASE_REGS + 1)] == [0.0, 200.0]
    assert spill_traffic(200.0, 1024, 4) == 200.0 * 1024 * 4
    assert spill_traffic(200.0, 1024) == 200.0 * 1024   # one chunk unless told


def weighted_center(rows: int, n: int) -> str:
    """``y = x*w - sum(x*w)``: x (per row) and w (a broadcast weight) are both read in a looped kernel's two
    passes: the reduction's and the output's."""
    return f"""
#id = affine_map<(d0, d1) -> (d0, d1)>
#w = affine_map<(d0, d1) -> (d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<{rows}x{n}xf32>, %w: tensor<{n}xf32>) -> tensor<{rows}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<{rows}xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e1 : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %m = linalg.generic {{indexing_maps = [#id, #w, #r], iterator_types = ["parallel", "reduction"]}}
      ins(%x, %w : tensor<{rows}x{n}xf32>, tensor<{n}xf32>) outs(%acc : tensor<{rows}xf32>) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  }} -> tensor<{rows}xf32>
  %e2 = tensor.empty() : tensor<{rows}x{n}xf32>
  %y = linalg.generic {{indexing_maps = [#id, #w, #r, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %w, %m : tensor<{rows}x{n}xf32>, tensor<{n}xf32>, tensor<{rows}xf32>) outs(%e2 : tensor<{rows}x{n}xf32>) {{
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %d = arith.subf %p, %c : f32
    linalg.yield %d : f32
  }} -> tensor<{rows}x{n}xf32>
  return %y : tensor<{rows}x{n}xf32>
}}"""


_KEEP = []   # the modules the shapes point into: a shape's ops die with their module


def _shape(rows: int, n: int):
    from costfuse.graph import function_blocks, generics_in
    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    module = parse_module(weighted_center(rows, n))
    _KEEP.append(module)
    with module.context:
        return analyze_kernel(generics_in(function_blocks(module)[0]))


@pytest.mark.parametrize("rows, n, holds", [(8, 64, True), (4096, 65536, False)])
def test_issued_and_dram_bytes_of_a_looped_kernel(rows, n, holds):
    """Issued: x and w once per pass (2 passes), y once.  DRAM: when the rows in flight fit in half the L2
    (8 rows of 256 B: yes; 4,096 rows of 256 KiB, 4,224 programs resident: no), one read of each input;
    otherwise x twice, but the broadcast w still once."""
    from costfuse.launch import KernelLaunch
    from costfuse.targets import get_target

    shape = _shape(rows, n)
    x, w, y = 4 * rows * n, 4 * n, 4 * rows * n
    assert [i.per_row for i in shape.inputs] == [True, False]
    assert shape.issued_bytes("looped") == 2 * x + 2 * w + y and shape.issued_bytes("persistent") == x + w + y
    assert shape.dram_bytes("looped", True) == x + w + y and shape.dram_bytes("looped", False) == 2 * x + w + y
    launch = KernelLaunch("looped", 1, 32, 4)
    assert shape.dram_bytes_at(launch, get_target("sm_90")) == (x + w + y if holds else 2 * x + w + y)
    assert shape.reread_row_bytes == 4 * n


def test_the_group_time_reads_dram_at_hbm_bandwidth_and_issued_bytes_at_l2s():
    """A looped config whose re-reads L2 holds costs no more DRAM than a persistent one: its memory time is
    the larger of DRAM / HBM and issued / L2 bandwidth."""
    from costfuse.cost_models.group_time import score_configs
    from costfuse.launch import KernelLaunch
    from costfuse.targets import get_target

    shape, target = _shape(8, 64), get_target("sm_90")
    s = score_configs(shape, [KernelLaunch("looped", 1, 32, 1), KernelLaunch("persistent", 1, 64, 1)], target)
    assert list(s.dram_bytes) == [shape.issued_bytes("persistent")] * 2
    assert list(s.issued_bytes) == [shape.issued_bytes("looped"), shape.issued_bytes("persistent")]
    assert target.l2_bytes_per_s == 2.5 * target.hbm_bytes_per_s


def test_estimated_labels_are_the_register_estimate_as_a_compile_would_report_it():
    """The fallback labeller: registers and spills from the estimate, a 4-byte local slot per spilled
    register (so Inductor's n_spills = local / 4 counts spilled registers), every config compiled."""
    from costfuse.estimates import ESTIMATED, LOCAL_BYTES_PER_SPILLED_REGISTER, estimated_labels, row_registers
    from costfuse.launch import KernelLaunch, launch_arrays
    from costfuse.targets import get_target

    target = get_target("sm_90")
    shape = _shape(64, 32768)
    configs = [KernelLaunch("persistent", 1, 32768, 4), KernelLaunch("looped", 1, 1024, 4)]
    labels = estimated_labels(shape, launch_arrays(configs), target)
    regs, _ = row_registers(np.array(["persistent", "looped"]), np.array([c.elems_per_thread() for c in configs]),
                            shape.live_full, shape.reductions, shape.words)
    assert list(labels.regs) == list(regs) and labels.ok.all() and labels.source == ESTIMATED
    assert list(labels.spill_bytes) == list(spill_bytes(regs, target.reg_cap(np.array([4, 4]))))
    assert labels.spill_bytes[0] > 0 == labels.spill_bytes[1]
    assert labels.ok.dtype == bool                      # a mask: Inductor's spill filter ands it
    assert list(labels.local_bytes) == list(labels.spill_bytes / SPILL_BYTES_PER_REGISTER
                                            * LOCAL_BYTES_PER_SPILLED_REGISTER)


def test_rows_that_exactly_fill_the_l2_share_stay_in_l2():
    from costfuse.estimates import L2_SHARE, l2_holds
    from costfuse.targets import get_target

    target = get_target("sm_90")
    share = L2_SHARE * target.l2_bytes
    assert l2_holds(share, 1, 1, 4, target) and not l2_holds(share * 1.001, 1, 1, 4, target)
    assert list(l2_holds(share / 4, np.array([2, 4, 8]), 1, 4, target)) == [True, True, False]
