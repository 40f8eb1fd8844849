"""The Inductor handler's heads where it decides, on Inductor kernels they never saw (issue #25, part 6).

A spill AUC over random configs says little about the configs the handler
actually weighs.  For every reduction kernel of dataset ``sm90_inductor_v1``'s
*test* programs (the grouped split the handler's heads were trained against:
``load_group_table`` over the bundle's datasets, ``grouped_split``, seed 0,
as ``costfuse-train`` makes it), the handler
(:class:`costfuse.inductor.decide.Decider`) picks a config of the kernel's own
mode (the mode of the source Inductor generated: a persistent kernel's row
block is fixed in its body, so only that kernel can be compiled at the pick).
Its *decision configs* are that pick plus the configs it turned down although
the analytical time ranks them faster (the ``--top`` fastest of them).  Each is
compiled from the kernel's stored Inductor source (Triton 3.6's ptxas on the
CPU, cached by kernel id), and the heads' spill verdicts there are scored
against ptxas: recall and precision on spilling configs, and how many picks
spill, at the F1 cut and at the handler's recall cut.

It also scores ``prune`` on the same held-out programs: Inductor's own
candidate configs (the default and max-autotune lists, ``config_source``) of
every test kernel the handler decides in its mode, each labelled by the
dataset's ptxas compile (no new compile), dropped or kept at each cut.  The
report's blocks hold 19 spilling candidates; these hold more, from programs
the heads never saw.

    python experiments/inductor_decisions.py [--model costfuse/models/inductor] [--top 5] [--jobs 2]

writes ``experiments/results/inductor_decisions.md``.  ``--model
costfuse/models/groups`` scores the heads trained on CostFuse's own lowering
only, on the same kernels.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import command_line, conditions, emit  # noqa: E402
from group_decisions import Scored, cut_tables  # noqa: E402

SHIPPED = REPO / "costfuse" / "models" / "inductor"
REDUCTIONS = ("reduction", "persistent_reduction")


def datasets(meta: dict) -> list[Path]:
    """The dataset directories a bundle's ``metadata.json`` names (``dataset``: ``A + B + ...``)."""
    return [REPO / d.strip() for d in meta["dataset"].split("+")]


def test_kernels(model: Path, seed: int = 0):
    """One v3 row per reduction kernel (by source hash) of the test programs of ``model``'s training split,
    and the number of test programs (:func:`test_rows`)."""
    rows, programs = test_rows(model, seed)
    return rows.drop_duplicates("source_hash").reset_index(drop=True), programs


def test_rows(model: Path, seed: int = 0):
    """Every compiled v3 row of a reduction kernel of the test programs of ``model``'s training split, and
    the number of test programs: the datasets its ``metadata.json`` names, split as ``costfuse-train``
    splits them."""
    from costfuse.data.store import read_dataset, shard_version, shards
    from costfuse.train.group_dataset import load_group_table
    from costfuse.train.splits import grouped_split

    meta = json.loads((model / "metadata.json").read_text())
    require_trained_data(meta)
    dirs = datasets(meta)
    table = load_group_table(dirs)
    split = grouped_split(table.groups, 0.25, seed)
    test = table.rows[split.test & (table.rows["dataset_version"] == 3).to_numpy()]
    # The kernels' sources and descriptions: the table keeps neither.  The Inductor dataset is the v3 one.
    df = read_dataset(next(d for d in dirs if shard_version(shards(d)[0]) == 3), 3)
    df = df[(df["status"] == "ok") & df["kernel_desc"].notna() & df["heuristic"].isin(REDUCTIONS)
            & df["program_id"].isin(set(test["program_id"]))]
    return df.reset_index(drop=True), test["program_id"].nunique()


def require_trained_data(meta: dict) -> None:
    """Refuse when the bundle's datasets changed since it was trained (``dataset_hash``): the grouped split
    of the grown table would put programs the heads were trained on among the test ones.  Retrain first."""
    from costfuse.train.dataset import dataset_hash

    now = "+".join(dataset_hash(d) for d in datasets(meta))
    if now != meta["dataset_hash"]:
        raise SystemExit(f"inductor_decisions: {meta['dataset']} changed since the model was trained (dataset "
                         f"hash {now}, the model's {meta['dataset_hash']}): its test split is no longer the one the "
                         "heads were held out from; retrain the model on the data as it is (docs/training.md)")


