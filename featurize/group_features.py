"""Features of a kernel group at a launch config (group feature schema v5: issue #13's v2, #29's v3, #25's v4, v5).

v1's features (:mod:`featurize.features`) describe one fused generic at one
config.  A kernel group is several generics sharing one row loop
(:class:`costfuse.kernel.KernelShape`), and what ptxas does with it depends
on the group and the config *together*: how many full-row values a thread
holds at the worst point, times the elements of a row it owns, against the
registers it may use at that many warps.  So the columns are:

* the group (:data:`GROUP_COLUMNS`): row length and rows, members by role,
  reductions, inputs and outputs, full-row values live at once
  (``live_full``), 64-bit words, passes of a looped kernel, body work per
  element by op class, the worst member body's liveness, bytes per element;
* the config (:data:`LAUNCH_COLUMNS`): mode, rows per program (``xblock``),
  row chunk (``rblock``), warps, elements per thread, chunks per row, grid;
* both (:data:`JOINT_COLUMNS`): live values per thread (elements per thread
  × live row values × words: the mode decides which values, as in
  ``cost_models/group_time.py``), registers available per thread at that
  many warps (the ``.reqntid`` cap), their ratio, and the analytical
  register and spill estimates;
* local-memory placement (:data:`LOCAL_COLUMNS`, schema v3, issue #29): the
  tile a thread holds in bytes, one full-row value against the register file
  a thread may use, how many full-row values fit that register file at once
  (0: not even one, so ptxas must place the tile in local memory), and the
  bytes of the tile that do not fit it (the stack frame it would take);
* loads (:data:`LOAD_COLUMNS`, schema v4, issue #25): the words a thread's
  tile loads, at the inputs' own widths, over the register file a thread
  may use.  ``live_values_per_thread`` counts every value in 32-bit words,
  as the kernel computes (Inductor upcasts a bf16 load to f32), but a
  bf16 tile loads half as many words, two values to a register: an
  Inductor SwiGLU tile of 128 elements per thread spills in f32 and holds
  in 127-254 registers in bf16, at the same live values, tile bytes and
  register estimate (docs/training.md, "Schema v4").
* alignment (:data:`ALIGN_COLUMNS`, schema v5): the largest power of two
  dividing the row length (a pointwise kernel's element count), up to 16,
  as log2.  Row ``i`` starts ``i * n`` elements in, so only a row length
  divisible by the vector width lets every row start on a 16-byte boundary;
  Triton proves that from the sizes (a constant in Inductor's source, an
  argument it specializes on divisibility by 16 in CostFuse's) and then
  loads a tile in 16-byte vectors, where an odd row length costs one load,
  its address and its mask per element.  Among rows of the same structure
  and launch this column cuts the register spread more than the size's
  other bits would (docs/training.md, "Schema v5").

Whether a tile is indexed dynamically is not a column of its own: a Triton
block tensor is addressed by its compile-time layout (every element a thread
owns is a fixed register), so a row tile is never indexed by a runtime value;
the only data-dependent index is a gather's, which addresses global memory,
and ``n_gathers`` counts those already.

:func:`group_features` computes every config of one group in one vectorized
call (the learned policy scores a group's whole config space at once):
``experiments/results/bench_group_features.md`` measures it.
"""

from __future__ import annotations

import math

import numpy as np
from costfuse.featurize.columns import OP_CLASSES, class_counts

from costfuse.estimates import row_registers, spill_bytes

