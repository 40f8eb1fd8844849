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

    python experiments/group_decisions.py [--top 5] [--jobs 2]

writes ``experiments/results/group_decisions.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
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
    from costfuse.cost_models.group_time import score_configs
    from costfuse.featurize.group_features import group_features, group_static
    from costfuse.launch import config_space

    est = model.best_config(shape)
    if est.reason.startswith("fallback"):
        return None
    heads = model._group_heads
    configs = config_space(shape)
    X = group_features(shape, configs, model.arch, group_static(shape))
    pred = heads.predict(X)
    out_of_range, _ = heads.outside(X)
    scores = score_configs(shape, configs, model._target, spill_bytes=pred["spill_bytes"])
    pick = configs.index(est.launch)
    faster = [i for i in np.argsort(scores.time_s, kind="stable")
              if scores.time_s[i] < scores.time_s[pick] and not out_of_range[i]][:top]
    chosen = [pick] + faster
    return [configs[i] for i in chosen], [bool(pred["spill_bytes"][i] > model.spill_budget) for i in chosen], \
        [i == pick for i in chosen]


def run(v2: Path, v1: Path, top: int, jobs: int, command: str) -> str:
    from costfuse.cost_models import Learned
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.data.lower_kernel import kernel_members, lower_kernel
    from costfuse.data.store import read_dataset
    from costfuse.ir import parse_module
    from costfuse.kernel import analyze_kernel

    gids, _ = test_groups(v2, v1)
    df = read_dataset(v2, 2)
    df = df[df["group_id"].isin(gids)]
    model = Learned()
    tasks, meta, fallbacks = [], [], 0
    t0 = time.perf_counter()
    for gid, sub in df.groupby("group_id"):
        module = parse_module(sub["ir"].iloc[0], gid)
        func = module.body.operations[0].operation
        shape = analyze_kernel(kernel_members(func))
        got = decision_configs(model, shape, top)
        if got is None:
            fallbacks += 1
            continue
        for launch, predicted, is_pick in zip(*got):
            k = lower_kernel(func, launch)
            tasks.append(CompileTask(k.source, k.config, parse_arch("sm_90")))
            meta.append((gid, launch, predicted, is_pick))
    decide_s = time.perf_counter() - t0
    print(f"compiling {len(tasks)} decision configs of {len(gids)} test groups ...", file=sys.stderr, flush=True)
    with CompilePool(jobs) as pool:
        results = pool.run(tasks)
    ok = [(m, r) for m, r in zip(meta, results) if r.status == "ok"]
    truth = np.array([bool(r.spill_bytes) for _, r in ok])
    pred = np.array([m[2] for m, _ in ok])
    picks = np.array([m[3] for m, _ in ok])
    tp, fp, fn = int((truth & pred).sum()), int((~truth & pred).sum()), int((truth & ~pred).sum())
    recall = tp / max(1, tp + fn)
    precision = tp / max(1, tp + fp)
    lines = [
        "# Group heads on the learned policy's decision configs (dataset v2 test programs)",
        "",
        f"Command: `{command}`  ",
        f"Conditions: {conditions()}",
        "",
        f"- test groups: {len(gids)}; decided by the heads: {len(gids) - fallbacks}; fell back to analytical: "
        f"{fallbacks}",
        f"- decision configs compiled: {len(tasks)} ({len(ok)} ok); the pick + up to {top} configs the analytical "
        "time ranks faster that the heads turned down",
        f"- spilling by ptxas among them: {int(truth.sum())}; predicted spilling: {int(pred.sum())}",
        f"- **recall on spilling configs: {recall:.3f}** (goal >= 0.95: {'met' if recall >= 0.95 else 'NOT met'}); "
        f"**precision: {precision:.3f}** (goal >= 0.8: {'met' if precision >= 0.8 else 'NOT met'}); "
        f"TP {tp}, FP {fp}, FN {fn}",
        f"- picks that spill (ptxas): {int((truth & picks).sum())} of {int(picks.sum())}",
        f"- decision time: {decide_s * 1e3 / max(1, len(gids)):.2f} ms per group (features, heads, range check, "
        "plus this script's rescoring)",
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
    lines.append(f"| learned (this run) | {int(picks.sum())} | {int((truth & picks).sum())} | "
                 f"{(truth & picks).sum() / max(1, picks.sum()):.1%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--v2", default=str(REPO / "data" / "sm90_v2"), help="dataset v2 (default data/sm90_v2)")
    ap.add_argument("--v1", default=str(REPO / "data" / "sm90_v1"), help="dataset v1 (default data/sm90_v1)")
    ap.add_argument("--top", type=int, default=5, help="turned-down faster configs per group (default 5)")
    ap.add_argument("--jobs", type=int, default=2, help="compile workers (default 2)")
    ap.add_argument("--out", default=str(HERE / "results" / "group_decisions.md"), help="report path ('-': stdout)")
    args = ap.parse_args(argv)
    emit(run(Path(args.v2), Path(args.v1), args.top, args.jobs, command_line("group_decisions.py", argv)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
