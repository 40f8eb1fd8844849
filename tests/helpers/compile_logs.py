"""ptxas logs and a small lowered kernel, shared by the compile tests."""

from __future__ import annotations

from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.walk import generics_of

from costfuse.ir import parse_module
from helpers.lowering_cases import row_reduction

LOG_SM90 = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'kernel' for 'sm_90a'
ptxas info    : Function properties for kernel
    464 bytes stack frame, 456 bytes spill stores, 452 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers
ptxas info    : Compile time = 1514.112 ms
"""


LOG_SM100 = """ptxas-blackwell info    : 0 bytes gmem
ptxas-blackwell info    : Compiling entry function 'kernel' for 'sm_100a'
ptxas-blackwell info    : Function properties for kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas-blackwell info    : Used 14 registers, used 1 barriers, 16 bytes smem
"""


def _kernel(text: str, config: LaunchConfig | None = None):
    """The Triton kernel of the one generic in ``text`` (at ``config``, else the heuristic's), ready to compile."""
    module = parse_module(text)
    (g,) = generics_of(module)
    return lower_generic(g, config)


SMALL = row_reduction((64, 256), "f32", "arith.addf", ["%v = math.exp %a0 : f32"])
