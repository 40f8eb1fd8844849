"""Mode ``prune``'s two pieces without Inductor's codegen: the key a kernel's decision is filed under, and what
``prune_configs`` makes of a candidate list (stand-in heads); and the three spellings of a config."""

from __future__ import annotations

import logging
import re
from collections import Counter
from types import SimpleNamespace

import pytest
import triton

from costfuse.inductor.configs import (
    MAX_R0_BLOCK, NUM_STAGES, config_dict, fixed_config, inductor_can_launch, launch_of, triton_kwargs,
)
from costfuse.inductor.prune import JIT, prune_configs, source_key
from costfuse.launch import KernelLaunch

BODY = "(in_ptr0, out_ptr0, xnumel, r0_numel):\n    xoffset = tl.program_id(0)\n    # def note(\n"
HEADER = "import triton\nimport triton.language as tl\n@triton_heuristics.reduction(size_hints=[64, 128])\n"


def test_a_kernel_is_keyed_by_its_function_under_any_name_whatever_comes_before_it():
    at_codegen = HEADER + JIT + "def KERNEL_NAME" + BODY
    loaded = "def triton_red_fused_0" + BODY   # the loaded kernel's own source: the function alone
    assert source_key(at_codegen) == source_key(loaded)
    assert source_key("import triton\n\ndef other_name" + BODY) == source_key(loaded)   # no decorator line
    helper = "def helper(x):\n    return x\n"   # a def before the kernel's is not the kernel
    assert source_key(helper + JIT + "def KERNEL_NAME" + BODY) == source_key(loaded)
    assert source_key(HEADER + helper + JIT + "def KERNEL_NAME" + BODY) == source_key(loaded)
    assert re.fullmatch(r"[0-9a-f]{64}", source_key("x = 1\n")), "a source without a function still has a key"


def test_two_kernels_differing_before_a_shared_tail_have_two_keys():
    a = JIT + "def k" + BODY
    b = JIT + "def k" + BODY.replace("program_id(0)", "program_id(1)")
    assert source_key(a) != source_key(b)


def test_the_three_spellings_of_a_config():
    persistent, looped = KernelLaunch("persistent", 2, 8192, 8), KernelLaunch("looped", 1, 2048, 16)
    assert config_dict(persistent) == {"persistent": True, "xblock": 2, "rblock": 8192, "num_warps": 8}
    assert config_dict(looped) == {"persistent": False, "xblock": 1, "rblock": 2048, "num_warps": 16}
    assert fixed_config(looped) == {"XBLOCK": 1, "R0_BLOCK": 2048, "num_warps": 16, "num_stages": NUM_STAGES}
    assert triton_kwargs(persistent) == {"XBLOCK": 2} and triton_kwargs(looped) == {"XBLOCK": 1, "R0_BLOCK": 2048}
    assert launch_of({"XBLOCK": 2, "R0_BLOCK": 64}, 8, True, 5000) == KernelLaunch("persistent", 2, 8192, 8)
    assert launch_of({"R0_BLOCK": 64}, 4, False, 5000) == KernelLaunch("looped", 1, 64, 4)
    assert inductor_can_launch(KernelLaunch("persistent", 1, MAX_R0_BLOCK, 32))
    assert not inductor_can_launch(KernelLaunch("looped", 1, 2 * MAX_R0_BLOCK, 32))


class Decider:
    """Stand-in heads: the launches in ``spilling`` spill; the pick (of the mode asked) is ``pick``."""

    def __init__(self, spilling, pick, prune_cut="f1"):
        self.spilling, self.pick_launch, self.asked, self.prune_cut = set(spilling), pick, [], prune_cut

    def predict(self, kernel, launches, cut):
        assert launches, "prune never asks the heads about no candidates"
        self.asked.append(("predict", kernel, cut))
        return {"spills": [launch in self.spilling for launch in launches]}

    def pick(self, kernel, mode):
        self.asked.append(("pick", kernel, mode))
        return (None, "none") if self.pick_launch is None else (SimpleNamespace(launch=self.pick_launch), "")


KERNEL = SimpleNamespace(n=4096)
DECISION = SimpleNamespace(kernel=KERNEL)


