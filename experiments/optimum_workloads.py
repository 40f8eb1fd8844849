"""The exact optimum (``optimum_groups.py``) on every workload, beside ``learned``, against issue #26's goals.

    python experiments/optimum_workloads.py [--workloads experiments/workloads] [--only 'softmax*']
        [--extra examples/a.mlir,examples/b.mlir] [--budget-s 300] [--timeout 60] [--jobs 2]
        [--cache experiments/results/optimum_groups.json] [--out experiments/results/optimum_groups.md]
        [--report-only | --refresh-learned]

For each ``*.mlir`` of ``--workloads`` (and each ``--extra`` graph, reported
in a section of its own) it finds the optimum's kernels, DRAM and issued
bytes, candidates, compiles, solve seconds and whether the search completed
within ``--budget-s`` wall seconds per graph (``optimum_groups.py
--budget-s``; a graph that hits it is reported incomplete, with where it
stopped, never dropped).  Beside it, ``learned``: the shipped group model
(``costfuse/models/groups``) run as the pass runs it, and the pass's own DRAM
and issued bytes for its kernels (``KernelEstimate``); the gap is learned's
DRAM bytes over the optimum's, in percent.

**Resumable.** Each graph's result is written to ``--cache`` (JSON,
atomically) as soon as it is found, keyed by the graph's path, with what
changes it (the graph's text as a SHA-256, budget, timeout, arch, candidate
limit); a rerun of the same command skips what the cache holds and only
writes the report, and a re-exported graph is solved again.
``--report-only`` runs nothing and writes the report from the cache, a graph
it lacks shown as not run (and counted as not solved).  ``--refresh-learned``
runs only ``learned`` again on the cached graphs, after a change to the pass:
the optimum's records stand, since it prices its candidates itself.
Compiles are cached on disk by :class:`costfuse.data.compile.CompilePool`,
so a graph interrupted mid-search costs only its MILPs when rerun.

The report (``--out``) states the conditions and the command at the top,
then per graph the optimum, learned and the gap, totals, and issue #26's
goals with the measured figure and a verdict: the optimum solved on at least
37 of the 39 workloads within the budget; learned within 2% of the optimum's
DRAM bytes in total and within 10% on every workload, naming, where not,
the kernels that differ and how, and why ``learned`` passed over the
optimum's config (its own verdicts on the configs of fewer bytes).

Experiments only: not part of the installed package.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_report import command_line, conditions  # noqa: E402

PROG = "optimum_workloads.py"
DEFAULT_CACHE = HERE / "results" / "optimum_groups.json"
DEFAULT_OUT = HERE / "results" / "optimum_groups.md"
DEFAULT_BUDGET_S = 300.0
# Issue #26's goals.
SOLVED_AT_LEAST = 37          # of the 39 workloads, within the stated budget
TOTAL_GAP = 0.02              # learned within 2% of the optimum's DRAM bytes in total
WORKLOAD_GAP = 0.10           # and within 10% on every workload
# Verdicts of configs the learned policy rejected outright (learned_groups.weigh_configs), not on its time.
REJECTED = ("predicted to spill", "outside the training range")


def settings_of(args, path: Path) -> dict:
    """What changes a graph's result: the graph's text and the run's settings.  A cached result under
    other settings, or of another text of the graph (a re-export), is computed again."""
    return {"budget_s": args.budget_s, "timeout_s": args.timeout, "arch": args.arch,
            "max_candidates": args.max_candidates, "graph_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def learned_bytes(path: Path, arch: str) -> dict:
    """The shipped learned group model on ``path`` as the pass runs it: its kernels and the pass's own bytes,
    and for each kernel the configs of fewer DRAM bytes than its pick with the policy's verdict on each
    (:func:`passed_over`), which say why ``learned`` did not take a cheaper config the optimum may take."""
    from costfuse.cost_models.learned_groups import LearnedGroups
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import load_module

    module = load_module(path)
    fusion = GroupFusionPass(LearnedGroups(arch=arch), weigh_configs=True)
    records = run_group_pipeline(module, fusion)
    kernels = [{"caller": r.caller, "kernel": r.kernel.label,
                "launch": r.kernel.estimate.launch.short() if r.kernel.estimate.launch else None,
                "dram_bytes": r.kernel.estimate.dram_bytes, "issued_bytes": r.kernel.estimate.issued_bytes,
                "passed_over": passed_over(r.weighed or (), r.kernel.estimate.dram_bytes)}
               for r in records]
    dram = [k["dram_bytes"] for k in kernels]
    return {"kernels": len(kernels), "dram_bytes": None if None in dram else sum(dram),
            "issued_bytes": sum(k["issued_bytes"] for k in kernels), "schedule": kernels}


def passed_over(weighed, dram_bytes: int | None) -> list[dict]:
    """The configs of ``weighed`` (a kernel's :class:`costfuse.policy.WeighedConfig` list) that move fewer DRAM
    bytes than ``dram_bytes``, the pick's, each with the policy's verdict (why it lost), fewest bytes first."""
    if dram_bytes is None:
        return []
    cheaper = [w for w in weighed if w.dram_bytes is not None and w.dram_bytes < dram_bytes]
    return [{"launch": w.launch.short(), "dram_bytes": w.dram_bytes, "time_us": round(w.time_s * 1e6, 2),
             "verdict": w.verdict} for w in sorted(cheaper, key=lambda w: (w.dram_bytes, w.time_s))]


def run_one(path: Path, args, pool) -> dict:
    """One graph's record: the optimum (``optimum_groups.py --json``'s object) and learned."""
    from optimum_groups import Budgets, optimum

    t0 = time.monotonic()
    try:
        opt = optimum(path, Budgets(args.max_candidates, None, args.budget_s), pool, args.arch).as_json()
    except Exception as err:   # one graph's failure is reported, not hidden, and the run goes on
        opt = {"file": str(path), "complete": False, "stopped": [f"error: {type(err).__name__}: {err}"],
               "kernels": None, "dram_bytes": None, "issued_bytes": None, "candidates": None, "compiles": None,
               "solve_s": None, "functions": []}
    return {"optimum": opt, "learned": learned_record(path, args.arch), "wall_s": round(time.monotonic() - t0, 2),
            "measured": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def learned_record(path: Path, arch: str) -> dict:
    """A graph's ``learned`` record (:func:`learned_bytes`), or the error that stopped it."""
    try:
        return learned_bytes(path, arch)
    except Exception as err:   # one graph's failure is reported, not hidden, and the run goes on
        return {"error": f"{type(err).__name__}: {err}", "kernels": None, "dram_bytes": None,
                "issued_bytes": None, "schedule": []}


