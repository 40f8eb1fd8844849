"""``inductor``'s autotuning as Inductor runs it (docs/peers.md I5, issue #26 part 4): the spill filter
and RBLOCK halving read an injected labeller (ptxas in experiments, the estimate as the named
fallback), and each kernel carries the range over the survivors Inductor would time on the GPU."""

import numpy as np

from costfuse.cost_models.inductor import Inductor, InductorEstimate
from costfuse.data.ptxas_labels import PTXAS, PtxasLabeller
from costfuse.estimates import ESTIMATED, ConfigLabels
from costfuse.graph import function_blocks
from costfuse.groups import form_groups
from costfuse.ir import parse_module
from costfuse.launch import KernelLaunch
from costfuse.targets import get_target
from helpers.peer_kernels import FakePool, softmax, whole

FULL_ROW, CHUNKED = KernelLaunch("looped", 1, 8192, 16), KernelLaunch("looped", 1, 2048, 16)


class Labeller:
    """Fixed labels per config: ``{launch: (regs, spill bytes, local bytes, ok)}``, else 32 registers
    (not > 32: no RBLOCK halving) and no spills; counts its calls."""

    def __init__(self, table: dict, source: str = "fixed labels"):
        self.table, self.source, self.calls = table, source, []

    def __call__(self, shape, configs):
        self.calls.append(list(configs))
        cols = [np.array(c) for c in zip(*(self.table.get(c, (32, 0, 0, True)) for c in configs))]
        return ConfigLabels(cols[0].astype(float), cols[1].astype(float), cols[2].astype(float),
                            cols[3].astype(bool), self.source)


def test_without_a_labeller_the_estimate_is_the_named_fallback():
    _, shape = whole(softmax(4096, 8192))
    est = Inductor().best_config(shape)
    assert isinstance(est, InductorEstimate) and est.labels == ESTIMATED
    assert ESTIMATED in est.reason and "fallback" in ESTIMATED


def test_the_spill_filter_reads_the_labellers_local_bytes():
    _, shape = whole(softmax(4096, 8192))         # candidates: the full row, then RBLOCK 2048
    spilling = Labeller({FULL_ROW: (32, 600, 68, True)})   # 68 B of stack = 17 > 16 spills
    est = Inductor(labeller=spilling).autotune(shape)
    assert est.launch == CHUNKED and est.survivors == 1 and est.labels == "fixed labels"
    assert "1 dropped for > 16 spills" in est.reason
    at_threshold = Labeller({FULL_ROW: (32, 600, 64, True)})   # 64 B = 16 spills: kept
    assert Inductor(labeller=at_threshold).autotune(shape).survivors == 2


def test_a_config_that_does_not_compile_is_no_survivor():
    _, shape = whole(softmax(4096, 8192))
    est = Inductor(labeller=Labeller({FULL_ROW: (0, 0, 0, False)})).autotune(shape)
    assert est.launch == CHUNKED and est.survivors == 1


def test_the_kernel_carries_the_dram_range_over_the_survivors_and_whether_one_spills():
    _, shape = whole(softmax(4096, 8192))
    target = get_target("sm_90")
    est = Inductor(labeller=Labeller({CHUNKED: (32, 16, 8, True)})).autotune(shape)
    dram = [shape.dram_bytes_at(c, target) for c in (FULL_ROW, CHUNKED)]
    assert (est.survivors, est.dram_fewest, est.dram_most) == (2, min(dram), max(dram))
    assert est.survivor_spills                    # 16 B of spills, yet only 2 spills: it survives
    clean = Inductor(labeller=Labeller({})).autotune(shape)
    assert not clean.survivor_spills


def test_when_every_config_is_dropped_the_first_runs_and_is_the_range():
    _, shape = whole(softmax(4096, 8192))
    est = Inductor(labeller=Labeller({FULL_ROW: (32, 900, 400, True), CHUNKED: (32, 900, 400, True)})).autotune(shape)
    assert est.launch == FULL_ROW and est.survivors == 1 and est.survivor_spills
    assert "all spill: the first" in est.reason


def test_when_every_config_is_dropped_the_survivor_is_the_first_not_another():
    """The one survivor is the first config's labels: here only the first spills (the second's stack frame is
    local memory without spill stores), so the range says a survivor spills."""
    _, shape = whole(softmax(4096, 8192))
    est = Inductor(labeller=Labeller({FULL_ROW: (32, 900, 400, True), CHUNKED: (32, 0, 400, True)})).autotune(shape)
    assert est.launch == FULL_ROW and est.survivors == 1 and est.survivor_spills