def decision_configs(decider, kernel, mode: str, top: int):
    """(launches, predicted spills, is-pick) the handler weighs for ``kernel`` in ``mode``; None when the
    heads cannot decide it (outside the training range, or every config predicted to spill)."""
    from costfuse.cost_models.group_time import score_configs
    from costfuse.inductor.configs import inductor_can_launch
    from costfuse.launch import config_space

    pick, _ = decider.pick(kernel, mode)
    if pick is None:
        return None
    configs = [c for c in config_space(kernel) if inductor_can_launch(c) and c.mode == mode]
    pred = decider.predict(kernel, configs)
    time_s = score_configs(kernel, configs, decider.target, predicted_spill=np.zeros(len(configs))).time_s
    i = configs.index(pick.launch)
    faster = [j for j in np.argsort(time_s, kind="stable") if time_s[j] < time_s[i] and pred["in_range"][j]][:top]
    chosen = [i] + faster
    return [configs[j] for j in chosen], [bool(pred["spills"][j]) for j in chosen], [j == i for j in chosen]


def score_at(cut: str, model: Path, rows, top: int, jobs: int) -> Scored:
    """Decide every kernel at spill cut ``cut``, compile its decision configs from its Inductor source, score."""
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.data.inductor_codegen import kernel_source
    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.inductor.configs import NUM_STAGES
    from costfuse.inductor.decide import Decider

    decider = Decider(str(model), "sm_90", cut)
    tasks, meta, fallbacks, decide_s = [], [], 0, 0.0
    directory = tempfile.mkdtemp(prefix="costfuse_inductor_decisions_")   # the kernels' module files, one folder
    for r in rows.itertuples():
        kernel = kernel_from_dict(json.loads(r.kernel_desc))
        t0 = time.perf_counter()
        got = decision_configs(decider, kernel, "persistent" if r.persistent else "looped", top)
        decide_s += time.perf_counter() - t0
        if got is None:
            fallbacks += 1
            continue
        source = kernel_source(r.kernel_name, r.triton_src, directory)
        for launch, predicted, is_pick in zip(*got):
            config = dataclasses.replace(source.compile_config(launch), num_stages=NUM_STAGES)
            tasks.append(CompileTask(source.compile_source(), config, parse_arch("sm_90")))
            meta.append((predicted, is_pick, f"{r.program_id}/{r.kernel_name}", launch))
    print(f"cut {cut}: compiling {len(tasks)} decision configs of {len(rows)} test kernels ...",
          file=sys.stderr, flush=True)
    with CompilePool(jobs) as pool:
        results = pool.run(tasks)
    ok = [(m, r) for m, r in zip(meta, results) if r.status == "ok"]
    return Scored(cut, decider.heads.threshold, fallbacks, len(tasks),
                  np.array([bool(r.spill_bytes) for _, r in ok], bool), np.array([m[0] for m, _ in ok], bool),
                  np.array([m[1] for m, _ in ok], bool), decide_s,
                  [(m[2], m[3], r.spill_bytes, r.regs) for m, r in ok if r.spill_bytes and not m[0]])


PRUNE_SOURCES = ("inductor", "max_autotune")   # the candidate lists prune sees (data/inductor_job.py)


@dataclasses.dataclass
class Pruned:
    """What ``prune`` does at one cut to Inductor's candidates of the decided test kernels: per candidate,
    whether ptxas found it spilling (``truth``) and whether the cut drops it (``dropped``)."""

    cut: str
    p_cut: float
    truth: np.ndarray
    dropped: np.ndarray

    def line(self) -> str:
        spill, free = self.truth, ~self.truth
        drop_spill, drop_free = self.dropped[spill].mean(), self.dropped[free].mean()
        return (f"| {self.cut} | {self.p_cut:.3f} | {int(self.dropped[spill].sum())} of {int(spill.sum())} "
                f"({100 * drop_spill:.1f}%) | {_met(drop_spill >= 0.95)} | {int(self.dropped[free].sum())} of "
                f"{int(free.sum())} ({100 * drop_free:.1f}%) | {_met(drop_free <= 0.05)} |")


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def prune_scores(model: Path, rows) -> tuple[list[Pruned], int]:
    """:class:`Pruned` at the F1 and recall cuts over the candidates (``config_source`` in
    :data:`PRUNE_SOURCES`) of every kernel of ``rows`` the handler decides in its own mode, and the number of
    those kernels."""
    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.inductor.configs import launch_of
    from costfuse.inductor.decide import Decider

    decider = Decider(str(model), "sm_90", "recall")
    cand = rows[rows["config_source"].fillna("").str.split(",").map(lambda s: bool(set(s) & set(PRUNE_SOURCES)))]
    truth, p_spill, kernels = [], [], 0
    for _, g in cand.groupby("source_hash", sort=True):
        kernel = kernel_from_dict(json.loads(g["kernel_desc"].iloc[0]))
        mode = "persistent" if bool(g["persistent"].iloc[0]) else "looped"
        if decider.pick(kernel, mode)[0] is None:   # left to Inductor: prune leaves its list alone
            continue
        kernels += 1
        launches = [launch_of({"XBLOCK": int(r.xblock), "R0_BLOCK": int(r.rblock)}, int(r.num_warps),
                              mode == "persistent", kernel.n) for r in g.itertuples()]
        p_spill += list(decider.predict(kernel, launches)["p_spill"])
        truth += list((g["spill_store_bytes"] + g["spill_load_bytes"]).to_numpy() > 0)
    truth, p_spill = np.array(truth, bool), np.array(p_spill, float)
    return [Pruned(cut, decider.heads.cut_threshold(cut), truth, p_spill >= decider.heads.cut_threshold(cut))
            for cut in ("f1", "recall")], kernels


