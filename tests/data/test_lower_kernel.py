"""data.lowering.kernel: one kernel function -> one Triton kernel, checked on the CPU.

Every numerical test runs the generated kernel under Triton's interpreter and
compares it with IREE llvm-cpu running the same kernel function
(data.verify_kernel); every one also holds the kernel's own ``hbm_bytes`` (from
the loads and stores it emits) to the pass's estimate, ``KernelShape.hbm_bytes``.
"""

from __future__ import annotations

import json
import re

import helpers.kernel_cases as kc
import numpy as np
import pytest
from costfuse.launch import next_pow2
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.kernel import lower_kernel, lower_kernels
from costfuse.data.lowering.kernel_function import kernel_functions, kernel_launch, kernel_members
from costfuse.data.lowering.reference_functions import kernel_as_function
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.lowering.walk import generics_of
from costfuse.data.verify_kernel import verify_kernel
from helpers.errors import one_line
from helpers.kernel_functions import KERNELS, kernel_function, shape_of
from helpers.lowering_cases import signature
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from costfuse.ir import parse_module
from costfuse.kernel import analyze_kernel
from costfuse.launch import KernelLaunch, config_space, heuristic_launch
from costfuse.targets import get_target

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


def launch_for(text: str, spec) -> KernelLaunch:
    mode, x, r, w = spec
    return KernelLaunch(mode, x, next_pow2(shape_of(text).n) if r is None else r, w)


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


def test_dram_bytes_are_the_pass_l2_model_at_the_launch_when_a_target_is_given():
    """``lower_kernel(..., target=)`` carries the pass's DRAM bytes (KernelShape.dram_bytes_at), which
    compare_groups reports beside the issued bytes; without a target, none."""
    text = kc.softmax((6,), 100, "f32")
    shape, target = shape_of(text), get_target("sm_90")
    for launch in (KernelLaunch("persistent", 2, 128, 2), KernelLaunch("looped", 2, 32, 2)):
        kernel = lower_kernel(kernel_function(text), launch, target)
        assert kernel.dram_bytes == shape.dram_bytes_at(launch, target) <= kernel.hbm_bytes
        assert lower_kernel(kernel_function(text), launch).dram_bytes is None
    shape = shape_of(KERNELS["softmax"])
    (_, k), = lower_kernels(parse_module(KERNELS["softmax"]), target).kernels
    assert k.dram_bytes == shape.dram_bytes_at(heuristic_launch(shape), target)   # no costfuse.launch: the heuristic


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
                   "log_softmax_keepdim": kc.log_softmax_keepdim(8), "cross_entropy_gather": kc.cross_entropy(8),
                   # the max is not the first member: the old max is saved before its own member's update
                   "scaled_softmax": kc.scaled_softmax(8)}


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


def _hard_norm_rows(x: np.ndarray) -> np.ndarray:
    """``x`` (8 rows of 100) with the rows a running mean must get right: a constant row (variance 0), a
    mean far from zero (where a sum of squares minus the squared sum would cancel), a
    growing row, values of alternating sign near 1e18, one +inf (NaN statistics) and one NaN."""
    x = x.copy()
    x[1] = 3.25
    x[2] = 100.0 + x[2]
    x[3] = np.linspace(-50.0, 50.0, x.shape[1])
    x[4] = np.where(np.arange(x.shape[1]) % 2 == 0, 1e18, -1e18)
    x[5, 17] = np.inf
    x[6, 80] = np.nan
    return x


@pytest.mark.parametrize("launch", [KernelLaunch("looped", 1, 32, 2), KernelLaunch("looped", 4, 16, 1)],
                         ids=lambda c: c.short())
