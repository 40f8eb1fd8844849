"""Every policy's kernels on the real workloads, timed on the GPU against torch.compile (issue #14).

Three steps, because the GPU machine has no CostFuse, IREE or xgboost and
only a few minutes (docs/design.md §5):

    python experiments/gpu_workloads.py prepare --out build/gpu_workloads [--small] [--only 'softmax*,adamw_f32']
    python experiments/gpu_run.py build/gpu_workloads --out RESULTS [--jobs 12] [--budget-s 480]   # GPU machine
    python experiments/gpu_workloads.py report RESULTS [--out experiments/results/gpu_workloads.md]

``prepare`` (CPU) runs each policy's pass on each workload of
``experiments/workloads/`` (LLM sizes; ``--small``: the same graphs at
export.py's small sizes) as ``compare_groups.py`` does: ``v1`` always, and
under groups ``inductor``, ``xla``, ``analytical`` and ``learned``; lowers
every kernel and writes ``DIR/<workload>/<policy>/plan.json`` with the
kernel sources (``experiments/gpu_plan.py``), and ``DIR/manifest.json``
(the command, date, toolchain and commit, and per workload how to build the
torch block and its inputs).  ``run`` is ``experiments/gpu_run.py`` (which
imports nothing of CostFuse); here, ``run --dry-run`` runs it on the CPU
with ``costfuse.data.interpret``'s bf16-correct interpreter.  ``report``
renders whatever result rows exist and says which have no GPU latency.
"""

from __future__ import annotations

import argparse
import datetime as dt
import fnmatch
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import gpu_plan  # noqa: E402
import gpu_run  # noqa: E402

BLOCKS = "experiments/workloads/blocks.py"
# Inputs that are non-negative by construction, by workload stem (AdamW's exp_avg_sq): as
# tests/experiments/test_workloads.py's NON_NEGATIVE, which the tests hold equal.
NON_NEGATIVE = {"adamw": (3,)}
# Known differences from torch that are not this experiment's (experiments/workloads/README.md).
KNOWN = {"gelu_tanh_f32": "the backend lowers tanh-GELU's sqrt(2/pi) as 0.797724: up to ~5e-5 off torch, "
                          "outside the f32 tolerance (experiments/workloads/README.md)"}
DEFAULT_REPORT = HERE / "results" / "gpu_workloads.md"


def select(only: str) -> list:
    """Workloads of export.py whose name matches one of ``only``'s comma-separated names or globs (all if empty)."""
    from workloads import export

    pats = [x.strip() for x in only.split(",") if x.strip()]
    return [w for n, w in export.BY_NAME.items() if not pats or any(fnmatch.fnmatchcase(n, p) for p in pats)]


def commit() -> str:
    """HEAD's commit, with ``+dirty`` when the working tree differs from it."""
    def git(*a):
        return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def sources(workloads: list, small: bool, tmp: Path) -> dict[str, Path]:
    """Each workload's ``.mlir``: the committed LLM-size file, or a small-size export into ``tmp``
    (``export.export`` from the repo root, as tests/experiments/test_workloads.py does)."""
    if not small:
        return {w.name: HERE / "workloads" / f"{w.name}.mlir" for w in workloads}
    import os

    from workloads import export

    cwd = os.getcwd()
    os.chdir(REPO)   # the recorded command's paths are relative to the repo root
    try:
        return {w.name: export.export(w, tmp, export.SMALL) for w in workloads}
    finally:
        os.chdir(cwd)


