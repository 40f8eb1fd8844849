"""``xla``: XLA's default GPU pipeline (docs/peers.md X-f to X-j), one test per rule."""

import pytest

from costfuse.cost_models import policy_class
from costfuse.cost_models.xla import (Xla, native_launch, row_threads, rows_per_block, smallest_input_bits,
                                      vector_size)
from costfuse.cost_models.xla_triton import XlaTriton
from costfuse.graph import function_blocks
from costfuse.groups import _effective_scalar, form_groups
from costfuse.ir import load_module, parse_module
from costfuse.launch import KernelLaunch
from helpers.peer_kernels import EXAMPLE, Kernels, chain, many_reductions, rmsnorm, softmax, whole


def _formed(text: str, model):
    module = parse_module(text)
    kernels, decisions = form_groups(function_blocks(module)[0], model)
    return module, kernels, [d.line() for d in decisions]


# --- X-f: the pipeline and the catalog ------------------------------------------------------------
def test_the_catalog_names_the_default_pipeline_xla_and_the_triton_subset_xla_triton():
    assert policy_class("xla", "groups") is Xla and Xla.multi_output_fusion
    assert policy_class("xla-triton", "groups") is XlaTriton and not XlaTriton.multi_output_fusion


# --- X-h: the native emitters' launch ---------------------------------------------------------------
@pytest.mark.parametrize("n,threads", [(512, 32), (1000, 64), (8192, 512), (16384, 1024), (32768, 1024),
                                       (20000, 1024)])
def test_row_threads_are_16_elements_each_rounded_to_a_warp_and_capped_at_1024(n, threads):
    assert row_threads(n) == threads


@pytest.mark.parametrize("rows,threads,kept", [(4096, 32, 8), (4, 32, 4), (4096, 256, 1), (4096, 128, 2),
                                               (2, 128, 2), (4096, 64, 4)])
def test_rows_per_block_fill_256_threads_only_when_a_row_takes_half_or_less(rows, threads, kept):
    assert rows_per_block(rows, threads) == kept


@pytest.mark.parametrize("n,threads,bits,vec", [
    (1001, 64, 32, 1),      # odd row: no vectors
    (100, 64, 32, 1),       # 2 x 64 threads > 100: some thread would idle
    (8192, 512, 32, 2),     # 32-bit inputs: 2 (16-byte loads are slower)
    (1536, 512, 16, 2),     # 4 x 512 > 1536: 2
    (8192, 512, 16, 4),     # bf16, long row divisible by 4: 4
    (8194, 512, 16, 2),     # bf16, long row not divisible by 4: 2
])
def test_vector_size_follows_get_vector_size_for_mlir(n, threads, bits, vec):
    assert vector_size(n, threads, bits) == vec


def test_a_row_reduction_runs_at_the_row_emitters_threads_with_no_tile_limit():
    _, shape = whole(softmax(4096, 32768))        # XLA-Triton has no tile for this row (docs/peers.md)
    assert XlaTriton().best_config(shape) is None
    launch, how = native_launch(shape)
    assert launch == KernelLaunch("looped", 1, 2048, 32)   # 1024 threads x vectors of 2 per trip
    assert "1024 threads per row x 1 row(s), vector 2" in how
    assert smallest_input_bits(shape) == 32


def test_short_rows_pack_several_rows_per_block():
    _, shape = whole(softmax(4096, 512))           # 32 threads per row, 8 rows per 256-thread block
    assert native_launch(shape)[0] == KernelLaunch("looped", 8, 64, 8)


def test_a_pointwise_kernel_runs_at_the_loop_emitters_128_threads():
    _, shape = whole(chain(3, (4096, 8192)))
    assert native_launch(shape)[0] == KernelLaunch("pointwise", 512, 1, 4)
    assert Xla().best_config(shape).launch == KernelLaunch("pointwise", 512, 1, 4)


# --- X-g: one pass over the row --------------------------------------------------------------------
def test_producers_fuse_into_a_reduction_but_nothing_reads_the_row_after_it():
    k = Kernels(rmsnorm(64, 4096))
    x = Xla()
    a, b = x.best_config(k.shape(0)), x.best_config(k.shape(1))
    assert x.merge_verdict(a, b, x.best_config(k.shape(0, 1)), k.shape(0, 1)).merge   # x^2 into its row sum
    two_pass = k.shape(0, 1, 2, 3)                  # y = x * rstd * w reads the row after the sum
    v = x.merge_verdict(a, b, x.best_config(two_pass), two_pass)
    assert not v.merge and "one pass over the row" in v.reason and "needs 2" in v.reason


