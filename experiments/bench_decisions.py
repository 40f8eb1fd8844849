"""How fast is a learned decision, against the exact answer it replaces (compile + ptxas)?

    .venv/bin/python experiments/bench_decisions.py [--data data/sm90_v1] [--model costfuse/models]
        [--policies heuristic,wide] [--programs 0] [--timed 20] [--repeats 5] [--generics 1000] [--quick]
        [--split-by content|program_id] [--allow-split-mismatch] [--report PATH]

Candidates: every edge the pass considers on the held-out programs (the same
ones as ``compare_cost_models.py``), fusing as ``always`` would so that
candidates grow to the largest fused kernels.  Each candidate is saved as
three standalone generics (fused, producer, consumer).

* **Learned, cold**: ``Learned.decide_batch`` over all candidates with an
  empty cache (featurize the three kernels + one batched XGBoost call),
  median of ``--repeats``, divided by the number of candidates.
* **Learned, in the pass**: the time inside ``decide`` per decision while
  the learned pass runs on the same programs (prediction cache emptied
  before each program, median of ``--repeats``).  Here each op's IR analysis
  is memoized over the run (``FusionCandidate.per_op``), as the exact answer
  reuses its parts' ptxas labels: both then do one new kernel per decision.
* **Exact answer**: lower the fused kernel at the same launch-config policy,
  compile it with Triton for sm_90 and read ptxas's spill bytes.  ``--timed``
  of them, an even sample, are compiled afresh (no result cache) to time it
  (median per kernel, worker start-up excluded); every candidate's label is used for the
  agreement (cached labels allowed: the answer is the same).
  ptxas's answer: fuse iff the fused kernel spills no more than the
  ``--spill-budget`` (0 bytes) plus what its parts spill.
* **Agreement, honestly**: fusing is almost always safe, so agreement is
  reported beside the always-fuse and never-fuse baselines, with balanced
  accuracy, and the goals are on the *spilling candidates* (ptxas says keep):
  recall >= 0.95 and precision >= 0.8 (``decision_metrics.py``).
* **Prediction cost per call**: the spill head on 1, 3, ``SMALL_BATCH + 1``
  and up to 2,000 rows, with ``Booster.inplace_predict``, with the NumPy
  trees (``costfuse/cost_models/forest.py``) and with their compiled walk
  (``forest_native.py``, "not built" where no C compiler works): the figures
  ``forest.py``, ``bundle.py`` and ``learned.py`` point to.
* **Held out, checked**: the programs must be the model's own held-out ones:
  the dataset's hash and the split's test-row count must match the model's
  metadata, else the bench refuses (``--allow-split-mismatch`` runs anyway
  and the report says so).
* **The whole pass**: ``experiments/bench_pass.py``'s 1,000-generic module,
  the learned pass against ``threshold`` in the same process, median of ``--repeats``.

Each policy (``--policies``) is measured on its own: the launch config decides
both what ptxas sees and what the model is asked.  Both sides are measured in
the same run (docs/design.md §8); writes a Markdown report to
``experiments/results/bench_decisions.md`` (``--report``; ``--quick`` only prints).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "experiments"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from bench_pass import build_module  # noqa: E402
from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402
from compare_cost_models import held_out_programs  # noqa: E402
from decision_metrics import PRECISION_GOAL, RECALL_GOAL, DecisionMetrics, decision_metrics, fmt  # noqa: E402

from costfuse.cost_models.always import Always  # noqa: E402
from costfuse.cost_models.analytical import launch_config_for  # noqa: E402
from costfuse.cost_models.learned import LearnedEdges  # noqa: E402
from costfuse.cost_models.threshold import Threshold  # noqa: E402
from costfuse.fusion_pass import FusionPass, run_pipeline  # noqa: E402
from costfuse.ir import new_context, parse_module  # noqa: E402
from costfuse.policy import Decision, EdgePolicy, FusionCandidate  # noqa: E402


class Timed(EdgePolicy):
    """Delegates to ``inner`` and adds up the wall time of its decisions."""

    name = "timed"

    def __init__(self, inner: EdgePolicy):
        self.inner, self.seconds, self.calls = inner, 0.0, 0

    def decide(self, candidate: FusionCandidate) -> Decision:
        t0 = time.perf_counter()
        d = self.inner.decide(candidate)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return d


def in_pass_seconds(model: LearnedEdges, texts: list[str]) -> tuple[float, int]:
    """(seconds per decision, decisions) of ``model`` inside the pass over ``texts``."""
    timed = Timed(model)
    for text in texts:
        model._cache.clear()
        FusionPass(timed).run(parse_module(text))
    return timed.seconds / max(1, timed.calls), timed.calls


class Recorder(Always):
    """``always``, recording each candidate's three generics as standalone module texts."""

    def __init__(self):
        self.seen: list[tuple[str, str, str]] = []

    def decide(self, candidate: FusionCandidate) -> Decision:
        from costfuse.data.lowering.reference_functions import generic_as_function

        self.seen.append(tuple(generic_as_function(op, "kernel")
                               for op in (candidate.fused, candidate.producer, candidate.consumer)))
        return super().decide(candidate)