def test_rblock_halving_reads_the_labellers_registers():
    _, shape = whole(softmax(4096, 2048))          # one candidate, looped (2, 2048, 16)
    halved = KernelLaunch("looped", 2, 1024, 16)
    many = Labeller({KernelLaunch("looped", 2, 2048, 16): (64, 0, 0, True)})   # 64 regs: too few blocks
    assert Inductor(labeller=many).autotune(shape).survivors == 2
    assert halved in many.calls[-1]
    few = Labeller({KernelLaunch("looped", 2, 2048, 16): (32, 0, 0, True)})    # 32 regs: not > 32
    assert Inductor(labeller=few).autotune(shape).survivors == 1


def test_formation_asks_the_labeller_once_per_formed_kernel_only():
    module = parse_module(softmax(4096, 8192))
    labeller = Labeller({FULL_ROW: (32, 600, 68, True)})
    kernels, _ = form_groups(function_blocks(module)[0], Inductor(labeller=labeller))
    assert len(kernels) == 1 and len(labeller.calls) == 1    # not once per candidate formation priced
    assert kernels[0].estimate.launch == CHUNKED and kernels[0].estimate.labels == "fixed labels"


def test_the_ptxas_labeller_reads_registers_spills_and_the_stack_frame_per_config():
    _, shape = whole(softmax(4096, 8192))
    labeller = PtxasLabeller(FakePool())
    labels = labeller(shape, [FULL_ROW, CHUNKED, KernelLaunch("looped", 1, 1024, 8)])
    assert labels.source == PTXAS and list(labels.ok) == [True, True, False]
    assert list(labels.regs[:2]) == [255, 72] and list(labels.spill_bytes[:2]) == [500, 0]
    assert list(labels.local_bytes[:2]) == [320, 0] and labeller.compiles == 3
    est = Inductor(labeller=labeller).autotune(shape)
    # I5 halves the full row (255 registers) to 4096, which compiles clean: with CHUNKED it survives the
    # spill filter, and its longer chunks keep more bytes in flight, so the analytical time ranks it first
    assert est.launch == KernelLaunch("looped", 1, 4096, 16) and est.labels == PTXAS and est.survivors == 2


class _Pool:
    """Stands in for ``CompilePool`` in the CLI: the fake labels above, no compile."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return FakePool()

    def __exit__(self, *exc):
        return False


def test_costfuse_opt_ptxas_labels_injects_the_labeller_into_inductor(monkeypatch, tmp_path, capsys):
    from costfuse.cli import opt_main
    from helpers.peer_kernels import EXAMPLE

    monkeypatch.setattr("costfuse.data.compile.CompilePool", _Pool)
    out = tmp_path / "out.mlir"
    assert opt_main([str(EXAMPLE), "--cost-model", "inductor", "--ptxas-labels", "--explain", "-o", str(out)]) == 0
    assert f"({PTXAS})" in capsys.readouterr().err
    assert opt_main([str(EXAMPLE), "--cost-model", "inductor", "--explain", "-o", str(out)]) == 0
    assert f"({ESTIMATED})" in capsys.readouterr().err


def test_costfuse_opt_ptxas_labels_is_refused_where_no_policy_reads_it(tmp_path, capsys):
    from costfuse.cli import opt_main
    from helpers.peer_kernels import EXAMPLE

    assert opt_main([str(EXAMPLE), "--cost-model", "analytical", "--ptxas-labels", "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "--ptxas-labels applies to --cost-model inductor" in err and len(err.strip().splitlines()) == 1


def test_the_reason_gives_the_survivors_dram_range_in_megabytes_and_says_when_one_spills():
    _, shape = whole(softmax(4096, 8192))
    target = get_target("sm_90")
    dram = sorted(shape.dram_bytes_at(c, target) for c in (FULL_ROW, CHUNKED))
    est = Inductor(labeller=Labeller({CHUNKED: (32, 1, 4, True)})).autotune(shape)   # 1 B: it spills, yet survives
    assert est.reason.endswith(f"2 survivor(s), DRAM {dram[0] / 1e6:.3f}-{dram[1] / 1e6:.3f} MB, one spills "
                               "(fixed labels)")
    clean = Inductor(labeller=Labeller({})).autotune(shape)
    assert clean.reason.endswith("MB (fixed labels)") and not clean.survivor_spills
    _, one = whole(softmax(4096, 2048))                   # one candidate: no benchmark to emulate
    assert ": its one config; 1 survivor(s), DRAM " in Inductor(labeller=Labeller({})).autotune(one).reason
    _, big = whole(softmax(65536, 8192))                  # 4.3 GB: a megabyte is 10**6 bytes to the last digit
    est = Inductor(labeller=Labeller({})).autotune(big)
    assert f"DRAM {est.dram_fewest / 1e6:.3f}-{est.dram_most / 1e6:.3f} MB" in est.reason
    assert est.dram_fewest == big.dram_bytes_at(FULL_ROW, target) > 4e9


def test_final_config_autotunes_a_formed_kernel_only_with_a_labeller():
    _, shape = whole(softmax(4096, 8192))
    planned = Inductor().best_config(shape)
    assert Inductor().final_config(shape, planned) is planned            # no labeller: formation's estimate
    labeller = Labeller({FULL_ROW: (32, 600, 68, True)})
    final = Inductor(labeller=labeller).final_config(shape, planned)
    assert final.launch == CHUNKED and final.labels == "fixed labels" and len(labeller.calls) == 1


def test_a_kernel_with_one_candidate_weighs_it_as_its_one_config():
    """A persistent row of 1,024 gets one candidate from Inductor: ``--explain=configs`` lists it, picked,
    as Inductor's one config (nothing to benchmark, nothing dropped)."""
    _, shape = whole(softmax(4096, 1024))
    (only,) = Inductor().weigh_configs(shape)
    assert only.picked and only.verdict.startswith("picked: inductor persistent (")
    assert only.verdict.endswith("): its one config") and only.launch.mode == "persistent"


