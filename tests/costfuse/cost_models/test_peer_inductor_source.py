"""The ``inductor`` peer's config lists are Inductor's own (issue #26, "the peers as they run").

``costfuse/cost_models/inductor.py`` restates Inductor's launch heuristics (I2-I4, docs/peers.md).  Here
they are held, over grids of sizes, to the functions they restate, called from the torch in this venv
(``torch/_inductor/runtime/triton_heuristics.py``): ``triton_config_reduction``,
``_persistent_reduction_configs``, ``_reduction_configs`` and ``pointwise``.  The device is described
as an sm_90 (or sm_100) CUDA device, and ``torch.cuda.is_available`` answers yes: on a machine with no
GPU the persistent list takes another vendor's branch, and the peer restates the CUDA one.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from costfuse.cost_models.inductor import (Inductor, looped_configs, next_pow2, pointwise_config,  # noqa: E402
                                           reduction_config)


@pytest.fixture(scope="module")
def heuristics():
    from torch._inductor.runtime import triton_heuristics

    return triton_heuristics


@pytest.fixture
def cuda(monkeypatch):
    """``triton_meta`` of an sm_90 CUDA device (``major``: another generation), with CUDA "available"."""
    from torch._inductor.runtime.hints import DeviceProperties

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    return lambda major=9: {"device": DeviceProperties(type="cuda", index=0, multi_processor_count=132,
                                                       cc=major * 10, major=major, warp_size=32)}


def _inner():
    from torch._inductor.runtime.hints import ReductionHint

    return ReductionHint.INNER


def _launch(config, rblock: int | None = None) -> tuple[int, int, int]:
    """``(XBLOCK, R0_BLOCK, num_warps)`` of an Inductor ``Config`` (a persistent one has no R0_BLOCK: the
    whole row, ``rblock``)."""
    return config.kwargs.get("XBLOCK", 1), config.kwargs.get("R0_BLOCK", rblock), config.num_warps


ROWS = (1, 2, 8, 64, 128, 512, 1024, 2048, 4096, 16384, 65536)


@pytest.mark.parametrize("pm", ROWS)
def test_reduction_config_is_triton_config_reduction(heuristics, pm):
    import inspect

    # torch 2.13 takes the warp size; 2.11 (the GPU machine's) assumes 32 (experiments/torch_compat.sh)
    warp = {"warp_size": 32} if "warp_size" in inspect.signature(heuristics.triton_config_reduction).parameters \
        else {}
    for pn in (2048, 4096, 8192, 32768, 131072):
        for x in (1, 2, 8, 64):
            for r in (8, 512, 2048, 32768, 65536):
                for intensive in (False, True):
                    for warps in (None, 4):
                        theirs = heuristics.triton_config_reduction(
                            {"x": pm, "r0_": pn}, x, r, num_warps=warps, register_intensive=intensive,
                            reduction_hint=_inner(), **warp)
                        assert reduction_config(pm, pn, x, r, warps, intensive) == _launch(theirs), \
                            (pm, pn, x, r, intensive, warps)


@pytest.mark.parametrize("pm", ROWS)
def test_the_persistent_list_is_inductors_on_cuda(heuristics, cuda, pm):
    for pn in (2, 16, 64, 128, 256, 512, 1024):
        theirs = heuristics._persistent_reduction_configs({"x": pm, "r0_": pn}, _inner(), inductor_meta={},
                                                          triton_meta=cuda())
        assert Inductor._persistent(pm, pn) == [_launch(c, pn) for c in theirs], (pm, pn)


@pytest.mark.parametrize("major, arch", [(9, "sm_90"), (10, "sm_100")])
@pytest.mark.parametrize("loads, reductions", [(1, 1), (6, 2), (7, 2), (8, 2), (12, 1)])
def test_the_looped_list_is_inductors(heuristics, cuda, major, arch, loads, reductions):
    for pm in ROWS:
        for pn in (2048, 4096, 8192, 32768, 65536, 262144):
            for add in (False, True):
                meta = {"reduction_hint": _inner(), "num_load": loads, "num_reduction": reductions,
                        "add_persistent_rblock": add}
                theirs = heuristics._reduction_configs(size_hints={"x": pm, "r0_": pn}, inductor_meta=meta,
                                                       triton_meta=cuda(major))
                assert looped_configs(pm, pn, loads + reductions, add, arch) == [_launch(c) for c in theirs], \
                    (pm, pn, add)


def test_the_pointwise_list_is_inductors(heuristics, cuda):
    for numel in (1, 100, 1024, 4096, 65536, 1 << 20, 1 << 24, 3 * (1 << 28)):
        hint = next_pow2(numel)
        bs = max(256, min(hint // 128, 1024))
        ours = [pointwise_config(hint, bs, 256), pointwise_config(hint, bs // 2, 64)]
        theirs = heuristics.pointwise({"x": hint}, triton_meta=cuda(), inductor_meta={}, return_configs=True)
        assert ours == [(c.kwargs["XBLOCK"], c.num_warps) for c in theirs], numel


def test_the_looped_list_is_sm_90s_unless_told_otherwise():
    for pn in (2048, 65536):
        assert looped_configs(4096, pn, 2, True) == looped_configs(4096, pn, 2, True, "sm_90")