def test_welford_sums_match_iree_on_hard_rows(launch, kdir):
    """A looped f32 layer norm with its variance a Welford sum in the mean's pass (two passes,
    costfuse/welford.py) agrees with IREE's three-pass reference on constant, offset, growing and huge
    rows, and has NaN where it does."""
    from costfuse.data.lowering.reference_functions import kernel_as_function
    from costfuse.data.verify_kernel import FUNCTION
    from costfuse.reference import random_inputs

    text = kc.layernorm_fwd(8, 100, "f32")
    func = kernel_function(text)
    assert shape_of(text).welford
    args = list(random_inputs(kernel_as_function(func, FUNCTION), FUNCTION, 0))
    args[0] = _hard_norm_rows(args[0])
    kernel = verify_kernel(func, launch, kernel_dir=kdir, args=args)
    assert "_welford_combine" in kernel.source and kernel.source.count("for roffset in range(") == 2


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
    from helpers.lowering_cases import elementwise, row_reduction

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
        assert r["issued_bytes"] == shape_of(text).issued_bytes(r["mode"]) == lower_kernel(func).hbm_bytes
        launch = KernelLaunch(r["mode"], r["config"]["XBLOCK"], r["config"]["RBLOCK"], r["config"]["num_warps"])
        assert r["dram_bytes"] == shape_of(text).dram_bytes_at(launch, get_target("sm_90")) <= r["issued_bytes"]
    assert rows[0]["issued_bytes"] == 3 * 6 * 100 * 4  # x read by two passes (online softmax), y written
    assert rows[0]["dram_bytes"] == 2 * 6 * 100 * 4    # L2 holds the 6 rows between passes: x read once
    # kernel functions carry their own launch; --config recompiles one of them, named (issue #27, item 3)
    assert main(["compile", str(path), "--config", "4,32,2"]) == 1
    assert "--config recompiles one kernel function at the launch given; name it with --kernel" in \
        capsys.readouterr().err


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


# ---------------------------------------------------------------------------
# What IREE's numbers cannot see: code that computes the same values differently (a persistent kernel
# reducing through a looped accumulator, a per-row value recomputed in every row chunk, an init not
# widened to f32, x flattened in another order, a per-row load repeated or shared against the counted
# reads, a store masked wider than its tile) and the errors for what the lowering refuses.  These tests
# read the generated source and the UnsupportedOp raised, without running anything.

M, N = 6, 100
X = ("%x", (M, N), "f32", "d0, d1")
LOOPED = KernelLaunch("looped", 2, 32, 2)


def _kernel_lines(source: str) -> list[str]:
    """The lines of the ``@triton.jit def kernel`` body."""
    return source.split("\ndef kernel(", 1)[1].split("\n\n", 1)[0].splitlines()[1:]


def _refusal(text: str) -> UnsupportedOp:
    with pytest.raises(UnsupportedOp) as err:
        lower_kernel(kernel_function(text), LOOPED)
    return err.value


def test_persistent_reductions_reduce_the_tile_without_an_accumulator():
    source = lower_kernel(kernel_function(KERNELS["softmax"]), KernelLaunch("persistent", 2, 128, 2)).source
    assert "red0_0 = tl.reduce(tl.where(xmask & rmask, t1, float(\"-inf\")), 1, _maximum_combine)[:, None]" in source
    assert "acc" not in source and "for roffset" not in source


def test_narrow_float_inits_are_widened_to_the_f32_accumulator():
    source = lower_kernel(kernel_function(KERNELS["softmax_3d_bf16"]), KernelLaunch("persistent", 2, 64, 2)).source
    assert 'init0_0 = tl.full([XBLOCK, 1], float("-inf"), tl.float32).to(tl.bfloat16).to(tl.float32)\n' in source
    assert "init3_0 = tl.full([XBLOCK, 1], 0.0, tl.float32).to(tl.bfloat16).to(tl.float32)\n" in source


def test_arg_max_index_init_is_its_own_fill():
    source = lower_kernel(kernel_function(KERNELS["argmax_shift"]), KernelLaunch("persistent", 2, 128, 2)).source
    assert "init0_1 = tl.full([XBLOCK, 1], 0, tl.int64)\n" in source


# The arg-max of x * w (w broadcast along rows) whose initial value and index
# are arguments: each init loads its own argument per row, not through an input's map.
ARGMAX_INTO_ARGS = kc.kernel_function(
    [("%x", (M, N), "f32"), ("%w", (N,), "f32"), ("%m0", (M,), "f32"), ("%i0", (M,), "i64")],
    [("%mx#0", (M,), "f32"), ("%mx#1", (M,), "i64")],
    [kc.generic("%mx:2", 2, "pr", [X, ("%w", (N,), "f32", "d1")],
                [("%m0", (M,), "f32", "d0"), ("%i0", (M,), "i64", "d0")],
                ["%j = linalg.index 1 : index", "%ji = arith.index_cast %j : index to i64",
                 "%xw = arith.mulf %a0, %a1 : f32", "%v = arith.maximumf %xw, %o0 : f32",
                 "%gt = arith.cmpf ogt, %xw, %o0 : f32", "%i = arith.select %gt, %ji, %o1 : i64", "yield %v, %i"])])


