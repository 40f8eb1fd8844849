"""What the lowering refuses, asked before the group pass outlines (issue #27, item 9).

The pass must not outline a kernel its own lowering refuses: an
``arith.xori`` reduction became ``@a_k1``, which ``costfuse-data compile``
then called unsupported.  The core cannot import the lowering (the layers
of docs/design.md §7), so the check is injected:
``GroupFusionPass(refuses=lowering_refusal)``, and a generic it refuses
stays in the caller, with the reason in ``--explain``.

The question is asked per generic, of the lowering of that generic as a
kernel of its own (``data.lowering.generic.lower_generic``): the body ops, reduction
combiners, element types and sizes it can express are the ones a kernel
function's lowering can (they share :mod:`data.lower_body` and
:mod:`data.lower_reduction`).  ``tests/costfuse/test_pass_lowers.py`` checks that every
kernel the pass emits on generated inputs lowers and compiles.
"""

from __future__ import annotations

from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.unsupported import UnsupportedOp


def lowering_refusal(op) -> str | None:
    """Why the lowering refuses the generic ``op`` (one line naming the op and the reason), ``None`` if
    it lowers."""
    try:
        lower_generic(op)
    except UnsupportedOp as err:
        return str(err)
    return None
