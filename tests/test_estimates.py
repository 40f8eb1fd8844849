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