def refresh_learned(cache: dict, paths: list[Path], settings: dict[Path, dict], arch: str) -> int:
    """Run ``learned`` again on every graph ``cache`` holds under its ``settings[path]``, keeping its optimum record:
    the optimum prices its own candidates (ptxas, the lowering's bytes), so a change to the pass changes
    only the learned side.  Each refreshed record says when (``learned_measured``).  Returns how many."""
    n = 0
    for p in paths:
        rec = cache["results"].get(key_of(p))
        if rec is None or rec.get("settings") != settings[p]:
            continue
        rec["learned"] = learned_record(p, arch)
        rec["learned_measured"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        n += 1
    return n


def not_run(path: Path) -> dict:
    """The record of a graph the cache has no result for under these settings (a run stopped before it)."""
    return {"optimum": {"file": str(path), "complete": False,
                        "stopped": ["not run: the run was stopped before this graph (rerun the command to resume)"],
                        "kernels": None, "dram_bytes": None, "issued_bytes": None, "candidates": None,
                        "compiles": None, "solve_s": None, "functions": []},
            "learned": {"kernels": None, "dram_bytes": None, "issued_bytes": None, "schedule": []},
            "wall_s": None, "measured": None}


def load_cache(path: Path) -> dict:
    if not path.exists():
        return {"results": {}}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        from costfuse.cli_common import UsageError

        raise UsageError(f"{path}: not a results cache ({err}); move it away to start over") from err
    data.setdefault("results", {})
    return data


def key_of(path: Path) -> str:
    """A graph's key in the cache: its path from the repository root (the same however the run was typed)."""
    return _rel(path)


def gap(rec: dict) -> float | None:
    """learned's DRAM bytes over the optimum's, minus 1 (None when either is missing)."""
    o, learned = rec["optimum"].get("dram_bytes"), rec["learned"].get("dram_bytes")
    if not o or learned is None:
        return None
    return learned / o - 1


def differences(rec: dict) -> str:
    """How learned's kernels differ from the optimum's: kernels only one of them forms, and shared groups at
    configs that move different DRAM bytes."""
    opt = {(f["name"], k["kernel"]): k for f in rec["optimum"].get("functions", []) for k in f["schedule"]}
    lrn = {(k["caller"], k["kernel"]): k for k in rec["learned"].get("schedule", [])}
    parts = []
    only_l = [f"{k[1]} ({lrn[k]['dram_bytes'] / 1e6:.1f} MB)" for k in lrn if k not in opt]
    only_o = [f"{k[1]} ({opt[k]['dram_bytes'] / 1e6:.1f} MB)" for k in opt if k not in lrn]
    if only_l or only_o:
        parts.append(f"learned forms {', '.join(only_l) or 'nothing else'} where the optimum forms "
                     f"{', '.join(only_o) or 'nothing else'}")
    for k in lrn:
        if k in opt and lrn[k]["dram_bytes"] != opt[k]["dram_bytes"]:
            parts.append(f"{k[1]}: learned {lrn[k]['launch']} {lrn[k]['dram_bytes'] / 1e6:.1f} MB, optimum "
                         f"{opt[k]['launch']} {opt[k]['dram_bytes'] / 1e6:.1f} MB ({opt[k]['priced']})"
                         + why_not_taken(lrn[k], opt[k]))
    return "; ".join(parts) or "same kernels and bytes"


def why_not_taken(learned: dict, optimum: dict) -> str:
    """Why ``learned`` passed over the optimum's config of a kernel both form, in the policy's own verdicts:
    on the optimum's config, and on the fastest config of the optimum's bytes that it did not reject outright
    (:data:`REJECTED`), where that is another.  Empty for a record written before the verdicts were kept."""
    same_bytes = [c for c in learned.get("passed_over", []) if c["dram_bytes"] == optimum["dram_bytes"]]
    if not same_bytes:
        return ""
    mine = next((c for c in same_bytes if c["launch"] == optimum["launch"]), None)
    allowed = [c for c in same_bytes if not c["verdict"].startswith(REJECTED)]
    best = min(allowed, key=lambda c: c["time_us"]) if allowed else None
    shown = [mine] + ([best] if best is not mine else [])
    return "".join(f". learned's verdict on {c['launch']}: {c['verdict']}" for c in shown if c is not None)


def last_answer(rec: dict) -> str:
    """Where an incomplete search stood: its last MILP answer, which is no optimum (kernels not yet compiled
    count their cheapest byte level, a lower bound; a cut enumeration leaves larger groups out)."""
    o = rec["optimum"]
    if o.get("kernels") is None:
        return ". No schedule found within the budget"
    unsettled = sum(1 for f in o.get("functions", []) for k in f["schedule"] if not k["settled"])
    return (f". Last MILP answer (no optimum): {o['kernels']} kernels, {_mb(o['dram_bytes'])} MB DRAM"
            + (f", {unsettled} of them not yet compiled (their bytes a lower bound)" if unsettled else "")
            + f"; learned {_mb(rec['learned'].get('dram_bytes'))} MB")


def _mb(x) -> str:
    return "-" if x is None else f"{x / 1e6:,.1f}"


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:+.2f}%"