def test_a_native_softmax_is_three_kernels_of_one_pass_each():
    module, kernels, _ = _formed(softmax(4096, 8192), Xla())
    assert len(kernels) == 3
    assert all(k.shape.n_passes == 1 for k in kernels)
    _, kernels_triton, _ = _formed(softmax(4096, 8192), XlaTriton())
    assert len(kernels_triton) == 1                 # Triton's tile fits 8192: one whole-row kernel


# --- X-i: producer duplication ----------------------------------------------------------------------
def test_a_cheap_producer_is_duplicated_into_each_reader():
    _, kernels, lines = _formed(softmax(4096, 8192), Xla())
    assert any(line.startswith("recompute") for line in lines)
    assert any(k.recomputed for k in kernels)       # exp(x - max) in the sum's kernel and the divide's
    _, _, triton_lines = _formed(softmax(4096, 8192), XlaTriton())
    assert not any(line.startswith("recompute") for line in triton_lines)


def test_duplication_is_refused_when_the_reader_would_need_a_second_pass():
    k = Kernels(softmax(4096, 8192))
    x = Xla()
    a, b = x.best_config(k.shape(0)), x.best_config(k.shape(1))
    merged_b = k.shape(0, 1)                        # the max recomputed inside exp(x - max): two passes
    v = x.recompute_verdict(a, b, None, x.best_config(merged_b), merged_b)
    assert not v.merge and "one pass over the row" in v.reason


# --- X-j: MultiOutputFusion after forming ------------------------------------------------------------
def test_sibling_reductions_of_one_tensor_become_one_multi_output_kernel():
    _, kernels, lines = _formed(many_reductions(2), Xla())
    assert any(k.shape.reductions == 2 for k in kernels)
    assert any(line.startswith("merge") and "multi-output siblings" in line for line in lines)
    _, kernels_triton, _ = _formed(many_reductions(2), XlaTriton())   # no multi-output phase
    assert not any(k.shape.reductions == 2 and len(k.members) == 2 for k in kernels_triton)


def test_a_sibling_that_would_need_a_second_pass_stays_apart():
    _, kernels, lines = _formed(many_reductions(2), Xla())
    assert len(kernels) == 2                         # the two sums; x + both sums reads the row after them
    assert any(line.startswith("keep") and "multi-output" in line and "one pass" in line for line in lines)


def test_a_producer_merges_into_a_reader_that_keeps_it_stored_when_no_slower():
    module = load_module(EXAMPLE)
    _, decisions = form_groups(function_blocks(module)[0], Xla())
    assert any(d.verdict == "merge" and "multi-output producer-consumer" in d.reason for d in decisions)


def test_a_one_element_operand_is_no_sibling_link():
    module = parse_module("func.func @f(%s: tensor<1x1xf32>, %x: tensor<8x32xf32>, %c: f32) -> tensor<8x32xf32> {\n"
                          "  return %x : tensor<8x32xf32>\n}\n")
    s, x, c = function_blocks(module)[0].arguments
    assert _effective_scalar(s) and _effective_scalar(c)
    assert not _effective_scalar(x) and not _effective_scalar(3)   # a kernel's outputs are never skipped


# --- the verdicts and the emitter's numbers at their bounds (the mutation check's survivors) -----------------
def _xe(seconds: float):
    """An ``XlaEstimate`` whose X5 time is ``seconds``."""
    from costfuse.cost_models.xla_triton import XlaEstimate

    return XlaEstimate(KernelLaunch("persistent", 1, 1024, 4), seconds, 0, xla_time_s=seconds)


def _merged(passes: int = 1):
    """A stand-in merged kernel: its passes without online sums, within the budget."""
    from types import SimpleNamespace

    return SimpleNamespace(passes_without_online=passes, inputs=(), outputs=(), members=())


def test_multi_output_siblings_merge_at_no_priority_when_one_pass():
    from costfuse.policy import MergeVerdict

    x = Xla()
    assert x.multi_output_verdict("siblings", _xe(3e-6), _xe(4e-6), _xe(1.0), _merged(), ()) == \
        MergeVerdict(True, 0.0, "xla MultiOutputFusion: siblings, one pass, within the budget")
    v = x.multi_output_verdict("siblings", _xe(3e-6), _xe(4e-6), _xe(6e-6), _merged(2), ())
    assert (v.merge, v.priority) == (False, 0.0) and v.reason.startswith("xla: the native emitters make one pass")


