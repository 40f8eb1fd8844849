"""Are the group heads right where the learned policy decides?  Recall and precision on its decision configs.

A spill classifier's AUC over random configs says little about the configs
the learned policy actually weighs.  For every group of dataset v2's *test*
programs (the grouped split the shipped group heads were trained against:
the same ``load_group_table`` + ``grouped_split``, seed 0), the policy
(``costfuse/cost_models/learned_groups.py``) scores the group's whole config
space and picks the fastest config predicted spill-free.  Its *decision
configs* are that pick plus the configs it turned down although the
analytical time ranks them faster (the ``--top`` fastest of them): exactly
where a wrong "spills" costs time and a wrong "does not spill" costs
spills.  Each decision config is compiled (Triton 3.6's ptxas on the CPU,
results cached by kernel id), and the heads' spill predictions there are
scored against ptxas: recall and precision on spilling configs, and how
many picks spill.  The peers' picks on the same groups (from the dataset
rows, ``config_source``) are counted beside it.

The policy decides at each cut the spill head records (``train/fit.py``),
the default first: ``--spill-cut f1``, the F1-best one; ``--spill-cut
recall``, the cut that kept 95% of the training programs' spilling kernels
out of fold; ``--spill-cut precision``, the lowest cut whose out-of-fold
precision is still 0.8 (issue #29's floor).
A bundle exported before a cut existed is scored at the cuts it has.  Every
cut was chosen on training programs only; nothing here is tuned on these
test groups.

    python experiments/group_decisions.py [--top 5] [--jobs 2]

writes ``experiments/results/group_decisions.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import command_line, conditions, emit  # noqa: E402

PEERS = ("heuristic", "always", "analytical", "inductor", "xla")


def test_groups(v2: Path, v1: Path, seed: int = 0):
    """The v2 rows of the test programs (grouped split of the group table, as ``costfuse-train`` makes it)."""
    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split

    table = load_group_table([v2, v1])
    split = grouped_split(table.groups, 0.25, seed)
    rows = table.rows[split.test & (table.rows["dataset_version"] == 2).to_numpy()]
    return set(rows["group_id"]), table


def decision_configs(model, shape, top: int):
    """(launches, predicted spills, is-pick) the policy weighs for ``shape``; None when it fell back."""
    from costfuse.featurize.group_features import group_features, group_static

    from costfuse.cost_models.group_time import score_configs
    from costfuse.launch import config_space

    est = model.best_config(shape)
    if est.reason.startswith("fallback"):
        return None
    heads = model.heads
    configs = config_space(shape)
    X = group_features(shape, configs, model.arch, group_static(shape))
    pred = heads.predict(X)
    out_of_range, _ = heads.outside(X)
    scores = score_configs(shape, configs, model._target, predicted_spill=pred["spill_bytes"])
    pick = configs.index(est.launch)
    faster = [i for i in np.argsort(scores.time_s, kind="stable")
              if scores.time_s[i] < scores.time_s[pick] and not out_of_range[i]][:top]
    chosen = [pick] + faster
    return [configs[i] for i in chosen], [bool(pred["spill_bytes"][i] > model.spill_budget) for i in chosen], \
        [i == pick for i in chosen]


@dataclass
class Scored:
    """The decision configs at one P(spill) cut, compiled and scored against ptxas."""

    cut: str
    p_cut: float             # the P(spill) the cut names
    fallbacks: int
    n_configs: int
    truth: np.ndarray        # ptxas: spills (per compiled-ok decision config)
    pred: np.ndarray         # heads: spills
    picks: np.ndarray        # the config is the policy's pick
    decide_s: float
    missed: list             # (program, launch, spill bytes, regs) of each spilling config predicted spill-free

    def counts(self) -> tuple[int, int, int]:
        t, p = self.truth, self.pred
        return int((t & p).sum()), int((~t & p).sum()), int((t & ~p).sum())

    def recall(self) -> float:
        tp, _, fn = self.counts()
        return tp / max(1, tp + fn)

    def precision(self) -> float:
        tp, fp, _ = self.counts()
        return tp / max(1, tp + fp)

    def spilling_picks(self) -> int:
        return int((self.truth & self.picks).sum())


def _verdict(x: float, goal: float) -> str:
    return f"{x:.3f} ({'met' if x >= goal else 'NOT met'})"


def cut_tables(cuts: tuple, unit: str) -> list[str]:
    """The goal line, one row of recall and precision per ``(name, Scored)`` cut, and the spilling decision
    configs each cut called spill-free (``unit``: what a false negative's first column names)."""
    lines = [
        "Goals: recall >= 0.95 and precision >= 0.8 on spilling decision configs.",
        "",
        "| spill cut | P(spill) | decision configs (ok) | spilling (ptxas) | recall | precision | TP | FP | FN "
        "| picks that spill |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in cuts:
        lines.append(f"| {name} | {s.p_cut:.3f} | {s.n_configs} ({len(s.truth)}) | {int(s.truth.sum())} | "
                     f"{_verdict(s.recall(), 0.95)} | {_verdict(s.precision(), 0.8)} | "
                     + " | ".join(map(str, s.counts())) + f" | {s.spilling_picks()} of {int(s.picks.sum())} |")
    lines += [
        "",
        "Spilling decision configs the heads called spill-free (false negatives), at each cut:",
        "",
        f"| spill cut | {unit} | launch (mode, xblock, rblock, warps) | spill bytes (ptxas) | registers |",
        "|---|---|---|---|---|",
    ]
    for name, s in cuts:
        for what, launch, spill, regs in sorted(s.missed, key=lambda m: m[2]):
            lines.append(f"| {name} | `{what}` | {launch.mode}, {launch.xblock}, {launch.rblock}, {launch.num_warps} "
                         f"| {spill} | {regs} |")
    return lines


def score_at(cut: str, groups: list, top: int, jobs: int, group_model: str = "") -> Scored:
    """Decide every group with the policy at spill cut ``cut`` (one of ``SPILL_CUTS``), compile its decision configs,
    score them; ``group_model``: the heads' bundle (default: the shipped one)."""
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.data.lowering.kernel import lower_kernel

    from costfuse.cost_models.learned_groups import LearnedGroups

    model = LearnedGroups(group_model=group_model, spill_cut=cut)
    tasks, meta, fallbacks = [], [], 0
    t0 = time.perf_counter()
    for program, func, shape in groups:
        got = decision_configs(model, shape, top)
        if got is None:
            fallbacks += 1
            continue
        for launch, predicted, is_pick in zip(*got):
            k = lower_kernel(func, launch)
            tasks.append(CompileTask(k.source, k.config, parse_arch("sm_90")))
            meta.append((predicted, is_pick, program, launch))
    decide_s = time.perf_counter() - t0
    print(f"cut {cut}: compiling {len(tasks)} decision configs of {len(groups)} test groups ...",
          file=sys.stderr, flush=True)
    with CompilePool(jobs) as pool:
        results = pool.run(tasks)
    ok = [(m, r) for m, r in zip(meta, results) if r.status == "ok"]
    return Scored(cut, model.heads.threshold, fallbacks, len(tasks), np.array([bool(r.spill_bytes) for _, r in ok], bool),
                  np.array([m[0] for m, _ in ok], bool), np.array([m[1] for m, _ in ok], bool), decide_s,
                  [(m[2], m[3], r.spill_bytes, r.regs) for m, r in ok if r.spill_bytes and not m[0]])


def held_out_kernels(v2: Path, v1: Path):
    """``(group ids, their dataset v2 rows, [(program, kernel function, shape)], modules)`` of the test
    programs' groups (:func:`test_groups`); the caller keeps ``modules`` alive as long as it uses the
    functions (a function outlives its module only as a dangling handle)."""
    from costfuse.data.lowering.kernel_function import kernel_members
    from costfuse.data.store import read_dataset

    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    gids, _ = test_groups(v2, v1)
    df = read_dataset(v2, 2)
    df = df[df["group_id"].isin(gids)]
    groups, modules = [], []
    for gid, sub in df.groupby("group_id"):
        modules.append(parse_module(sub["ir"].iloc[0], gid))
        func = modules[-1].body.operations[0].operation
        groups.append((sub["program_id"].iloc[0], func, analyze_kernel(kernel_members(func))))
    return gids, df, groups, modules


def run(v2: Path, v1: Path, top: int, jobs: int, command: str, group_model: str = "") -> str:
    gids, df, groups, _modules = held_out_kernels(v2, v1)
    from costfuse.cost_models.learned_groups import SPILL_CUTS, load_group_heads, recorded_cuts

    cuts = recorded_cuts(load_group_heads(group_model).metadata)
    scored = [(f"{c} (default)" if c == SPILL_CUTS[0] else c, score_at(c, groups, top, jobs, group_model))
              for c in cuts]
    policy = scored[0][1]
    lines = [
        "# Group heads on the learned policy's decision configs (dataset v2 test programs)",
        "",
        f"Command: `{command}`  ",
        f"Conditions: {conditions()}",
        "",
        f"- test groups: {len(gids)}; decided by the heads: {len(gids) - policy.fallbacks}; fell back to analytical: "
        f"{policy.fallbacks}",
        f"- decision configs: the pick + up to {top} configs the analytical time ranks faster that the heads turned "
        "down; each cut makes its own",
        f"- decision time (default cut): {policy.decide_s * 1e3 / max(1, len(gids)):.2f} ms per group (features, "
        "heads, range check, plus this script's rescoring)",
        "",
    ]
    lines += cut_tables(scored, "program")
    lines += [
        "",
        "Peers' picks on the same groups (dataset rows whose `config_source` names the policy):",
        "",
        "| policy | picks | spilling | spill rate |",
        "|---|---|---|---|",
    ]
    ok_rows = df[df["status"] == "ok"]
    for peer in PEERS:
        rows = ok_rows[ok_rows["config_source"].str.split(",").apply(lambda s: peer in s)]
        n, s = len(rows), int((rows["spill_store_bytes"] > 0).sum())
        lines.append(f"| {peer} | {n} | {s} | {s / max(1, n):.1%} |")
    for cut, (_, sc) in zip(cuts, scored):
        picks = int(sc.picks.sum())
        lines.append(f"| learned, {cut} cut (this run) | {picks} | {sc.spilling_picks()} | {sc.spilling_picks() / max(1, picks):.1%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--v2", default=str(REPO / "data" / "sm90_v2"), help="dataset v2 (default data/sm90_v2)")
    ap.add_argument("--v1", default=str(REPO / "data" / "sm90_v1"), help="dataset v1 (default data/sm90_v1)")
    ap.add_argument("--top", type=int, default=5, help="turned-down faster configs per group (default 5)")
    ap.add_argument("--jobs", type=int, default=2, help="compile workers (default 2)")
    ap.add_argument("--group-model", default="", help="group heads' bundle (default: the shipped costfuse/models/groups)")
    ap.add_argument("--out", default=str(HERE / "results" / "group_decisions.md"), help="report path ('-': stdout)")
    args = ap.parse_args(argv)
    emit(run(Path(args.v2), Path(args.v1), args.top, args.jobs, command_line("group_decisions.py", argv),
             args.group_model), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