def prepare(out: Path, small: bool = False, only: str = "", arch: str = "sm_90", group_model: str = "",
            command: str = "") -> dict:
    """Write every plan and ``out/manifest.json``; return the manifest (``refused`` lists what did not plan)."""
    from compare_groups import make_model

    from costfuse.data.compile import CompilePool, arch_name, parse_arch, ptxas_version, triton_version

    workloads = select(only)
    if not workloads:
        raise ValueError(f"no workload matches {only!r}")
    out.mkdir(parents=True, exist_ok=True)
    arch = arch_name(arch)
    learned = make_model("learned", None, arch, group_model)   # built once, as compare_groups holds it
    manifest = {"command": command, "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "sizes": "small" if small else "LLM", "arch": arch, "triton_version": triton_version(),
                "ptxas_version": ptxas_version(parse_arch(arch)), "costfuse_commit": commit(),
                "group_model": group_model or "costfuse/models/groups", "workloads": {}}
    # inductor's spill filter reads ptxas labels, as in compare_groups (docs/peers.md I5): one compile worker
    with tempfile.TemporaryDirectory() as tmp, CompilePool(1) as pool:
        for w in workloads:
            path = sources([w], small, Path(tmp))[w.name]
            text = path.read_text()
            entry = {"kind": w.kind, "dtype": w.dtype,
                     "block": {"module": BLOCKS, "class": w.block, "args": {}},
                     "non_negative": list(NON_NEGATIVE.get(w.stem, ())), "policies": {}, "pass_s": {},
                     "refused": {}}
            if w.name in KNOWN:
                entry["known"] = KNOWN[w.name]
            for short, policy in gpu_plan.POLICIES.items():
                model = None if short == "v1" else learned if short == "learned" else make_model(short, pool, arch, "")
                module, report, pass_s = gpu_plan.passed_module(text, path, short, model)
                try:
                    plan = gpu_plan.write_plan(module, report, out / w.name / short,
                                               {"workload": w.name, "policy": policy, "pass_s": pass_s})
                except gpu_plan.PlanError as err:
                    entry["refused"][policy] = str(err)
                    print(f"{w.name} {policy}: refused: {err}", file=sys.stderr, flush=True)
                    continue
                entry["policies"][policy] = short
                entry["pass_s"][policy] = round(pass_s, 4)
                entry.setdefault("inputs", [{"shape": x["shape"], "dtype": x["dtype"]} for x in plan["inputs"]])
            manifest["workloads"][w.name] = entry
            print(f"{w.name}: {len(entry['policies'])} policies planned", flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


# ---------------------------------------------------------------------------
# Report


def _us(x) -> str:
    return "-" if x is None or x != x else f"{x:,.1f}"


def _gap(x, base) -> str:
    if x is None or base is None or x != x or base != base or not base:
        return "-"
    return f"{x / base:.2f}x"


def totals(df) -> str:
    """Per policy: over the workloads where it and torch.compile both have a GPU latency, the summed kernel
    times, torch.compile's, and the geometric mean of the per-workload gap; and how many outputs differ."""
    import math

    head = ["| policy | workloads timed | kernels µs | torch.compile µs (same workloads) | geomean vs compile | "
            "outputs differ |", "|---|---|---|---|---|---|"]
    comp = {r.workload: r.latency_us for r in df[df.policy == gpu_run.COMPILE].itertuples() if r.latency_us}
    rows = []
    for policy, g in df.groupby("policy", sort=False):
        pairs = [(r.latency_us, comp[r.workload]) for r in g.itertuples() if r.latency_us and r.workload in comp]
        mine, theirs = sum(a for a, _ in pairs), sum(b for _, b in pairs)
        geo = math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs)) if pairs else None
        differ = int((g.status == "mismatch").sum())
        rows.append(f"| {policy} | {len(pairs)} of {len(g)} | {_us(mine) if pairs else '-'} | "
                    f"{_us(theirs) if pairs else '-'} | {'-' if geo is None else f'{geo:.2f}x'} | {differ} |")
    return "\n".join(head + rows) if rows else "No rows."


