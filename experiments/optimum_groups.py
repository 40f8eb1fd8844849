"""The exact optimum of kernel groups for any module: every candidate group, priced by ptxas, partitioned by a MILP.

    python experiments/optimum_groups.py IN.mlir [--json] [--jobs 2] [--timeout 60] [--arch sm_90]
        [--max-candidates N] [--max-compiles N] [--budget-s S] [--progress]

For each function of ``IN.mlir``, after the rewrites every policy sees
before forming (:func:`costfuse.group_pass.prepare_for_forming`):

1. **Candidates** (``candidate_groups.py``): every connected, convex,
   row-legal group of generics, with each set of producers it may recompute
   instead of reading (a copy) and each choice of which members it stores;
   lone kernels (generics that are not row kernels) as the pass makes them.
2. **Prices** (``optimum_pricing.py``): a candidate is worth the DRAM bytes
   (the L2 model, :meth:`costfuse.kernel.KernelShape.dram_bytes_at`) of its
   spill-free config with the fewest DRAM bytes, then the fewest issued bytes
   (:meth:`~costfuse.kernel.KernelShape.issued_bytes`), as ptxas compiles it;
   configs are visited in that order, a byte level given up only when every
   one of its configs spills.
3. **The partition** (``partition_milp.py``): the valid schedule (every
   generic owned by one kernel, copies covering producers again, every value
   read from another kernel stored by it, the graph of kernels and other ops
   acyclic) that minimizes

       sum over its kernels K of  bytes(K) * (G + 1) + 1,

   ``bytes(K)`` the price above (DRAM bytes, integer; divided by the prices'
   common divisor), ``G`` the function's generic count: the fewest DRAM bytes, and among
   schedules of equal bytes the fewest kernels.  HiGHS (``scipy.optimize.milp``)
   solves it exactly; acyclicity enters as lazily added cycle cuts.

Compiles are lazy: the MILP first sees every candidate at its cheapest byte
level, a lower bound; only the unsettled candidates of its answer are
compiled (their current level, until one config is spill-free or all spill),
and it solves again, until its answer is all settled.  That answer is
optimal, and a candidate no round's answer used is never compiled.  Compiles
go through :class:`costfuse.data.compile.CompilePool` and its on-disk cache,
so a rerun costs only the MILPs.

Budgets: ``--max-candidates`` (per function), ``--max-compiles`` and
``--budget-s`` (the whole run).  When one stops the search, ``complete`` is
false and ``stopped`` says which and where; the schedule reported is then
the last MILP answer: with enumeration cut, optimal over the candidates
enumerated (an upper bound); with pricing cut, its unsettled kernels count
their lower bound (``settled`` false per kernel), so the bytes are a lower
bound.  A compile that times out (``--timeout``) counts as not spill-free:
the optimum is exact under that timeout, and ``timeouts`` says how many.

``--json`` prints one object: ``kernels``, ``dram_bytes`` (minimized),
``issued_bytes`` (at the chosen configs; these three null when a budget
stopped a function before any schedule was found), ``candidates``, ``compiles``, ``cached``,
``solve_s`` (seconds inside HiGHS), ``complete``, ``stopped``, and per
function its ``schedule``.  Bad input (a missing file, IR that does not
parse) is one line naming the file and the reason, exit 1.

Every workload at once, beside ``learned``, with issue #26's goals:
``experiments/optimum_workloads.py`` (report ``experiments/results/optimum_groups.md``).

Experiments only: not part of the installed package.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from candidate_groups import FunctionGraph, enumerate_candidates  # noqa: E402
from optimum_pricing import Price, price_round  # noqa: E402
from partition_milp import Problem, solve  # noqa: E402
from spill_free import CompileCounts  # noqa: E402

PROG = "optimum_groups.py"
DEFAULT_TIMEOUT_S = 60.0


@dataclass
class Budgets:
    """Where the search stops: candidates per function, compiles and wall seconds for the whole run."""

    max_candidates: int | None = None
    max_compiles: int | None = None
    budget_s: float | None = None

    def deadline(self, start: float) -> float:
        return math.inf if self.budget_s is None else start + self.budget_s


@dataclass
class FunctionOptimum:
    """One function's optimum (or, with ``stopped``, where the search stood)."""

    name: str
    candidates: int = 0
    owned_groups: int = 0
    chosen: list[Price] = field(default_factory=list)
    enumerate_s: float = 0.0
    solve_s: float = 0.0
    milp_solves: int = 0
    milp_branched: int = 0         # MILPs whose LP relaxation was not 0/1
    rounds: int = 0
    cuts: int = 0
    stopped: list[str] = field(default_factory=list)

    @property
    def kernels(self) -> list[Price]:
        return [p for p in self.chosen if p.candidate.candidate.is_kernel]

    def as_json(self) -> dict:
        return {"name": self.name, "candidates": self.candidates, "owned_groups": self.owned_groups,
                "enumerate_s": round(self.enumerate_s, 3), "solve_s": round(self.solve_s, 3),
                "milp_solves": self.milp_solves, "milp_branched": self.milp_branched,
                "pricing_rounds": self.rounds, "cycle_cuts": self.cuts,
                "stopped": self.stopped, "schedule": [_kernel_json(p) for p in self.kernels],
                "recomputed_everywhere": [p.candidate.label for p in self.chosen
                                          if not p.candidate.candidate.is_kernel]}


