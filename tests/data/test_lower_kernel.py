"""data.lowering.kernel: one kernel function -> one Triton kernel, checked on the CPU.

Every numerical test runs the generated kernel under Triton's interpreter and
compares it with IREE llvm-cpu running the same kernel function
(data.verify_kernel); every one also holds the kernel's own ``hbm_bytes`` (from
the loads and stores it emits) to the pass's estimate, ``KernelShape.hbm_bytes``.
"""

from __future__ import annotations

import json
import re

import kernel_cases as kc
import numpy as np
import pytest
from costfuse.launch import next_pow2
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.kernel import lower_kernel, lower_kernels
from costfuse.data.lowering.kernel_function import kernel_functions, kernel_launch, kernel_members
from costfuse.data.lowering.walk import generics_of
from costfuse.data.verify_kernel import verify_kernel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lowering_cases import signature

from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import KernelLaunch, config_space, heuristic_launch

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
# Passes a looped kernel makes: a softmax-like sum of exp(x - max) in f32/f64 runs in its max's pass
# (costfuse/online_softmax.py); one in bf16/f16, or of anything else, waits for the max.
LOOPED_PASSES = {"softmax": 2, "log_softmax_keepdim": 2, "cross_entropy_gather": 1, "softmax_3d_bf16": 3,
                 "log_softmax_keepdim_f16": 3, "cross_entropy_gather_bf16": 2, "softmax_exp_of_m_minus_x": 3,
                 "softmax_argmax": 2, "softmax_of_a_min": 3, "softmax_sum_of_exp_plus_one": 3}
POINTWISE = {"pointwise_f16"}
# (mode, xblock, rblock or None for next_pow2(n), num_warps): XBLOCK > 1 on row
# counts it does not divide, RBLOCK not dividing n, several warps.
LAUNCHES = [("persistent", 1, None, 1), ("persistent", 4, None, 4), ("looped", 2, 32, 2), ("looped", 1, 64, 8)]
POINTWISE_LAUNCHES = [("pointwise", 64, 1, 1), ("pointwise", 512, 1, 4)]

_MODULES: dict = {}


def kernel_function(text: str):
    """The kernel function of ``text`` (its module is kept alive for the session)."""
    if text not in _MODULES:
        _MODULES[text] = parse_module(text)
    (func,) = kernel_functions(_MODULES[text])
    return func


def shape_of(text: str):
    return analyze_kernel(kernel_members(kernel_function(text)))


def launch_for(text: str, spec) -> KernelLaunch:
    mode, x, r, w = spec
    return KernelLaunch(mode, x, next_pow2(shape_of(text).n) if r is None else r, w)


@pytest.fixture(scope="module")
def kdir(tmp_path_factory):
    return tmp_path_factory.mktemp("kernels")


def _cases():
    for name in KERNELS:
        for spec in LAUNCHES + (POINTWISE_LAUNCHES if name in POINTWISE else []):
            yield pytest.param(name, spec, id=f"{name}-{spec[0]}-x{spec[1]}-w{spec[3]}")


# ---------------------------------------------------------------------------
# Numerics: interpreter vs IREE, and hbm_bytes vs the pass's estimate


@pytest.mark.parametrize("name, spec", list(_cases()))
def test_kernel_matches_iree(name, spec, kdir):
    text = KERNELS[name]
    launch = launch_for(text, spec)
    kernel = verify_kernel(kernel_function(text), launch, kernel_dir=kdir)
    assert (kernel.mode, kernel.config) == (launch.mode, launch.as_config())
    assert kernel.hbm_bytes == shape_of(text).issued_bytes(launch.mode)


@st.composite
def _softmax_or_norm(draw):
    """A softmax (rows of rank 0-2) or a LayerNorm of a random size and float
    type, at a random config of its config space."""
    t = draw(st.sampled_from(["f32", "f16", "bf16"]))
    n = draw(st.integers(2, 160))
    if draw(st.booleans()):
        text = kc.softmax(tuple(draw(st.lists(st.integers(1, 5), max_size=2))), n, t)
    else:
        text = kc.layernorm_fwd(draw(st.integers(1, 7)), n, t)
    return text, draw(st.sampled_from(config_space(shape_of(text))))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_softmax_or_norm())
def test_random_sizes_and_configs(case, kdir):
    text, launch = case
    kernel = verify_kernel(kernel_function(text), launch, kernel_dir=kdir)
    assert kernel.hbm_bytes == shape_of(text).issued_bytes(launch.mode)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_hbm_bytes_over_the_config_space(name):
    """Without running: every config the pass may choose (the whole config space) reports the
    pass's own estimate."""
    text = KERNELS[name]
    shape = shape_of(text)
    for launch in config_space(shape):
        assert lower_kernel(kernel_function(text), launch).hbm_bytes == shape.issued_bytes(launch.mode), launch


