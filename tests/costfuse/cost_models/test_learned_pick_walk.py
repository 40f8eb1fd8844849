"""The learned pick's walk over configs, worked by hand: which rows each prediction call takes, when the walk
stops, which config wins a tie, and the figures the pick carries; and the group heads' own arithmetic
(the cut, the bytes, the registers, the training range).  Times and P(spill) here are dyadic, so every
expected time is exact and a tie is a tie (``expected_time``: ``t * (1 + 4 p)`` at a slowdown of 5)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest

from costfuse.cost_models import learned_groups as lg
from costfuse.cost_models.group_time import ConfigScores
from costfuse.cost_models.learned_groups import GroupHeads
from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS
from costfuse.launch import KernelLaunch, launch_arrays
from costfuse.targets import get_target

SLOWDOWN = 5.0


def _configs(n: int, persistent: set[int] = frozenset()) -> list[KernelLaunch]:
    """``n`` distinct configs, looped but for the indices in ``persistent``."""
    return [KernelLaunch("persistent" if i in persistent else "looped", 2 ** (i // 6), 256, 2 ** (i % 6))
            for i in range(n)]


class Heads:
    """Stand-in group heads: config ``i`` (its feature row is ``[i]``) has P(spill) ``p[i]``, spilling at 0.5
    or more; every group and row inside the training range; registers ``40 + i``.  Each call is kept as
    ``(rows, spill_bytes)``."""

    def __init__(self, p, nbytes: float = 8.0):
        self.p, self.nbytes, self.calls = np.asarray(p, float), nbytes, []

    def predict(self, X, spill_bytes=True):
        self.calls.append((len(X), spill_bytes))
        p = self.p[X[:, 0].astype(int)]
        return {"p_spill": p, "spills": p >= 0.5, "spill_bytes": np.where(p >= 0.5, self.nbytes, 0.0)}

    def outside(self, X):
        return np.zeros(len(X), bool), ""

    def group_outside(self, static):
        return ""

    def regs(self, x):
        return 40.0 + float(x[0])


class Seen:
    """What the stand-in features and time model were handed (the static columns, the arrays)."""

    static = arrays = score_arrays = None


SHAPE_OF_PICK = SimpleNamespace(name="the kernel")   # what the stand-ins check they were handed


def _pick(monkeypatch, times, p, configs=None, issued=None, outside=None, slowdown=SLOWDOWN, bytes_=8.0, **kw):
    """``learned_pick`` over configs of analytical times ``times`` (a stand-in for the time model, with issued
    bytes ``issued``), P(spill) ``p`` and rows ``outside`` the training range; ``(estimate, why, heads)``."""
    configs = configs or _configs(len(times))
    by_config = dict(zip(configs, times))
    issued_of = dict(zip(configs, issued or [0] * len(configs)))

    def features(shape, cs, arch, static=None, arrays=None):
        assert shape is SHAPE_OF_PICK and arch == "sm_90"
        Seen.static, Seen.arrays = static, arrays
        return np.array([[configs.index(c)] for c in cs], float)

    def scores(shape, cs, target, predicted_spill=None, labels=None, arrays=None):
        """The times, plus 1 ms per predicted spill byte (the traffic a budget lets in)."""
        assert shape is SHAPE_OF_PICK and target.arch == "sm_90"
        Seen.score_arrays = arrays
        zeros = np.zeros(len(cs))
        spill = np.asarray(predicted_spill, float)
        return ConfigScores(list(cs), zeros + 32, spill, np.array([issued_of[c] for c in cs], np.int64),
                            zeros.astype(np.int64), np.array([by_config[c] for c in cs], float) + 1e-3 * spill)

    monkeypatch.setattr(lg, "group_features", features)
    monkeypatch.setattr(lg, "score_configs", scores)
    heads = Heads(p, bytes_)
    if outside is not None:
        heads.outside = lambda X: (np.asarray(outside, bool)[X[:, 0].astype(int)], "")
    est, why = lg.learned_pick(heads, SHAPE_OF_PICK, get_target("sm_90"), configs=configs, spill_slowdown=slowdown,
                               **kw)
    return est, why, heads


def _walk_case():
    """30 looped configs, fastest first: 0-7 spill; 8 is the first spill-free (P 0.25: expected 2.25);
    9-23 spill; 24 is spill-free at 1.5; 25's time is exactly 8's expected time; 26-29 are slow."""
    times = [1 + i / 64 for i in range(24)] + [1.5, 2.25, 5.0, 6.0, 7.0, 8.0]
    p = [0.75] * 30
    p[8], p[24], p[25:] = 0.25, 0.0, [0.0] * 5
    return times, p


def test_the_walk_finds_the_mode_in_growing_calls_then_predicts_only_what_can_still_win(monkeypatch):
    times, p = _walk_case()
    est, why, heads = _pick(monkeypatch, times, p)
    assert why == ""
    assert est.launch == _configs(30)[24] and est.p_spill == 0.0 and est.regs == 64.0
    # 8 rows, then 16 (config 8 found), then only 24: 25's time equals the best expected time, no less
    assert heads.calls == [(8, False), (16, False), (1, False)]
    assert est.reason.startswith("learned: the looped config predicted spill-free of least expected time "
                                 "(P(spill)=0.00, 5x the time if it spills), 25 of 30 configs predicted in "
                                 "analytical-time order")


def test_a_later_config_only_as_good_as_the_best_does_not_replace_it(monkeypatch):
    times, p = _walk_case()
    p[24] = 0.125   # 1.5 x (1 + 4 x 0.125) = 2.25: config 8's expected time exactly
    est, _, heads = _pick(monkeypatch, times, p)
    assert est.launch == _configs(30)[8] and est.p_spill == 0.25
    assert heads.calls == [(8, False), (16, False), (1, False)]


def test_the_mode_of_the_first_spill_free_config_stays_however_fast_the_other_mode(monkeypatch):
    times, p = _walk_case()
    configs = _configs(30, persistent={24})   # 24 is persistent now: never weighed against the looped 8
    est, _, heads = _pick(monkeypatch, times, p, configs=configs)
    assert est.launch == configs[8] and est.p_spill == 0.25
    assert heads.calls == [(8, False), (16, False)]


def test_a_pick_without_registers_carries_nan_and_the_same_launch(monkeypatch):
    times, p = _walk_case()
    est, _, _ = _pick(monkeypatch, times, p, regs=False)
    assert est.launch == _configs(30)[24] and np.isnan(est.regs)


def test_no_config_predicted_spill_free_is_no_pick(monkeypatch):
    est, why, heads = _pick(monkeypatch, [1.0, 2.0, 3.0], [0.5, 0.75, 1.0])
    assert est is None and why == "no config of 3 predicted within the spill budget"
    assert heads.calls == [(3, False)]


def test_the_walk_hands_the_features_and_the_time_model_the_callers_arrays_and_static_columns(monkeypatch):
    times, p = _walk_case()
    arrays, static = launch_arrays(_configs(30)), {"n_reduce": 1.0}
    _pick(monkeypatch, times, p, arrays=arrays, static=static)
    assert Seen.arrays is arrays and Seen.score_arrays is arrays and Seen.static is static


def test_a_group_outside_the_training_range_is_refused_before_any_config(monkeypatch):
    class Outside(Heads):
        def group_outside(self, static):
            return f"n_reduce={static['n_reduce']:g} not in [1, 7]"

    monkeypatch.setattr(lg, "group_features", lambda *a, **k: pytest.fail("featurized a refused group"))
    heads = Outside([0.0])
    est, why = lg.learned_pick(heads, SHAPE_OF_PICK, get_target("sm_90"), static={"n_reduce": 9.0},
                               configs=_configs(1))
    assert est is None and why == "group outside the training range (n_reduce=9 not in [1, 7])"


@pytest.mark.parametrize("slowdown", [SLOWDOWN, 1.0])
def test_a_positive_budget_predicts_every_config_once_with_its_bytes(monkeypatch, slowdown):
    times, p = _walk_case()
    est, why, heads = _pick(monkeypatch, times, p, spill_budget=8.0, slowdown=slowdown)
    assert heads.calls == [(30, True)] and why == ""
    assert est.launch == _configs(30)[0] and est.p_spill == 0.75   # 8 bytes: within the budget
    assert est.reason.startswith("learned: fastest config predicted spill-free (P(spill)=0.75), "
                                 "30 of 30 configs predicted in analytical-time order")
    est, _, heads = _pick(monkeypatch, times, p, spill_budget=1.0, slowdown=slowdown)
    assert est.launch == _configs(30)[8] and heads.calls == [(30, True)]


@pytest.mark.parametrize("budget", [8.0, 1.0])
def test_a_budget_prices_the_spill_traffic_it_lets_in(monkeypatch, budget):
    """0 is faster by 0.5 ms but spills ``budget`` bytes (as many ms of traffic by the stand-in time model):
    1 wins; the re-scoring gets the arrays the caller holds."""
    arrays = launch_arrays(_configs(2))
    est, _, _ = _pick(monkeypatch, [1.0, 1.0005], [0.75, 0.0], spill_budget=budget, bytes_=budget, arrays=arrays)
    assert est.launch == _configs(2)[1] and est.p_spill == 0.0
    assert Seen.score_arrays is arrays


def test_the_policys_budget_reaches_the_pick(monkeypatch):
    times, p = _walk_case()
    _pick(monkeypatch, times, p)   # installs the stand-ins
    monkeypatch.setattr(lg, "config_space", lambda shape: _configs(30))
    monkeypatch.setattr(lg, "space_arrays", lambda shape: launch_arrays(_configs(30)))
    heads = Heads(p)
    heads.decisions = heads.fallbacks = 0
    est = lg.best_config(heads, SHAPE_OF_PICK, get_target("sm_90"), 8.0, None, 1.0)
    assert est.launch == _configs(30)[0] and heads.calls == [(30, True)]


@pytest.mark.parametrize("budget, why", [(0.0, "is predicted to spill (P(spill)=0.75)"),
                                         (1.0, "is predicted to spill past the budget")])
@pytest.mark.parametrize("slowdown", [SLOWDOWN, 1.0])
def test_a_looped_pick_names_the_persistent_config_it_passed_over_for_a_predicted_spill(monkeypatch, budget, why,
                                                                                       slowdown):
    configs = _configs(2, persistent={0})
    est, _, _ = _pick(monkeypatch, [1e-6, 2e-6], [0.75, 0.0], configs=configs, issued=[10 ** 8, 2 * 10 ** 8],
                      spill_budget=budget, slowdown=slowdown)
    assert est.launch == configs[1]
    assert est.reason.endswith(f"moves 100.0 MB, not 200.0 MB, but {why}"), est.reason


@pytest.mark.parametrize("slowdown, rule", [(1.0, "fastest config predicted spill-free"),
                                            (1.5, "the looped config predicted spill-free of least expected time")])
def test_a_slowdown_above_one_weighs_the_expected_time_and_one_the_time_alone(monkeypatch, slowdown, rule):
    times, p = _walk_case()
    est, _, heads = _pick(monkeypatch, times, p, slowdown=slowdown)
    assert est.reason.startswith(f"learned: {rule} (P(spill)=")
    assert [rows for rows, _ in heads.calls][:2] == [8, 16]
    if slowdown == 1.0:
        assert ", 24 of 30 configs predicted in analytical-time order" in est.reason
    assert all(spill_bytes is False for _, spill_bytes in heads.calls), "a zero budget needs no byte count"


def test_a_lead_mode_refuses_any_positive_budget(monkeypatch):
    with pytest.raises(ValueError) as err:
        _pick(monkeypatch, [1.0], [0.0], spill_budget=0.5, lead="looped")
    assert str(err.value) == "learned_pick: a lead mode orders the walk of a zero spill budget, not a positive one"


def test_a_looped_pick_names_the_persistent_config_of_fewer_bytes_and_why_it_lost(monkeypatch):
    """Out of the training range, or (in range and predicted spill-free) slower by the time."""
    configs = _configs(3, persistent={1, 2})
    gb = 10 ** 8
    est, _, _ = _pick(monkeypatch, [1e-6, 2e-6, 3e-6], [0.0, 0.0, 0.0], configs=configs,
                      issued=[2 * gb, gb, 3 * gb], outside=[False, True, False])
    assert est.launch == configs[0]
    assert est.reason.endswith(f"; {configs[1].short()} moves 100.0 MB, not 200.0 MB, but is outside the "
                               "training range"), est.reason
    est, _, _ = _pick(monkeypatch, [1e-6, 2e-6, 3e-6], [0.0, 0.75, 0.0], configs=_configs(3, persistent={2}),
                      issued=[2 * gb, 3 * gb, gb])
    assert est.reason.endswith("moves 100.0 MB, not 200.0 MB, but is estimated slower (3.00 us vs 1.00 us)"), \
        est.reason


def _scores(times, modes):
    configs = [KernelLaunch(m, 2 ** (i // 6 % 6), 2 ** (i // 36), 2 ** (i % 6)) for i, m in enumerate(modes)]
    zeros = np.zeros(len(times))
    return ConfigScores(configs, zeros, zeros, zeros.astype(np.int64), zeros.astype(np.int64),
                        np.asarray(times, float))


@pytest.mark.parametrize("slowdown", [SLOWDOWN, 1.0])
def test_a_looped_pick_over_a_slower_persistent_config_of_fewer_bytes_says_it_is_slower(monkeypatch, slowdown):
    est, _, _ = _pick(monkeypatch, [1e-6, 2e-6, 3e-6], [0.0, 0.75, 0.0], configs=_configs(3, persistent={2}),
                      issued=[2 * 10 ** 8, 3 * 10 ** 8, 10 ** 8], slowdown=slowdown)
    assert est.reason.endswith("moves 100.0 MB, not 200.0 MB, but is estimated slower (3.00 us vs 1.00 us)"), \
        est.reason


@pytest.mark.parametrize("slowdown, order", [(1.0, [0, 1, 2, 3]), (1.5, [0, 2, 1, 3]), (SLOWDOWN, [2, 0, 1, 3])])
def test_the_verify_order_is_the_picks_mode_by_expected_time_then_the_other_free_then_the_rest(slowdown, order):
    """0 looped (P 0.5), 1 persistent, 2 looped, all free; 3 not free.  At 1: free first, by the time; above
    1: the mode of the fastest free config (looped) first, by expected time: 0's is 1.25 at 1.5, under 2's
    2.5, and 3 at 5, over it."""
    base = _scores([1.0, 2.0, 2.5, 0.5], ["looped", "persistent", "looped", "looped"])
    p = np.array([0.5, 0.0, 0.0, 0.9])
    free = np.array([True, True, True, False])
    assert lg.expected_time_order(base, p, free, slowdown) == order


def test_the_verify_order_with_nothing_free_is_the_time_order_and_ties_keep_the_config_order():
    times = [1.0, 0.5, 1.0, 0.5] * 25
    base = _scores(times, ["looped"] * 100)
    expected = sorted(range(100), key=lambda i: (times[i], i))
    assert lg.expected_time_order(base, np.zeros(100), np.zeros(100, bool), SLOWDOWN) == expected


def test_expected_time_weighs_the_time_by_the_chance_of_the_slowdown():
    assert lg.expected_time(np.array([2.0, 2.0]), np.array([0.0, 0.25]), 5.0).tolist() == [2.0, 4.0]
    assert lg.expected_time(np.array([2.0]), np.array([0.5]), 1.0).tolist() == [2.0]


@pytest.mark.parametrize("rows, sizes", [(24, [8, 16]), (40, [8, 16, 16]), (3, [3]), (0, [])])
def test_batches_start_at_batch_and_double(monkeypatch, rows, sizes):
    monkeypatch.setattr(lg, "largest_call", lambda: sys.maxsize)
    out = lg.batches(list(range(rows)))
    assert [len(b) for b in out] == sizes and sum(out, []) == list(range(rows))


def test_batches_never_pass_the_largest_call(monkeypatch):
    monkeypatch.setattr(lg, "largest_call", lambda: 12)
    assert [len(b) for b in lg.batches(list(range(40)))] == [8, 12, 12, 8]


def test_the_largest_call_is_numpys_small_batch_or_unbounded_when_compiled(monkeypatch):
    from costfuse.cost_models.bundle import SMALL_BATCH

    monkeypatch.setattr(lg, "native_walk", lambda: None)
    assert lg.largest_call() == SMALL_BATCH
    monkeypatch.setattr(lg, "native_walk", lambda: object())
    assert lg.largest_call() == sys.maxsize


# -- the group heads' arithmetic, on a stand-in bundle ----------------------------------------------------

class _Head:
    def __init__(self, fn):
        self.fn = fn

    def predict(self, X):
        return self.fn(np.asarray(X))


def _heads(heads: dict, ranges: dict | None = None, recall: bool = True, cut: str = "f1") -> GroupHeads:
    spill = {"threshold": 0.5, **({"decision_threshold": 0.25, "precision_threshold": 0.375} if recall else {})}
    bundle = SimpleNamespace(metadata={"feature_ranges": ranges or {}, "heads": {"spill": spill}}, heads=heads)
    return GroupHeads(bundle, cut)


def test_a_p_spill_at_the_cut_spills_and_its_bytes_are_at_least_one():
    heads = _heads({"spill": _Head(lambda X: X[:, 0]), "spill_bytes": _Head(lambda X: X[:, 1])})
    out = heads.predict(np.array([[0.5, 0.25], [0.75, 96.0], [0.25, 50.0]]))
    assert out["spills"].tolist() == [True, True, False]
    assert out["spill_bytes"].tolist() == [1.0, 96.0, 0.0]
    assert heads.predict(np.array([[0.75, 96.0]]), spill_bytes=False)["spill_bytes"].tolist() == [np.inf]


def test_without_a_bytes_head_a_spill_has_no_byte_count():
    heads = _heads({"spill": _Head(lambda X: X[:, 0])})
    assert heads.predict(np.array([[0.75], [0.25]]))["spill_bytes"].tolist() == [np.inf, 0.0]


def test_the_register_head_predicts_rows_and_one_row_and_its_absence_is_nan():
    heads = _heads({"spill": _Head(lambda X: X[:, 0]), "regs": _Head(lambda X: X.sum(axis=1))})
    assert heads.regs_of(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist() == [3.0, 7.0]
    assert heads.regs(np.array([1.0, 2.0, 3.0])) == 6.0
    without = _heads({"spill": _Head(lambda X: X[:, 0])})
    out = without.regs_of(np.zeros((3, 2)))
    assert out.shape == (3,) and np.isnan(out).all()


def test_each_cut_reads_its_own_threshold_and_the_default_is_the_f1_cut():
    heads = _heads({})
    assert [heads.cut_threshold(c) for c in ("recall", "f1", "precision")] == [0.25, 0.5, 0.375]
    assert GroupHeads(heads.bundle).threshold == 0.5


def test_recorded_cuts_are_those_the_spill_head_has_the_default_first():
    assert lg.recorded_cuts(_heads({}).bundle.metadata) == ["f1", "recall", "precision"]
    assert lg.recorded_cuts(_heads({}, recall=False).bundle.metadata) == ["f1"]
    assert lg.recorded_cuts(lg.load_group_heads("").metadata) == ["f1", "recall"]   # the shipped heads predate precision


@pytest.mark.parametrize("cut, key", [("recall", "decision_threshold"), ("precision", "precision_threshold")])
def test_a_cut_the_bundle_does_not_record_is_refused_naming_it(cut, key):
    with pytest.raises(ValueError) as err:
        _heads({}, recall=False).cut_threshold(cut)
    assert str(err.value) == (f"--spill-cut {cut}: the group model's spill head records no {key} "
                              "(re-export it with costfuse-train, or choose another --spill-cut)")


def test_a_groups_own_columns_outside_the_range_name_the_first_and_missing_ones_are_not_compared():
    from costfuse.featurize.group_features import GROUP_COLUMNS

    first, second = GROUP_COLUMNS[0], GROUP_COLUMNS[1]
    heads = _heads({}, ranges={first: [1.0, 7.0], second: [2.0, 4.0]})
    assert heads.group_outside({first: 9.0, second: 1.0}) == f"{first}=9 not in [1, 7]"
    assert heads.group_outside({second: 1.5}) == f"{second}=1.5 not in [2, 4]"
    assert heads.group_outside({first: 7.0, second: 2.0}) == ""
    assert heads.group_outside({}) == ""


def test_a_row_below_a_columns_training_range_is_outside():
    column = GROUP_FEATURE_COLUMNS[-1]
    heads = _heads({}, ranges={column: [2.0, 5.0]})
    X = np.zeros((3, len(GROUP_FEATURE_COLUMNS)))
    X[:, -1] = [1.0, 3.0, 6.0]
    assert heads.outside(X)[0].tolist() == [True, False, True]


# -- --explain=configs: weigh_configs -------------------------------------------------------------------------

SHAPE = SimpleNamespace(pointwise=False, n=4096, n_rows=64)   # config_space reads these three


class Fallback:
    """A stand-in fallback policy that weighs one config, and checks it was asked about the shape."""

    def weigh_configs(self, shape):
        from costfuse.policy import WeighedConfig

        assert shape is SHAPE
        return [WeighedConfig(_configs(1)[0], 1e-6, 0, 0, 32.0, 0.0, None, "picked: by the time")]


def _weigh(monkeypatch, p, budget=0.0, slowdown=SLOWDOWN, outside_rows=(), why="", bytes_=8.0, unit=1e-6):
    """weigh_configs over the real config space of :data:`SHAPE`, config ``i`` taking ``(i + 1)`` ``unit``
    seconds (µs by default), P(spill) ``p[i]`` (spilling at 0.5, ``bytes_`` bytes), registers ``40 + i``;
    ``(rows by config index, scorer's predicted spill)``."""
    from costfuse.launch import config_space

    configs = config_space(SHAPE)
    index = {c: i for i, c in enumerate(configs)}
    seen = {}
    def features(shape, cs, arch, static=None, arrays=None):
        seen["feature_arrays"] = arrays
        return np.array([[index[c]] for c in cs], float)

    def scores(shape, cs, target, predicted_spill=None, labels=None, arrays=None):
        """(i + 1) us, plus 1 ms per predicted spill byte."""
        seen["spill"], seen["arrays"] = np.asarray(predicted_spill, float), arrays
        zeros = np.zeros(len(cs))
        return ConfigScores(list(cs), zeros + 32, np.asarray(predicted_spill, float), zeros.astype(np.int64),
                            zeros.astype(np.int64),
                            np.array([(index[c] + 1) * unit for c in cs]) + 1e-3 * seen["spill"])

    monkeypatch.setattr(lg, "group_features", features)

    monkeypatch.setattr(lg, "score_configs", scores)
    p = np.resize(np.asarray(p, float), len(configs))
    heads = Heads(p)
    heads.threshold = 0.5
    heads.predict = lambda X, spill_bytes=True: {
        "p_spill": p[X[:, 0].astype(int)], "spills": p[X[:, 0].astype(int)] >= 0.5,
        "spill_bytes": np.where(p[X[:, 0].astype(int)] >= 0.5, bytes_, 0.0)}
    heads.regs_of = lambda X: 40.0 + X[:, 0]
    out = np.isin(np.arange(len(configs)), list(outside_rows))
    heads.outside = lambda X: (out[X[:, 0].astype(int)], why)
    weighed = lg.weigh_configs(heads, SHAPE, get_target("sm_90"), budget, Fallback(), slowdown)
    if "spill" in seen:   # the space's cached arrays, handed on
        from costfuse.launch import space_arrays

        assert seen["arrays"] is space_arrays(SHAPE) and seen["feature_arrays"] is space_arrays(SHAPE)
    return {index[w.launch]: w for w in weighed}, seen["spill"] if "spill" in seen else None


def test_weighing_shows_each_configs_predictions_and_why_it_lost(monkeypatch):
    rows, spill = _weigh(monkeypatch, [0.75, 0.25, 0.0], outside_rows={3})
    assert rows[0].verdict == "predicted to spill (P(spill) 0.75 >= cut 0.50)"
    assert rows[0].spill_bytes == 8.0 and rows[0].regs == 40.0 and rows[0].p_spill == 0.75
    assert rows[2].verdict == ("picked: the persistent config predicted spill-free (P(spill) 0.00 < cut 0.50) of "
                               "least expected time (3.00 us, 5x the time if it spills)")
    assert rows[1].verdict == "expected time 4.00 us (P(spill) 0.25) vs the pick's 3.00 us"
    assert rows[4].verdict == "slower than the pick (5.00 vs 3.00 us)"
    assert rows[3].verdict == "outside the training range: not predicted"
    assert np.isnan(rows[3].spill_bytes) and np.isnan(rows[3].regs) and np.isnan(rows[3].p_spill)
    assert not spill.any(), "at a zero budget the time model sees no spill"


def test_a_long_expected_time_is_printed_in_microseconds_to_the_hundredth(monkeypatch):
    rows, _ = _weigh(monkeypatch, [0.75, 0.25, 0.0], unit=1e-2)   # config i takes (i + 1) x 10 ms
    assert rows[2].verdict.endswith("least expected time (30000.00 us, 5x the time if it spills)")


def test_weighing_at_a_budget_lets_the_bytes_within_it_in_and_prices_their_traffic(monkeypatch):
    rows, spill = _weigh(monkeypatch, [0.25, 0.75, 0.0], budget=8.0, outside_rows={3})
    assert rows[0].verdict == ("picked: the fastest predicted spill-free (P(spill) 0.25 < cut 0.50) by the "
                               "analytical time")
    assert spill[1] == 8.0 and spill[0] == spill[2] == 0.0 and rows[1].time_s == pytest.approx(2e-6 + 8e-3)
    assert spill[3] == 0.0 and rows[3].time_s == pytest.approx(4e-6), "nothing predicted out of range: no traffic"
    rows, _ = _weigh(monkeypatch, [0.375, 0.0], budget=0.5)   # a budget: the time alone, no expected time
    assert rows[0].verdict.startswith("picked: the fastest predicted spill-free")
    rows, spill = _weigh(monkeypatch, [0.75, 0.0], budget=1.0)
    assert rows[0].verdict == "predicted spill 8 B > budget 1 B" and rows[1].verdict.startswith("picked: ")
    assert spill[0] == 8.0


@pytest.mark.parametrize("slowdown, weighs", [(1.0, False), (1.5, True), (SLOWDOWN, True)])
def test_weighing_takes_the_expected_time_above_a_slowdown_of_one_at_a_zero_budget(monkeypatch, slowdown, weighs):
    rows, _ = _weigh(monkeypatch, [0.375, 0.0], slowdown=slowdown)
    picked = [i for i, w in rows.items() if w.verdict.startswith("picked: ")]
    assert ("least expected time" in rows[picked[0]].verdict) == weighs
    assert picked == ([1] if slowdown == SLOWDOWN else [0])   # 1 us x (1 + 4 x 0.375) = 2.5 us > config 1's 2 us


def test_weighing_a_group_the_heads_cannot_decide_is_the_fallbacks_saying_so(monkeypatch):
    rows, _ = _weigh(monkeypatch, [0.0], why="n=4096 not in [1, 2048]")
    assert [w.verdict for w in rows.values()] == [
        "fallback: analytical (group outside the training range: n=4096 not in [1, 2048]): picked: by the time"]
    rows, _ = _weigh(monkeypatch, [0.75])
    assert [w.verdict for w in rows.values()] == [
        "fallback: analytical (no config predicted within the spill budget): picked: by the time"]


# -- the policy object: --verify-picks' order, the fallback, the loading -----------------------------------

def _policy(heads, **kw) -> lg.LearnedGroups:
    policy = lg.LearnedGroups(**kw)
    policy._heads = heads
    return policy


def test_the_verify_order_ranks_the_configs_predicted_spill_free_and_inside_the_range_first(monkeypatch):
    from costfuse.launch import space_arrays

    _, _ = _weigh(monkeypatch, [0.0])   # installs the stand-in features and time model over SHAPE's space
    p = np.resize(np.array([0.75, 0.0, 0.25]), 235)
    heads = Heads(p)
    out = np.zeros(235, bool)
    out[1] = True   # spill-free by the heads but outside the range: not free
    heads.outside = lambda X: (out[X[:, 0].astype(int)], "")
    seen = {}
    real_features, real_scores = lg.group_features, lg.score_configs
    monkeypatch.setattr(lg, "group_features", lambda shape, cs, arch, static=None, arrays=None:
                        seen.update(feature_arrays=arrays) or real_features(shape, cs, arch, arrays=arrays))
    monkeypatch.setattr(lg, "score_configs", lambda shape, cs, target, predicted_spill=None, labels=None,
                        arrays=None: seen.update(spill=predicted_spill, arrays=arrays)
                        or real_scores(shape, cs, target, predicted_spill=predicted_spill, arrays=arrays))
    base, order = _policy(heads).ranked_configs(SHAPE)
    assert heads.calls == [(235, False)]
    # config i takes (i + 1) us: 4 (5 us) before 2 (3 us at P 0.25: 6.04 us expected), then 7 (8 us)
    assert order[:3] == [4, 2, 7]
    not_free = {i for i in range(235) if p[i] >= 0.5} | {1}
    assert set(order[-len(not_free):]) == not_free
    assert not seen["spill"].any() and seen["arrays"] is seen["feature_arrays"] is space_arrays(SHAPE)
    assert len(base.configs) == 235
    heads.outside = lambda X: (np.ones(len(X), bool), "n=4096 not in [1, 2048]")
    assert _policy(heads).ranked_configs(SHAPE) is None


def test_weighing_through_the_policy_uses_its_fallback_and_budget(monkeypatch):
    _weigh(monkeypatch, [0.0])
    heads = Heads(np.zeros(235))
    heads.outside = lambda X: (np.ones(len(X), bool), "n=4096 not in [1, 2048]")
    fallback = Fallback()
    [w] = _policy(heads, fallback=fallback).weigh_configs(SHAPE)
    assert w.verdict.startswith("fallback: analytical (group outside the training range: ")


def test_each_fallback_is_counted_and_says_why(monkeypatch):
    from costfuse.policy import GroupEstimate

    heads = Heads([0.75])
    heads.decisions = heads.fallbacks = 0
    fallback = SimpleNamespace(best_config=lambda shape: GroupEstimate(_configs(1)[0], 1e-6, 0, 32.0, 0.0,
                                                                       "by the time", 0))
    monkeypatch.setattr(lg, "learned_pick", lambda *a, **k: (None, "no config of 1 predicted within the budget"))
    for n in (1, 2):
        est = lg.best_config(heads, SHAPE, get_target("sm_90"), 0.0, fallback, 1.0)
        assert (heads.decisions, heads.fallbacks) == (n, n)
    assert est.reason == "fallback: analytical (no config of 1 predicted within the budget): by the time"


def test_the_analytical_fallback_keeps_the_policys_margin():
    assert lg.LearnedGroups(margin=0.25).fallback.margin == 0.25


def test_a_group_model_without_a_register_head_is_refused_naming_how_to_train_one(tmp_path):
    with pytest.raises(ValueError) as err:
        lg.load_group_heads(str(tmp_path / "none"))
    assert str(err.value).endswith("(train it with costfuse-train --data data/sm90_v2 --data data/sm90_v1 "
                                   "--export DIR)")
    assert str(err.value).startswith("cannot load the group model ")


def test_the_group_heads_load_their_three_heads_from_the_store_the_policy_names(monkeypatch):
    from costfuse.featurize.group_features import GROUP_FEATURE_SCHEMA_VERSION

    seen = []
    bundle = SimpleNamespace(metadata={"feature_ranges": {}, "heads": {"spill": {"threshold": 0.5}}},
                             heads={"spill": _Head(lambda X: X[:, 0])})
    monkeypatch.setattr(lg, "load_model", lambda *args: seen.append(args) or bundle)
    monkeypatch.setattr(lg, "require_arch", lambda *args: None)
    policy = lg.LearnedGroups(group_model="models:/costfuse-group@champion", tracking_uri="sqlite:///team.db")
    assert policy.heads.bundle is bundle
    assert seen == [("models:/costfuse-group@champion", ("spill", "spill_bytes", "regs"),
                     GROUP_FEATURE_SCHEMA_VERSION, "sqlite:///team.db")]
    lg.load_group_heads("models:/costfuse-group@champion")
    assert seen[-1][3] == "", "no store named: the default (MLFLOW_TRACKING_URI, else ./mlflow.db)"
    bundle.heads = {}
    with pytest.raises(ValueError) as err:
        lg.load_group_heads("my/heads")
    assert str(err.value) == "group model my/heads has no 'spill' head"


def test_a_config_of_the_other_mode_lost_to_the_fastest_config_predicted_spill_free_and_names_it():
    """0 (looped, the fastest) is predicted to spill; 1 (persistent, P 0.5) is the pick; 2 (looped, free,
    faster than 1's expected time) lost on the mode, which 1, the fastest free config, fixes: 1 is named,
    not 0."""
    base = _scores([1.0, 2.0, 2.5], ["looped", "persistent", "looped"])
    p = np.array([0.9, 0.5, 0.0])
    allowed = np.array([False, True, True])
    out = lg._passed_over_for_risk(base, 1, p, allowed, SLOWDOWN)
    assert out == {2: f"looped, not the persistent mode of the fastest config predicted spill-free "
                      f"({base.configs[1].short()}), which the time fixes"}