def test_argument_inits_load_through_their_own_maps():
    lines = _kernel_lines(lower_kernel(kernel_function(ARGMAX_INTO_ARGS), LOOPED).source)
    for j in (0, 1):
        (init,) = [ln.strip() for ln in lines if ln.strip().startswith(f"init0_{j} = ")]
        (load,) = [ln.strip() for ln in lines if ln.strip().startswith(init.split(" = ")[1] + " = ")]
        assert load.endswith(f"= tl.load(in_ptr{j + 2} + (xindex), mask=xmask)"), (init, load)


# max over the row, then y = x - max * max: ``max * max`` is per row.
ROW_ONLY_PRODUCT = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._fill("%m0", (M,), "f32", kc.NEG_INF["f32"]) + kc._empty("%e", (M, N), "f32")
    + [kc.generic("%max", 2, "pr", [X], [("%m0", (M,), "f32", "d0")],
                  ["%r = arith.maximumf %a0, %o0 : f32", "yield %r"]),
       kc.generic("%y", 2, "pp", [X, ("%max", (M,), "f32", "d0")], [("%e", (M, N), "f32", "d0, d1")],
                  ["%h = arith.mulf %a1, %a1 : f32", "%r = arith.subf %a0, %h : f32", "yield %r"])])


def test_per_row_values_of_a_looped_pass_are_hoisted_out_of_the_row_loop():
    lines = _kernel_lines(lower_kernel(kernel_function(ROW_ONLY_PRODUCT), LOOPED).source)
    (product,) = [k for k, ln in enumerate(lines) if ln.endswith(" = v0_0 * v0_0")]
    loops = [k for k, ln in enumerate(lines) if ln.startswith("    for roffset in range(0, 100, RBLOCK):")]
    assert len(loops) == 2 and loops[0] < product < loops[1]
    assert lines[product].startswith("    t") and not lines[product].startswith("     ")


def _gather_from_fill() -> str:
    body = kc._fill("%x", (M, N), "f32", "1.0") + kc._empty("%e1", (M, 1), "f32")
    body.append(f"  %cn = arith.constant {N} : index\n  %c0i = arith.constant 0 : i64\n")
    body.append(kc.generic("%p", 2, "pp", [("%label", (M, 1), "i64", "d0, d1")], [("%e1", (M, 1), "f32", "d0, d1")],
                           kc.gather_body("%x", (M, N), "f32") + ["yield %g"]))
    return kc.kernel_function([("%label", (M, 1), "i64")], [("%p", (M, 1), "f32")], body)


def test_a_gather_from_a_tensor_that_is_not_an_argument_is_refused():
    err = _refusal(_gather_from_fill())
    assert (err.op, err.reason) == ("tensor.extract",
                                    "@k member 0 gathers from a tensor that is not a function argument")


def test_a_reduction_into_an_empty_tensor_it_reads_is_refused_naming_the_init():
    body = kc._empty("%z", (M,), "f32") + [kc.generic("%s", 2, "pr", [X], [("%z", (M,), "f32", "d0")],
                                                      ["%r = arith.addf %a0, %o0 : f32", "yield %r"])]
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], [("%s", (M,), "f32")], body))
    assert (err.op, err.reason) == ("tensor.empty", "@k member 0 init 0 reads a tensor defined by tensor.empty, "
                                    "neither a function argument nor a fill of a constant (a tensor.empty has no "
                                    "values to read)")


# The body of a kernel function computing y = exp(x), without its return.
EXP_OF_X = kc._empty("%e", (M, N), "f32") + [kc.generic("%y", 2, "pp", [X], [("%e", (M, N), "f32", "d0, d1")],
                                                        ["%r = math.exp %a0 : f32", "yield %r"])]


def test_a_result_that_is_no_members_result_is_refused():
    xy = [("%y", (M, N), "f32"), ("%x", (M, N), "f32")]
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], xy, EXP_OF_X))
    assert (err.op, err.reason) == ("func.return", "@k: result 1 is not a member generic's result")