def test_the_config_space_test_covers_one_two_and_three_pass_kernels():
    """test_hbm_bytes_over_the_config_space holds online (2-pass, 1-pass) and 3-pass looped kernels."""
    assert {shape_of(KERNELS[name]).n_passes for name in KERNELS if name not in POINTWISE} >= {1, 2, 3}


def test_looped_softmax_reads_x_twice_persistent_once():
    """The sum of exp(x - max) runs in the max's pass with a running max (online softmax): the
    looped kernel reads the row for the max and the sum, then for the outputs."""
    text = kc.softmax((6,), 100, "f32")
    x_bytes = 6 * 100 * 4
    persistent = lower_kernel(kernel_function(text), KernelLaunch("persistent", 2, 128, 2))
    looped = lower_kernel(kernel_function(text), KernelLaunch("looped", 2, 32, 2))
    assert persistent.source.count("tl.load(in_ptr0") == 1 and persistent.hbm_bytes == 2 * x_bytes
    assert looped.source.count("tl.load(in_ptr0") == 2 and looped.hbm_bytes == 3 * x_bytes
    assert looped.source.count("for roffset in range(0, 100, RBLOCK):") == 2
    assert "tl.exp(mprev3_0 - acc0_0)" in looped.source       # the running sum rescaled as the max grows
    assert "tl.static_assert(RBLOCK >= 100)" in persistent.source and "for roffset" not in persistent.source


@pytest.mark.parametrize("name", sorted(LOOPED_PASSES))
def test_online_softmax_passes(name):
    """The pass's passes (KernelShape.n_passes) are the loops the lowering emits, and only a
    softmax-like sum in f32/f64 of exp(x - max), x the very value the max reduces, is folded."""
    text = KERNELS[name]
    shape = shape_of(text)
    looped = lower_kernel(kernel_function(text), KernelLaunch("looped", 1, 32, 2))
    assert shape.n_passes == looped.source.count("for roffset in range(") == LOOPED_PASSES[name]
    assert bool(shape.online) == ("mprev" in looped.source)
    assert looped.hbm_bytes == shape.issued_bytes("looped")


ONLINE_NUMERICS = {"softmax": kc.softmax((8,)), "softmax_f64": kc.softmax((8,), 100, "f64"),
                   "softmax_argmax": kc.softmax_argmax(8),
                   "softmax_maxnumf": kc.softmax((8,)).replace("arith.maximumf", "arith.maxnumf"),
                   "log_softmax_keepdim": kc.log_softmax_keepdim(8), "cross_entropy_gather": kc.cross_entropy(8)}


def _hard_rows(x: np.ndarray, nan: bool) -> np.ndarray:
    """``x`` (8 rows of 100) with the rows a running max must get right: -inf at the start of the
    row (lanes whose max stays -inf for a while), a max that grows in every chunk, values near
    the type's largest (a first chunk swamped by a later one), the whole row -inf (the three-pass
    sum is NaN there: exp(-inf - -inf)), -inf but for the last element, one +inf (the sum is NaN:
    exp(inf - inf)) and, with ``nan``, one NaN."""
    x = x.copy()
    big = np.finfo(x.dtype).max / 2
    x[1, :40] = -np.inf
    x[1, 60::7] = -np.inf
    x[2] = np.linspace(-60.0, 60.0, x.shape[1])
    x[3, 5], x[3, 6], x[3, 90] = big, -big, 1e4
    x[4] = -np.inf
    x[5] = -np.inf
    x[5, -1] = 3.0
    x[6, 50] = np.inf
    if nan:
        x[7, 33] = np.nan
    return x


@pytest.mark.parametrize("launch", [KernelLaunch("looped", 1, 32, 2), KernelLaunch("looped", 4, 16, 1)],
                         ids=lambda c: c.short())
@pytest.mark.parametrize("name", sorted(ONLINE_NUMERICS))
def test_online_sums_match_iree_on_hard_rows(name, launch, kdir):
    """Looped softmax, log-softmax and cross-entropy with their sum computed online (two passes,
    one for the loss) agree with IREE's three-pass reference on rows of -inf, huge and growing
    values, NaN and infinities in the same places."""
    from costfuse.data.lowering.reference_functions import kernel_as_function
    from costfuse.data.verify_kernel import FUNCTION
    from costfuse.reference import random_inputs

    text = ONLINE_NUMERICS[name]
    func = kernel_function(text)
    assert shape_of(text).online
    args = list(random_inputs(kernel_as_function(func, FUNCTION), FUNCTION, 0))
    # no NaN for the arg-max: its index of a NaN row is not the sequential one (data/lowering/reduction.py)
    args[0] = _hard_rows(args[0], nan=name != "softmax_argmax")
    kernel = verify_kernel(func, launch, kernel_dir=kdir, args=args)
    assert "mprev" in kernel.source and kernel.source.count("for roffset in range(") == shape_of(text).n_passes