def collect(texts: list[str], limit: int | None) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for text in texts:
        rec = Recorder()
        FusionPass(rec).run(parse_module(text))
        out += [t for t in rec.seen if t not in out]
    return out[:limit] if limit else out


def lowered(text: str, policy: str, ctx):
    from costfuse.data.lowering.generic import lower_generic
    from costfuse.featurize.features import analyze_generic, find_generic

    module = parse_module(text, context=ctx)
    with module.context:
        g = find_generic(module)
        s = analyze_generic(g).values
        cfg = launch_config_for(int(s["xnumel"]), int(s["rnumel"]) if s["is_reduction"] else 1, policy)
        return lower_generic(g, cfg).source, cfg


@dataclass
class PolicyResult:
    """Speed and agreement of the learned decisions at one tile policy."""

    policy: str
    in_pass_s: float        # per decision, inside the pass
    decisions: int          # decisions the pass made (per repeat)
    cold_s: float           # per decision, three kernels featurized, batched, empty cache
    compile_s: float        # median fresh lower + compile + ptxas of one fused kernel
    wall_s: float           # the same, pool wall time per kernel (IPC included)
    timed: int              # fresh compiles timed
    metrics: DecisionMetrics  # learned's decisions against ptxas's, every labelled candidate
    spilling: int           # candidates whose fused kernel spills at all per ptxas
    predict_ms: dict        # predict_call_ms() on this policy's rows