GROUP_FEATURE_SCHEMA_VERSION = 5
GROUP_COLUMNS = (
    "log2_n", "log2_rows", "n_pad_ratio", "n_members", "n_full", "n_reduce", "n_rowwise", "n_inputs",
    "n_outputs", "n_gathers", "live_full", "words", "n_passes", "pointwise", "flops_per_elem",
    *(f"g_{c}" for c in OP_CLASSES if c != "constant"),
    "max_body_live_words", "sum_body_live_words", "in_bytes_per_elem", "out_bytes_per_elem",
)
LAUNCH_COLUMNS = (
    "mode_pointwise", "mode_persistent", "mode_looped", "log2_xblock", "log2_rblock", "num_warps",
    "elems_per_thread", "log2_tile", "chunks", "log2_programs",
)
JOINT_COLUMNS = ("live_values_per_thread", "regs_available", "pressure_ratio", "est_regs", "est_spill_bytes")
LOCAL_COLUMNS = ("tile_bytes_per_thread", "value_over_regfile", "values_fit_regfile", "local_bytes_est")
LOAD_COLUMNS = ("load_words_over_cap",)
ALIGN_COLUMNS = ("log2_size_align",)
ALIGN_CAP = 16   # elements: a 16-byte vector of one-byte values, and the divisibility Triton specializes on
GROUP_SCHEMAS: dict[int, tuple[str, ...]] = {
    2: GROUP_COLUMNS + LAUNCH_COLUMNS + JOINT_COLUMNS,
    3: GROUP_COLUMNS + LAUNCH_COLUMNS + JOINT_COLUMNS + LOCAL_COLUMNS,
    4: GROUP_COLUMNS + LAUNCH_COLUMNS + JOINT_COLUMNS + LOCAL_COLUMNS + LOAD_COLUMNS,
    5: GROUP_COLUMNS + LAUNCH_COLUMNS + JOINT_COLUMNS + LOCAL_COLUMNS + LOAD_COLUMNS + ALIGN_COLUMNS,
}
"""The group feature schemas, by version: each is the one before with columns appended, so this code's
rows hold every older schema's columns as a prefix and a bundle of an older schema still loads
(:func:`costfuse.cost_models.bundle.load_bundle` hands its heads the columns they were trained on)."""
GROUP_FEATURE_COLUMNS: tuple[str, ...] = GROUP_SCHEMAS[GROUP_FEATURE_SCHEMA_VERSION]
WORD_BYTES = 4


def group_static(shape) -> dict[str, float]:
    """The config-independent columns of ``shape`` (a :class:`costfuse.kernel.KernelShape`)."""
    from costfuse.featurize.liveness import bodies_with_pressure   # MLIR: only a Linalg group reads it
    from costfuse.kernel import FULL, REDUCE, ROWWISE
    from costfuse.launch import next_pow2

    bodies = bodies_with_pressure(shape.members)
    counts = class_counts([node.name for body, _ in bodies for node in body.nodes])
    live_words = [p.max_live_words for _, p in bodies]
    roles = [m.role for m in shape.members]
    elems = max(1, shape.n_rows * shape.n)
    return {
        "log2_n": math.log2(max(1, shape.n)),
        "log2_rows": math.log2(max(1, shape.n_rows)),
        "n_pad_ratio": next_pow2(shape.n) / max(1, shape.n),
        "n_members": len(roles),
        "n_full": roles.count(FULL),
        "n_reduce": roles.count(REDUCE),
        "n_rowwise": roles.count(ROWWISE),
        "n_inputs": len(shape.inputs),
        "n_outputs": len(shape.outputs),
        "n_gathers": sum(1 for i in shape.inputs if i.gathers),
        "live_full": shape.live_full,
        "words": shape.words,
        "n_passes": shape.n_passes,
        "pointwise": float(shape.pointwise),
        "flops_per_elem": float(sum(m.flops for m in shape.members if m.role != ROWWISE)),
        **{f"g_{c}": float(counts[c]) for c in OP_CLASSES if c != "constant"},
        "max_body_live_words": float(max(live_words, default=0)),
        "sum_body_live_words": float(sum(live_words)),
        "in_bytes_per_elem": sum(i.nbytes for i in shape.inputs) / elems,
        "out_bytes_per_elem": sum(o.nbytes for o in shape.outputs) / elems,
    }