def test_a_fill_of_a_vector_constant_is_refused_naming_the_operand():
    """linalg.fill admits a vector fill value (into a tensor of vectors); the lowering reads only scalars."""
    v, tv = "vector<2xf32>", f"tensor<{M}x{N}xvector<2xf32>>"
    body = [f"  %v_c = arith.constant dense<1.0> : {v}\n", f"  %v_e = tensor.empty() : {tv}\n",
            f"  %v = linalg.fill ins(%v_c : {v}) outs(%v_e : {tv}) -> {tv}\n"] + kc._empty("%e", (M, N), "f32")
    body.append(kc.generic("%y", 2, "pp", [X, ("%v", (M, N), v, "d0, d1")], [("%e", (M, N), "f32", "d0, d1")],
                           [f"%s = vector.extract %a1[0] : f32 from {v}", "%r = arith.addf %a0, %s : f32", "yield %r"]))
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], [("%y", (M, N), "f32")], body))
    assert err.op == "linalg.fill"
    assert err.reason.startswith("@k member 0 operand 1: fill constant dense<")
    assert err.reason.endswith(f" : {v} is not a scalar float, integer or bool")


# i1 constants: the bindings give ``arith.constant true`` a BoolAttr, which is no IntegerAttr;
# a fill of one (read as an operand, or as an init the body reads) and a body constant lower
# and match IREE.
BOOL_OPERAND = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._fill("%t", (M, N), "i1", "1") + kc._empty("%e", (M, N), "f32")
    + [kc.generic("%y", 2, "pp", [X, ("%t", (M, N), "i1", "d0, d1")], [("%e", (M, N), "f32", "d0, d1")],
                  ["%z = arith.constant 0.0 : f32", "%r = arith.select %a1, %a0, %z : f32", "yield %r"])])
BOOL_INIT = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "i1")],
    kc._fill("%t", (M, N), "i1", "0")
    + [kc.generic("%y", 2, "pp", [X], [("%t", (M, N), "i1", "d0, d1")],
                  ["%z = arith.constant 0.0 : f32", "%p = arith.cmpf ogt, %a0, %z : f32",
                   "%r = arith.ori %p, %o0 : i1", "yield %r"])])
BOOL_BODY = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._empty("%e", (M, N), "f32")
    + [kc.generic("%y", 2, "pp", [X], [("%e", (M, N), "f32", "d0, d1")],
                  ["%c = arith.constant false", "%z = arith.constant 0.0 : f32",
                   "%r = arith.select %c, %z, %a0 : f32", "yield %r"])])


@pytest.mark.parametrize("text", [BOOL_OPERAND, BOOL_INIT, BOOL_BODY], ids=["fill-operand", "fill-init", "body"])
def test_i1_constants_lower_and_match_iree(text, tmp_path):
    kernel = verify_kernel(kernel_function(text), LOOPED, kernel_dir=tmp_path)
    assert "tl.int1" in kernel.source


def test_kernel_as_function_names_the_copy_kernel_by_default():
    text = kernel_as_function(kernel_function(KERNELS["softmax"]))
    assert "func.func @kernel(%arg0: tensor<6x100xf32>) -> tensor<6x100xf32>" in text
    assert "costfuse.kernel" not in text and "private" not in text


def test_each_output_is_stored_through_its_own_map_under_its_tiles_mask():
    launch = KernelLaunch("persistent", 2, 128, 2)
    softmax = _kernel_lines(lower_kernel(kernel_function(KERNELS["softmax"]), launch).source)
    assert softmax[-1] == "    tl.store(out_ptr0 + (100 * xindex + rindex), t4, mask=xmask & rmask)"  # a full row
    # Result 1 of a two-result member goes through its own map (d0), not an input's (%w's is d1).
    argmax = _kernel_lines(lower_kernel(kernel_function(ARGMAX_INTO_ARGS), LOOPED).source)
    assert argmax[-2:] == ["    tl.store(out_ptr0 + (xindex), v0_0, mask=xmask)",
                           "    tl.store(out_ptr1 + (xindex), v0_1, mask=xmask)"]


# y[j, i] = exp(x[i, j]): the output is x transposed.
TRANSPOSE = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (N, M), "f32")],
    kc._empty("%e", (N, M), "f32") + [kc.generic("%y", 2, "pp", [X], [("%e", (N, M), "f32", "d1, d0")],
                                                 ["%r = math.exp %a0 : f32", "yield %r"])])


def test_a_pointwise_tile_runs_over_every_element_in_the_first_outputs_layout():
    """xindex covers all M * N elements in y's row-major order (d1 slowest, d0 = x0
    fastest), so the store is contiguous and the load of x does the index arithmetic."""
    lines = _kernel_lines(lower_kernel(kernel_function(TRANSPOSE), KernelLaunch("pointwise", 64, 1, 1)).source)
    assert lines[2:] == ["    xmask = xindex < 600", "    x1 = (xindex // 6)", "    x0 = xindex % 6",
                         "    t1 = tl.load(in_ptr0 + (100 * x0 + x1), mask=xmask)", "    t2 = tl.exp(t1)",
                         "    tl.store(out_ptr0 + (xindex), t2, mask=xmask)"]


