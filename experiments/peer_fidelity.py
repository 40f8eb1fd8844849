"""The ``inductor`` peer's launch configs beside Inductor's own, kernel by kernel (issue #26, "the peers as
they run").

    python experiments/peer_fidelity.py [--kernels experiments/results/inductor_report_kernels.jsonl]
        [--workloads experiments/workloads] [--report experiments/results/peer_fidelity.md]

Inductor's own kernels come from ``experiments/inductor_report.py``'s per-kernel file: each workload
block compiled by torch.compile's code generator for sm_90 on this CPU (docs/inductor.md), with the
candidate configs Inductor's heuristics gave each Triton kernel (default mode).  The peer
(``costfuse/cost_models/inductor.py``) runs on the same block's MLIR (``experiments/workloads/NAME.mlir``)
as the pass runs it, and each kernel it forms gives its candidate list (``Inductor.candidates``).

An Inductor kernel is matched with the peer's kernels of the same rows x reduced length (a pointwise
kernel by its element count).  The verdict per Inductor kernel:

* ``same``: a peer kernel of that shape has Inductor's candidate list, in Inductor's order;
* ``differs``: the peer has kernels of that shape, none with Inductor's list (both lists shown);
* ``split reduction`` / ``not a row reduction`` / ``cooperative or mix-order reduction``: Inductor split
  the reduction, gave it a hint other than INNER, or fused a row with a column reduction, which the peer
  does not model (docs/peers.md, "Departures");
* ``no peer kernel of that shape``: the two fused differently.

docs/peers.md explains each ``differs``.  Experiments only: not part of the installed package.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402

PROG = "peer_fidelity.py"
DEFAULT_KERNELS = HERE / "results" / "inductor_report_kernels.jsonl"
NOT_MODELLED = ("split reduction", "not a row reduction", "cooperative or mix-order reduction")


def inductor_list(configs: list[dict]) -> list[str]:
    """Inductor's candidates as ``KernelLaunch.short()`` spells them (a pointwise kernel's as pointwise)."""
    out = []
    for c in configs:
        cfg = c["config"]
        mode = "persistent" if cfg["persistent"] else "looped"
        if cfg["rblock"] == 1 and not cfg["persistent"]:
            mode = "pointwise"
        out.append(f"{mode} x{cfg['xblock']} r{cfg['rblock']} w{cfg['num_warps']}")
    return out


def peer_kernels(path: Path) -> list[tuple[tuple[int, int], list[str]]]:
    """``((rows, n), candidate list)`` of every row kernel the peer forms on ``path``; a pointwise kernel's
    key is ``(rows * n, 1)``, as Inductor flattens it."""
    from costfuse.cost_models.inductor import Inductor
    from costfuse.group_pass import GroupFusionPass
    from costfuse.ir import load_module

    peer = Inductor()
    module = load_module(path)
    out = []
    with module.context:
        for record in GroupFusionPass(peer).run(module):
            shape = record.kernel.shape
            if shape is None:
                continue
            configs, _ = peer.candidates(shape)
            key = (shape.n_rows * shape.n, 1) if shape.pointwise else (shape.n_rows, shape.n)
            out.append((key, [c.short() for c in configs]))
    return out


def verdict(row: dict, peer: list[tuple[tuple[int, int], list[str]]]) -> tuple[str, list[list[str]]]:
    """(verdict, the peer's lists for kernels of the Inductor kernel's shape) for one Inductor kernel."""
    fallback = row.get("fallback") or ""
    if any(reason in fallback for reason in NOT_MODELLED):
        return next(r for r in NOT_MODELLED if r in fallback), []
    lists = [lst for key, lst in peer if key == (row["xnumel"], row["rnumel"])]
    if not lists:
        return "no peer kernel of that shape", []
    return ("same" if inductor_list(row["inductor"]) in lists else "differs"), lists


def compare(kernels: Path, workloads: Path) -> list[dict]:
    """One record per Inductor kernel of a block that has a workload graph."""
    rows = [json.loads(line) for line in kernels.read_text().splitlines() if line.strip()]
    out, peers = [], {}
    for row in rows:
        path = workloads / f"{row['block']}.mlir"
        if not path.exists():
            continue
        if row["block"] not in peers:
            peers[row["block"]] = peer_kernels(path)
        what, lists = verdict(row, peers[row["block"]])
        out.append({"block": row["block"], "kernel": row["kernel"], "shape": f"{row['xnumel']} x {row['rnumel']}",
                    "inductor": inductor_list(row["inductor"]), "peer": lists, "verdict": what})
    return out


def render(records: list[dict], command: str) -> str:
    counts = Counter(r["verdict"] for r in records)
    lines = ["# The `inductor` peer's candidate configs beside Inductor's own (issue #26)", "",
             f"Command: `{command}`", "", f"Run: {conditions()}.", "",
             "Inductor's kernels and candidate lists: torch.compile's code generator for sm_90 on this CPU "
             "(`experiments/results/inductor_report_kernels.jsonl`, default mode); the peer's: "
             "`Inductor.candidates` on each kernel the pass forms on the same block's MLIR. "
             "Each `differs` is explained in docs/peers.md (\"Departures\").", "",
             "Kernels: " + ", ".join(f"{v} {counts[v]}" for v in sorted(counts)) + f" (of {len(records)}).", "",
             "| block | Inductor kernel | rows x n | Inductor's candidates | the peer's, same shape | verdict |",
             "|---|---|---|---|---|---|"]
    for r in records:
        peer = "; ".join(", ".join(lst) for lst in r["peer"]) or "-"
        lines.append(f"| {r['block']} | {r['kernel']} | {r['shape']} | {', '.join(r['inductor'])} | {peer} | "
                     f"{'**differs**' if r['verdict'] == 'differs' else r['verdict']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=Path, default=DEFAULT_KERNELS,
                    help="inductor_report.py's per-kernel JSON lines (default: the committed run's)")
    ap.add_argument("--workloads", type=Path, default=HERE / "workloads", help="the blocks' MLIR graphs")
    add_report_arg(ap, "peer_fidelity")
    args = ap.parse_args(argv)
    if not args.kernels.is_file():
        print(f"{PROG}: {args.kernels}: no such file (run experiments/inductor_report.py first)", file=sys.stderr)
        return 1
    emit(render(compare(args.kernels, args.workloads), command_line(PROG, argv)), args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
