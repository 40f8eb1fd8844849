"""The learned policy for kernel groups (``cost_models/learned_groups.py``): its choice, its fallbacks, the CLI.

The group heads are those ``costfuse-train`` exports from ``group_v2_dir``
(``tests/conftest.py``: real groups, synthetic labels), so the tests check
the decision machinery, not how good the decisions are.  The v1 heads are
the shipped model's (``Learned`` loads them for ``--fusion elementwise``).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from costfuse.cli import main
from costfuse.cost_models import learned_groups
from costfuse.cost_models.analytical import Analytical
from costfuse.cost_models.bundle import Bundle
from costfuse.cost_models.learned_groups import FALLBACK, LearnedGroups
from costfuse.featurize.group_features import GROUP_COLUMNS, group_static
from costfuse.launch import config_space
from helpers.errors import one_line
from helpers.group_data import kernel_shape
from helpers.group_modules import softmax

EXAMPLES = Path(__file__).parents[3] / "examples"


@pytest.fixture(scope="module")
def bundle(group_run) -> Path:
    assert group_run.code == 0, group_run.err
    return group_run.bundle


@pytest.fixture(scope="module")
def trained_group(bundle, group_v2_dir):
    """``(module, shape)`` of the first stored group whose every group column lies in the heads' training range."""
    from costfuse.data.store import read_dataset

    ranges = json.loads((bundle / "metadata.json").read_text())["feature_ranges"]
    for text in read_dataset(group_v2_dir, 2).drop_duplicates("group_id")["ir"]:
        module, shape = kernel_shape(text)
        static = group_static(shape)
        if all(ranges[c][0] <= static[c] <= ranges[c][1] for c in GROUP_COLUMNS):
            return module, shape
    pytest.fail("no stored group lies inside the training range of the heads trained on it")


def test_a_group_inside_the_training_range_gets_a_learned_config(bundle, trained_group):
    _, shape = trained_group
    m = LearnedGroups(group_model=str(bundle))
    est = m.best_config(shape)
    assert est.launch in config_space(shape)
    assert est.reason.startswith("learned: ") and "predicted spill-free" in est.reason, est.reason
    assert est.spill_bytes == 0 and m.group_fallbacks == (1, 0)


def test_heads_that_always_predict_a_spill_fall_back_to_analytical(bundle, trained_group, tmp_path):
    always = tmp_path / "always_spills"
    shutil.copytree(bundle, always)
    meta = json.loads((always / "metadata.json").read_text())
    meta["heads"]["spill"]["threshold"] = 0.0          # P(spill) >= 0 everywhere
    (always / "metadata.json").write_text(json.dumps(meta))
    _, shape = trained_group
    m = LearnedGroups(group_model=str(always))
    est = m.best_config(shape)
    n = len(config_space(shape))
    assert est.reason.startswith(f"{FALLBACK} (no config of {n} predicted within the spill budget): "), est.reason
    assert est.launch == Analytical().best_config(shape).launch
    assert m.group_fallbacks == (1, 1)


def test_the_spill_cut_picks_which_recorded_threshold_the_policy_decides_at(bundle, trained_group, tmp_path):
    meta = json.loads((bundle / "metadata.json").read_text())
    spill = meta["heads"]["spill"]
    assert all(0.0 <= spill[k] <= 1.0 for k in ("decision_threshold", "threshold", "precision_threshold"))
    cut = tmp_path / "cuts"
    shutil.copytree(bundle, cut)
    # recall and precision: never spills; f1 (the default): always
    meta["heads"]["spill"].update(decision_threshold=1.5, precision_threshold=1.5, threshold=0.0)
    (cut / "metadata.json").write_text(json.dumps(meta))
    _, shape = trained_group
    for spill_cut in ("recall", "precision"):
        assert LearnedGroups(group_model=str(cut), spill_cut=spill_cut).best_config(shape).reason.startswith(
            "learned: ")
    assert LearnedGroups(group_model=str(cut)).best_config(shape).reason.startswith(FALLBACK)
    for key, spill_cut in (("decision_threshold", "recall"), ("precision_threshold", "precision")):
        del meta["heads"]["spill"][key]      # an older bundle
        (cut / "metadata.json").write_text(json.dumps(meta))
        with pytest.raises(ValueError, match=f"records no {key}"):
            LearnedGroups(group_model=str(cut), spill_cut=spill_cut).best_config(shape)
    with pytest.raises(ValueError, match="--spill-cut must be one of f1, recall, precision, got 'max'"):
        LearnedGroups(group_model=str(bundle), spill_cut="max").best_config(shape)