def test_a_row_kernels_x_mask_bounds_its_rows_not_their_elements():
    lines = _kernel_lines(lower_kernel(kernel_function(KERNELS["softmax"]), LOOPED).source)
    assert lines[:3] == ["    xoffset = tl.program_id(0) * XBLOCK", "    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]",
                         f"    xmask = xindex < {M}"]


def test_a_one_element_output_is_stored_at_a_zero_index_of_the_tiles_shape():
    text = kc.kernel_function([("%x", (1,), "f32")], [("%y", (1,), "f32")], kc._empty("%e", (1,), "f32") + [
        kc.generic("%y", 1, "p", [("%x", (1,), "f32", "d0")], [("%e", (1,), "f32", "d0")],
                   ["%r = math.exp %a0 : f32", "yield %r"])])
    lines = _kernel_lines(lower_kernel(kernel_function(text), KernelLaunch("pointwise", 64, 1, 1)).source)
    assert "    xzero = tl.full([XBLOCK], 0, tl.int32)" in lines  # the flat tile of a pointwise kernel
    assert lines[-1] == "    tl.store(out_ptr0 + (xzero + 0), t2, mask=xmask)"


def test_a_kernel_function_without_results_lowers_to_a_kernel_that_stores_nothing():
    """With no output whose layout x could follow, x runs over the loops in order."""
    text = (f"func.func private @k(%x: tensor<{M}x{N}xf32>) attributes {{costfuse.kernel}} {{\n"
            + "".join(EXP_OF_X) + "  return\n}\n")
    kernel = lower_kernel(kernel_function(text), KernelLaunch("pointwise", 64, 1, 1))
    assert kernel.outputs == () and "tl.store" not in kernel.source
    assert kernel.hbm_bytes == shape_of(text).issued_bytes("pointwise") == M * N * 4


# y = x + h, h a fill of 0.5 the kernel function holds (not an argument).
FILL_OPERAND = kc.kernel_function(
    [("%x", (M, N), "f32")], [("%y", (M, N), "f32")],
    kc._fill("%h", (M, N), "f32", "0.5") + kc._empty("%e", (M, N), "f32")
    + [kc.generic("%y", 2, "pp", [X, ("%h", (M, N), "f32", "d0, d1")], [("%e", (M, N), "f32", "d0, d1")],
                  ["%r = arith.addf %a0, %a1 : f32", "yield %r"])])


@pytest.mark.parametrize("mode, unit", [("persistent", "[1, 1]"), ("pointwise", "[1]")])
def test_a_fill_read_as_an_operand_is_a_one_element_constant_of_its_type(mode, unit):
    launch = KernelLaunch(mode, 2, 128 if mode == "persistent" else 1, 2)
    lines = _kernel_lines(lower_kernel(kernel_function(FILL_OPERAND), launch).source)
    assert lines[-3:-1] == [f"    t2 = tl.full({unit}, 0.5, tl.float32)", "    t3 = t1 + t2"]

B = ("%b", (M,), "f32", "d0")
SUM_XB = ["%p = arith.mulf %a0, %a1 : f32", "%r = arith.addf %p, %o0 : f32", "yield %r"]


def test_a_rowwise_member_reuses_a_passs_per_row_load():
    """s = sum(x * b) per row, then c = s - b: b is loaded once, before pass 0's loop."""
    text = kc.kernel_function(
        [("%x", (M, N), "f32"), ("%b", (M,), "f32")], [("%c", (M,), "f32")],
        kc._fill("%s0", (M,), "f32", "0.0") + kc._empty("%e", (M,), "f32")
        + [kc.generic("%s", 2, "pr", [X, B], [("%s0", (M,), "f32", "d0")], SUM_XB),
           kc.generic("%c", 1, "p", [("%s", (M,), "f32", "d0"), B], [("%e", (M,), "f32", "d0")],
                      ["%r = arith.subf %a0, %a1 : f32", "yield %r"])])
    kernel = lower_kernel(kernel_function(text), LOOPED)
    assert kernel.source.count("tl.load(in_ptr1") == 1
    assert kernel.hbm_bytes == shape_of(text).issued_bytes("looped") == (M * N + M + M) * 4


