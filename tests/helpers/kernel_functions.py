"""The hand-written kernel functions the v2 lowering tests run, by name, with their shapes."""

from __future__ import annotations

from costfuse.data.lowering.kernel_function import kernel_functions, kernel_members

import helpers.kernel_cases as kc
from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel

# name -> kernel function text; every row kernel also lowers in persistent and looped mode.
KERNELS = {
    "softmax": kc.softmax(),
    "softmax_3d_bf16": kc.softmax((2, 3), 50, "bf16"),
    "layernorm_fwd": kc.layernorm_fwd(),
    "layernorm_fwd_bf16": kc.layernorm_fwd(5, 70, "bf16"),
    "rmsnorm_bwd": kc.rmsnorm_bwd(),
    "log_softmax_keepdim_f16": kc.log_softmax_keepdim(6, 100, "f16"),
    "sum_into_init": kc.sum_into_init(),
    "argmax_shift": kc.argmax_shift(),
    "pointwise_f16": kc.pointwise_chain((2, 3, 40), "f16"),
    "cross_entropy_gather": kc.cross_entropy(),
    "cross_entropy_gather_bf16": kc.cross_entropy(5, 70, "bf16"),
    "log_softmax_keepdim": kc.log_softmax_keepdim(),
    "softmax_exp_of_m_minus_x": kc.softmax().replace("arith.subf %a0, %a1", "arith.subf %a1, %a0"),
    "softmax_argmax": kc.softmax_argmax(),
    # not online: the row statistic is a min; the sum adds exp(x - max) + 1, not exp(x - max)
    "softmax_of_a_min": kc.softmax().replace("arith.maximumf", "arith.minimumf"),
    "softmax_sum_of_exp_plus_one": kc.softmax().replace(
        "%r = math.exp %a0 : f32", "%x1 = math.exp %a0 : f32\n    %c1 = arith.constant 1.0 : f32\n"
        "    %r = arith.addf %x1, %c1 : f32"),
}


_MODULES: dict = {}


def kernel_function(text: str):
    """The kernel function of ``text`` (its module is kept alive for the session)."""
    if text not in _MODULES:
        _MODULES[text] = parse_module(text)
    (func,) = kernel_functions(_MODULES[text])
    return func


def shape_of(text: str):
    """The kernel shape (row space, passes, bytes) formation computes for the kernel function in ``text``."""
    return analyze_kernel(kernel_members(kernel_function(text)))