def test_fill_inits_are_constants_and_argument_inits_loads():
    softmax = lower_kernel(kernel_function(KERNELS["softmax"]), KernelLaunch("looped", 1, 32, 2)).source
    assert 'init0_0 = tl.full([XBLOCK, 1], float("-inf"), tl.float32)' in softmax
    with_init = lower_kernel(kernel_function(KERNELS["sum_into_init"]), KernelLaunch("looped", 1, 32, 2)).source
    assert re.search(r"init0_0 = t\d+\n", with_init) and "tl.load(in_ptr1 + (xindex), mask=xmask)" in with_init


# ---------------------------------------------------------------------------
# The kernel file and its launch


def test_source_is_self_contained_and_arguments_are_inputs_then_results():
    kernel = lower_kernel(kernel_function(KERNELS["layernorm_fwd"]))
    src = kernel.source
    imports = {ln for ln in src.splitlines() if ln.startswith(("import ", "from "))}
    assert imports == {"import triton", "import triton.language as tl"}
    assert "costfuse.kernel" in src and "linalg.generic" in src  # the function rides along as a comment
    namespace: dict = {}
    exec(compile(src.split("@triton.jit")[0], "<kernel>", "exec"), namespace)
    assert list(namespace["SIGNATURE"]) == ["in_ptr0", "in_ptr1", "in_ptr2", "out_ptr0", "out_ptr1", "out_ptr2",
                                            "XBLOCK", "RBLOCK"]
    assert namespace["INPUTS"] == [("in_ptr0", (6, 100), "float32"), ("in_ptr1", (100,), "float32"),
                                   ("in_ptr2", (100,), "float32")]
    assert namespace["OUTPUTS"] == [("out_ptr0", (6, 100), "float32"), ("out_ptr1", (6,), "float32"),
                                    ("out_ptr2", (6,), "float32")]
    assert namespace["CONFIG"] == kernel.config.to_dict() and "def launch(*tensors)" in src
    assert kernel.kernel == "k" and kernel.reduction


def test_pointwise_kernel_is_flat():
    kernel = lower_kernel(kernel_function(KERNELS["pointwise_f16"]), KernelLaunch("pointwise", 128, 1, 1))
    assert kernel.mode == "pointwise" and not kernel.reduction and kernel.xnumel == 240 and kernel.rnumel == 1
    assert "xindex = xoffset + tl.arange(0, XBLOCK)\n" in kernel.source and "RBLOCK" not in signature(kernel)


def test_launch_defaults_to_the_attribute_then_the_heuristic():
    text = KERNELS["softmax"]
    assert lower_kernel(kernel_function(text)).config == heuristic_launch(shape_of(text)).as_config()
    attr = '{mode = "looped", xblock = 2 : i64, rblock = 32 : i64, num_warps = 2 : i64}'
    with_attr = text.replace("attributes {costfuse.kernel}",
                             f"attributes {{costfuse.kernel, costfuse.launch = {attr}}}")
    kernel = lower_kernel(kernel_function(with_attr))
    assert (kernel.mode, kernel.config.short()) == ("looped", "X2 R32 w2")


def test_launches_that_do_not_fit_are_refused():
    softmax = kernel_function(KERNELS["softmax"])
    with pytest.raises(ValueError, match="@k: .*pointwise.*reductions"):
        lower_kernel(softmax, KernelLaunch("pointwise", 64, 1, 1))
    with pytest.raises(ValueError, match="RBLOCK 64 cannot hold a row of 100"):
        lower_kernel(softmax, KernelLaunch("persistent", 1, 64, 1))


def test_keepdim_pointwise_members_run_per_row(kdir):
    """Loops ``(5, 1)`` without a reduction: every member is one value per row."""
    text = kc.pointwise_chain((5, 1), "f32")
    assert {m.role for m in shape_of(text).members} == {"rowwise"}
    for launch in (KernelLaunch("persistent", 4, 1, 1), KernelLaunch("looped", 2, 1, 2)):
        kernel = verify_kernel(kernel_function(text), launch, kernel_dir=kdir)
        assert kernel.hbm_bytes == shape_of(text).issued_bytes(launch.mode) == 4 * 5 * 4


def test_not_a_row_kernel_is_lowered_by_v1(kdir):
    func = kernel_function(kc.column_sum())
    kernel = verify_kernel(func, KernelLaunch("persistent", 64, 8, 2), kernel_dir=kdir)
    (member,) = kernel_members(func)
    v1 = lower_generic(member, kernel.config)
    assert kernel.source == v1.source and kernel.kernel == "k" and "not a row kernel" in kernel.notes[-1]
    assert kernel.hbm_bytes == v1.hbm_bytes == 6 * 40 * 4 + 2 * 40 * 4  # v1 also reads the output's init


