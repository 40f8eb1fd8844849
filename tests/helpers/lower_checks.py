"""Checks of one lowered generic (interpreter against IREE, refusals), shared by the v1 lowering tests."""

from __future__ import annotations

import pytest
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.data.verify import verify_generic

from costfuse.ir import parse_module


def only_generic(text: str):
    """(module, its single generic); the module must outlive the op."""
    module = parse_module(text)
    (g,) = generics_of(module)
    return module, g


def check(text: str, kdir, config: LaunchConfig | None = None, seed: int = 0, args=None) -> None:
    """Interpreter against IREE on ``args`` (default: seeded random operands)."""
    module, g = only_generic(text)
    verify_generic(g, config, seed=seed, kernel_dir=kdir, args=args)


def _arg_body(pred: str, comb: str, dim: int = 1) -> list[str]:
    """torch.export's aten.max.dim body: value and first index of the max."""
    return [f"%i = linalg.index {dim} : index", "%ii = arith.index_cast %i : index to i64",
            f"%m = arith.{comb} %a0, %o0 : f32", f"%gt = arith.cmpf {pred}, %a0, %o0 : f32",
            "%k = arith.select %gt, %ii, %o1 : i64", "yield %m, %k"]


MASKED_TAILS = [(37, None), (37, LaunchConfig(2, 16, 2)), (5000, None)]  # persistent, looped, looped at the cap


def _unsupported(text: str) -> UnsupportedOp:
    """The :class:`UnsupportedOp` lowering the one generic of ``text`` raises (the test fails if none)."""
    module, g = only_generic(text)
    with pytest.raises(UnsupportedOp) as info:
        lower_generic(g)
    return info.value
