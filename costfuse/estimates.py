"""The estimates every model builds on: element widths, flop weights, registers and spill bytes.

One home each (issue #28), below the features and the cost models, so that a
width, a weight or a spill byte means the same thing in the v1 features, the
group features, the analytical times, the peers and the learned policy.  A
model that disagreed with another here would be comparing two units.

* **Element widths.** :func:`elem_bits` reads an element type as the IR spells
  it (``f32``, ``bf16``, ``i1``, ``index``; ``index`` lowers to 64 bits).  In
  memory a sub-byte element takes one byte (:func:`memory_bytes`: an ``i1``
  tensor is a ``bool`` tensor); in registers a value takes one 32-bit word, two
  when wider than 32 bits (:func:`words`).
* **Flop weights.** :data:`FLOP_WEIGHTS`: simple flops per body op, for ops
  that cost more than one (transcendentals run several instructions on the
  SFU and FMA pipes; a division or square root about two); every other op
  weighs 1, constants and the terminator 0.  v1's features count ops by class
  only, so :data:`CLASS_FLOP_WEIGHTS` gives each class the weight of its
  representative op in the same table.
* **Registers.** :func:`tile_registers`: a tile of ``elems_per_thread``
  elements with ``live_words`` words live per element costs that product per
  thread, plus :data:`BASE_REGS` for indices, masks, pointers and loop state
  where the caller counts them (the group estimate does; v1's
  ``live_regs_est`` feature, on which the shipped v1 model was trained, does
  not).  The caps are the target's (:meth:`costfuse.targets.Target.reg_cap`).
* **Issued and DRAM bytes.** A kernel *issues* the bytes its loads and stores
  move (:meth:`costfuse.kernel.KernelShape.issued_bytes`); *DRAM* bytes are
  those that miss L2.  The L2 model (:func:`l2_holds`): a looped kernel's
  later passes re-read rows its programs loaded moments before, and those
  re-reads hit L2 when the rows in flight, ``xblock`` rows of the re-read
  inputs per resident program times the programs resident at once
  (``Target.resident_blocks`` x SMs, an upper bound), fit in
  :data:`L2_SHARE` of the L2; an operand every row reads alike (a broadcast
  weight) is read from DRAM once.  An estimate, until ncu's DRAM counters
  check it on a GPU.
* **Spill bytes.** One unit everywhere: bytes per thread *stored plus loaded*,
  the sum of ptxas's ``bytes spill stores`` and ``bytes spill loads``, which is
  what the labels hold.  A register past the cap is stored once and loaded
  once: :data:`SPILL_BYTES_PER_REGISTER` = 8.  Traffic is that per thread, per
  row chunk, times the threads (:func:`spill_traffic`), never doubled again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

# Bits of each element type as the IR spells it; ``index`` lowers to int64.
TYPE_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i16": 16, "i8": 8,
             "i1": 1, "index": 64}

FLOP_WEIGHTS = {
    "math.exp": 4, "math.exp2": 2, "math.log": 4, "math.log2": 2, "math.log1p": 6, "math.tanh": 8,
    "math.erf": 8, "math.sin": 8, "math.cos": 8, "math.powf": 8, "math.fpowi": 4,
    "math.sqrt": 2, "math.rsqrt": 2, "arith.divf": 2,
}
FREE_OPS = frozenset({"arith.constant", "linalg.yield"})
CLASS_FLOP_WEIGHTS = {"add_mul": 1.0, "compare_select": 1.0, "cast": 1.0,
                      "div_sqrt": float(FLOP_WEIGHTS["arith.divf"]), "transcendental": float(FLOP_WEIGHTS["math.tanh"])}

BASE_REGS = 24                  # indices, masks, pointers, loop state of a row kernel
L2_SHARE = 0.5                  # of the L2 a kernel's re-read rows may count on (the rest: other data, imperfect LRU)
SPILL_BYTES_PER_REGISTER = 8    # one 32-bit register spilled: 4 bytes stored + 4 loaded
LOCAL_BYTES_PER_SPILLED_REGISTER = 4   # its slot in the thread's local (stack) frame
ESTIMATED = "estimated registers: the fallback, no ptxas labels"   # ConfigLabels.source of estimated_labels


@functools.lru_cache(maxsize=None)
def elem_bits(type_text: str) -> int:
    """Width in bits of an element type spelled ``f32``/``bf16``/``i1``/``index`` (or ``iN``).

    Unknown spellings (``f8E4M3FN``, vectors, ...) raise ``ValueError`` rather
    than being guessed: an estimate from a wrong width is worse than none.
    """
    bits = TYPE_BITS.get(type_text)
    if bits is None:
        if type_text.startswith("i") and type_text[1:].isdigit():
            return int(type_text[1:])
        raise ValueError(f"unknown element type {type_text!r} (known: {', '.join(TYPE_BITS)})")
    return bits


def memory_bytes(bits: int) -> int:
    """Bytes one element of ``bits`` takes in memory: sub-byte elements take a whole byte."""
    return max(8, bits) // 8


def words(bits: int) -> int:
    """32-bit registers one value of ``bits`` occupies per element (f64/i64: 2, anything narrower: 1)."""
    return max(1, -(-bits // 32))


def flop_weight(op_name: str) -> int:
    """Simple flops one body op costs per loop point (see the module docstring)."""
    return 0 if op_name in FREE_OPS else FLOP_WEIGHTS.get(op_name, 1)


def tile_registers(live_words, elems_per_thread, base: float = 0.0):
    """Registers per thread of a tile: ``base`` + live words per element x elements per thread
    (scalars or NumPy arrays)."""
    return base + np.multiply(live_words, elems_per_thread)


def row_registers(mode, elems_per_thread, live_full: int, reductions: int, words_per_value: int):
    """(registers per thread, row values live per element) of a row kernel at each config (arrays of
    ``mode`` names and elements per thread): :data:`BASE_REGS` + elements per thread x live values x
    words.  A persistent tile holds ``live_full`` full-row values; a looped chunk holds the values of
    one pass plus one accumulator per reduction; a pointwise block holds its live values (at least 2).
    The group time and the group features both read it."""
    live = np.where(mode == "looped", live_full + reductions, live_full)
    live = np.where(mode == "pointwise", max(2, live_full), live).astype(float)
    return tile_registers(live * float(words_per_value), elems_per_thread, BASE_REGS), live


def l2_holds(row_bytes: float, xblock, programs, num_warps, target):
    """Whether the rows a looped kernel re-reads stay in L2 between its passes (scalars or arrays of
    ``xblock``/``programs``/``num_warps``): ``xblock`` rows of ``row_bytes`` each per resident program,
    times the programs resident at once, within :data:`L2_SHARE` of ``target``'s L2."""
    resident = np.minimum(programs, target.resident_blocks(num_warps) * target.sms)
    return np.multiply(np.multiply(row_bytes, xblock), resident) <= L2_SHARE * target.l2_bytes