def measure(policy: str, model: LearnedEdges, held: list, cands: list, args, log) -> PolicyResult:
    """Time learned decisions and fresh compiles at ``policy``; count agreement with ptxas on every candidate."""
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.featurize.features import find_generic

    # learned, cold: featurize the three kernels + batched predict, empty cache each repeat
    ctx = new_context()
    modules = [[parse_module(t, context=ctx) for t in triple] for triple in cands]
    fcands = [FusionCandidate(find_generic(p), find_generic(c), find_generic(f)) for f, p, c in modules]
    cold, decisions = [], []
    with ctx:
        for _ in range(args.repeats):
            model._cache.clear()
            t0 = time.perf_counter()
            decisions = model.decide_batch(fcands)
            cold.append((time.perf_counter() - t0) / len(fcands))
        predict_ms = predict_call_ms(model)
    # learned, in the pass
    in_pass = [in_pass_seconds(model, [w.text for w in held]) for _ in range(args.repeats)]
    # exact answers: fresh compiles of an even sample of fused kernels, then every kernel's label
    kernels = {t: lowered(t, policy, ctx) for triple in cands for t in triple}
    tasks = {t: CompileTask(src, cfg, parse_arch("sm_90")) for t, (src, cfg) in kernels.items()}
    fused = [f for f, _, _ in cands]
    timed_texts = fused[:: max(1, len(fused) // max(1, args.timed))][: args.timed]
    with CompilePool(1, timeout_s=args.timeout, cache=False) as pool:
        pool.start()
        t0 = time.perf_counter()
        fresh = pool.run([tasks[t] for t in timed_texts])
        wall = (time.perf_counter() - t0) / max(1, len(timed_texts))
    per_compile = statistics.median(r.compile_s for r in fresh) if fresh else float("nan")
    log(f"{policy}: timed {len(fresh)} fresh compiles, median {per_compile:.2f} s; labelling {len(tasks)} kernels")
    with CompilePool(args.jobs, timeout_s=args.timeout) as pool:
        labels = dict(zip(tasks, pool.run(list(tasks.values()))))

    def spill(t):
        r = labels[t]
        return None if r.status != "ok" else (r.spill_store_bytes or 0) + (r.spill_load_bytes or 0)

    learned_fuses, ptxas_fuses = [], []
    for (f, p, c), d in zip(cands, decisions):
        sf, sp, sc = spill(f), spill(p), spill(c)
        if None not in (sf, sp, sc):
            learned_fuses.append(d.fuse)
            ptxas_fuses.append(sf - sp - sc <= model.spill_budget)
    return PolicyResult(policy, statistics.median(s for s, _ in in_pass), in_pass[0][1], statistics.median(cold),
                        per_compile, wall, len(fresh), decision_metrics(learned_fuses, ptxas_fuses),
                        sum(1 for f in fused if (spill(f) or 0) > 0), predict_ms)


BATCHES = (1, 3, 33, 2000)
"""Rows per call for :func:`predict_call_ms`: one candidate's kernel, its three kernels, just above the
bundle's ``SMALL_BATCH``, and a dataset-sized batch (capped by the rows available)."""


def predict_call_ms(model: LearnedEdges, calls: int = 100) -> dict[int, tuple[float, float, float | None]]:
    """Rows -> (XGBoost ``inplace_predict``, NumPy trees, compiled trees or ``None`` where the walk is not
    built) median ms per call of the spill head.

    Rows are the feature vectors the cold run cached (real candidates' kernels).
    Empty when XGBoost is not installed or the head cannot be flattened.
    """
    import numpy as np

    from costfuse.cost_models.forest_native import native_walk

    head = model.heads["spill"]
    try:
        booster = head.booster()
    except ValueError:  # BundleError: no XGBoost
        return {}
    if head.forest is None:
        return {}
    rows = np.asarray(list(model._cache), float)

    def ms(fn, X) -> float:
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            fn(X)
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e3

    forest = head.forest
    sizes = sorted({min(n, len(rows)) for n in BATCHES} - {0})
    return {n: (ms(booster.inplace_predict, rows[:n]), ms(lambda X: forest.link(forest.numpy_margin(X)), rows[:n]),
                ms(forest.predict, rows[:n]) if native_walk() is not None else None) for n in sizes}


def split_problem(data: Path, meta: dict, info: dict) -> str | None:
    """Why the held-out programs drawn from ``data`` may not be the model's held-out programs, or None.

    A figure on programs the model was trained on flatters it, so the dataset
    must be the model's own (same shard hash) and the split must give the test
    row count the model recorded.
    """
    from costfuse.train.dataset import dataset_hash

    have, want = dataset_hash(data), meta.get("dataset_hash")
    if have != want:
        return f"{data}: dataset hash {have}, but the model was trained on {want}"
    rows = meta.get("rows", {}).get("test")
    if rows != info["test_rows"]:
        return f"{data}: this split has {info['test_rows']} test rows, the model's had {rows} (try --split-by)"
    return None


def trained_on(model: LearnedEdges) -> str:
    """When and on what the model was trained, so a report can be matched to its model."""
    meta = getattr(model, "metadata", {})
    return f"trained {meta.get('created_at', '?')} on dataset hash {meta.get('dataset_hash', '?')}"


def render(command: str, conds: str, model: LearnedEdges, programs: str, repeats: int, results: list[PolicyResult],
           n_gen: int, tl: float, tt: float) -> str:
    """The Markdown report: speed, agreement beside its baselines, scores on spilling candidates, goals."""
    out = [f"# bench_decisions\n\n```\n{command}\n```\n",
           f"{conds}; model `{model.source}` ({trained_on(model)}); {programs}; medians of {repeats} repeats; "
           "fresh compiles on one worker, an even sample of the fused kernels.\n",
           "| policy | learned in the pass | learned cold (3 kernels, batched) | exact: lower + compile + ptxas "
           "| exact, pool wall (IPC included) | exact / learned in the pass |\n|---|---|---|---|---|---|"]
    for r in results:
        out.append(f"| `{r.policy}` | {r.in_pass_s * 1e3:.3f} ms ({r.decisions} decisions) | {r.cold_s * 1e3:.3f} ms "
                   f"| {r.compile_s * 1e3:.0f} ms ({r.timed} kernels) | {r.wall_s * 1e3:.0f} ms "
                   f"| {r.compile_s / r.in_pass_s:,.0f}x ({r.wall_s / r.in_pass_s:,.0f}x on wall time) |")
    out.append(f"\nDecisions against ptxas, every labelled candidate. ptxas says *keep* iff the fused kernel adds "
               f"more than {model.spill_budget:g} spill bytes to its parts': these are the *spilling candidates* "
               "(positive class). Agreement means little on its own: fusing everything already agrees on every "
               "candidate that is not spilling, so it stands beside the always-fuse and never-fuse baselines.\n")
    out.append("| policy | candidates | fused kernels that spill at all | spilling candidates (ptxas: keep) "
               "| agreement: learned | always-fuse | never-fuse | balanced accuracy (baselines 0.5) "
               "| recall on spilling | precision on spilling |\n|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m = r.metrics
        out.append(f"| `{r.policy}` | {m.n} | {r.spilling} | {m.spilling} "
                   f"| {m.tp + m.tn}/{m.n} = {fmt(m.agreement, True)} "
                   f"| {fmt(m.always_fuse_agreement, True)} | {fmt(m.never_fuse_agreement, True)} "
                   f"| {fmt(m.balanced_accuracy)} | {m.tp}/{m.spilling} = {fmt(m.recall)} "
                   f"| {m.tp}/{m.tp + m.fp} = {fmt(m.precision)} |")
    out.append("\n| policy | learned keep, ptxas keep | learned fuse, ptxas keep | learned keep, ptxas fuse "
               "| learned fuse, ptxas fuse |\n|---|---|---|---|---|")
    out += [f"| `{r.policy}` | {r.metrics.tp} | {r.metrics.fn} | {r.metrics.fp} | {r.metrics.tn} |" for r in results]
    out.append("\nPrediction cost per call of the spill head on these candidates' feature rows, XGBoost "
               "`inplace_predict` (one thread) against the NumPy trees (`costfuse/cost_models/forest.py`) and "
               "their compiled walk (`costfuse/cost_models/forest_native.py`), median of 100 calls; the figures "
               "`forest.py`, `bundle.py` and `learned.py` point to:\n")
    out.append("| policy | rows per call | `inplace_predict` | NumPy trees | compiled trees | compiled / XGBoost "
               "|\n|---|---|---|---|---|---|")
    for r in results:
        for n, (xgb_ms, np_ms, c_ms) in r.predict_ms.items():
            compiled = ("not built | |" if c_ms is None else f"{c_ms:.3f} ms | {c_ms / xgb_ms:.2f}x |")
            out.append(f"| `{r.policy}` | {n} | {xgb_ms:.3f} ms | {np_ms:.3f} ms | {compiled}")
        if not r.predict_ms:
            out.append(f"| `{r.policy}` | not measured (XGBoost not installed or trees not flattened) | | | | |")
    out.append(f"\nWhole pass on bench_pass.py's {n_gen}-generic module "
               f"(median of {repeats}, pass + canonicalize,cse): "
               f"learned {tl:.2f} s, threshold {tt:.2f} s ({tl / tt:.1f}x); goal <= 10 s: "
               f"{'met' if tl <= 10 else 'NOT met'}.\n")
    for r in results:
        m = r.metrics
        out.append(f"Goals at `{r.policy}`: >= 1,000x faster than the compile alone: "
                   f"{'met' if r.compile_s / r.in_pass_s >= 1000 else 'NOT met'}; "
                   f"recall >= {RECALL_GOAL} and precision >= {PRECISION_GOAL} on spilling candidates: "
                   f"{'met' if m.goals_met else 'NOT met'} (recall {fmt(m.recall)}, precision {fmt(m.precision)}).")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/sm90_v1")
    ap.add_argument("--model", default="")
    ap.add_argument("--policies", default="heuristic,wide", help="tile policies, comma-separated")
    ap.add_argument("--programs", type=int, default=0, help="held-out programs to draw candidates from (0: all)")
    ap.add_argument("--candidates", type=int, default=0, help="cap on candidates (0: all)")
    ap.add_argument("--timed", type=int, default=20, help="fused kernels compiled afresh to time ptxas, per policy")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--generics", type=int, default=1000, help="size of the pass-timing module")
    ap.add_argument("--jobs", type=int, default=2, help="compile workers for the (cached) labels")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--split-by", choices=("content", "program_id"), default="content",
                    help="what the model's trainer grouped its split on (program_id: models trained before 2026-12-03)")
    ap.add_argument("--allow-split-mismatch", action="store_true",
                    help="run even if the held-out programs may not be the model's (the report says so)")
    ap.add_argument("--quick", action="store_true", help="4 programs, 6 timed compiles, 3 repeats; prints only")
    add_report_arg(ap, "bench_decisions")
    args = ap.parse_args(argv)
    if args.quick:
        args.programs, args.timed, args.repeats = min(args.programs or 4, 4), min(args.timed, 6), min(args.repeats, 3)
        if args.report == ap.get_default("report"):
            args.report = "-"  # a quick look never overwrites the committed report
    command, conds = command_line("bench_decisions.py", argv), conditions()
    log = lambda m: print(f"[bench_decisions] {m}", file=sys.stderr, flush=True)  # noqa: E731

    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    models = {policy: LearnedEdges(model=args.model, tile_policy=policy) for policy in policies}
    meta = next(iter(models.values())).metadata
    seed = int(meta.get("params", {}).get("seed", 0))
    held, info = held_out_programs(Path(args.data), "sm_90", 0.25, seed, meta, args.programs or None, args.split_by)
    problem = split_problem(Path(args.data), meta, info)
    if problem and not args.allow_split_mismatch:
        print(f"bench_decisions: {problem}: the held-out programs may include training programs; "
              "pass the model's dataset, or --allow-split-mismatch", file=sys.stderr)
        return 1
    cands = collect([w.text for w in held], args.candidates or None)  # always's edges: the same at every policy
    log(f"{len(cands)} candidates from {len(held)} held-out programs")
    results = [measure(policy, model, held, cands, args, log) for policy, model in models.items()]
    model = models[policies[0]]

    # --- the whole pass on a 1,000-generic module
    text = build_module(args.generics)
    n_gen = text.count("linalg.generic")
    t_learned, t_thresh = [], []
    for _ in range(args.repeats):
        m = LearnedEdges(model=args.model)  # fresh cache: nothing carried over between repeats
        mod = parse_module(text)
        t0 = time.perf_counter()
        run_pipeline(mod, FusionPass(m))
        t_learned.append(time.perf_counter() - t0)
        mod = parse_module(text)
        t0 = time.perf_counter()
        run_pipeline(mod, FusionPass(Threshold()))
        t_thresh.append(time.perf_counter() - t0)
    tl, tt = statistics.median(t_learned), statistics.median(t_thresh)

    programs = f"{len(held)} held-out programs of the model's own split ({args.split_by})" if not problem else (
        f"**{len(held)} programs that may not be held out** ({problem})")
    emit(render(command, conds, model, programs, args.repeats, results, n_gen, tl, tt), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