def test_a_row_longer_than_any_trained_falls_back_naming_the_column(bundle):
    from costfuse.graph import function_blocks, generics_in
    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    module = parse_module(softmax(4, 2**18, "f32"))     # n above MAX_N, so above every trained row length
    with module.context:
        shape = analyze_kernel(generics_in(function_blocks(module)[0]))
    m = LearnedGroups(group_model=str(bundle))
    est = m.best_config(shape)
    assert est.reason.startswith(f"{FALLBACK} (group outside the training range (log2_n=18 not in ["), est.reason
    assert est.launch == Analytical().best_config(shape).launch and m.group_fallbacks == (1, 1)


def test_a_group_model_of_another_arch_is_refused_unless_allowed(bundle, trained_group, tmp_path):
    other = tmp_path / "sm_80"
    shutil.copytree(bundle, other)
    meta = json.loads((other / "metadata.json").read_text())
    meta["arch"] = "sm_80"
    (other / "metadata.json").write_text(json.dumps(meta))
    _, shape = trained_group
    with pytest.raises(ValueError, match=f"group model {other}: .*sm_80.*pass --allow-arch-mismatch"):
        LearnedGroups(group_model=str(other)).best_config(shape)
    assert LearnedGroups(group_model=str(other), allow_arch_mismatch=True).best_config(shape).reason.startswith("learned: ")


def test_opt_explain_with_a_group_model(bundle, tmp_path, capsys):
    out = tmp_path / "out.mlir"
    args = ["opt", str(EXAMPLES / "softmax_gelu.mlir"), "--cost-model", "learned", "--explain", "-o", str(out)]
    assert main(args + ["--group-model", str(bundle)]) == 0
    err = capsys.readouterr().err
    kernels = [ln for ln in err.splitlines() if ln.startswith("kernel @softmax_gelu_k")]
    assert kernels and all("(learned: " in ln or f"({FALLBACK} (" in ln for ln in kernels), err
    assert "# learned groups: " in err and "costfuse.launch" in out.read_text()
    # every candidate group the pass priced is a decision; a kernel line saying fallback is one of them
    count = re.search(r"^# learned: (\d+) group decisions, (\d+) by the analytical fallback$", err, re.M)
    decided, fell_back = int(count[1]), int(count[2])
    assert decided >= len(kernels) and fell_back <= decided
    assert fell_back >= sum(f"({FALLBACK} (" in ln for ln in kernels)


def test_a_missing_group_model_is_one_line(tmp_path, capsys):
    args = ["opt", str(EXAMPLES / "softmax_gelu.mlir"), "--cost-model", "learned", "-o", str(tmp_path / "o.mlir"),
            "--group-model", str(tmp_path / "nope")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"costfuse-opt: error: cannot load the group model {tmp_path}")
    assert err.count(str(tmp_path)) == 1        # the path once


def test_the_learned_policy_keeps_the_numbers(bundle):
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module, print_module, verify
    from costfuse.reference import assert_same_semantics

    before = (EXAMPLES / "layernorm_gelu_mlp.mlir").read_text()
    module = parse_module(before)
    model = LearnedGroups(group_model=str(bundle))
    p = GroupFusionPass(model)
    run_group_pipeline(module, p)
    verify(module)
    assert p.kernels and model.group_fallbacks[0] > 0
    assert_same_semantics(before, print_module(module), "main", seed=3)


# ---------------------------------------------------------------------------
# Loading the group heads once, refusing another arch's, and the settings best_config passes on.

GROUP_CUT = 0.125  # the recall-first decision_threshold the fake group model records


@pytest.fixture
def group_loads(monkeypatch):
    """``(loads, set_arch)``: ``learned_groups.load_group_heads`` answering the shipped group model with its
    spill head's ``decision_threshold`` set to :data:`GROUP_CUT` and its ``arch`` to ``set_arch(arch)``
    (default sm_90); ``loads`` records each call's model argument."""
    shipped = learned_groups.load_group_heads()
    heads_meta = {**shipped.metadata["heads"],
                  "spill": {**shipped.metadata["heads"]["spill"], "decision_threshold": GROUP_CUT}}
    loads, arch = [], ["sm_90"]

    def load(model="", tracking_uri=""):
        loads.append(model)
        return Bundle({**shipped.metadata, "heads": heads_meta, "arch": arch[0]}, shipped.heads)

    monkeypatch.setattr(learned_groups, "load_group_heads", load)
    return loads, lambda a: arch.__setitem__(0, a)