def test_lower_kernels_collects_what_does_not_lower():
    odd = kc.pointwise_chain((4, 8), "f32").replace("@k(", "@odd(").replace("math.exp", "math.atan")
    bad_launch = kc.softmax().replace("@k(", "@tight(").replace(
        "attributes {costfuse.kernel}",
        'attributes {costfuse.kernel, costfuse.launch = {mode = "persistent", xblock = 1 : i64, '
        'rblock = 32 : i64, num_warps = 1 : i64}}')
    module = parse_module(KERNELS["softmax"] + odd + bad_launch)
    report = lower_kernels(module)
    assert [i for i, _ in report.kernels] == [0] and report.kernels[0][1].kernel == "k"
    (i1, e1), (i2, e2) = report.unsupported
    assert (i1, e1.op, i2, e2.op) == (1, "math.atan", 2, "costfuse.launch") and "@tight" in str(e2)
    assert report.summary().startswith("1/3 kernel functions lowered, 2 unsupported")


def test_v1_kernels_report_one_pass_hbm_bytes():
    from lowering_cases import elementwise, row_reduction

    module = parse_module(elementwise((8, 16), "f32", ["%e = math.exp %a0 : f32", "yield %e"], n_inputs=2))
    (g,) = generics_of(module)
    assert lower_generic(g).hbm_bytes == 8 * 16 * 4 * 2  # %a1 is never loaded; the output is written
    module = parse_module(row_reduction((8, 16), "bf16", "arith.addf"))
    (g,) = generics_of(module)
    k = lower_generic(g)
    assert (k.mode, k.hbm_bytes) == ("persistent", 8 * 16 * 2 + 2 * 8 * 2)  # input, init read, output written


# ---------------------------------------------------------------------------
# Compile labels (sm_90 ptxas on the CPU) and `costfuse-data compile`


def test_costfuse_data_compile_lowers_kernel_functions(tmp_path, monkeypatch, capsys):
    from costfuse.data.cli import main

    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    launch = ('attributes {costfuse.kernel, costfuse.launch = {mode = "looped", xblock = 2 : i64, '
              'rblock = 32 : i64, num_warps = 2 : i64}}')
    looped = kc.softmax().replace("@k(", "@softmax_k0(").replace("attributes {costfuse.kernel}", launch)
    norm = kc.layernorm_fwd(64, 768, "bf16").replace("@k(", "@norm_k1(")
    pointwise = kc.pointwise_chain((64, 256), "f16").replace("@k(", "@act_k2(")
    path = tmp_path / "kernels.mlir"
    path.write_text(looped + norm + pointwise)
    assert main(["compile", str(path), "--arch", "sm_90", "--jobs", "2", "--json", "--no-cache"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["unit"], r["index"], r["kernel"], r["mode"]) for r in rows] == [
        ("function", 0, "softmax_k0", "looped"), ("function", 1, "norm_k1", "persistent"),
        ("function", 2, "act_k2", "pointwise")]
    for r, text in zip(rows, (looped, norm, pointwise)):
        assert r["status"] == "ok" and r["arch"] == "sm_90" and 8 <= r["regs"] <= 255, r
        func = kernel_function(text)
        assert r["hbm_bytes"] == shape_of(text).issued_bytes(r["mode"]) == lower_kernel(func).hbm_bytes
    assert rows[0]["hbm_bytes"] == 3 * 6 * 100 * 4  # x read by two passes (online softmax), y written
    assert main(["compile", str(path), "--config", "4,32,2"]) == 1  # kernel functions carry their own launch
    assert "whose costfuse.launch is their config" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("example", ["softmax_gelu.mlir", "layernorm_gelu_mlp.mlir"])
def test_outlined_examples_lower_and_match_iree(example, kdir):
    """What the group pass outlines (costfuse/outline.py) lowers, at its own launch and looped."""
    from pathlib import Path

    from costfuse.cost_models.always import Always
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import load_module

    module = load_module(str(Path(__file__).parents[2] / "examples" / example))
    run_group_pipeline(module, GroupFusionPass(Always()))
    report = lower_kernels(module)
    assert report.kernels and not report.unsupported, report.summary()
    for func in kernel_functions(module):
        kernel = verify_kernel(func, kernel_dir=kdir)
        assert kernel.config == kernel_launch(func).as_config()  # the pass's launch, never re-chosen
        if kernel.mode != "pointwise":
            looped = verify_kernel(func, KernelLaunch("looped", 2, 16, 2), kernel_dir=kdir)
            assert looped.hbm_bytes == analyze_kernel(kernel_members(func)).issued_bytes("looped")
