"""The feature schemas' names, without MLIR: op classes and v1's columns.

A model bundle is checked against its schema's columns when it loads
(:mod:`costfuse.cost_models.bundle`), and the group features count body ops
by class; neither needs the MLIR bindings.  Keeping the names here, apart
from :mod:`costfuse.featurize.features` (which reads generics through IREE's
bindings), lets the learned group heads load and predict where IREE is not
installed: the Inductor handler on a GPU machine (docs/inductor.md).
"""

from __future__ import annotations

FEATURE_SCHEMA_VERSION = 1

# --- op classes -----------------------------------------------------------------
# Cheap ALU work (one instruction per element).
ADD_MUL = frozenset({
    "arith.addf", "arith.subf", "arith.mulf", "arith.negf", "arith.addi", "arith.subi", "arith.muli",
    "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrsi", "arith.shrui",
    "math.fma", "math.absf", "math.absi", "math.copysign", "math.ceil", "math.floor", "math.round",
    "math.roundeven", "math.trunc",
})
# Multi-instruction sequences or MUFU approximations plus Newton steps.
DIV_SQRT = frozenset({
    "arith.divf", "arith.remf", "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
    "arith.ceildivsi", "arith.floordivsi", "math.sqrt", "math.rsqrt", "math.cbrt",
})
COMPARE_SELECT = frozenset({
    "arith.cmpf", "arith.cmpi", "arith.select", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
    "arith.minnumf", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
})
CASTS = frozenset({
    "arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
    "arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui", "arith.bitcast",
})
CONSTANTS = frozenset({"arith.constant"})
TERMINATOR = "linalg.yield"


def op_class(name: str) -> str:
    """``add_mul | div_sqrt | transcendental | compare_select | cast | constant | other``.

    Any ``math.*`` op not listed as cheap or div/sqrt is a transcendental
    (exp, log, tanh, erf, sin, pow, ...): they all go through libdevice or MUFU.
    """
    if name in ADD_MUL:
        return "add_mul"
    if name in DIV_SQRT:
        return "div_sqrt"
    if name in COMPARE_SELECT:
        return "compare_select"
    if name in CASTS:
        return "cast"
    if name in CONSTANTS:
        return "constant"
    if name.startswith("math."):
        return "transcendental"
    return "other"


OP_CLASSES = ("add_mul", "div_sqrt", "transcendental", "compare_select", "cast", "constant", "other")


def class_counts(names: list[str]) -> dict[str, int]:
    """Ops of each of :data:`OP_CLASSES` among the body ops ``names``, the terminator not counted: the
    body-work columns of v1 and of the group features, counted in one place and one call per body or group."""
    counts = dict.fromkeys(OP_CLASSES, 0)
    for name in names:
        if name != TERMINATOR:
            counts[op_class(name)] += 1
    return counts

# Classes counted as one flop per element each (casts, constants, index ops are not arithmetic).
FLOP_CLASSES = ("add_mul", "div_sqrt", "transcendental", "compare_select")

# --- columns --------------------------------------------------------------------
STATIC_COLUMNS = (
    *(f"n_{c}" for c in OP_CLASSES),
    "n_body_ops",
    "chain_length",
    "n_inputs", "n_outputs", "n_broadcast_inputs",
    "rank", "numel", "xnumel", "rnumel", "is_reduction",
    "min_dtype_bits", "max_dtype_bits", "out_dtype_bits", "compute_dtype_bits",
    "bytes_read", "bytes_written", "bytes_total", "bytes_saved_est",
    "flops", "arith_intensity",
    "max_live_values", "max_live_words", "sethi_ullman",
)
CONFIG_COLUMNS = (
    "xblock", "rblock", "num_warps", "elems_per_thread", "grid_size",
    "persistent_reduction", "looped_reduction", "reduction_iters",
    "live_regs_est", "su_regs_est", "reg_cap", "pressure_ratio",
)
FEATURE_COLUMNS: tuple[str, ...] = STATIC_COLUMNS + CONFIG_COLUMNS
"""The stable column order of :func:`features` (and of every model's input)."""
