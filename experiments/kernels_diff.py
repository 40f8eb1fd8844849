"""Two runs of ``experiments/inductor_report.py`` side by side: what changed in Inductor's kernels and in the
handler's picks (e.g. torch 2.13 against 2.11, the GPU machine's; docs/inductor.md, "Torch versions").

    python experiments/kernels_diff.py experiments/results/inductor_report_kernels.jsonl \\
        experiments/results/inductor_report_torch211_kernels.jsonl --report experiments/results/kernels_diff_torch211.md

Kernels are matched by block and kernel name.  For the kernels both runs generated it counts the picks that
differ, Inductor's candidate lists (default and max-autotune) that differ, and every compiled config whose
ptxas registers or spill bytes differ (the kernel's source differs between the runs there, since the compile
is deterministic for one source).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from experiments.bench_report import add_report_arg, command_line, emit  # noqa: E402


def kernels(path: str) -> dict[tuple[str, str], dict]:
    """``(block, kernel)`` -> the kernel's record, of every kernel line of a ``--kernels`` file."""
    with open(path) as f:
        return {(r["block"], r["kernel"]): r for r in map(json.loads, f) if "kernel" in r}


def configs(record: dict, key: str) -> list[dict]:
    return [c["config"] for c in record.get(key) or []]


def compiled(record: dict) -> list[tuple[str, dict]]:
    """``(where, compiled config)`` of a record: Inductor's candidates and the pick."""
    out = [("Inductor's", c) for c in record.get("inductor") or []]
    return out + ([("pick", record["costfuse"])] if record.get("costfuse") else [])


def compare(a: dict, b: dict) -> dict:
    both = sorted(set(a) & set(b))
    picks = [k for k in both if (a[k].get("costfuse") or {}).get("config") != (b[k].get("costfuse") or {}).get("config")]
    lists = {key: [k for k in both if configs(a[k], key) != configs(b[k], key)]
             for key in ("inductor", "inductor_max_autotune")}
    labels = []
    for k in both:
        for (where, x), (_, y) in zip(compiled(a[k]), compiled(b[k])):
            if x["config"] == y["config"] and (x.get("regs"), x.get("spill_bytes")) != (y.get("regs"), y.get("spill_bytes")):
                labels.append((k, where, x["config"], (x.get("regs"), x.get("spill_bytes")),
                               (y.get("regs"), y.get("spill_bytes"))))
    spilling_picks = [sum(1 for k in both if (r[k].get("costfuse") or {}).get("spill_bytes")) for r in (a, b)]
    return {"both": both, "only_a": sorted(set(a) - set(b)), "only_b": sorted(set(b) - set(a)), "picks": picks,
            "lists": lists, "labels": labels, "decided": sum(1 for k in both if a[k].get("costfuse")),
            "spilling_picks": spilling_picks}


def _config(c: dict) -> str:
    mode = "persistent" if c["persistent"] else ("looped" if c["rblock"] > 1 else "pointwise")
    return f"{mode} x{c['xblock']} r{c['rblock']} w{c['num_warps']}"


def markdown(out: dict, a: str, b: str, command: str) -> str:
    lines = [f"# Inductor's kernels and the handler's picks: `{a}` (A) against `{b}` (B)", "",
             f"Command: `{command}`", "",
             f"- kernels in both runs: {len(out['both'])}; only in A: {len(out['only_a'])}"
             + "".join(f" ({k[0]} `{k[1]}`)" for k in out["only_a"])
             + f"; only in B: {len(out['only_b'])}" + "".join(f" ({k[0]} `{k[1]}`)" for k in out["only_b"]),
             f"- kernels the handler decided (A): {out['decided']}; picks that differ: {len(out['picks'])}"
             + "".join(f" ({k[0]} `{k[1]}`)" for k in out["picks"]),
             f"- picks that spill under ptxas: {out['spilling_picks'][0]} (A), {out['spilling_picks'][1]} (B)",
             f"- Inductor's default candidate lists that differ: {len(out['lists']['inductor'])}; "
             f"max-autotune lists: {len(out['lists']['inductor_max_autotune'])}",
             f"- compiled configs whose registers or spill bytes differ (the kernel's source differs): "
             f"{len(out['labels'])}", ""]
    if out["labels"]:
        lines += ["| block | kernel | config | where | registers, spill B (A) | registers, spill B (B) |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {k[0]} | `{k[1]}` | {_config(c)} | {where} | {x[0]}, {x[1]} | {y[0]}, {y[1]} |"
                  for k, where, c, x, y in out["labels"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", help="a --kernels file of experiments/inductor_report.py")
    ap.add_argument("b", help="another one")
    add_report_arg(ap, "kernels_diff")
    args = ap.parse_args(argv)
    emit(markdown(compare(kernels(args.a), kernels(args.b)), args.a, args.b, command_line("kernels_diff.py", argv)),
         args.report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