def test_group_heads_load_once_from_the_group_model(group_loads):
    loads, _ = group_loads
    m = LearnedGroups(group_model="my/groups")
    heads = m.heads
    assert isinstance(heads, learned_groups.GroupHeads) and heads.bundle.metadata["arch"] == "sm_90"
    assert m.heads is heads and loads == ["my/groups"]
    recall = LearnedGroups(spill_cut="recall").heads  # the cut the policy decides at is the option's
    assert (recall.spill_cut, recall.threshold) == ("recall", GROUP_CUT)


@pytest.mark.parametrize("group_model, named", [("", "costfuse/models/groups"), ("my/groups", "my/groups")])
def test_group_heads_of_another_arch_are_refused(group_loads, group_model, named):
    _, set_arch = group_loads
    set_arch("sm_80")
    meta = learned_groups.load_group_heads().metadata
    versions = f"triton {meta['triton_version']}, ptxas {meta['ptxas_version']}"
    with pytest.raises(ValueError) as err:
        LearnedGroups(group_model=group_model).heads  # noqa: B018
    one_line(err, f"group model {named}: ", "sm_80", versions, "sm_90", "--allow-arch-mismatch")
    assert LearnedGroups(group_model=group_model, allow_arch_mismatch=True).heads.bundle.metadata["arch"] == "sm_80"


@pytest.mark.parametrize("settings, budget, slowdown", [
    ({"spill_budget": 16.0}, 16.0, 1.0),                     # a positive budget keeps its own rule
    ({}, 0.0, learned_groups.SPILL_SLOWDOWN),               # the default: the expected time
    ({"spill_slowdown": 1.0}, 0.0, 1.0),                     # the fastest predicted spill-free
])
def test_best_config_asks_learned_groups_with_the_models_own_settings(group_loads, monkeypatch, settings, budget,
                                                                      slowdown):
    m = LearnedGroups(**settings)
    calls = []
    monkeypatch.setattr(learned_groups, "best_config", lambda *args: calls.append(args) or "the estimate")
    shape = object()
    assert m.best_config(shape) == "the estimate"
    assert len(calls) == 1
    heads, got_shape, target, got_budget, fallback, got_slowdown = calls[0]
    assert heads is m.heads and got_shape is shape and target is m._target
    assert got_budget == budget and fallback is m.fallback and isinstance(m.fallback, Analytical)
    assert got_slowdown == slowdown


def test_a_spill_slowdown_below_one_is_refused():
    with pytest.raises(ValueError, match="--spill-slowdown must be at least 1"):
        LearnedGroups(spill_slowdown=0.5)


def _features_are_config_indices(monkeypatch):
    """Replace group_features with each config's index, for the stand-in heads below to read."""
    monkeypatch.setattr(learned_groups, "group_features",
                        lambda shape, configs, arch, static=None, arrays=None:
                        np.arange(len(configs), dtype=float)[:, None])


class _InRange:
    """Group heads (test stand-ins) for which every group and row lies inside the training range."""

    def outside(self, X):
        return np.zeros(len(X), bool), ""

    def group_outside(self, static):
        return ""


class _PersistentSpills(_InRange):
    """Group heads (test stand-ins) that predict every persistent config to spill and nothing else; the
    feature rows are the configs' indices (group_features is replaced below)."""

    def __init__(self, configs):
        self.configs, self.decisions, self.fallbacks = configs, 0, 0

    def predict(self, X, spill_bytes=True):
        spills = np.array([self.configs[int(i)].mode == "persistent" for i in X[:, 0]])
        return {"p_spill": spills * 0.9, "spills": spills, "spill_bytes": np.where(spills, 8.0, 0.0)}

    def regs(self, x):
        return 32.0