def report(results: Path, out: Path, command: str = "") -> str:
    """Markdown of every result row: per workload x policy, summed kernel time, gap to torch.compile, check."""
    import pandas as pd

    files = sorted(Path(results).glob("*.parquet"))
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True) if files else pd.DataFrame(
        columns=[f.name for f in gpu_run.SCHEMA])
    df = df.astype(object).where(df.notna(), None)
    timed = df[df.latency_us.notna()] if len(df) else df
    lines = ["# Policies' kernels on real workloads, timed on a GPU (issue #14)", "",
             f"Generated by `{command}` from {len(files)} result files in `{results}`."]
    if not len(df):
        lines += ["", "No result rows yet: nothing was run."]
    else:
        envs = df[["gpu_name", "torch_version", "triton_version", "cuda_version", "bench"]].drop_duplicates()
        for e in envs.itertuples():
            lines.append(f"Run on {e.gpu_name or 'no GPU (dry run)'}: torch {e.torch_version}, triton "
                         f"{e.triton_version}, CUDA {e.cuda_version}; {e.bench}.")
        lines += ["", f"**{len(df) - len(timed)} of {len(df)} rows have no GPU latency** (a dry run on the CPU, or "
                      "an error): their latency columns are `-`, never an estimate." if len(timed) < len(df)
                  else f"All {len(df)} rows have a GPU latency."]
    lines += ["", "Columns: *kernels µs* sums the median time of each kernel the policy launches (each timed "
              "alone on the plan's own tensors); *plan µs* times all of them back to back in one call; "
              "*vs compile*: kernels µs over torch.compile's µs (below 1: faster than Inductor). *check*: "
              "outputs against eager torch at the repo's tolerances (costfuse/reference.py).", ""]
    lines += ["| workload | policy | status | kernels | kernels µs | plan µs | vs compile | check |",
              "|---|---|---|---|---|---|---|---|"]
    for name, g in df.groupby("workload", sort=True):
        comp = g[g.policy == gpu_run.COMPILE].latency_us
        base = comp.iloc[0] if len(comp) else None
        for r in g.itertuples():
            check = r.check or ""
            if r.error:
                check = f"error: {r.error.splitlines()[0][:160]}"
            lines.append(f"| {name} | {r.policy} | {r.status}{' (dry run)' if r.dry_run else ''} | "
                         f"{'-' if r.kernels is None else int(r.kernels)} | {_us(r.latency_us)} | {_us(r.plan_us)} | "
                         f"{_gap(r.latency_us, base) if r.policy != gpu_run.COMPILE else ''} | {check} |")
    known = [f"- {n}: {why}" for n, why in KNOWN.items() if len(df) and n in set(df.workload)]
    lines += ["", "Known differences from torch, not the policies':", "", *known] if known else []
    lines += ["", "## Totals", "", totals(df)]
    text = "\n".join(lines) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return text


# ---------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "experiments/gpu_workloads.py", *argv])
    ap = argparse.ArgumentParser(prog="python experiments/gpu_workloads.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="CPU: plan and lower every policy's kernels for every workload")
    p.add_argument("--out", type=Path, required=True, help="the prepared folder (carry it to the GPU machine)")
    p.add_argument("--small", action="store_true", help="export.py's small sizes (for tests), not the LLM ones")
    p.add_argument("--only", default="", help="comma-separated workload names or globs (default: all)")
    p.add_argument("--arch", default="sm_90", help="target the policies price (default %(default)s)")
    p.add_argument("--group-model", default="", help="group model for learned (default: the shipped one)")
    r = sub.add_parser("run", help="experiments/gpu_run.py (with --dry-run: the bf16-correct interpreter)")
    gpu_run.add_arguments(r)
    rep = sub.add_parser("report", help="render the result rows as markdown")
    rep.add_argument("results", type=Path, help="gpu_run.py's --out folder")
    rep.add_argument("--out", type=Path, default=DEFAULT_REPORT, help="report path (default %(default)s)")
    args = ap.parse_args(argv)
    if args.cmd == "prepare":
        try:
            manifest = prepare(args.out, args.small, args.only, args.arch, args.group_model, command)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        refused = sum(len(w["refused"]) for w in manifest["workloads"].values())
        print(f"prepared {len(manifest['workloads'])} workloads in {args.out}"
              + (f"; {refused} plans refused (see manifest.json)" if refused else ""))
        return 1 if refused else 0
    if args.cmd == "run":
        from costfuse.data.interpret import interpreter_mode

        return gpu_run.main_from_args(args, command, interpreter_mode if args.dry_run else None)
    print(report(args.results, args.out, command), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