def table(records: list[tuple[str, dict]]) -> list[str]:
    lines = ["| graph | optimum kernels | optimum DRAM MB | optimum issued MB | candidates | compiles (cached, timed out) "
             "| solve s | wall s | complete | learned kernels | learned DRAM MB | learned issued MB | gap (DRAM) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in records:
        o, learned = r["optimum"], r["learned"]
        comp = "yes" if o["complete"] else "**no**"
        compiles = ("-" if o.get("compiles") is None
                    else f"{o['compiles']} ({o.get('cached', 0)}, {o.get('timeouts', 0)})")
        # an incomplete search has no optimum: its last answer is listed below the table, not here
        kernels, dram, issued = ((o["kernels"], _mb(o["dram_bytes"]), _mb(o["issued_bytes"])) if o["complete"]
                                 else (None, "-", "-"))
        lines.append(f"| {name} | {kernels if kernels is not None else '-'} | {dram} "
                     f"| {issued} | {o['candidates'] if o['candidates'] is not None else '-'} "
                     f"| {compiles} | {'-' if o['solve_s'] is None else o['solve_s']} "
                     f"| {'-' if r['wall_s'] is None else r['wall_s']} | {comp} "
                     f"| {'-' if learned['kernels'] is None else learned['kernels']} "
                     f"| {_mb(learned['dram_bytes'])} "
                     f"| {_mb(learned['issued_bytes'])} | {_pct(gap(r)) if o['complete'] else '-'} |")
    return lines


def totals(records: list[tuple[str, dict]]) -> dict:
    done = [r for _, r in records if r["optimum"]["complete"] and r["learned"].get("dram_bytes") is not None]
    s = lambda rs, side, key: sum(r[side][key] for r in rs)  # noqa: E731
    t = {"graphs": len(records), "complete": sum(r["optimum"]["complete"] for _, r in records),
         "compared": len(done)}
    for side in ("optimum", "learned"):
        for key in ("kernels", "dram_bytes", "issued_bytes"):
            t[f"{side}_{key}"] = s(done, side, key)
    t["candidates"] = sum(r["optimum"]["candidates"] or 0 for _, r in records)
    t["compiles"] = sum(r["optimum"]["compiles"] or 0 for _, r in records)
    t["timeouts"] = sum(r["optimum"].get("timeouts") or 0 for _, r in records)
    counted = [r["optimum"] for _, r in records if r["optimum"].get("milp_branched") is not None]
    t["milp_solves"] = sum(o["milp_solves"] for o in counted)      # on graphs that count the branched ones
    t["milp_branched"] = sum(o["milp_branched"] for o in counted)
    t["milp_counted"] = len(counted)
    t["solve_s"] = round(sum(r["optimum"]["solve_s"] or 0 for _, r in records), 2)
    t["wall_s"] = round(sum(r["wall_s"] or 0 for _, r in records), 1)
    t["gap"] = t["learned_dram_bytes"] / t["optimum_dram_bytes"] - 1 if t["optimum_dram_bytes"] else None
    return t


def report(workloads: list[tuple[str, dict]], extra: list[tuple[str, dict]], args, command: str,
           header: str) -> str:
    t = totals(workloads)
    counted = "" if t["milp_counted"] == t["graphs"] else f", on the {t['milp_counted']} graphs that count them"
    lines = [
        "# The exact optimum of kernel groups beside `learned` (issue #26, part 1)", "",
        f"Command (from the repository root): `{command}`", "",
        header, "",
        "Written by `experiments/optimum_workloads.py` from its cache "
        f"(`{_rel(args.cache)}`); each graph's row was measured at the time its record gives there. "
        "The optimum (`experiments/optimum_groups.py`): every connected, convex, row-legal candidate group with "
        "its store/recompute variants, priced by ptxas (the spill-free config with the fewest DRAM bytes, then "
        "the fewest issued bytes), partitioned exactly by a MILP (HiGHS) with acyclicity by lazy cycle cuts. "
        f"Budget: {args.budget_s:g} s wall per graph, {args.timeout:g} s per compile (a compile that times out "
        "counts as spilling). A graph that hit the budget is marked incomplete (`complete` no) and the row says "
        "where it stopped; its bytes are then not an optimum and it is left out of the totals and the gap goals. "
        "`learned`: the shipped group model run by the pass; its DRAM and issued bytes are the pass's own "
        "estimates for its kernels (the same L2 model the optimum minimizes). Gap: learned's DRAM bytes over "
        "the optimum's.", "",
        f"## Workloads ({len(workloads)} graphs, `{_rel(args.workloads)}`)", "",
        *table(workloads), "",
        f"Totals over the {t['compared']} workloads where the optimum completed: optimum {t['optimum_kernels']} "
        f"kernels, {_mb(t['optimum_dram_bytes'])} MB DRAM, {_mb(t['optimum_issued_bytes'])} MB issued; learned "
        f"{t['learned_kernels']} kernels, {_mb(t['learned_dram_bytes'])} MB DRAM, {_mb(t['learned_issued_bytes'])} "
        f"MB issued; gap {_pct(t['gap'])}. All {t['graphs']} workloads: {t['candidates']:,} candidates, "
        f"{t['compiles']:,} compiles ({t['timeouts']:,} of them timed out, each counted as spilling), "
        f"{t['solve_s']} s in HiGHS ({t['milp_solves']:,} MILPs, {t['milp_branched']:,} of them past the LP "
        f"relaxation{counted}), "
        f"{t['wall_s']} s wall.", "",
    ]
    stopped = [(n, r) for n, r in workloads + extra if not r["optimum"]["complete"]]
    if stopped:
        lines += ["Incomplete (where the budget or an error stopped the search):", ""]
        lines += [f"- {n}: {'; '.join(r['optimum']['stopped'])}{last_answer(r)}" for n, r in stopped]
        lines.append("")
    errors = [(n, r) for n, r in workloads + extra if r["learned"].get("error")]
    if errors:
        lines += ["`learned` failed on:", ""] + [f"- {n}: {r['learned']['error']}" for n, r in errors] + [""]
    lines += goals(workloads, t)
    if extra:
        lines += ["", f"## Graphs not among the workloads ({len(extra)})", "", *table(extra), ""]
        done = sum(r["optimum"]["complete"] for _, r in extra)
        lines.append(f"The optimum completed within the budget on {done} of {len(extra)}.")
        far = [(n, r) for n, r in extra if gap(r) is not None and abs(gap(r)) > WORKLOAD_GAP]
        for n, r in far:
            lines.append(f"- {n}: gap {_pct(gap(r))}: {differences(r)}")
    return "\n".join(lines) + "\n"


def goals(workloads: list[tuple[str, dict]], t: dict) -> list[str]:
    solved = t["complete"]
    lines = ["## Goals of issue #26 (part 1), measured", ""]
    need = SOLVED_AT_LEAST if len(workloads) == 39 else None
    verdict = ("met" if solved >= need else "**not met**") if need else "not judged (not the 39 workloads)"
    lines.append(f"- The optimum solved on >= {SOLVED_AT_LEAST} of the 39 workloads within the budget stated "
                 f"above: solved on {solved} of {len(workloads)}: {verdict}.")
    g = t["gap"]
    comp_note = "" if t["compared"] == len(workloads) else f" (over the {t['compared']} workloads solved)"
    lines.append(f"- `learned` within {100 * TOTAL_GAP:g}% of the optimum's DRAM bytes in total{comp_note}: "
                 f"{_mb(t['learned_dram_bytes'])} against {_mb(t['optimum_dram_bytes'])} MB, gap {_pct(g)}: "
                 f"{'-' if g is None else ('met' if g <= TOTAL_GAP else '**not met**')}.")
    over = [(n, r) for n, r in workloads if r["optimum"]["complete"] and gap(r) is not None and gap(r) > WORKLOAD_GAP]
    within = sum(1 for _, r in workloads if r["optimum"]["complete"] and gap(r) is not None
                 and gap(r) <= WORKLOAD_GAP)
    worst = max((gap(r) for _, r in workloads if r["optimum"]["complete"] and gap(r) is not None), default=None)
    lines.append(f"- `learned` within {100 * WORKLOAD_GAP:g}% on every workload{comp_note}: within on {within}, "
                 f"over on {len(over)}, largest gap {_pct(worst)}: {'met' if not over else '**not met**'}.")
    for n, r in over:
        lines.append(f"  - {n}: gap {_pct(gap(r))}: {differences(r)}")
    below = [(n, r) for n, r in workloads if r["optimum"]["complete"] and gap(r) is not None and gap(r) < 0]
    if below:
        lines.append("- Below the optimum (learned moves fewer DRAM bytes than the spill-free optimum: a config "
                     "ptxas makes spill, or a kernel priced differently):")
        for n, r in below:
            lines.append(f"  - {n}: gap {_pct(gap(r))}: {differences(r)}")
    return lines


def _rel(p) -> str:
    p = Path(p).resolve()
    try:
        return str(p.relative_to(HERE.parent))
    except ValueError:
        return str(p)


def header_line(arch: str) -> str:
    from costfuse.data.compile import parse_arch, ptxas_version, triton_version

    return (f"Conditions: {conditions()}; Triton {triton_version()}, ptxas {ptxas_version(parse_arch(arch))}, "
            f"target {arch}; started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


def main(argv: list[str] | None = None) -> int:
    from costfuse.atomic import write_json, write_text
    from costfuse.cli_common import ArgumentParser, UsageError, int_at_least, run_command

    ap = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=Path, default=HERE / "workloads", help="folder of .mlir workloads")
    ap.add_argument("--only", default="", help="comma-separated globs of workload names (no .mlir)")
    ap.add_argument("--extra", default="", help="comma-separated .mlir graphs not among the workloads")
    ap.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S, help="wall seconds per graph")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per compile (timeout: not spill-free)")
    ap.add_argument("--max-candidates", type=int_at_least(1), default=None, help="per function (default: none)")
    ap.add_argument("--jobs", type=int_at_least(1), default=2, help="parallel compiles")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="per-graph results (JSON), for resuming")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="the report ('-': print only)")
    ap.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write the report from the cache, graphs it lacks marked not run")
    ap.add_argument("--refresh-learned", action="store_true",
                    help="run learned again on the graphs the cache holds (after a change to the pass), keeping "
                         "their optimum records; then write the report")
    args = ap.parse_args(argv)
    command = command_line(PROG, argv)

    def body() -> int:
        from costfuse.data.compile import CompilePool

        if not args.workloads.is_dir():
            raise UsageError(f"{args.workloads}: not a folder of workloads")
        paths = sorted(args.workloads.glob("*.mlir"))
        if args.only:
            pats = [p.strip() for p in args.only.split(",") if p.strip()]
            paths = [p for p in paths if any(fnmatch.fnmatch(p.stem, g) for g in pats)]
        if not paths:
            raise UsageError(f"{args.workloads}: no .mlir workloads" + (f" match {args.only!r}" if args.only else ""))
        extra = [Path(p.strip()) for p in args.extra.split(",") if p.strip()]
        for p in extra:
            if not p.is_file():
                raise UsageError(f"{p}: no such graph")
        cache = load_cache(args.cache)
        settings = {p: settings_of(args, p) for p in paths + extra}   # each graph read and hashed once

        header = cache.get("header") or header_line(args.arch)
        todo = [p for p in paths + extra
                if cache["results"].get(key_of(p), {}).get("settings") != settings[p]]
        if args.refresh_learned:
            n = refresh_learned(cache, paths + extra, settings, args.arch)
            write_json(args.cache, cache)
            print(f"[learned] ran again on {n} graph(s)", file=sys.stderr)
        elif todo and not args.report_only:
            from tqdm import tqdm

            header = header_line(args.arch) if len(todo) == len(paths) + len(extra) else cache.get("header", header)
            cache["header"] = header
            with CompilePool(args.jobs, args.timeout) as pool:
                bar = tqdm(todo, desc="optimum", unit="graph", disable=args.no_progress, file=sys.stderr)
                for p in bar:
                    bar.set_postfix_str(p.stem)
                    rec = run_one(p, args, pool)
                    rec["settings"] = settings[p]
                    cache["results"][key_of(p)] = rec
                    write_json(args.cache, cache)       # atomically: an interrupt loses at most this graph
        def record(p):
            rec = cache["results"].get(key_of(p))
            return rec if rec is not None and rec.get("settings") == settings[p] else not_run(p)

        rows = [(p.stem, record(p)) for p in paths]
        extra_rows = [(str(p), record(p)) for p in extra]
        text = report(rows, extra_rows, args, command, header)
        print(text, end="")
        if args.out != "-":
            write_text(args.out, text)
            print(f"[report] wrote {args.out}", file=sys.stderr)
        return 0

    return run_command(PROG, body, interrupted=": rerun the same command to resume")


if __name__ == "__main__":
    sys.exit(main())