def test_only_the_first_pass_reading_an_argument_takes_the_rowwise_members_load():
    """c = b + b runs before pass 0, which reads b again (s = sum(x * b)) and takes c's
    load as its own; pass 1 (t = sum(x * b - s)) loads b again, as it is counted."""
    text = kc.kernel_function(
        [("%x", (M, N), "f32"), ("%b", (M,), "f32")], [("%c", (M,), "f32"), ("%t", (M,), "f32")],
        kc._fill("%s0", (M,), "f32", "0.0") + kc._fill("%t0", (M,), "f32", "0.0") + kc._empty("%e", (M,), "f32")
        + [kc.generic("%c", 1, "p", [B], [("%e", (M,), "f32", "d0")], ["%r = arith.addf %a0, %a0 : f32", "yield %r"]),
           kc.generic("%s", 2, "pr", [X, B], [("%s0", (M,), "f32", "d0")], SUM_XB),
           kc.generic("%t", 2, "pr", [X, B, ("%s", (M,), "f32", "d0")], [("%t0", (M,), "f32", "d0")],
                      ["%p = arith.mulf %a0, %a1 : f32", "%q = arith.subf %p, %a2 : f32",
                       "%r = arith.addf %q, %o0 : f32", "yield %r"])])
    kernel = lower_kernel(kernel_function(text), LOOPED)
    assert kernel.source.count("tl.load(in_ptr1") == 2
    assert kernel.hbm_bytes == shape_of(text).issued_bytes("looped") == (2 * M * N + 2 * M + 2 * M) * 4


def test_a_fill_read_by_a_looped_reduction_is_made_before_the_row_loop():
    """``s[r] = sum_j (x[r, j] + 0.5)``: the fill's constant does not vary along the row, so the
    looped kernel makes it once, before the loop."""
    body = kc._fill("%h", (M, N), "f32", "0.5") + kc._fill("%z", (M,), "f32", "0.0") + [
        kc.generic("%s", 2, "pr", [X, ("%h", (M, N), "f32", "d0, d1")], [("%z", (M,), "f32", "d0")],
                   ["%p = arith.addf %a0, %a1 : f32", "%r = arith.addf %p, %o0 : f32", "yield %r"])]
    source = lower_kernel(kernel_function(kc.kernel_function([("%x", (M, N), "f32")], [("%s", (M,), "f32")], body)),
                          LOOPED).source
    assert source.index("tl.full([1, 1], 0.5, tl.float32)") < source.index("for roffset")


@pytest.mark.parametrize("shape", [(2, 3), (1, 4)])
def test_linalg_index_of_dims_of_size_1_and_2_in_a_kernel_function(shape, tmp_path):
    """``z = (10 i + j) + x`` in two members: a dim of size 1 has index 0, a dim of size 2 its own index."""
    idx = ["%i = linalg.index 0 : index", "%j = linalg.index 1 : index", "%c10 = arith.constant 10 : index",
           "%t = arith.muli %i, %c10 : index", "%s = arith.addi %t, %j : index",
           "%n = arith.index_cast %s : index to i64", "%f = arith.sitofp %n : i64 to f32", "yield %f"]
    xs = ("%x", shape, "f32", "d0, d1")
    body = kc._empty("%e1", shape, "f32") + [kc.generic("%y", 2, "pp", [], [("%e1", shape, "f32", "d0, d1")], idx)]
    body += kc._empty("%e2", shape, "f32") + [
        kc.generic("%z", 2, "pp", [("%y", shape, "f32", "d0, d1"), xs], [("%e2", shape, "f32", "d0, d1")],
                   ["%r = arith.addf %a0, %a1 : f32", "yield %r"])]
    func = kernel_function(kc.kernel_function([("%x", shape, "f32")], [("%z", shape, "f32")], body))
    verify_kernel(func, KernelLaunch("pointwise", 8, 1, 1), kernel_dir=tmp_path)