def _kernel_json(p: Price) -> dict:
    b = p.bytes
    return {"kernel": p.candidate.label, "launch": p.launch.short() if p.launch else None,
            "issued_bytes": b.issued, "dram_bytes": b.dram, "regs": p.result.regs if p.result else None,
            "settled": p.settled, "priced": p.note or "not compiled yet: its bytes are a lower bound"}


def solve_function(name: str, graph: FunctionGraph, pool, arch: int, target, budgets: Budgets,
                   counts: CompileCounts, deadline: float, progress=None) -> FunctionOptimum:
    """The optimum of one function (module docstring), compiling through ``pool`` and counting in ``counts``."""
    out = FunctionOptimum(name)
    t0 = time.monotonic()
    enum = enumerate_candidates(graph, budgets.max_candidates, deadline)
    prices = []
    for p in enum.priced:
        if time.monotonic() >= deadline:
            break
        prices.append(Price.of(p, target))
    out.enumerate_s = time.monotonic() - t0
    out.candidates, out.owned_groups = len(prices), enum.owned_sets
    if not enum.complete:
        out.stopped.append(f"@{name}: {enum.stopped}")
    problem, cuts = enum.problem, []
    if len(prices) < len(enum.priced):     # smaller groups first: the singletons are in, so a schedule exists
        out.stopped.append(f"@{name}: time budget reached while reading the byte levels of the candidates: "
                           f"{len(prices)} of {len(enum.priced)} enumerated kept")
        problem = Problem(graph.readers, graph.generics, [p.candidate for p in enum.priced[:len(prices)]])
    while True:
        sol = solve(problem, [p.cost() for p in prices], cuts, deadline)
        out.solve_s += sol.solve_s
        out.milp_solves += sol.solves
        out.milp_branched += sol.branched
        out.cuts += sol.cuts
        if sol.status != "optimal":
            out.stopped.append(f"@{name}: MILP {sol.status}")
            return out
        out.chosen = [prices[k] for k in sol.chosen]
        pending = [p for p in out.chosen if not p.settled]
        if progress:
            bound = sum(p.bytes.dram for p in out.kernels)
            progress(f"@{name}: round {out.rounds}: {len(out.kernels)} kernels, {bound / 1e6:.3f} MB "
                     f"({'a lower bound' if pending else 'exact'}), {len(pending)} to price, "
                     f"{counts.compiles} compiles so far")
        if not pending:
            return out
        out.rounds += 1
        why = price_round(pending, pool, arch, target, counts, budgets.max_compiles, deadline)
        if why:
            out.stopped.append(f"@{name}: {why} reached while pricing")
            return out