def spill_bytes(registers, cap):
    """Spill bytes per thread (stored + loaded) of ``registers`` demanded under ``cap``."""
    return SPILL_BYTES_PER_REGISTER * np.maximum(0.0, np.subtract(registers, cap))


def spill_traffic(spill_bytes_per_thread, threads, chunks=1.0):
    """Bytes moved by spills: per-thread spill bytes (stored + loaded) x threads x row chunks."""
    return np.multiply(np.multiply(spill_bytes_per_thread, threads), chunks)


@dataclass(frozen=True)
class ConfigLabels:
    """What a compile says about one kernel at each of its configs, aligned with the configs.

    ``regs``: registers per thread; ``spill_bytes``: bytes per thread stored + loaded (the spill
    unit); ``local_bytes``: the thread's local-memory frame (what the CUDA driver reports as
    ``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES``, ptxas's ``bytes stack frame``); ``ok``: the config
    compiled (a config that does not is no candidate at all); ``source``: where the numbers come
    from, for every reason that quotes them.
    """

    regs: np.ndarray
    spill_bytes: np.ndarray
    local_bytes: np.ndarray
    ok: np.ndarray
    source: str


def estimated_labels(shape, launches, target) -> ConfigLabels:
    """:class:`ConfigLabels` of ``shape`` (a ``costfuse.kernel.KernelShape``) at ``launches`` (its configs as
    a ``costfuse.launch.LaunchArrays``) from the register estimate: registers demanded
    (:func:`row_registers`), spills past ``target``'s cap (:func:`spill_bytes`), a local slot per spilled
    register.  The group time scores configs with these."""
    regs, _ = row_registers(launches.mode, launches.elems_per_thread, shape.live_full, shape.reductions, shape.words)
    cap = target.reg_cap(launches.num_warps).astype(float)
    spill = spill_bytes(regs, cap)
    local = spill / SPILL_BYTES_PER_REGISTER * LOCAL_BYTES_PER_SPILLED_REGISTER
    return ConfigLabels(regs, spill, local, np.ones(len(regs), dtype=bool), ESTIMATED)