def _verdicts(policy, shape) -> dict:
    return {w.launch: w.verdict for w in policy.weigh_configs(shape)}


def test_explain_configs_shows_the_spill_filters_drops_and_the_benchmarks_pick():
    _, shape = whole(softmax(4096, 8192))
    rule = "inductor looped (N=8192 > 1024)"
    assert _verdicts(Inductor(labeller=Labeller({FULL_ROW: (32, 600, 68, True)})), shape) == {
        CHUNKED: f"picked: {rule}: the fastest left, by our analytical time",
        FULL_ROW: "dropped: > 16 spills (stack/4)"}


def test_explain_configs_when_every_config_spills_picks_the_first_and_drops_the_rest():
    _, shape = whole(softmax(4096, 8192))
    every = Labeller({FULL_ROW: (32, 900, 400, True), CHUNKED: (32, 900, 400, True)})
    assert _verdicts(Inductor(labeller=every), shape) == {
        FULL_ROW: "picked: inductor looped (N=8192 > 1024): all spill: the first",
        CHUNKED: "dropped: > 16 spills (stack/4)"}


def test_explain_configs_names_the_rblock_halving_and_a_lone_config():
    _, shape = whole(softmax(4096, 2048))          # one candidate, looped (2, 2048, 16)
    lone = KernelLaunch("looped", 2, 2048, 16)
    many = Labeller({lone: (64, 0, 0, True)})      # 64 regs: too few blocks resident, RBLOCK halved
    verdicts = _verdicts(Inductor(labeller=many), shape)
    assert verdicts[KernelLaunch("looped", 2, 1024, 16)] == ("picked: inductor looped (N=2048 > 1024) + RBLOCK halved "
                                                             "for occupancy: the fastest left, by our analytical time")
    assert verdicts[lone].startswith("slower than the pick")
    few = Labeller({lone: (32, 0, 0, True)})
    assert _verdicts(Inductor(labeller=few), shape) == {lone: "picked: inductor looped (N=2048 > 1024): its one config"}


def test_a_config_that_does_not_compile_is_not_halved_for_occupancy():
    _, shape = whole(softmax(4096, 2048))
    lone = KernelLaunch("looped", 2, 2048, 16)
    broken = Labeller({lone: (64, 0, 0, False)})   # registers that would halve RBLOCK, but no compile
    assert [w.launch for w in Inductor(labeller=broken).weigh_configs(shape)] == [lone]


def test_the_looped_candidates_default_to_sm_90():
    from costfuse.cost_models.inductor import looped_configs

    for pm, pn, loads in ((4096, 8192, 3), (1024, 4096, 12), (64, 65536, 2)):
        assert looped_configs(pm, pn, loads, True) == looped_configs(pm, pn, loads, True, arch="sm_90")
    assert looped_configs(64, 4096, 2, False, arch="sm_100") != looped_configs(64, 4096, 2, False)   # RBLOCK 1024