@dataclass
class ModuleOptimum:
    """Every function's optimum of one module, and what finding them cost."""

    path: str
    functions: list[FunctionOptimum]
    counts: CompileCounts
    wall_s: float

    @property
    def kernels(self) -> list[Price]:
        return [p for f in self.functions for p in f.kernels]

    @property
    def complete(self) -> bool:
        return not any(f.stopped for f in self.functions)

    @property
    def scheduled(self) -> bool:
        """Whether every function has a schedule (a budget may stop a function before its first MILP answer)."""
        return all(f.chosen or not f.stopped for f in self.functions)

    def as_json(self) -> dict:
        ks = self.kernels
        c = self.counts
        some = self.scheduled       # else no schedule to count: null, not 0
        return {
            "file": self.path, "complete": self.complete, "stopped": [s for f in self.functions for s in f.stopped],
            "kernels": len(ks) if some else None, "dram_bytes": sum(p.bytes.dram for p in ks) if some else None,
            "issued_bytes": sum(p.bytes.issued for p in ks) if some else None,
            "candidates": sum(f.candidates for f in self.functions),
            "owned_groups": sum(f.owned_groups for f in self.functions),
            "compiles": c.compiles, "cached": c.cached, "compile_s": round(c.compile_s, 2), "timeouts": c.timeouts,
            "unlowered": c.unlowered, "solve_s": round(sum(f.solve_s for f in self.functions), 3),
            "milp_solves": sum(f.milp_solves for f in self.functions),
            "milp_branched": sum(f.milp_branched for f in self.functions),
            "enumerate_s": round(sum(f.enumerate_s for f in self.functions), 3), "wall_s": round(self.wall_s, 2),
            "functions": [f.as_json() for f in self.functions],
        }

    def text(self) -> str:
        d = self.as_json()
        lines = []
        for f in self.functions:
            for p in f.kernels:
                k = _kernel_json(p)
                lines.append(f"@{f.name} kernel {k['kernel']}: {k['launch'] or '-'}, dram {k['dram_bytes'] / 1e6:.3f} MB, "
                             f"issued {k['issued_bytes'] / 1e6:.3f} MB"
                             f"{'' if k['settled'] else ' (lower bound)'}; {k['priced']}")
            for label in f.as_json()["recomputed_everywhere"]:
                lines.append(f"@{f.name} {label}")
        state = "exact" if d["complete"] else "NOT complete: " + "; ".join(d["stopped"])
        found = (f"{d['kernels']} kernels, dram {d['dram_bytes'] / 1e6:.3f} MB (minimized), "
                 f"issued {d['issued_bytes'] / 1e6:.3f} MB" if d["kernels"] is not None
                 else "no schedule found within the budget")
        lines += [
            f"# optimum: {found}; {state}",
            f"# {d['candidates']} candidates ({d['owned_groups']} owned groups), {d['compiles']} compiles "
            f"({d['cached']} cached, {d['timeouts']} timeouts), enumerate {d['enumerate_s']:.1f} s, "
            f"solve {d['solve_s']:.2f} s ({d['milp_solves']} MILPs, {d['milp_branched']} of them past the LP "
            f"relaxation), wall {d['wall_s']:.1f} s",
        ]
        return "\n".join(lines)


def optimum(path: Path, budgets: Budgets, pool, arch: str = "sm_90", progress=None) -> ModuleOptimum:
    """The optimum of every function of the module at ``path``."""
    from costfuse.data.compile import parse_arch
    from costfuse.group_pass import prepare_for_forming
    from costfuse.ir import load_module
    from costfuse.targets import get_target

    start = time.monotonic()
    deadline = budgets.deadline(start)
    counts = CompileCounts()
    module = load_module(path)
    with module.context:
        funcs, _ = prepare_for_forming(module.operation)
        out = []
        for fn in funcs:
            name = fn.attributes["sym_name"].value
            graph = FunctionGraph.of(fn.regions[0].blocks[0])
            out.append(solve_function(name, graph, pool, parse_arch(arch), get_target(arch), budgets, counts,
                                      deadline, progress))
    return ModuleOptimum(str(path), out, counts, time.monotonic() - start)


def main(argv: list[str] | None = None) -> int:
    from costfuse.cli_common import ArgumentParser, int_at_least, run_command
    from costfuse.data.compile import CompilePool
    from costfuse.ir import IRError

    ap = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("input", help="an .mlir module (any: not only the workloads)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--arch", default="sm_90", help="compile target")
    ap.add_argument("--jobs", type=int_at_least(1), default=2, help="parallel compiles")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                    help="seconds per compile; a compile that times out counts as not spill-free")
    ap.add_argument("--max-candidates", type=int_at_least(1), default=None,
                    help="stop enumerating a function's candidates past this many (default: no limit)")
    ap.add_argument("--max-compiles", type=int_at_least(0), default=None,
                    help="stop pricing past this many compiles, cached ones included (default: no limit)")
    ap.add_argument("--budget-s", type=float, default=None, help="stop after this many seconds (default: no limit)")
    ap.add_argument("--progress", action="store_true", help="one line per MILP round on stderr")
    args = ap.parse_args(argv)

    def body() -> int:
        def say(line):
            print(f"{PROG}: {args.input}: {line}", file=sys.stderr, flush=True)

        with CompilePool(args.jobs, args.timeout) as pool:
            result = optimum(Path(args.input), Budgets(args.max_candidates, args.max_compiles, args.budget_s),
                             pool, args.arch, say if args.progress else None)
        print(json.dumps(result.as_json(), indent=1) if args.json else result.text())
        return 0

    return run_command(PROG, body, bad_input=(IRError,))


if __name__ == "__main__":
    sys.exit(main())
