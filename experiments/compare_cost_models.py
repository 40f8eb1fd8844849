"""Cost models side by side on held-out programs and real-model examples, judged by real ptxas labels.

    .venv/bin/python experiments/compare_cost_models.py [--data data/sm90_v1] [--model costfuse/models]
        [--max-programs 24] [--policies heuristic,wide] [--jobs 1] [--timeout 60] [--quick]

For every cost model (``always``; ``threshold`` over max_chain_length 1..8 x
max_body_ops 4..128; ``analytical``; ``learned``) and every workload, the
fusion pass runs (as ``costfuse-opt`` does: the pass, then canonicalize,cse);
every resulting ``linalg.generic`` is lowered to its Triton kernel and
compiled for sm_90 on the CPU (``data.compile``; results are cached on disk by
kernel id, so kernels repeated across grid points compile once).  Reported per
workload and in total: kernels, kernels that spill, spill bytes (ptxas's
store + load bytes per thread, summed over kernels), and bytes moved through
HBM (``bytes_total`` of each kernel, from the IR).

Workloads: (a) the held-out programs: the test split of the trainer's own
grouped split (``train.splits.grouped_split`` over the dataset's ``status=ok``
rows of the arch, ``--test-size``, seed from the model's metadata), each
regenerated from ``(family, seed)`` with ``data.families.generate``, capped at
``--max-programs`` (round-robin over families, in seed order); (b) the
real-model examples (``examples/*.mlir``).

Launch configs: every kernel is compiled at the config it would run with
(``heuristic``), and again at the fixed ``wide`` tile policy
(``costfuse.cost_models.analytical.launch_config_for``: XBLOCK x4, same warps,
at most 32 elements per thread), the same for every cost model; the learned
and analytical models decide at the policy they are compiled at
(``tile_policy``).

GPU latency is never measured here: it is read from the dataset's
``latency_us`` once GPU rows have been merged into it (``costfuse-data
merge-latency``).  Then each held-out program's oracle is the latency DP over
its labelled groups (``data/latency_oracle.py``), and a model's kernels are
matched to the dataset's rows by program, member generics (from the pass's
decisions, :func:`kernel_members`) and launch config: a model's summed
latency counts the programs where every kernel it chose has a latency and
the oracle exists.  Without latency labels (so far: no GPU rows exist) the
latency and oracle columns say "not measured"; nothing is simulated.  Writes
``experiments/RESULTS.md`` and PNG plots under ``experiments/results/``.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from costfuse.cost_models.always import Always  # noqa: E402
from costfuse.cost_models.analytical import (
    Analytical,  # noqa: E402
    launch_config_for,  # noqa: E402
)
from costfuse.cost_models.learned import LearnedEdges  # noqa: E402
from costfuse.cost_models.threshold import Threshold  # noqa: E402
from costfuse.fusion_pass import FusionPass, run_pipeline  # noqa: E402
from costfuse.graph import function_blocks, generics_in  # noqa: E402
from costfuse.ir import parse_module  # noqa: E402
from costfuse.policy import EdgePolicy  # noqa: E402

CHAIN_GRID = tuple(range(1, 9))
BODY_GRID = (4, 8, 16, 32, 64, 128)
NOT_MEASURED = "not measured"
MAIN = ("unfused", "always", "best threshold", "analytical", "learned")


# --- workloads ------------------------------------------------------------------
@dataclass(frozen=True)
class Workload:
    name: str       # program id or example file stem
    group: str      # family, or "example:<stem>"
    kind: str       # "held-out" | "example"
    text: str


def held_out_programs(data: Path, arch: str, test_size: float, seed: int, metadata: dict | None,
                      max_programs: int | None, by: str = "content") -> tuple[list[Workload], dict]:
    """The test programs of the trainer's grouped split, regenerated from (family, seed).

    ``by``: what the split groups on, as the model's trainer did: ``content`` (the
    trainer since 2026-12-03) or ``program_id`` (models trained before, such as
    the bundle shipped on 2026-12-02).  ``info["split_matches_model"]`` says
    whether the test rows match the model's recorded count.
    """
    from costfuse.data.dedupe import split_groups
    from costfuse.data.families import generate
    from costfuse.data.store import read_dataset
    from costfuse.train.splits import grouped_split

    df = read_dataset(data)
    df = df[(df["arch"] == arch) & (df["status"] == "ok") & df["regs"].notna()].reset_index(drop=True)
    groups = split_groups(df) if by == "content" else df["program_id"].to_numpy()
    split = grouped_split(groups, test_size, seed)  # as the trainer: by program content (or id, before)
    test = df[split.test]
    info = {"programs": int(df["program_id"].nunique()), "test_programs": int(test["program_id"].nunique()),
            "test_rows": int(split.test.sum())}
    if metadata is not None and metadata.get("dataset") and Path(metadata["dataset"]).resolve() == data.resolve():
        expected = metadata.get("rows", {}).get("test")
        info["model_test_rows"] = expected
        info["split_matches_model"] = expected == info["test_rows"]
    progs = test.drop_duplicates("program_id")[["program_id", "family", "generator_seed"]]
    by_family: dict[str, list] = defaultdict(list)
    for pid, fam, s in sorted(progs.itertuples(index=False), key=lambda r: (r[1], int(r[2]))):
        by_family[fam].append((pid, fam, int(s)))
    order = []
    while any(by_family.values()):  # round-robin over families, seeds ascending
        for fam in sorted(by_family):
            if by_family[fam]:
                order.append(by_family[fam].pop(0))
    if max_programs:
        order = order[:max_programs]
    out = []
    for pid, fam, s in order:
        prog = generate(fam, s)
        if prog.program_id != pid:
            raise RuntimeError(f"regenerated {prog.program_id} but the dataset says {pid}")
        out.append(Workload(pid, fam, "held-out", prog.text))
    return out, info


def examples(paths: list[Path]) -> list[Workload]:
    return [Workload(p.stem, f"example:{p.stem}", "example", p.read_text()) for p in paths]


# --- models -----------------------------------------------------------------------
@dataclass
class ModelSpec:
    label: str
    make: object                # policy -> EdgePolicy
    per_policy: bool            # decisions depend on the tile policy
    grid: tuple[int, int] | None = None


def model_specs(model_path: str) -> list[ModelSpec]:
    specs = [ModelSpec("unfused", lambda p: Threshold(1, 1), False),
             ModelSpec("always", lambda p: Always(), False)]
    for c in CHAIN_GRID:
        for b in BODY_GRID:
            specs.append(ModelSpec(f"threshold({c},{b})", lambda p, c=c, b=b: Threshold(c, b), False, (c, b)))
    specs.append(ModelSpec("analytical", lambda p: Analytical(tile_policy=p), True))
    learned = {}

    def make_learned(p):  # one model per policy, loaded once
        if p not in learned:
            learned[p] = LearnedEdges(model=model_path, tile_policy=p)
        return learned[p]

    specs.append(ModelSpec("learned", make_learned, True))
    return specs


# --- kernels ----------------------------------------------------------------------
@dataclass
class KernelInfo:
    """One distinct generic (canonical standalone text) and its per-policy labels."""

    text: str
    bytes: float = 0.0
    body_ops: int = 0
    chain: int = 1
    lowered: dict = field(default_factory=dict)    # policy -> (source, config) or error string
    result: dict = field(default_factory=dict)     # policy -> CompileResult


class Kernels:
    """Canonicalizes, featurizes and lowers (at every policy) each distinct generic once.

    Kernels are parsed in one shared context and dropped once lowered: a
    context per module costs ~4 MB and ~40 ms.
    """

    def __init__(self, policies: list[str], context):
        self.policies = policies
        self.context = context
        self.by_text: dict[str, KernelInfo] = {}

    def add(self, op) -> str:
        from costfuse.data.lowering.generic import lower_generic
        from costfuse.data.lowering.reference_functions import generic_as_function
        from costfuse.data.lowering.unsupported import UnsupportedOp
        from costfuse.featurize.features import analyze_generic, find_generic

        text = generic_as_function(op, "kernel")
        if text in self.by_text:
            return text
        module = parse_module(text, "kernel", context=self.context)
        with module.context:
            g = find_generic(module)
            s = analyze_generic(g).values
            k = self.by_text[text] = KernelInfo(text, s["bytes_total"], int(s["n_body_ops"]), int(s["chain_length"]))
            for policy in self.policies:
                cfg = launch_config_for(int(s["xnumel"]), int(s["rnumel"]) if s["is_reduction"] else 1, policy)
                try:
                    k.lowered[policy] = (lower_generic(g, cfg).source, cfg)
                except (UnsupportedOp, ValueError) as err:
                    k.lowered[policy] = f"unsupported: {str(err).splitlines()[0][:100]}"
        del module
        return text


def run_pass(model: EdgePolicy, text: str, kernels: Kernels) -> tuple[list[str], float, list | None]:
    """Kernel texts after the pass (cleanup as costfuse-opt), the pass's wall time, and each kernel's
    member generics (:func:`kernel_members`; ``None`` for a module of several functions, or if the
    cleanup left another number of kernels)."""
    module = parse_module(text, context=kernels.context)
    with module.context:
        n = [len(generics_in(block)) for block in function_blocks(module)]
    fusion = FusionPass(model)
    t0 = time.perf_counter()
    run_pipeline(module, fusion)
    dt = time.perf_counter() - t0
    with module.context:
        ops = [op for block in function_blocks(module) for op in generics_in(block)]
        texts = [kernels.add(op) for op in ops]
    members = kernel_members(fusion.decisions, n[0]) if len(n) == 1 else None
    return texts, dt, members if members is not None and len(members) == len(texts) else None


def kernel_members(decisions, n: int) -> list[frozenset[int]]:
    """The generics (1-based ordinals, as ``data/edge_groups.py`` numbers a program's) in each kernel a pass run left.

    The pass labels generic i ``gi`` and a fused op ``P+C``, so its accepted
    decisions spell out which generics each kernel holds.  A fused op takes
    its consumer's place, so the kernels come in block order of their last
    member, the order of the kernel texts.
    """
    from costfuse.data.latency_oracle import members_of

    owner = {i: frozenset([i]) for i in range(1, n + 1)}
    for d in decisions:
        if d.fuse:
            group = members_of(d.producer) | members_of(d.consumer)
            for i in group:
                owner[i] = group
    return sorted(set(owner.values()), key=max)


# --- aggregation ------------------------------------------------------------------
@dataclass
class Totals:
    kernels: int = 0
    spilling: int = 0
    spill_bytes: int = 0
    hbm_bytes: float = 0.0
    unlabelled: int = 0         # timeouts, compile errors, unsupported lowering

    def add(self, other: "Totals") -> "Totals":
        return Totals(*(getattr(self, f) + getattr(other, f) for f in
                        ("kernels", "spilling", "spill_bytes", "hbm_bytes", "unlabelled")))


def totals_of(texts: list[str], policy: str, kernels: Kernels) -> Totals:
    t = Totals()
    for text in texts:
        k = kernels.by_text[text]
        t.kernels += 1
        t.hbm_bytes += k.bytes
        res = k.result.get(policy)
        if res is None or res.status != "ok":
            t.unlabelled += 1
            continue
        sb = (res.spill_store_bytes or 0) + (res.spill_load_bytes or 0)
        t.spill_bytes += sb
        t.spilling += sb > 0
    return t


def best_threshold(grid: dict[str, Totals], always: Totals, unfused: Totals) -> str:
    """The grid point chosen in hindsight: the most HBM saving among those removing >= 90% of
    always's spill bytes; if none does, the fewest spill bytes (ties: more saving)."""
    goal = [k for k, t in grid.items() if t.spill_bytes <= 0.1 * always.spill_bytes]
    if goal:
        return max(goal, key=lambda k: (unfused.hbm_bytes - grid[k].hbm_bytes, -grid[k].spill_bytes))
    return min(grid, key=lambda k: (grid[k].spill_bytes, grid[k].hbm_bytes))


# --- GPU latency (only from a dataset with merged latency labels) -------------------
def run_latency(table, program: str, texts: list[str], members: list | None, policy: str,
                kernels: Kernels) -> float | None:
    """Summed latency (µs) of one pass run's kernels at the policy's configs, or ``None`` if any lacks one."""
    if members is None:
        return None
    total = 0.0
    for text, group in zip(texts, members):
        low = kernels.by_text[text].lowered[policy]
        if isinstance(low, str):
            return None
        us = table.kernel(program, group, low[1].XBLOCK, low[1].RBLOCK, low[1].num_warps)
        if us is None:
            return None
        total += us
    return total


def latency_gap(a: dict[str, float], b: dict[str, float]) -> tuple[float | None, int]:
    """``sum(a) / sum(b) - 1`` over the programs both measure (program -> µs), and how many they are."""
    common = sorted(a.keys() & b.keys())
    if not common:
        return None, 0
    return sum(a[p] for p in common) / sum(b[p] for p in common) - 1.0, len(common)


def best_threshold_by_latency(grid: dict[str, dict[str, float]], oracle: dict[str, float]) -> str | None:
    """The grid point closest to the oracle over the programs it measures (ties: more programs, then grid
    order); ``None`` if no grid point measures any.  A gap, not a sum, so coverage does not flatter."""
    scored = [(g, *latency_gap(m, oracle)) for g, m in grid.items()]
    scored = [(g, gap, n) for g, gap, n in scored if n]
    if not scored:
        return None
    return min(scored, key=lambda t: (t[1], -t[2]))[0]


def latency_cell(measured: dict[str, float], oracle: dict[str, float]) -> str:
    gap, n = latency_gap(measured, oracle)
    if not n:
        return "no program with every kernel labelled"
    return f"{sum(measured.values()):.1f} µs, {100 * gap:+.1f}% ({n} programs)"


def pct(a: float, b: float) -> str:
    return "n/a" if b == 0 else f"{100.0 * a / b:.1f}%"


def mb(x: float) -> str:
    return f"{x / 1e6:.2f}"


# --- main -------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/sm90_v1", help="dataset directory (its held-out programs are used)")
    ap.add_argument("--model", default="", help="learned model (default: the shipped costfuse/models/)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--test-size", type=float, default=0.25, help="as costfuse-train's (default 0.25)")
    ap.add_argument("--seed", type=int, default=None, help="split seed (default: the model's training seed, else 0)")
    ap.add_argument("--max-programs", type=int, default=24, help="held-out programs used (0: all)")
    ap.add_argument("--examples", nargs="*", default=None, help="real-model .mlir files (default examples/*.mlir)")
    ap.add_argument("--policies", default="heuristic,wide")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="per-kernel compile timeout, s")
    ap.add_argument("--out", default=str(REPO / "experiments"), help="RESULTS.md goes here, PNGs in results/")
    ap.add_argument("--quick", action="store_true", help="6 held-out programs, 2 examples, 30 s timeout (~2 min)")
    args = ap.parse_args(argv)
    command = "python experiments/compare_cost_models.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    if args.quick:
        args.max_programs = min(args.max_programs or 6, 6)
        args.timeout = min(args.timeout, 30.0)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    log = lambda msg: print(f"[compare] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    t_start = time.perf_counter()

    specs = model_specs(args.model)
    learned_h = next(s for s in specs if s.label == "learned").make(policies[0])
    meta = learned_h.metadata
    seed = args.seed if args.seed is not None else int(meta.get("params", {}).get("seed", 0))
    data = Path(args.data)
    held, split_info = held_out_programs(data, args.arch, args.test_size, seed, meta, args.max_programs or None)
    ex_paths = [Path(p) for p in args.examples] if args.examples is not None else sorted((REPO / "examples").glob("*.mlir"))
    if args.quick and args.examples is None:
        ex_paths = ex_paths[:2]
    workloads = held + examples(ex_paths)
    rows = __import__("costfuse.data.store", fromlist=["read_dataset"]).read_dataset(data)
    has_latency = bool(rows["latency_us"].notna().any())
    log(f"{len(held)} held-out programs, {len(ex_paths)} examples, {len(specs)} models, policies {policies}")

    from costfuse.ir import new_context

    kernels = Kernels(policies, new_context())
    runs: dict[tuple[str, str, str], list[str]] = {}     # (model, workload, policy) -> kernel texts
    members: dict[tuple[str, str, str], list | None] = {}  # (model, workload, policy) -> each kernel's generics
    pass_s: dict[str, list[float]] = defaultdict(list)
    for spec in specs:
        for wl in workloads:
            shared = None
            for policy in policies:
                if shared is not None and not spec.per_policy:
                    runs[(spec.label, wl.name, policy)], members[(spec.label, wl.name, policy)] = shared
                    continue
                texts, dt, mem = run_pass(spec.make(policy), wl.text, kernels)
                pass_s[spec.label if not spec.grid else "threshold"].append(dt)
                runs[(spec.label, wl.name, policy)], members[(spec.label, wl.name, policy)] = shared = texts, mem
    log(f"passes done: {len(kernels.by_text)} distinct kernels ({time.perf_counter() - t_start:.0f} s)")

    from costfuse.data.compile import CompilePool, CompileTask, parse_arch

    tasks, owners = [], defaultdict(list)
    for policy in policies:
        used = {t for (m, w, p), ts in runs.items() if p == policy for t in ts}
        for text in sorted(used):
            low = kernels.by_text[text].lowered[policy]
            if isinstance(low, str):
                continue
            key = (low[0], low[1])
            if key not in owners:
                tasks.append(CompileTask(low[0], low[1], parse_arch(args.arch)))
            owners[key].append((text, policy))
    log(f"compiling {len(tasks)} kernels (cache first) on {args.jobs} worker(s), timeout {args.timeout:g} s")
    done = [0]
    t_c = time.perf_counter()

    def progress(i, res):
        done[0] += 1
        if done[0] % 25 == 0 or done[0] == len(tasks):
            log(f"  {done[0]}/{len(tasks)} compiled ({time.perf_counter() - t_c:.0f} s)")

    with CompilePool(args.jobs, timeout_s=args.timeout) as pool:
        results = pool.run(tasks, on_result=progress)
    for task, res in zip(tasks, results):
        for text, policy in owners[(task.source, task.config)]:
            kernels.by_text[text].result[policy] = res
    n_cached = sum(1 for r in results if r.cached)
    log(f"compiled: {n_cached} from cache, {len(results) - n_cached} new ({time.perf_counter() - t_c:.0f} s)")

    latency = None
    if has_latency:
        from costfuse.data.latency_oracle import LatencyTable

        table = LatencyTable.from_frame(rows[rows["arch"] == args.arch])
        latency = measure_latency(table, specs, held, policies, runs, members, kernels)
        latency.provenance = data / "_latency_provenance.json"
    (Path(args.out) / "results").mkdir(parents=True, exist_ok=True)
    report = build_report(args, command, specs, workloads, held, policies, runs, kernels, split_info, seed,
                          learned_h, has_latency, pass_s, results, time.perf_counter() - t_start, latency)
    out = Path(args.out)
    (out / "RESULTS.md").write_text(report)
    log(f"wrote {out / 'RESULTS.md'} in {time.perf_counter() - t_start:.0f} s")
    return 0


@dataclass
class Latencies:
    """What the dataset's GPU latency says of the held-out programs: the oracle's total per program, and
    each (model, policy)'s summed latency per program it measures (program -> µs)."""

    oracle: dict[str, float]
    no_oracle: dict[str, str]                       # program -> why the DP has no answer
    measured: dict[tuple[str, str], dict[str, float]]
    provenance: Path | None = None


def measure_latency(table, specs, held, policies, runs, members, kernels) -> Latencies:
    """Oracle DP and every model's summed latency on the held-out programs (only where both exist)."""
    oracle, no_oracle = {}, {}
    for w in held:
        o = table.oracle(w.name)
        if o.partition is None:
            no_oracle[w.name] = o.reason
        else:
            oracle[w.name] = o.total_us
    measured = {}
    for spec in specs:
        for policy in policies:
            got = {}
            for name in oracle:
                key = (spec.label, name, policy)
                us = run_latency(table, name, runs[key], members[key], policy, kernels)
                if us is not None:
                    got[name] = us
            measured[(spec.label, policy)] = got
    return Latencies(oracle, no_oracle, measured)


def latency_lines(lat: Latencies, policy: str, grid_labels: list[str]) -> list[str]:
    """The latency table of one tile policy: each model's sum, its gap to the oracle and to the best threshold."""
    grid = {g: lat.measured[(g, policy)] for g in grid_labels}
    best = best_threshold_by_latency(grid, lat.oracle)
    rows = {"unfused": "unfused", "always": "always", f"best threshold by latency: {best or 'none measured'}": best,
            "analytical": "analytical", "learned": "learned"}
    missing = sorted(lat.no_oracle.items())
    lines = [f"### GPU latency on the held-out programs (`{policy}`)", "",
             f"The oracle DP exists for {len(lat.oracle)} of {len(lat.oracle) + len(lat.no_oracle)} programs"
             + (" (none for " + "; ".join(f"{p}: {why}" for p, why in missing[:6])
                + ("; ..." if len(missing) > 6 else "") + ")" if missing else "") + ". "
             "Each gap is the ratio of summed latencies minus one, over the programs both sides measure; "
             "the best threshold by latency is the grid point with the least gap to the oracle.", "",
             "| model | programs | summed latency µs | oracle µs, same programs | gap to oracle | "
             + (f"gap to `{best}` |" if best else "gap to the best threshold |"), "|---|---|---|---|---|---|"]
    for label, spec in rows.items():
        m = lat.measured[(spec, policy)] if spec else {}
        gap, n = latency_gap(m, lat.oracle)
        to_best, n_best = latency_gap(m, grid[best]) if best else (None, 0)
        lines.append(f"| {label} | {n} | {sum(m.values()):.1f} | {sum(lat.oracle[p] for p in m):.1f} | "
                     + (f"{100 * gap:+.1f}%" if n else "n/a") + " | "
                     + (f"{100 * to_best:+.1f}% ({n_best} programs)" if n_best else "n/a") + " |")
    return lines + [""]


def latency_note(has_latency: bool, lat: Latencies | None) -> str:
    """The report's bullet on GPU latency: where it comes from, or that it was not measured."""
    if lat is None:
        return (f"- GPU latency and the oracle DP: {NOT_MEASURED} (no GPU on this machine"
                + (", though the dataset has some latency labels" if has_latency
                   else ", and the dataset has no latency labels") + "); nothing here is simulated.")
    return ("- GPU latency: the dataset's `latency_us`, measured on the GPU and merged by `costfuse-data "
            f"merge-latency` (command, date and versions: `{lat.provenance}`); nothing here is simulated. A model's "
            "kernels are matched to the dataset's rows by program, member generics and launch config; its summed "
            "latency counts the programs where every kernel it chose has a latency and the oracle DP "
            "(`data/latency_oracle.py`) exists.")


def latency_goal(lat: Latencies, policy: str, grid_labels: list[str]) -> str:
    """The goals table's line: learned's latency gap to the oracle DP and to the best threshold by latency."""
    grid = {g: lat.measured[(g, policy)] for g in grid_labels}
    best = best_threshold_by_latency(grid, lat.oracle)
    mine = lat.measured[("learned", policy)]
    gap, n = latency_gap(mine, lat.oracle)
    to_best, n_best = latency_gap(mine, grid[best]) if best else (None, 0)
    return (f"| `{policy}` | learned's summed GPU latency vs the oracle DP and the best threshold by latency | "
            + (f"{100 * gap:+.1f}% over {n} programs" if n else "n/a: no program with every kernel labelled")
            + (f"; {100 * to_best:+.1f}% vs `{best}` over {n_best}" if n_best else "") + " |")


def build_report(args, command, specs, workloads, held, policies, runs, kernels, split_info, seed, learned,
                 has_latency, pass_s, results, elapsed, latency: Latencies | None = None) -> str:
    grid_labels = [s.label for s in specs if s.grid]
    held_names = [w.name for w in held]
    ex = [w for w in workloads if w.kind == "example"]
    groups: dict[str, list[str]] = defaultdict(list)
    for w in workloads:
        groups[w.group].append(w.name)

    def total(label, names, policy) -> Totals:
        t = Totals()
        for n in names:
            t = t.add(totals_of(runs[(label, n, policy)], policy, kernels))
        return t

    statuses = defaultdict(int)
    for r in results:
        statuses[r.status] += 1
    lines = [
        "# Cost models compared on compile labels",
        "",
        "Generated by `experiments/compare_cost_models.py`; do not edit by hand. Command:",
        "",
        f"```\n{command}\n```",
        "",
        f"- Machine: {platform.node()} ({platform.machine()}, {platform.system()}), no GPU; "
        f"{elapsed / 60:.1f} min wall, compile jobs {args.jobs}, per-kernel timeout {args.timeout:g} s.",
        f"- Labels: ptxas `-v` of each kernel's real cubin for {args.arch} (Triton 3.6 on the CPU); "
        f"{len(results)} distinct (kernel, config) compiles: "
        + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) + ".",
        f"- Learned model: `{learned.source}` (dataset `{learned.metadata.get('dataset')}`, "
        f"hash {learned.metadata.get('dataset_hash')}, heads {', '.join(learned.metadata['heads'])}; "
        f"{'latency head present' if learned.has_latency else 'no latency head: analytical time + learned spill penalty'}).",
        f"- Held-out programs: the test side of `train.splits.grouped_split(split_groups, test_size={args.test_size}, "
        f"seed={seed})` over `{args.data}` ({split_info['test_programs']} of {split_info['programs']} programs, "
        f"{split_info['test_rows']} rows"
        + (f"; the model's metadata records {split_info['model_test_rows']} test rows: "
           f"{'same split' if split_info.get('split_matches_model') else 'MISMATCH'}" if 'model_test_rows' in split_info else
           "; the model was trained on another dataset, so these programs are new to it by construction")
        + f"), {len(held)} used" + (f" (capped by --max-programs {args.max_programs}, round-robin over families)"
                                   if len(held) < split_info["test_programs"] else "") + ".",
        f"- Real-model examples: {', '.join(w.name for w in ex) or 'none'}.",
        "- Spill bytes: ptxas's spill store + spill load bytes (per thread) summed over a model's kernels. "
        "HBM bytes: each kernel's `bytes_total` from the IR (inputs once, outputs, read inits), summed. "
        "Saving: bytes of the unfused program minus the model's.",
        "- Unlabelled: kernels with no ptxas answer (compile timeout or error, or a generic the lowering "
        "does not support); they count as kernels and HBM bytes but add no spill bytes.",
        latency_note(has_latency, latency),
        "",
        "Tile policies: `heuristic` compiles every kernel at the config the lowering picks "
        "(`costfuse.launch.heuristic_config`, 8 elements per thread for pointwise kernels); `wide` at "
        "XBLOCK x4 with the same warps and RBLOCK (at most 32 elements per thread), the same policy for every "
        "model. The analytical and learned models decide at the policy their kernels are compiled at.",
        "",
    ]
    goals_lines = []
    spec_of = {"unfused": "unfused", "always": "always", "analytical": "analytical", "learned": "learned"}
    for policy in policies:
        unfused = total("unfused", held_names, policy)
        always = total("always", held_names, policy)
        grid = {g: total(g, held_names, policy) for g in grid_labels}
        best = best_threshold(grid, always, unfused)
        rows = {"unfused": unfused, "always": always, f"best threshold: {best}": grid[best],
                "analytical": total("analytical", held_names, policy), "learned": total("learned", held_names, policy)}
        saved_always = unfused.hbm_bytes - always.hbm_bytes
        lines += [f"## Tile policy `{policy}`", "", f"### Held-out programs, total ({len(held)} programs)", "",
                  "| model | kernels | spilling kernels | spill bytes | spill removed vs always | HBM MB | "
                  "fusion saving kept vs always | unlabelled | latency vs oracle |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for label, t in rows.items():
            lat_cell = NOT_MEASURED if latency is None else latency_cell(
                latency.measured[(spec_of.get(label, best), policy)], latency.oracle)
            lines.append(f"| {label} | {t.kernels} | {t.spilling} | {t.spill_bytes} | "
                         f"{pct(always.spill_bytes - t.spill_bytes, always.spill_bytes)} | {mb(t.hbm_bytes)} | "
                         f"{pct(unfused.hbm_bytes - t.hbm_bytes, saved_always)} | {t.unlabelled} | {lat_cell} |")
        lrn, bt = rows["learned"], grid[best]
        dominated = [g for g, t in grid.items() if t.spill_bytes <= lrn.spill_bytes and t.hbm_bytes <= lrn.hbm_bytes
                     and (t.spill_bytes < lrn.spill_bytes or t.hbm_bytes < lrn.hbm_bytes)]
        lines += ["", f"Best fixed threshold in hindsight: `{best}` (the largest HBM saving among the "
                  f"{len(grid)} grid points that remove >= 90% of always's spill bytes; if none does, the fewest spill "
                  f"bytes). Grid points that beat learned on both numbers at once: "
                  f"{len(dominated)}" + (f" ({', '.join(dominated[:6])}{', ...' if len(dominated) > 6 else ''})"
                                          if dominated else "") + ".", ""]
        if latency is not None:
            lines += latency_lines(latency, policy, grid_labels)
        removed = None if always.spill_bytes == 0 else (always.spill_bytes - lrn.spill_bytes) / always.spill_bytes
        kept = None if saved_always == 0 else (unfused.hbm_bytes - lrn.hbm_bytes) / saved_always
        g1 = "n/a (always spills 0 bytes here)" if removed is None else (
            f"{100 * removed:.1f}%: {'met' if removed >= 0.9 else 'NOT met'}")
        g2 = "n/a" if kept is None else f"{100 * kept:.1f}%: {'met' if kept >= 0.95 else 'NOT met'}"
        beats = lrn.spill_bytes <= bt.spill_bytes and lrn.hbm_bytes <= bt.hbm_bytes
        goals_lines += [f"| `{policy}` | spill bytes removed vs always >= 90% | {g1} |",
                        f"| `{policy}` | fusion HBM saving kept vs always >= 95% | {g2} |",
                        f"| `{policy}` | learned matches or beats `{best}` on both | "
                        f"spill {lrn.spill_bytes} vs {bt.spill_bytes} B, HBM {mb(lrn.hbm_bytes)} vs {mb(bt.hbm_bytes)} MB: "
                        f"{'met' if beats else 'NOT met'} |"]
        if latency is not None:
            goals_lines.append(latency_goal(latency, policy, grid_labels))
        # per workload
        lines += [f"### Per workload (`{policy}`)", "",
                  "Each cell: kernels / spilling kernels / spill bytes / HBM MB.", "",
                  "| workload | " + " | ".join(MAIN) + " |", "|---|" + "---|" * len(MAIN)]
        for group, names in sorted(groups.items(), key=lambda kv: (kv[0].startswith("example"), kv[0])):
            cells = []
            for label in MAIN:
                t = total(best if label == "best threshold" else label, names, policy)
                cells.append(f"{t.kernels} / {t.spilling} / {t.spill_bytes} / {mb(t.hbm_bytes)}")
            lines.append(f"| {group} ({len(names)}) | " + " | ".join(cells) + " |")
        ex_names = [w.name for w in ex]
        if ex_names:
            cells = []
            for label in MAIN:
                t = total(best if label == "best threshold" else label, ex_names, policy)
                cells.append(f"{t.kernels} / {t.spilling} / {t.spill_bytes} / {mb(t.hbm_bytes)}")
            lines.append("| **examples, total** | " + " | ".join(cells) + " |")
        lines.append("")
        # threshold grid
        lines += [f"### Threshold grid on the held-out programs (`{policy}`)", "",
                  "Cell: spill bytes / fusion saving kept vs always.", "",
                  "| max_chain_length \\ max_body_ops | " + " | ".join(map(str, BODY_GRID)) + " |",
                  "|---|" + "---|" * len(BODY_GRID)]
        for c in CHAIN_GRID:
            cells = [f"{grid[f'threshold({c},{b})'].spill_bytes} / "
                     f"{pct(unfused.hbm_bytes - grid[f'threshold({c},{b})'].hbm_bytes, saved_always)}" for b in BODY_GRID]
            lines.append(f"| {c} | " + " | ".join(cells) + " |")
        lines.append("")
        # spilling kernels under learned
        spilled = []
        for n in held_names + ex_names:
            for text in runs[("learned", n, policy)]:
                k = kernels.by_text[text]
                r = k.result.get(policy)
                if r is not None and r.status == "ok" and (r.spill_store_bytes or 0) + (r.spill_load_bytes or 0) > 0:
                    cfg = k.lowered[policy][1]
                    spilled.append(f"| {n} | {k.chain} | {k.body_ops} | {cfg.short()} | {r.regs} | "
                                   f"{r.spill_store_bytes + r.spill_load_bytes} |")
        lines += [f"Kernels that spill under `learned` (`{policy}`): {len(spilled)}.", ""]
        if spilled:
            lines += ["| workload | chain length | body ops | config | regs | spill bytes |", "|---|---|---|---|---|---|"]
            lines += spilled[:30] + ([f"| ... {len(spilled) - 30} more | | | | | |"] if len(spilled) > 30 else [])
            lines.append("")
        png = plot_pareto(Path(args.out) / "results" / f"pareto_{policy}.png", policy, grid, rows, unfused, best)
        lines += [f"![spill bytes vs HBM bytes, {policy}](results/{png.name})", ""]
    lines += ["## Goals (held-out programs, compile labels)", "", "| policy | goal | reached |", "|---|---|---|"]
    lines += goals_lines
    if latency is None:
        lines += ["| any | GPU latency goals (vs the oracle DP) | " + NOT_MEASURED + " (no GPU) |"]
    lines.append("")
    lines += ["## Pass time", "", "Median wall time of one pass run (pass + canonicalize,cse) per program, "
              "all workloads and policies:", "", "| model | runs | median ms |", "|---|---|---|"]
    for label, ts in pass_s.items():
        lines.append(f"| {label} | {len(ts)} | {1e3 * float(np.median(ts)):.1f} |")
    lines.append("")
    return "\n".join(lines)


def plot_pareto(path: Path, policy: str, grid: dict, rows: dict, unfused: Totals, best: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    gx = [(unfused.hbm_bytes - t.hbm_bytes) / 1e6 for t in grid.values()]
    gy = [t.spill_bytes for t in grid.values()]
    ax.scatter(gx, gy, c="0.7", s=18, label="threshold grid (8 x 6)")
    marks = {"always": ("tab:red", "s"), "analytical": ("tab:orange", "^"), "learned": ("tab:blue", "*")}
    for label, t in rows.items():
        if label == "unfused":
            continue
        color, m = marks.get(label, ("tab:green", "D"))
        ax.scatter([(unfused.hbm_bytes - t.hbm_bytes) / 1e6], [t.spill_bytes], c=color, marker=m,
                   s=110 if m == "*" else 50, label=label, zorder=3)
    ax.set_xlabel("HBM bytes saved by fusion vs unfused (MB)  → better")
    ax.set_ylabel("spill bytes, summed over kernels  ↓ better")
    ax.set_title(f"held-out programs, tile policy '{policy}' (ptxas, sm_90)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


if __name__ == "__main__":
    sys.exit(main())