def test_the_index_of_a_size_1_dim_in_a_looped_reduction_is_made_before_the_row_loop(tmp_path):
    """``s[r] = sum_j x[r, 0, j] + k`` with ``k`` the index of the size-1 dim: a constant 0, made once
    before the row loop, not per chunk."""
    x3 = ("%x", (M, 1, N), "f32", "d0, d1, d2")
    body = kc._fill("%z", (M, 1), "f32", "0.0") + [
        kc.generic("%s", 3, "ppr", [x3], [("%z", (M, 1), "f32", "d0, d1")],
                   ["%k = linalg.index 1 : index", "%n = arith.index_cast %k : index to i64",
                    "%f = arith.sitofp %n : i64 to f32", "%p = arith.addf %a0, %f : f32",
                    "%r = arith.addf %p, %o0 : f32", "yield %r"])]
    func = kernel_function(kc.kernel_function([("%x", (M, 1, N), "f32")], [("%s", (M, 1), "f32")], body))
    source = verify_kernel(func, LOOPED, kernel_dir=tmp_path).source
    assert source.index("tl.full([1, 1], 0, tl.int64)") < source.index("for roffset")


def test_a_members_helper_and_notes_reach_the_kernel(tmp_path):
    """A member calling a helper (``math.log1p`` -> ``_log1p``) gets it defined in the kernel file, and
    a member's dropped ``cf.assert`` is noted on the kernel."""
    body = kc._empty("%e1", (M, 1), "f32")
    body.append(f"  %cn = arith.constant {N} : index\n  %c0i = arith.constant 0 : i64\n")
    body.append(kc.generic("%picked", 2, "pp", [("%label", (M, 1), "i64", "d0, d1")], [("%e1", (M, 1), "f32", "d0, d1")],
                           kc.gather_body("%x", (M, N), "f32") + ["yield %g"]))
    body.append(kc.generic("%y", 2, "pp", [("%picked", (M, 1), "f32", "d0, d1")], [("%e1", (M, 1), "f32", "d0, d1")],
                           ["%r = math.log1p %a0 : f32", "yield %r"]))
    func = kernel_function(kc.kernel_function([("%x", (M, N), "f32"), ("%label", (M, 1), "i64")],
                                              [("%y", (M, 1), "f32")], body))
    x = np.random.default_rng(3).uniform(0.0, 2.0, (M, N)).astype(np.float32)
    label = np.arange(M, dtype=np.int64).reshape(M, 1)
    kernel = verify_kernel(func, KernelLaunch("pointwise", 8, 1, 1), kernel_dir=tmp_path,
                           args=[x, label])
    assert "def _log1p(x):" in kernel.source
    assert "cf.assert in the body was dropped (it guards, it computes nothing)" in kernel.notes


def test_a_body_constant_in_a_row_kernel_is_a_tile_of_rank_2():
    """Row kernels compute on [XBLOCK, RBLOCK] tiles: a constant in a member's body is a [1, 1] tile."""
    body = kc._fill("%z", (M,), "f32", "0.0") + [
        kc.generic("%s", 2, "pr", [X], [("%z", (M,), "f32", "d0")],
                   ["%c = arith.constant 1.5 : f32", "%p = arith.mulf %a0, %c : f32",
                    "%r = arith.addf %p, %o0 : f32", "yield %r"])]
    func = kernel_function(kc.kernel_function([("%x", (M, N), "f32")], [("%s", (M,), "f32")], body))
    assert "tl.full([1, 1], 1.5, tl.float32)" in lower_kernel(func, LOOPED).source


def test_a_kernel_function_holding_another_op_is_refused_naming_it():
    from costfuse.data.lowering.kernel_function import CLONED_OPS

    body = ["  %c1 = arith.constant 1.0 : f32\n", "  %two = arith.addf %c1, %c1 : f32\n", *EXP_OF_X]
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], [("%y", (M, N), "f32")], body))
    assert (err.op, err.reason) == ("arith.addf", "@k: a kernel function holds only generics and their cloned "
                                                  f"inits and constants ({', '.join(CLONED_OPS)})")


def test_a_kernel_function_without_a_generic_is_refused():
    err = _refusal(kc.kernel_function([("%x", (M, N), "f32")], [("%x", (M, N), "f32")], []))
    assert (err.op, err.reason) == ("func.func", "@k: a kernel function without a linalg.generic")