def prune_section(model: Path, rows) -> list[str]:
    """The report's ``prune`` section (see the module docstring); the cut ``prune`` drops at is named."""
    from costfuse.inductor.decide import PRUNE_SPILL_CUT

    scored, kernels = prune_scores(model, rows)
    return [
        "",
        "## `prune` on the test programs' Inductor candidates",
        "",
        f"Inductor's default and max-autotune candidates of the {kernels} test kernels the handler decides in "
        f"their own mode, labelled by the dataset's ptxas compiles: {len(scored[0].truth)} candidates, "
        f"{int(scored[0].truth.sum())} spilling. `prune` drops at the `{PRUNE_SPILL_CUT}` cut "
        "(`costfuse/inductor/decide.py`, `PRUNE_SPILL_CUT`)."
        + ("" if scored[0].truth.sum() >= 30 else " Fewer than 30 spilling candidates: the rates rest on few spills."),
        "",
        "| spill cut | P(spill) | spilling dropped | >= 95% | spill-free dropped | <= 5% |",
        "|---|---|---|---|---|---|",
        *(p.line() for p in scored),
    ]


def run(model: Path, top: int, jobs: int, command: str) -> str:
    everything, programs = test_rows(model)
    rows = everything.drop_duplicates("source_hash").reset_index(drop=True)
    f1, recall = score_at("f1", model, rows, top, jobs), score_at("recall", model, rows, top, jobs)
    decided = len(rows) - recall.fallbacks
    lines = [
        "# The Inductor handler's heads on its decision configs (dataset sm90_inductor_v1, test programs)",
        "",
        f"Command: `{command}`  ",
        f"Conditions: {conditions()}",
        "",
        f"- model: `{model.relative_to(REPO) if model.is_relative_to(REPO) else model}`; test programs: {programs} "
        f"(the grouped split its heads were trained against); their reduction kernels: {len(rows)}; decided by "
        f"the heads at the handler's recall cut: {decided}; left to Inductor (outside the training range, or "
        f"every config predicted to spill): {recall.fallbacks}",
        f"- decision configs: the pick in the kernel's own mode + up to {top} configs the analytical time ranks "
        "faster that the heads turned down; each cut makes its own",
        f"- decision time (recall cut): {recall.decide_s * 1e3 / max(1, len(rows)):.2f} ms per kernel (the pick, "
        "plus this script's rescoring of the mode's whole space)",
        f"- spilling decision configs evaluated: {int(recall.truth.sum())} at the recall cut, {int(f1.truth.sum())} "
        "at the F1 cut" + (" (fewer than 30: the recall and precision below rest on few spills)"
                             if min(recall.truth.sum(), f1.truth.sum()) < 30 else ""),
        "",
    ]
    lines += cut_tables((("recall (the handler's)", recall), ("f1", f1)), "program/kernel")
    lines += prune_section(model, everything)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=str(SHIPPED), help="the handler's heads (default costfuse/models/inductor)")
    ap.add_argument("--top", type=int, default=5, help="turned-down faster configs per kernel (default 5)")
    ap.add_argument("--jobs", type=int, default=2, help="compile workers (default 2)")
    ap.add_argument("--out", default=str(HERE / "results" / "inductor_decisions.md"), help="report path ('-': stdout)")
    args = ap.parse_args(argv)
    emit(run(Path(args.model).resolve(), args.top, args.jobs, command_line("inductor_decisions.py", argv)), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