def test_a_producer_consumer_multi_output_merge_must_not_be_slower_by_x5():
    from costfuse.policy import MergeVerdict

    x = Xla()
    launch = x._target.launch_overhead_s
    a, b = _xe(1.0), _xe(1.0)
    saving = launch + 1.0 + 1.0 - 0.5
    assert x.multi_output_verdict("producer-consumer", a, b, _xe(0.5), _merged(), ()) == MergeVerdict(
        True, saving, f"xla MultiOutputFusion: producer-consumer, saves {saving * 1e6:.3f} us (X5)")
    loss = launch + 1.0 + 1.0 - 3.0
    assert x.multi_output_verdict("producer-consumer", a, b, _xe(3.0), _merged(), ()) == MergeVerdict(
        False, loss, f"xla MultiOutputFusion: slower fused ({loss * 1e6:.3f} us, X5)")
    even = _xe(launch + 1.0 + 1.0)   # no time saved, none lost: merged
    assert x.multi_output_verdict("producer-consumer", a, b, even, _merged(), ()).merge


def test_duplication_weighs_the_producer_alone_against_the_time_each_user_adds():
    from costfuse.policy import MergeVerdict

    x = Xla()
    launch = x._target.launch_overhead_s
    a, b = _xe(2.0), _xe(3.0)
    gain = launch + 2.0 - 1 * (4.0 - 3.0)
    assert x.recompute_verdict(a, b, None, _xe(4.0), _merged()) == MergeVerdict(
        True, gain, f"xla duplicates the producer into its 1 users: priority {gain * 1e6:.3f} us (X5)")
    loss = launch + 2.0 - 1 * (13.0 - 3.0)
    assert x.recompute_verdict(a, b, None, _xe(13.0), _merged()) == MergeVerdict(
        False, loss, f"xla duplicates the producer into its 1 users: priority {loss * 1e6:.3f} us (X5) < 0: not fused")
    assert x.recompute_verdict(a, _xe(0.0), None, _xe(launch + 2.0), _merged()).merge   # priority exactly 0
    v = x.recompute_verdict(a, b, None, _xe(4.0), _merged(2))
    assert (v.merge, v.priority) == (False, gain) and "one pass over the row" in v.reason


def test_duplication_counts_every_user_of_the_producer_and_times_it_alone():
    k = Kernels(softmax(64, 1024))
    x = Xla()
    producer = k.ops[1]             # exp(x - max): read by the sum and by the divide
    users = len({u.owner.operation for r in producer.results for u in r.uses})
    a, b = _xe(1.0), _xe(3e-6)
    alone = x._alone_time(producer, a)
    assert users == 2 and alone != 1.0
    v = x.recompute_verdict(a, b, None, _xe(4e-6), _merged(), producer)
    assert v.priority == pytest.approx(x._target.launch_overhead_s + alone - users * 1e-6)
    assert "into its 2 users" in v.reason


def test_a_merge_the_native_emitters_refuse_keeps_its_x5_priority():
    x = Xla()
    a, b, ab = _xe(1.0), _xe(1.0), _xe(0.5)
    v = x.merge_verdict(a, b, ab, _merged(2))
    assert (v.merge, v.priority) == (False, x.priority(a, b, ab)) and "one pass over the row" in v.reason


def test_the_native_estimate_names_the_emitter_and_carries_x5s_time():
    from costfuse.cost_models.xla_triton import xla_time

    _, shape = whole(softmax(4096, 512))
    est = Xla().best_config(shape)
    assert est.reason.startswith("xla native row-reduction emitter")
    assert est.xla_time_s == xla_time(shape, est.launch.mode, Xla()._target) > 0


def test_the_emitters_numbers_at_their_bounds():
    from types import SimpleNamespace

    assert smallest_input_bits(SimpleNamespace(inputs=())) == 32          # no input: XLA's default width
    assert rows_per_block(4, 512) == 1 and rows_per_block(8, 96) == 2      # a row of 512 threads; 256 // 96
    assert vector_size(64, 32, 16) == 2 and vector_size(128, 32, 16) == 4  # 2 or 4 loads per thread, exactly
    launch, _ = native_launch(SimpleNamespace(pointwise=True, n_rows=64, n=1024))
    assert launch.short() == "pointwise x512 r1 w4"


def test_explain_configs_shows_the_native_launch_as_the_only_one_weighed():
    _, shape = whole(softmax(4096, 512))
    (weighed,) = Xla().weigh_configs(shape)
    assert weighed.launch == KernelLaunch("looped", 8, 64, 8)
    assert weighed.verdict == ("picked: xla native row-reduction emitter: 32 threads per row x 8 row(s), vector 2, "
                               "its only launch")
