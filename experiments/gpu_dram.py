"""The L2 model's check: the pass's predicted DRAM bytes against the bytes ncu counts (issue #26, part 2).

``KernelShape.dram_bytes`` (docs/design.md, "Issued and DRAM bytes") is an
estimate: a looped kernel's re-read of a row is served by L2 when the rows in
flight fit in half of it, and every other operand is read once.  Only the
GPU's counters can say whether that holds, so the device call runs each
prepared kernel (``experiments/gpu_workloads.py prepare``: every plan's
kernel step carries the pass's ``hbm_bytes`` (issued) and ``dram_bytes``)
once under Nsight Compute, which flushes the caches before each kernel and
reads ``dram__bytes_read.sum`` and ``dram__bytes_write.sum``:

    bash experiments/gpu_dram.sh OUT [--dry-run]                    # GPU machine (or folded into gpu_campaign.sh)
    python experiments/gpu_dram.py report OUT [--out experiments/results/gpu_dram.md]   # CPU

``run`` (the GPU side, imports only torch, triton and the standard library,
like ``gpu_run.py``, whose plan reader and executor it reuses) launches each
plan's kernels once, in order, and writes one line per launch to
``OUT/launches.jsonl``; every lowered kernel's Triton function is named
``kernel``, so ``ncu --kernel-name kernel`` profiles exactly these launches,
in the same order.  ``report`` joins the two by order (refusing when the
counts differ) and puts measured DRAM bytes beside both predictions: the
check is whether ``dram_bytes`` is nearer ncu than ``issued`` is.  With no
ncu rows (no GPU, no ncu, or counters not permitted) every measured cell says
"not measured"; nothing is simulated.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import fnmatch
import importlib.util
import io
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POLICIES = ("learned", "inductor", "analytical")   # plan folders (gpu_plan.POLICIES' short names)
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
DEFAULT_REPORT = HERE / "results" / "gpu_dram.md"


def _gpu_run():
    spec = importlib.util.spec_from_file_location("gpu_dram_run", HERE / "gpu_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------
# GPU side


def run(root: Path, out: Path, policies=POLICIES, only: str = "", dry_run: bool = False) -> int:
    """Launch every selected plan's kernels once; write ``out/launches.jsonl``; return the launch count."""
    import torch

    gr = _gpu_run()
    manifest, plans = gr.read_prepared(root)
    pats = [p for p in only.split(",") if p]
    device = "cpu" if dry_run else "cuda"
    if not dry_run and not torch.cuda.is_available():
        raise RuntimeError("no CUDA device: run on the GPU machine, or pass --dry-run")
    torch.set_default_device(device)
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for name in sorted(plans):
        if pats and not any(fnmatch.fnmatchcase(name, p) for p in pats):
            continue
        w = manifest["workloads"][name]
        inputs = gr.make_inputs(w["inputs"], w.get("non_negative", []), device)
        for policy, short in w["policies"].items():   # policy name -> its plan folder
            if short not in policies:
                continue
            plan, folder = plans[name][policy], root / name / short
            with gr.interpret_scope() if dry_run else contextlib.nullcontext():   # @jit reads it at import
                mods = gr.load_kernels(folder, plan, f"dram_{name}_{short}")
                gr.execute(folder, plan, mods, inputs, device)
            if not dry_run:
                torch.cuda.synchronize()
            for step in plan["steps"]:
                if step["op"] == "kernel":
                    lines.append({"workload": name, "policy": short, "kernel": step["kernel"],
                                  "mode": step.get("mode"), "config": step.get("config"),
                                  "issued_bytes": step.get("hbm_bytes"), "dram_bytes": step.get("dram_bytes")})
    (out / "launches.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return len(lines)


# ---------------------------------------------------------------------------
# CPU side: the report


class ReportError(ValueError):
    """The launches and ncu's rows cannot be joined; the message names the file."""


UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def ncu_rows(path: Path) -> list[dict]:
    """ncu's ``--csv --page raw`` rows of kernels named ``kernel``, each metric in bytes (its units row read:
    ``--print-units base`` asks for bytes, but a scaled unit is converted, not misread)."""
    text = path.read_text(errors="replace")
    start = text.find('"ID"')
    if start < 0:
        return []
    table = list(csv.DictReader(io.StringIO(text[start:])))
    units = next((r for r in table if not r.get("ID")), {})
    rows = [r for r in table if r.get("Kernel Name", "").startswith("kernel")]
    for r in rows:
        for m in METRICS:
            if m not in r:
                raise ReportError(f"{path}: no column {m} (ncu run without --metrics {','.join(METRICS)}?)")
            unit = units.get(m) or "byte"
            if unit not in UNITS:
                raise ReportError(f"{path}: {m} in unit {unit!r}, expected bytes")
            r[m] = float(r[m].replace(",", "")) * UNITS[unit]
    return rows


def join(out: Path) -> list[dict]:
    """One row per launch: the predictions and, where ncu ran, the DRAM bytes it counted."""
    launches_path = out / "launches.jsonl"
    if not launches_path.is_file():
        raise ReportError(f"{launches_path}: missing (run `bash experiments/gpu_dram.sh {out}` on the GPU)")
    launches = [json.loads(x) for x in launches_path.read_text().splitlines() if x.strip()]
    ncu_path = out / "ncu.csv"
    measured = ncu_rows(ncu_path) if ncu_path.is_file() else []
    if measured and len(measured) != len(launches):
        raise ReportError(f"{ncu_path}: {len(measured)} profiled kernels for {len(launches)} launches in "
                          f"{launches_path}: cannot join them by order")
    for i, x in enumerate(launches):
        x["ncu_dram_bytes"] = (sum(measured[i][m] for m in METRICS) if measured else None)
    return launches


def _err(pred, meas) -> float | None:
    return None if pred is None or meas is None or meas == 0 else abs(pred - meas) / meas


def _mb(v, missing: str = "not measured") -> str:
    return missing if v is None else f"{v / 1e6:,.3f}"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def report(out: Path) -> str:
    rows = join(out)
    status = (out / "ncu_status.txt").read_text().strip() if (out / "ncu_status.txt").is_file() else ""
    measured = [r for r in rows if r["ncu_dram_bytes"] is not None and r["dram_bytes"] is not None]
    lines = ["# The L2 model against ncu: predicted DRAM bytes per kernel", "",
             f"Generated by `python experiments/gpu_dram.py report {out}` from `{out}/launches.jsonl` "
             f"(the prepared kernels, launched once each) and `{out}/ncu.csv` "
             f"(`ncu --metrics {','.join(METRICS)} --cache-control all --kernel-name kernel`).", ""]
    if status:
        lines += [f"ncu: {status}", ""]
    if measured:
        err_d = sorted(_err(r["dram_bytes"], r["ncu_dram_bytes"]) for r in measured)
        err_i = sorted(_err(r["issued_bytes"], r["ncu_dram_bytes"]) for r in measured)
        med = lambda xs: xs[len(xs) // 2]   # noqa: E731
        within = sum(e <= 0.10 for e in err_d)
        lines += [f"{len(measured)} kernels measured: median |error| of `dram_bytes` {_pct(med(err_d))}, of "
                  f"`issued_bytes` read as DRAM bytes {_pct(med(err_i))}; `dram_bytes` within 10% on "
                  f"{within} of {len(measured)}.", ""]
    else:
        lines += ["No kernel measured: every ncu column is \"not measured\" (no GPU, no ncu, or counters not "
                  "permitted; see the ncu line above).", ""]
    lines += ["| workload | policy | kernel | mode | config | issued MB (pass) | DRAM MB (pass, L2 model) | "
              "DRAM MB (ncu) | error of DRAM | error of issued |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['policy']} | {r['kernel']} | {r['mode']} | {r['config']} | "
                     f"{_mb(r['issued_bytes'], 'not estimated')} | {_mb(r['dram_bytes'], 'not estimated')} | "
                     f"{_mb(r['ncu_dram_bytes'])} | "
                     f"{_pct(_err(r['dram_bytes'], r['ncu_dram_bytes']))} | "
                     f"{_pct(_err(r['issued_bytes'], r['ncu_dram_bytes']))} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python experiments/gpu_dram.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="GPU: launch each prepared kernel once (under ncu, from gpu_dram.sh)")
    r.add_argument("dir", type=Path, help="the prepared folder (gpu_workloads.py prepare --out DIR)")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--policies", default=",".join(POLICIES), help="plan folders (default %(default)s)")
    r.add_argument("--only", default="", help="comma-separated workload names or globs (default: all)")
    r.add_argument("--dry-run", action="store_true", help="CPU: interpret the kernels; ncu measures nothing")
    q = sub.add_parser("report", help="CPU: join launches.jsonl and ncu.csv into a Markdown report")
    q.add_argument("dir", type=Path, help="what gpu_dram.sh wrote (OUT)")
    q.add_argument("--out", type=Path, default=DEFAULT_REPORT, help="default %(default)s")
    args = p.parse_args(argv)
    try:
        if args.cmd == "run":
            n = run(args.dir, args.out, tuple(x for x in args.policies.split(",") if x), args.only, args.dry_run)
            print(f"launched {n} kernels once each; order in {args.out / 'launches.jsonl'}")
            return 0
        text = report(args.dir)
    except (ReportError, RuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
