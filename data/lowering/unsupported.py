"""The one error of the lowering: a construct it does not handle.

Every module of the lowering raises it and every caller that lowers many
kernels collects it (a report row, a dataset row with the reason), so it lives
apart from any one of them.  Nothing is approximated silently: what is not
lowered exactly is refused with the op and the reason.
"""

from __future__ import annotations


class UnsupportedOp(Exception):
    """A construct the lowering does not handle; ``op`` names it, ``reason`` says why."""

    def __init__(self, op: str, reason: str):
        self.op = op
        self.reason = reason
        super().__init__(f"{op}: {reason}")
