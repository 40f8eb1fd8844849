"""What kind of spill ptxas reported for a compiled kernel: register pressure, a tiny non-pressure spill, or a
tile placed in local memory (issue #29, item 1).

The dataset stores, per compiled config, ptxas's figures (``-v``: registers, spill store and load bytes,
the stack frame; ``data/ptxas_output.py``).  "Spills" (any spill byte, the spill head's label) lumps three
things that behave differently:

``pressure``
    ptxas used every register the launch allows (``regs >= cap - 1``, the ``.reqntid`` cap of
    :meth:`costfuse.targets.Target.reg_cap` at that many warps) and still spilled: the live values do not
    fit the register file.  The registers are then saturated at the cap.
``collapse``
    ptxas spilled *below* the cap, with a stack frame at least as large as the whole register file a thread
    may use (``stack_bytes >= 4 * cap``): it placed a large tile in local memory and reports few registers
    (log_softmax 256 x 128 at 32 warps: 1,960 B of spill at 32 registers).  More registers were free, so
    this is not pressure: the tile itself went to the stack.
``tiny``
    every other spill: below the cap and with a stack frame smaller than the register file; a few words
    that ptxas keeps on the stack (gelu_erf spills 4 bytes at 80 of 255 registers).  On sm90_v2 and
    sm90_v1 these are 4-232 bytes, half of them at most 24.
``none``
    no spill byte.

Every spill falls into exactly one kind (pressure first, then collapse, then tiny).  Rows without figures
(a timeout) have no kind (``""``).

Every spilling kernel of sm90_v1 and sm90_v2, of all three kinds, reports registers at an occupancy step
(:func:`at_occupancy_step`: one more allocation unit would cost the SM a resident block; gelu_erf's 80
registers at 1 warp keep 25 blocks, 88 would keep 23), against about 60% of the kernels that do not spill
(``data/DATASET.md``, the spill-kind tables).  That is what ptxas would do if, once it spills, it spills
down to a step rather than give up a block; at few warps most register counts rounded to 8 are such a step,
so the share says no more than that.  A tiny spill would then be a demand a few registers over a step,
which an estimate of registers off by tens (the register head's MAE) cannot see.
"""

from __future__ import annotations

import numpy as np

NONE, PRESSURE, COLLAPSE, TINY = "none", "pressure", "collapse", "tiny"
SPILL_KINDS = (NONE, PRESSURE, COLLAPSE, TINY)
SPILLING_KINDS = (PRESSURE, COLLAPSE, TINY)
AT_CAP = 1
"""Registers within this many of the cap count as at the cap (ptxas reports 254 of 255 for some)."""
WORD_BYTES = 4


def spill_kind(regs, spill_store_bytes, spill_load_bytes, stack_bytes, reg_cap) -> np.ndarray:
    """The kind (:data:`SPILL_KINDS`) of each compiled kernel, from ptxas's registers, spill store and load
    bytes and stack frame (bytes per thread) and the register cap of its launch (registers per thread).

    Array-likes of one length (scalars broadcast); returns a 1-d array of strings, ``""`` where the registers
    or the spill bytes are missing (NaN).
    """
    regs, store, load, stack, cap = np.broadcast_arrays(*(np.atleast_1d(np.asarray(a, float)) for a in
                                                          (regs, spill_store_bytes, spill_load_bytes, stack_bytes,
                                                           reg_cap)))
    spill = np.nan_to_num(store) + np.nan_to_num(load)
    stack = np.nan_to_num(stack)
    kind = np.where(spill <= 0, NONE,
                    np.where(regs >= cap - AT_CAP, PRESSURE,
                             np.where(stack >= WORD_BYTES * cap, COLLAPSE, TINY)))
    unknown = np.isnan(regs) | (np.isnan(store) & np.isnan(load))
    return np.where(unknown, "", kind).astype(object)


def spill_kinds_of(df, reg_cap=None) -> np.ndarray:
    """:func:`spill_kind` of dataset rows (``regs``, ``spill_store_bytes``, ``spill_load_bytes``,
    ``stack_bytes`` and ``num_warps`` columns); ``reg_cap``: registers per thread per row (default: sm_90's
    cap at each row's ``num_warps``)."""
    if reg_cap is None:
        from costfuse.targets import get_target

        reg_cap = get_target("sm_90").reg_cap(df["num_warps"].to_numpy(int))
    stack = df["stack_bytes"] if "stack_bytes" in df else np.zeros(len(df))
    return spill_kind(df["regs"], df["spill_store_bytes"], df["spill_load_bytes"], stack, reg_cap)


def at_occupancy_step(regs, num_warps, arch: str = "sm_90") -> np.ndarray:
    """Whether each kernel's ``regs`` (registers per thread, at ``num_warps`` warps per block) are the most
    that keep its blocks resident: one more allocation unit would leave the SM a block fewer
    (:meth:`costfuse.targets.Target.resident_blocks_at`).  A kernel at its register cap is at one too."""
    from costfuse.targets import REG_ALLOC_UNIT, get_target

    target = get_target(arch)
    regs, warps = np.asarray(regs, float), np.asarray(num_warps, int)
    more = np.ceil(regs / REG_ALLOC_UNIT) * REG_ALLOC_UNIT + 1
    return target.resident_blocks_at(warps, regs) > target.resident_blocks_at(warps, more)


def kind_counts(kinds) -> dict[str, int]:
    """``{kind: rows}`` over :data:`SPILL_KINDS`, in that order (rows without a kind are not counted)."""
    kinds = np.asarray(kinds, object)
    return {k: int((kinds == k).sum()) for k in SPILL_KINDS}