def group_features(shape, launches, arch: str = "sm_90", static: dict[str, float] | None = None,
                   arrays=None) -> np.ndarray:
    """Rows of :data:`GROUP_FEATURE_COLUMNS` for ``shape`` at each of ``launches`` (shape (n, n_columns)).
    ``arrays``: ``launches`` as :class:`costfuse.launch.LaunchArrays`, when the caller has them (a decision
    scores the same configs too; :func:`costfuse.launch.space_arrays` keeps a whole space's)."""
    from costfuse.launch import launch_arrays
    from costfuse.targets import get_target

    static = static if static is not None else group_static(shape)
    target = get_target(arch)
    arrays = launch_arrays(launches) if arrays is None else arrays
    mode, x, r, w, ept = arrays.mode_index, arrays.xblock, arrays.rblock, arrays.num_warps, arrays.elems_per_thread
    n = float(shape.n)
    n_rows = float(shape.n_rows)
    programs = np.where(mode == 0, np.ceil(n_rows * n / x), np.ceil(n_rows / x))
    chunks = np.where(mode == 2, np.ceil(n / r), 1.0)
    regs, live = row_registers(arrays.mode, ept, shape.live_full, shape.reductions, shape.words)
    cap = target.reg_cap(w).astype(float)
    live_values = ept * live * shape.words
    cols = [
        mode == 0, mode == 1, mode == 2,
        np.log2(x), np.log2(r), w, ept, np.log2(x * r), chunks, np.log2(programs),
        live_values, cap, live_values / cap, regs, spill_bytes(regs, cap) / 2,   # trained as store bytes
        *local_placement(ept, live, shape.words, cap),
        ept * static["in_bytes_per_elem"] / WORD_BYTES / cap,   # LOAD_COLUMNS
        size_align(shape),   # ALIGN_COLUMNS
    ]
    # Filled in place, column by column: np.hstack of np.column_stack was a quarter of this function's time
    # inside Inductor's codegen (the handler featurizes a few hundred configs per decision).
    out = np.empty((len(launches), len(GROUP_COLUMNS) + len(cols)))
    out[:, :len(GROUP_COLUMNS)] = [static[c] for c in GROUP_COLUMNS]
    for j, col in enumerate(cols, len(GROUP_COLUMNS)):
        out[:, j] = col
    return out


def size_align(shape) -> float:
    """``log2_size_align`` (:data:`ALIGN_COLUMNS`) of ``shape``: log2 of the largest power of two, up to
    :data:`ALIGN_CAP`, dividing its row length (a pointwise kernel's element count)."""
    size = max(1, int(shape.n_rows * shape.n if shape.pointwise else shape.n))
    return math.log2(min(size & -size, ALIGN_CAP))


def local_placement(ept, live, words, cap) -> tuple[np.ndarray, ...]:
    """:data:`LOCAL_COLUMNS` from elements per thread, live full-row values, 32-bit words per element and the
    register cap (registers per thread), arrays of one length:

    * ``tile_bytes_per_thread``: bytes of the live tile a thread holds, ``4 x ept x live x words``;
    * ``value_over_regfile``: one full-row value per thread (``ept x words`` registers) over the cap:
      above 1, a single row value does not fit the register file;
    * ``values_fit_regfile``: full-row values that fit the register file at once, ``floor(cap / (ept x
      words))`` (0 to the cap): 0 means ptxas cannot hold even one and must place the tile in local memory;
    * ``local_bytes_est``: bytes of the tile beyond the register file, ``4 x max(0, ept x live x words - cap)``:
      the stack frame the tile needs if ptxas keeps what fits in registers.
    """
    value_regs = np.maximum(1.0, ept * words)
    tile_words = ept * live * words
    return (WORD_BYTES * tile_words, value_regs / cap, np.floor(cap / value_regs),
            WORD_BYTES * np.maximum(0.0, tile_words - cap))


def launch_for_v1_config(shape, config):
    """A v1 row's ``LaunchConfig`` as the :class:`costfuse.launch.KernelLaunch` of the
    one-member group it is (pointwise when it has no row loop, persistent when RBLOCK holds the row)."""
    from costfuse.launch import KernelLaunch

    if shape.pointwise:
        return KernelLaunch("pointwise", config.XBLOCK, 1, config.num_warps)
    mode = "persistent" if config.RBLOCK >= shape.n else "looped"
    return KernelLaunch(mode, config.XBLOCK, config.RBLOCK, config.num_warps)