@pytest.mark.parametrize("spill_slowdown", [1.0, 5.05])
def test_a_looped_pick_says_why_the_persistent_config_of_fewer_bytes_lost(monkeypatch, spill_slowdown):
    """Issue #29: where learned loops a kernel whose persistent configs move fewer bytes, its reason (what
    --explain prints) names the fastest of them and why it lost: here, predicted to spill; under the
    fastest-first rule and the expected time alike."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.targets import get_target

    k = Kernels(softmax_program(64, 4096))
    shape = k.shape()
    configs = config_space(shape)
    _features_are_config_indices(monkeypatch)
    est = lg.best_config(_PersistentSpills(configs), shape, get_target("sm_90"), 0.0, Analytical(), spill_slowdown)
    assert est.launch.mode == "looped"
    assert re.search(r"; persistent x\d+ r4096 w\d+ moves [\d.]+ MB, not [\d.]+ MB, but is predicted to spill "
                     r"\(P\(spill\)=0\.90\)$", est.reason), est.reason


class _RiskyFastest(_InRange):
    """Group heads (test stand-ins) that call every config spill-free, the analytically fastest at
    P(spill) ``p`` and the rest at 0; they count the rows they predict."""

    def __init__(self, fastest: int, p: float):
        self.fastest, self.p, self.rows = fastest, p, 0

    def predict(self, X, spill_bytes=True):
        self.rows += len(X)
        p = np.where(X[:, 0] == self.fastest, self.p, 0.0)
        return {"p_spill": p, "spills": np.zeros(len(X), bool), "spill_bytes": np.zeros(len(X))}

    threshold = 0.5

    def regs(self, x):
        return 32.0

    def regs_of(self, X):
        return np.full(len(X), 32.0)


def test_the_expected_time_passes_over_a_risky_fastest_config_for_a_safe_one_as_fast(monkeypatch):
    """spill_slowdown: a config a hair faster but likelier to spill loses to a safe one of its mode; a
    risk-free ranking (slowdown 1) keeps the fastest; and the heads stop at the batch that cannot win."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.cost_models.group_time import score_configs
    from costfuse.targets import get_target

    target = get_target("sm_90")
    k = Kernels(softmax_program(64, 4096))   # held: the shape reads its module's ops
    shape = k.shape()
    configs = config_space(shape)
    _features_are_config_indices(monkeypatch)
    times = score_configs(shape, configs, target, predicted_spill=np.zeros(len(configs))).time_s
    order = [int(i) for i in np.argsort(times, kind="stable")]
    fastest = order[0]
    runner_up = next(i for i in order[1:] if configs[i].mode == configs[fastest].mode)   # the mode stays
    assert times[runner_up] < 1.5 * times[fastest]   # within what a 0.2 chance of a 5x slowdown outweighs
    heads = _RiskyFastest(fastest, 0.2)
    plain, _ = lg.learned_pick(heads, shape, target)
    assert plain.launch == configs[fastest] and heads.rows == lg.BATCH
    heads = _RiskyFastest(fastest, 0.2)
    safe, _ = lg.learned_pick(heads, shape, target, spill_slowdown=5.0)
    assert safe.launch == configs[runner_up] and "P(spill)=0.00" in safe.reason
    assert heads.rows < len(configs)   # later batches, all slower than the safe pick, were never predicted
    heads = _RiskyFastest(fastest, 0.01)
    close, _ = lg.learned_pick(heads, shape, target, spill_slowdown=5.0)
    assert (close.launch == configs[fastest]) == (times[fastest] * 1.04 < times[runner_up])