def test_members_that_cannot_share_a_row_kernel_are_refused_with_the_reason():
    """Two members over different loops are no one kernel: the refusal carries analyze_kernel's reason."""
    half = ("%w", (M, N // 2), "f32", "d0, d1")
    body = kc._empty("%e1", (M, N), "f32") + [kc.generic("%y", 2, "pp", [X], [("%e1", (M, N), "f32", "d0, d1")],
                                                         ["%r = math.exp %a0 : f32", "yield %r"])]
    body += kc._empty("%e2", (M, N // 2), "f32") + [
        kc.generic("%z", 2, "pp", [half], [("%e2", (M, N // 2), "f32", "d0, d1")], ["%r = math.exp %a0 : f32", "yield %r"])]
    text = kc.kernel_function([("%x", (M, N), "f32"), ("%w", (M, N // 2), "f32")],
                              [("%y", (M, N), "f32"), ("%z", (M, N // 2), "f32")], body)
    err = _refusal(text)
    assert (err.op, err.reason) == ("func.func", f"@k: members have different loop extents [({M}, {N // 2}), ({M}, {N})]")


def test_a_pointwise_launch_of_a_row_kernel_is_refused_naming_the_launch():
    launch = KernelLaunch("pointwise", 128, 1, 2)
    with pytest.raises(ValueError) as err:
        lower_kernel(kernel_function(KERNELS["softmax"]), launch)
    message = one_line(err, "@k: ", "pointwise x128 r1 w2")
    assert re.search(r"\breductions or per-row members\b", message), message  # the reason, legible as words


def test_a_kernel_file_says_where_it_came_from_and_how_outputs_are_passed():
    from costfuse.data.lowering.kernel import ORIGIN, OUTPUTS_NOTE

    source = lower_kernel(kernel_function(KERNELS["softmax"]), KernelLaunch("persistent", 2, 128, 2)).source
    assert source.startswith(f"# Generated by CostFuse {ORIGIN}.  Do not edit.\n")
    assert f"\n{OUTPUTS_NOTE}\nINPUTS = " in source


def test_row_and_pointwise_kernels_report_their_sizes(tmp_path):
    """A row kernel runs over rows (RNUMEL = the row length); a pointwise one over every element,
    here with programs of 32 elements, so the grid needs all 240 of them."""
    row = lower_kernel(kernel_function(KERNELS["softmax"]), KernelLaunch("persistent", 2, 128, 2))
    assert (row.xnumel, row.rnumel) == (M, N) and f"XNUMEL = {M}\nRNUMEL = {N}\n" in row.source
    flat = verify_kernel(kernel_function(KERNELS["pointwise_f16"]), KernelLaunch("pointwise", 32, 1, 1),
                         kernel_dir=tmp_path)
    assert (flat.xnumel, flat.rnumel) == (240, 1) and "XNUMEL = 240\nRNUMEL = 1\n" in flat.source


def test_a_function_that_is_no_row_kernel_is_lowered_by_v1_at_the_launch_asked():
    from costfuse.launch import LaunchConfig, heuristic_config

    func = kernel_function(kc.column_sum())          # sums 6 rows of 40 columns
    assert lower_kernel(func, KernelLaunch("persistent", 16, 8, 4)).config == LaunchConfig(16, 8, 4)
    assert heuristic_config(40, 6) != LaunchConfig(16, 8, 4)
    assert lower_kernel(func).config == heuristic_config(40, 6)     # no launch: v1's heuristic


def test_body_ops_counts_every_members_ops_but_their_yields():
    body = EXP_OF_X + kc._empty("%e2", (M, N), "f32") + [
        kc.generic("%z", 2, "pp", [("%y", (M, N), "f32", "d0, d1"), X], [("%e2", (M, N), "f32", "d0, d1")],
                   ["%s = arith.addf %a0, %a1 : f32", "%r = arith.mulf %s, %s : f32", "yield %r"])]
    func = kernel_function(kc.kernel_function([("%x", (M, N), "f32")], [("%z", (M, N), "f32")], body))
    kernel = lower_kernel(func, KernelLaunch("pointwise", 256, 1, 2))
    assert kernel.body_ops == 3 and kernel.ir == str(func) and kernel.ir.startswith("func.func private @k(")


def test_only_func_ops_are_kernel_functions_and_only_those_marked():
    from costfuse.data.lowering.kernel_function import kernel_functions, kernel_members

    from costfuse.ir import parse_module

    plain = kc.kernel_function([("%x", (M, N), "f32")], [("%y", (M, N), "f32")], EXP_OF_X, name="plain")
    module = parse_module(KERNELS["softmax"] + plain.replace(" attributes {costfuse.kernel}", ""))
    assert [str(f.attributes["sym_name"]) for f in kernel_functions(module)] == ['"k"']
    (member,) = kernel_members(kernel_functions(module)[0])[:1]
    with pytest.raises(UnsupportedOp) as err:
        lower_kernel(member)
    assert (err.value.op, err.value.reason) == ("linalg.generic", "only func.func kernel functions are lowered")
