"""Check a lowered kernel against IREE on the CPU (the lowering's oracle).

For one generic: wrap it as a standalone function
(:func:`data.lowering.reference_functions.generic_as_function`), draw seeded random operands
(:func:`costfuse.reference.random_inputs`), run it with IREE llvm-cpu
(:func:`costfuse.reference.run_mlir`), run the Triton kernel on the same
operands under the interpreter (:func:`data.interpret.run_interpreted`) and
compare with the per-dtype tolerances of :mod:`costfuse.reference`.

:func:`verify_module` does this for every generic of a module and never stops
at the first problem, so a whole exported model gives one table of verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from costfuse.ir import IRError
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.generic_info import analyze
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import block_ops, generics_of, operation
from costfuse.graph import body

FUNCTION = "generic"


def reduction_tolerance_scale(rnumel: int) -> float:
    """Summation order differs (tree in Triton, sequential in IREE); error of a
    length-n sum grows like sqrt(n) ulps of the partial sums, so tolerances
    for reductions are scaled by ``sqrt(n / 16)`` (never below 1)."""
    return max(1.0, math.sqrt(rnumel / 16))


def float_types_of(op) -> set[str]:
    """Every float type a generic touches: operands and body values."""
    g = operation(op).opview
    types = {str(v.type.element_type) for v in (*g.inputs, *g.outputs)}
    for inner in block_ops(body(g)):
        types.update(str(r.type) for r in inner.results)
    return types & {"f64", "f32", "f16", "bf16"}


def tolerance_for_generic(op, rnumel: int):
    """The loosest per-dtype tolerance of :data:`costfuse.reference.TOLERANCES`
    among the float types ``op`` computes in -- an f64 output of an f32
    computation is only as exact as f32 -- scaled for reductions."""
    from costfuse.reference import TOLERANCES, Tolerance

    tols = [TOLERANCES[t] for t in float_types_of(op)] or [Tolerance(0.0, 0.0)]
    scale = reduction_tolerance_scale(rnumel) if rnumel > 1 else 1.0
    return Tolerance(max(t.rtol for t in tols) * scale, max(t.atol for t in tols) * scale)


def verify_generic(op, config: LaunchConfig | None = None, seed: int = 0, rtol: float | None = None,
                   atol: float | None = None, kernel_dir=None, args: list | None = None) -> None:
    """Raise ``AssertionError`` if the Triton kernel of ``op`` disagrees with IREE.

    Both run on ``args`` (the generic's operands, inputs then output inits)
    when given -- a test that needs rows of one sign or an init of -inf picks
    them -- else on seeded random operands.
    Tolerances default to :func:`tolerance_for_generic`; integer outputs of
    integer-only generics must match exactly.  :class:`UnsupportedOp`
    propagates; :class:`costfuse.ir.IRError` means the reference could not
    run the generic (e.g. llvm-cpu lacks f64 ``math.erf``).
    """
    from costfuse.reference import compare_outputs, random_inputs, run_mlir
    from costfuse.data.interpret import run_interpreted

    kernel = lower_generic(op, config)
    text = generic_as_function(op, FUNCTION)
    args = random_inputs(text, FUNCTION, seed) if args is None else args
    expected = run_mlir(text, FUNCTION, args)
    actual = run_interpreted(kernel.source, args, kernel_dir)
    tol = tolerance_for_generic(op, kernel.rnumel)
    compare_outputs(expected, actual, f"kernel {kernel.config.short()}",
                    tol.rtol if rtol is None else rtol, tol.atol if atol is None else atol)


@dataclass(frozen=True)
class Verdict:
    """Outcome for one generic: ``ok``, ``mismatch``, ``unsupported`` or
    ``no-reference`` (IREE could not run it), with the reason."""

    index: int
    status: str
    detail: str = ""


def verify_module(module, seed: int = 0, config_for=None, kernel_dir=None) -> list[Verdict]:
    """:func:`verify_generic` for every generic of ``module`` (in
    :func:`data.lowering.walk.generics_of` order); ``config_for(info)`` may pick configs."""
    verdicts = []
    for i, g in enumerate(generics_of(module)):
        try:
            config = config_for(analyze(g)) if config_for else None
            verify_generic(g, config, seed, kernel_dir=kernel_dir)
            verdicts.append(Verdict(i, "ok"))
        except UnsupportedOp as err:
            verdicts.append(Verdict(i, "unsupported", str(err)))
        except IRError as err:
            verdicts.append(Verdict(i, "no-reference", str(err)))
        except AssertionError as err:
            verdicts.append(Verdict(i, "mismatch", str(err)))
    return verdicts