@pytest.mark.parametrize("slowdown", [5.05, 1.0])
def test_how_many_rows_a_prediction_call_takes_never_changes_the_pick(monkeypatch, slowdown):
    """largest_call: NumPy trees' 32 rows per call or the compiled walk's any number; the same pick, P(spill)
    and reason, but for how many configs it says were predicted (the calls' rows differ)."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.cost_models.group_time import score_configs
    from costfuse.targets import get_target

    target = get_target("sm_90")
    k = Kernels(softmax_program(64, 4096))
    shape = k.shape()
    configs = config_space(shape)
    _features_are_config_indices(monkeypatch)

    times = score_configs(shape, configs, target, predicted_spill=np.zeros(len(configs))).time_s
    rank = np.argsort(np.argsort(times, kind="stable"), kind="stable")
    assert len(configs) > 80, len(configs)

    class Sized(_RiskyFastest):   # the 60 fastest configs spill, the others at P(spill) 0.4-0.7; calls' rows
        calls: list

        def predict(self, X, spill_bytes=True):
            self.calls.append(len(X))
            i = X[:, 0].astype(int)
            spills = rank[i] < 60
            return {"p_spill": np.where(spills, 0.9, 0.4 + 0.3 * (i % 7) / 6), "spills": spills,
                    "spill_bytes": np.where(spills, 8.0, 0.0)}

    picks = {}
    for cap in (lg.SMALL_BATCH, 10**9):
        monkeypatch.setattr(lg, "largest_call", lambda cap=cap: cap)
        heads = Sized(-1, 0.0)
        heads.calls = []
        est, _ = lg.learned_pick(heads, shape, target, spill_slowdown=slowdown)
        picks[cap] = (est.launch, est.p_spill, re.sub(r"\d+ of (\d+) configs", r"N of \1 configs", est.reason),
                      heads.calls)
    small, large = picks.values()
    assert small[:3] == large[:3]
    assert max(small[3]) <= lg.SMALL_BATCH < max(large[3]) and len(large[3]) <= len(small[3])


@pytest.mark.parametrize("lead_free", [True, False])
@pytest.mark.parametrize("slowdown", [5.05, 1.0])
def test_a_lead_mode_walk_picks_as_two_walks_do_and_calls_once_for_that_modes_configs(monkeypatch, slowdown,
                                                                                     lead_free):
    """``lead`` (the Inductor handler's persistent-first rule in one walk; looped leads here, since this
    softmax's fastest configs are persistent): the same launch and P(spill) as walking the lead mode's
    configs alone and then, with none predicted spill-free, the rest alone; its first call takes every
    config of the lead mode and the first BATCH of the rest; a positive budget refuses a lead."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.targets import get_target

    target = get_target("sm_90")
    k = Kernels(softmax_program(64, 4096))
    shape = k.shape()
    configs = config_space(shape)
    index = {c: i for i, c in enumerate(configs)}
    lead = [c for c in configs if c.mode == "looped"]
    rest = [c for c in configs if c.mode != "looped"]
    assert lead and rest
    monkeypatch.setattr(lg, "group_features", lambda shape, configs, arch, static=None, arrays=None:
                        np.array([[index[c]] for c in configs], float))

    class Heads(_RiskyFastest):   # the lead mode's configs all spill unless lead_free; P(spill) varies
        def predict(self, X, spill_bytes=True):
            self.calls.append(len(X))
            i = X[:, 0].astype(int)
            spills = np.array([(configs[j].mode == "looped" and not lead_free) or j % 3 == 0 for j in i])
            return {"p_spill": np.where(spills, 0.9, 0.02 * (i % 7)), "spills": spills,
                    "spill_bytes": np.where(spills, 8.0, 0.0)}

    def heads():
        h = Heads(-1, 0.0)
        h.calls = []
        return h

    one_walk = heads()
    one, _ = lg.learned_pick(one_walk, shape, target, spill_slowdown=slowdown, lead="looped")
    two, _ = lg.learned_pick(heads(), shape, target, configs=lead, spill_slowdown=slowdown)
    if two is None:
        two, _ = lg.learned_pick(heads(), shape, target, configs=rest, spill_slowdown=slowdown)
    assert (one.launch, one.p_spill) == (two.launch, two.p_spill)
    assert one.launch.mode == ("looped" if lead_free else "persistent")
    unled, _ = lg.learned_pick(heads(), shape, target, spill_slowdown=slowdown)
    assert unled.launch.mode == "persistent"   # without the lead, the time's choice
    if slowdown > 1:   # the lead mode's configs and BATCH more; a call takes at most largest_call() rows
        assert one_walk.calls[0] == min(len(lead) + lg.BATCH, lg.largest_call())
        assert len(one_walk.calls) == 1 or not lead_free or len(lead) + lg.BATCH > lg.largest_call()
    with pytest.raises(ValueError, match="lead mode"):
        lg.learned_pick(heads(), shape, target, spill_budget=8.0, lead="looped")


@pytest.mark.parametrize("slowdown", [5.0, 1.0])
def test_a_pick_without_registers_is_the_same_pick_and_never_asks_the_register_head(monkeypatch, slowdown):
    """``regs=False`` (the Inductor handler's, which predicts them only when read): the same launch, P(spill)
    and reason; NaN registers; the register head not called."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.targets import get_target

    target = get_target("sm_90")
    k = Kernels(softmax_program(64, 4096))   # held: the shape reads its module's ops
    shape = k.shape()
    _features_are_config_indices(monkeypatch)
    with_regs, _ = lg.learned_pick(_RiskyFastest(0, 0.2), shape, target, spill_slowdown=slowdown)
    heads = _RiskyFastest(0, 0.2)
    heads.regs = heads.regs_of = None   # any call fails
    without, _ = lg.learned_pick(heads, shape, target, spill_slowdown=slowdown, regs=False)
    assert (without.launch, without.p_spill, without.reason) == (with_regs.launch, with_regs.p_spill, with_regs.reason)
    assert with_regs.regs == 32.0 and np.isnan(without.regs)


@pytest.mark.parametrize("p", [0.2, 0.01])
@pytest.mark.parametrize("slowdown", [5.0, 1.0])
def test_weigh_configs_and_the_verify_order_agree_with_the_expected_time_pick(monkeypatch, p, slowdown):
    """What --explain=configs prints and what --verify-picks walks start from learned_pick's config: one
    ranking (expected_time_order), the risky fastest config's verdict naming its expected time."""
    from helpers.peer_kernels import Kernels
    from helpers.peer_kernels import softmax as softmax_program

    from costfuse.cost_models import learned_groups as lg
    from costfuse.cost_models.group_time import score_configs
    from costfuse.targets import get_target

    target = get_target("sm_90")
    k = Kernels(softmax_program(64, 4096))
    shape = k.shape()
    configs = config_space(shape)
    _features_are_config_indices(monkeypatch)
    base = score_configs(shape, configs, target, predicted_spill=np.zeros(len(configs)))
    fastest = int(np.argsort(base.time_s, kind="stable")[0])
    heads = _RiskyFastest(fastest, p)
    pick, _ = lg.learned_pick(heads, shape, target, spill_slowdown=slowdown)
    weighed = lg.weigh_configs(heads, shape, target, 0.0, Analytical(), slowdown)
    (picked,) = [w for w in weighed if w.picked]
    assert picked.launch == pick.launch
    pred = heads.predict(np.arange(len(configs), dtype=float)[:, None])
    order = lg.expected_time_order(base, pred["p_spill"], ~pred["spills"], slowdown)
    assert configs[order[0]] == pick.launch and sorted(order) == list(range(len(configs)))
    if pick.launch != configs[fastest]:
        verdict = next(w.verdict for w in weighed if w.launch == configs[fastest])
        assert re.match(rf"expected time [\d.]+ us \(P\(spill\) {p:.2f}\) vs the pick's [\d.]+ us$", verdict)


def test_the_default_pick_on_a_workload_is_the_expected_time_one():
    """gelu_erf_bf16 (issue #29): the shipped heads give pointwise x4096 w1 P(spill) 0.18 (it spilled 30 B
    under ptxas); the group pass's default picks x2048 w1, and --spill-slowdown 1 the old x4096 w1."""
    from costfuse.cost_models import make_policy
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module

    text = (Path(__file__).parents[3] / "experiments" / "workloads" / "gelu_erf_bf16.mlir").read_text()

    def launches(**settings):
        records = run_group_pipeline(parse_module(text), GroupFusionPass(make_policy("learned", "groups", **settings)))
        return [r.kernel.estimate.launch.short() for r in records]

    assert launches() == ["pointwise x2048 r1 w1"]
    assert launches(spill_slowdown=1.0) == ["pointwise x4096 r1 w1"]


def test_a_formation_walks_each_generics_body_once_however_many_kernels_it_prices(monkeypatch):
    """The liveness walk was a third of a group decision's time when every candidate kernel walked its
    members again; formation shares each op's Member, so the walks number the generics (times the roles an
    op takes), not the decisions."""
    import costfuse.featurize.liveness as liveness
    from costfuse.graph import function_blocks, generics_in
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import load_module

    walks = []
    real = liveness.body_of
    monkeypatch.setattr(liveness, "body_of", lambda g: walks.append(g) or real(g))
    module = load_module(EXAMPLES / "transformer_encoder_layer.mlir")
    with module.context:
        n_generics = sum(len(generics_in(b)) for b in function_blocks(module))
    model = LearnedGroups()
    run_group_pipeline(module, GroupFusionPass(model))
    decisions, _ = model.group_fallbacks
    assert decisions > 2 * n_generics and 0 < len(walks) <= 2 * n_generics
