"""How fast is a learned decision, against the exact answer it replaces (compile + ptxas)?

    .venv/bin/python experiments/bench_decisions.py [--data data/sm90_v1] [--model costfuse/models]
        [--policy wide] [--programs 12] [--timed 20] [--repeats 5] [--generics 1000] [--quick]

Candidates: every edge the pass considers on the held-out programs (the same
ones as ``compare_cost_models.py``), fusing as ``always`` would so that
candidates grow to the largest fused kernels.  Each candidate is saved as
three standalone generics (fused, producer, consumer).

* **Learned**: ``Learned.decide_batch`` over all candidates with an empty
  cache (featurize the three kernels + one batched XGBoost call), median of
  ``--repeats``, divided by the number of candidates.
* **Exact answer**: lower the fused kernel at the same launch-config policy,
  compile it with Triton for sm_90 and read ptxas's spill bytes.  ``--timed``
  of them are compiled afresh (no result cache) to time it (median per
  kernel, worker start-up excluded); every candidate's label is used for the
  agreement (cached labels allowed: the answer is the same).
  ptxas's answer: fuse iff the fused kernel spills no more than the
  ``--spill-budget`` (0 bytes) plus what its parts spill.
* **The whole pass**: ``experiments/bench_pass.py``'s 1,000-generic module,
  the learned pass against ``threshold`` in the same process, median of ``--repeats``.

Both are measured in the same run (DESIGN §8); prints a Markdown report.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for p in (REPO, REPO / "experiments"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from bench_pass import build_module  # noqa: E402
from compare_cost_models import held_out_programs  # noqa: E402

from costfuse.cost_models import Always, Decision, FusionCandidate, Learned, Threshold  # noqa: E402
from costfuse.cost_models.analytical import launch_config_for  # noqa: E402
from costfuse.fusion_pass import FusionPass, run_pipeline  # noqa: E402
from costfuse.ir import new_context, parse_module  # noqa: E402


class Recorder(Always):
    """``always``, recording each candidate's three generics as standalone module texts."""

    def __init__(self):
        self.seen: list[tuple[str, str, str]] = []

    def decide(self, candidate: FusionCandidate) -> Decision:
        from data.lower import generic_as_function

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
    from data.lower import lower_generic
    from featurize.features import analyze_generic, find_generic

    module = parse_module(text, context=ctx)
    with module.context:
        g = find_generic(module)
        s = analyze_generic(g).values
        cfg = launch_config_for(int(s["xnumel"]), int(s["rnumel"]) if s["is_reduction"] else 1, policy)
        return lower_generic(g, cfg).source, cfg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/sm90_v1")
    ap.add_argument("--model", default="")
    ap.add_argument("--policy", default="wide", choices=("heuristic", "wide"))
    ap.add_argument("--programs", type=int, default=12, help="held-out programs to draw candidates from")
    ap.add_argument("--candidates", type=int, default=0, help="cap on candidates (0: all)")
    ap.add_argument("--timed", type=int, default=20, help="fused kernels compiled afresh to time ptxas")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--generics", type=int, default=1000, help="size of the pass-timing module")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--quick", action="store_true", help="4 programs, 6 timed compiles, 3 repeats")
    args = ap.parse_args(argv)
    if args.quick:
        args.programs, args.timed, args.repeats = min(args.programs, 4), min(args.timed, 6), min(args.repeats, 3)
    command = "python experiments/bench_decisions.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    log = lambda m: print(f"[bench_decisions] {m}", file=sys.stderr, flush=True)  # noqa: E731

    from data.compile import CompilePool, CompileTask, parse_arch

    model = Learned(model=args.model, tile_policy=args.policy)
    seed = int(model.metadata.get("params", {}).get("seed", 0))
    held, _ = held_out_programs(Path(args.data), "sm_90", 0.25, seed, model.metadata, args.programs)
    cands = collect([w.text for w in held], args.candidates or None)
    log(f"{len(cands)} candidates from {len(held)} held-out programs")

    # --- learned: featurize + batched predict, empty cache each repeat
    ctx = new_context()
    modules = [[parse_module(t, context=ctx) for t in triple] for triple in cands]
    from featurize.features import find_generic

    fcands = [FusionCandidate(find_generic(p), find_generic(c), find_generic(f)) for f, p, c in modules]
    learned_s, decisions = [], None
    with ctx:
        for _ in range(args.repeats):
            model._cache.clear()
            t0 = time.perf_counter()
            decisions = model.decide_batch(fcands)
            learned_s.append((time.perf_counter() - t0) / len(fcands))
    per_decision = statistics.median(learned_s)

    # --- exact answers: compile fused kernels (and parts, for the agreement rule)
    kernels = {t: lowered(t, args.policy, ctx) for triple in cands for t in triple}
    tasks = {t: CompileTask(src, cfg, parse_arch("sm_90")) for t, (src, cfg) in kernels.items()}
    timed_texts = [f for f, _, _ in cands][: args.timed]
    with CompilePool(1, timeout_s=args.timeout, cache=False) as pool:
        pool.start()
        t0 = time.perf_counter()
        fresh = pool.run([tasks[t] for t in timed_texts])
        fresh_wall = (time.perf_counter() - t0) / max(1, len(timed_texts))
    per_compile = statistics.median(r.compile_s for r in fresh) if fresh else float("nan")
    log(f"timed {len(fresh)} fresh compiles: median {per_compile:.2f} s")
    texts = list(tasks)
    with CompilePool(1, timeout_s=args.timeout) as pool:
        labels = dict(zip(texts, pool.run([tasks[t] for t in texts])))

    def spill(t):
        r = labels[t]
        return None if r.status != "ok" else (r.spill_store_bytes or 0) + (r.spill_load_bytes or 0)

    agree = n = 0
    table = {(a, b): 0 for a in (True, False) for b in (True, False)}
    for (f, p, c), d in zip(cands, decisions):
        sf, sp, sc = spill(f), spill(p), spill(c)
        if None in (sf, sp, sc):
            continue
        exact = sf - sp - sc <= model.spill_budget
        n += 1
        agree += d.fuse == exact
        table[(d.fuse, exact)] += 1
    spilling = sum(1 for f, _, _ in cands if (spill(f) or 0) > 0)

    # --- the whole pass on a 1,000-generic module
    text = build_module(args.generics)
    n_gen = text.count("linalg.generic")
    t_learned, t_thresh = [], []
    for _ in range(args.repeats):
        m = Learned(model=args.model)  # fresh cache: nothing carried over between repeats
        mod = parse_module(text)
        t0 = time.perf_counter()
        run_pipeline(mod, FusionPass(m))
        t_learned.append(time.perf_counter() - t0)
        mod = parse_module(text)
        t0 = time.perf_counter()
        run_pipeline(mod, FusionPass(Threshold()))
        t_thresh.append(time.perf_counter() - t0)
    tl, tt = statistics.median(t_learned), statistics.median(t_thresh)

    print(f"# bench_decisions\n\n```\n{command}\n```\n")
    print(f"{platform.node()} ({platform.machine()}, Python {platform.python_version()}), no GPU; "
          f"model `{model.source}`; tile policy `{args.policy}`; {len(cands)} candidates from {len(held)} "
          f"held-out programs ({spilling} fused kernels spill per ptxas).\n")
    print("| what | median per decision | ratio |\n|---|---|---|")
    print(f"| learned: featurize 3 kernels + batched predict (empty cache, {args.repeats} repeats) "
          f"| {per_decision * 1e3:.3f} ms | 1x |")
    print(f"| exact: lower + Triton compile + ptxas of the fused kernel ({len(fresh)} fresh compiles) "
          f"| {per_compile * 1e3:.0f} ms | {per_compile / per_decision:,.0f}x slower |")
    print(f"| exact, pool wall time per kernel (IPC included) | {fresh_wall * 1e3:.0f} ms "
          f"| {fresh_wall / per_decision:,.0f}x slower |\n")
    print(f"Agreement with ptxas (fuse iff the fused kernel adds <= {model.spill_budget:g} spill bytes to its "
          f"parts'): {agree}/{n} = {100 * agree / max(1, n):.1f}% "
          f"(learned fuse & ptxas fuse {table[(True, True)]}, learned keep & ptxas keep {table[(False, False)]}, "
          f"learned fuse & ptxas keep {table[(True, False)]}, learned keep & ptxas fuse {table[(False, True)]}).\n")
    print(f"Whole pass on bench_pass.py's {n_gen}-generic module (median of {args.repeats}, pass + canonicalize,cse): "
          f"learned {tl:.2f} s, threshold {tt:.2f} s ({tl / tt:.1f}x); goal <= 10 s: "
          f"{'met' if tl <= 10 else 'NOT met'}.")
    ok_speed = per_compile / per_decision >= 1000
    ok_agree = agree >= 0.95 * max(1, n)
    print(f"\nGoals: >= 1,000x faster: {'met' if ok_speed else 'NOT met'}; "
          f">= 95% agreement: {'met' if ok_agree else 'NOT met'}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