def _looped(*rw):
    return [triton.Config({"XBLOCK": 1, "R0_BLOCK": r}, num_warps=w, num_stages=1) for r, w in rw]


def test_prune_drops_the_spilling_candidates_and_adds_the_pick_it_does_not_hold(caplog):
    configs = _looped((2048, 16), (4096, 4), (1024, 8))
    decider = Decider({KernelLaunch("looped", 1, 4096, 4)}, KernelLaunch("looped", 2, 512, 8))
    stats = Counter({"kept": 1, "dropped": 2, "added": 3})   # a registry's counts so far: added to
    with caplog.at_level(logging.INFO, logger="costfuse.inductor"):
        kept = prune_configs(configs, DECISION, decider, False, stats=stats)
    assert kept[:2] == [configs[0], configs[2]]
    added = kept[2]
    assert (added.kwargs, added.num_warps, added.num_stages) == ({"XBLOCK": 2, "R0_BLOCK": 512}, 8, NUM_STAGES)
    assert stats == Counter({"kept": 3, "dropped": 3, "added": 4})
    assert caplog.messages == ["costfuse.inductor: prune 1 of 3 candidates, add the pick looped x2 r512 w8"]
    assert decider.asked == [("predict", KERNEL, "f1"), ("pick", KERNEL, "looped")]


def test_a_pick_among_the_kept_candidates_is_not_added_twice(caplog):
    configs = _looped((2048, 16), (4096, 4))
    decider = Decider(set(), KernelLaunch("looped", 1, 4096, 4))
    stats = Counter()
    with caplog.at_level(logging.INFO, logger="costfuse.inductor"):
        assert prune_configs(configs, DECISION, decider, False, stats=stats) == configs
    assert stats == Counter({"kept": 2, "dropped": 0, "added": 0})
    assert caplog.messages == ["costfuse.inductor: prune 0 of 2 candidates"]


def test_a_spilling_candidate_the_heads_would_pick_is_added_back_as_the_pick():
    configs = _looped((2048, 16), (4096, 4))
    spilling = KernelLaunch("looped", 1, 4096, 4)
    kept = prune_configs(configs, DECISION, Decider({spilling}, spilling), False)
    assert [c.kwargs["R0_BLOCK"] for c in kept] == [2048, 4096]


def test_a_persistent_kernels_candidates_hold_the_padded_row_and_its_pick_is_persistent():
    configs = [triton.Config({"XBLOCK": 1}, num_warps=w, num_stages=1) for w in (4, 8)]
    decider = Decider({KernelLaunch("persistent", 1, 4096, 4)}, KernelLaunch("persistent", 1, 4096, 16))
    kept = prune_configs(configs, DECISION, decider, True)
    assert [(c.kwargs, c.num_warps) for c in kept] == [({"XBLOCK": 1}, 8), ({"XBLOCK": 1}, 16)]
    assert decider.asked[1] == ("pick", KERNEL, "persistent")


@pytest.mark.parametrize("xblock, added", [(1, True), (2, False)])
def test_a_kernel_without_an_x_dimension_takes_only_a_pick_of_one_row(xblock, added):
    configs = _looped((2048, 16))
    kept = prune_configs(configs, DECISION, Decider(set(), KernelLaunch("looped", xblock, 512, 8)), False,
                         no_x_dim=True)
    assert len(kept) == 1 + added


def test_with_every_candidate_spilling_and_no_pick_inductors_list_stands():
    configs = _looped((2048, 16), (4096, 4))
    stats = Counter()
    decider = Decider({KernelLaunch("looped", 1, 2048, 16), KernelLaunch("looped", 1, 4096, 4)}, None)
    assert prune_configs(configs, DECISION, decider, False, stats=stats) is configs
    assert not stats
    assert prune_configs([], DECISION, Decider(set(), None), False) == []


def test_prune_asks_the_heads_at_the_deciders_prune_cut():
    decider = Decider(set(), KernelLaunch("looped", 1, 2048, 16), prune_cut="recall")
    prune_configs(_looped((2048, 16)), DECISION, decider, False)
    assert decider.asked[0] == ("predict", KERNEL, "recall")
