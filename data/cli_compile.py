"""``costfuse-data compile``: lower and compile every generic of one module.

``costfuse-data compile IN.mlir --arch sm_90 [--jobs N] [--timeout S] [--json]``
lowers every ``linalg.generic`` to a Triton kernel, compiles it for the arch
on the CPU, and prints one row per generic: kernel, config, registers, spill
bytes, status.  Unsupported generics get a row too (``status=unsupported``
and the reason), so nothing disappears silently.  Exit status: 0 when the
table was produced (compile errors and time-outs are labels, not failures),
2 for unreadable or invalid input.

:func:`add_compile` registers the subcommand on ``data.cli``'s parser.
"""

from __future__ import annotations

import json
import sys

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def add_compile(sub) -> None:
    from costfuse.data.compile import DEFAULT_MEM_LIMIT_GB, DEFAULT_TIMEOUT_S

    p = sub.add_parser("compile", help="lower and compile every generic of a module; print registers and spills",
                       description="Lower every linalg.generic of IN.mlir to a Triton kernel and compile it for "
                                   "--arch on the CPU (triton.compile + Triton's own ptxas -v log).")
    p.add_argument("input", metavar="IN.mlir", help="MLIR module ('-' for stdin)")
    p.add_argument("--arch", default="sm_90", help="GPU arch: sm_80, sm_90 (default), sm_100")
    p.add_argument("--jobs", "-j", type=int, default=1, help="parallel compile workers (default 1)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                   help=f"seconds per kernel before status=timeout (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--mem-limit-gb", type=float, default=DEFAULT_MEM_LIMIT_GB,
                   help=f"address-space cap per compile worker, GiB (default {DEFAULT_MEM_LIMIT_GB:g}; 0 = none)")
    p.add_argument("--config", metavar="XBLOCK,RBLOCK,WARPS",
                   help="explicit launch config for every kernel instead of the heuristic")
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the result cache")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per generic")
    p.set_defaults(func=run_compile)


def _error(msg) -> int:
    print(f"costfuse-data compile: error: {msg}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _parse_config(text: str):
    from costfuse.data.launch_config import LaunchConfig

    try:
        x, r, w = (int(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--config {text!r}: expected XBLOCK,RBLOCK,WARPS") from None
    return LaunchConfig(XBLOCK=x, RBLOCK=r, num_warps=w)


def _describe(kernel) -> str:
    """``4x8->4 f32 red 3ops``: first operand, output, type, kind, body size."""
    first = kernel.inputs[0] if kernel.inputs else kernel.outputs[0]
    shape = "x".join(map(str, first.shape)) or "scalar"
    out = "x".join(map(str, kernel.outputs[0].shape)) or "scalar"
    kind = "red" if kernel.reduction else "pw"
    return f"{shape}->{out} {first.elem} {kind} {kernel.body_ops}ops"


def run_compile(args) -> int:
    from costfuse.ir import IRError, load_module
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch
    from costfuse.data.lower import lower_module

    try:
        arch = parse_arch(args.arch)
        config = _parse_config(args.config) if args.config else None
        module = load_module(args.input)
        report = lower_module(module, (lambda info: config) if config else None)
    except (ValueError, IRError) as err:  # bad arch/config, unreadable IR, a config that does not fit
        return _error(err)
    tasks = [CompileTask(k.source, k.config, arch) for _, k in report.kernels]
    progress = _progress(len(tasks)) if sys.stderr.isatty() and not args.json else None
    with CompilePool(args.jobs, args.timeout, args.mem_limit_gb or None, cache=not args.no_cache) as pool:
        results = pool.run(tasks, on_result=progress)
    if progress:
        print(file=sys.stderr)
    rows = []
    for (index, kernel), res in zip(report.kernels, results):
        rows.append({"generic": index, "kernel": _describe(kernel), "config": kernel.config.to_dict(),
                     **{k: v for k, v in res.to_dict().items() if k != "ptxas_log"}, "cached": res.cached})
    for index, err in report.unsupported:
        rows.append({"generic": index, "kernel": "-", "config": None, "status": "unsupported", "error": str(err)})
    rows.sort(key=lambda r: r["generic"])
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print_table(rows, arch)
    return EXIT_OK


def _progress(total: int):
    done = [0]

    def tick(_i, _res):
        done[0] += 1
        print(f"\rcompiled {done[0]}/{total}", end="", file=sys.stderr, flush=True)

    return tick


def print_table(rows: list[dict], arch: int) -> None:
    from costfuse.data.launch_config import LaunchConfig

    header = ["#", "kernel", "config", "regs", "spill st/ld B", "stack B", "time s", "status"]
    table = [header]
    for r in rows:
        cfg = LaunchConfig.from_dict(r["config"]).short() if r.get("config") else "-"
        spill = "-" if r.get("spill_store_bytes") is None else f"{r['spill_store_bytes']}/{r['spill_load_bytes']}"
        status = r["status"] + (" (cached)" if r.get("cached") else "")
        if r["status"] != "ok" and r.get("error"):
            status += ": " + r["error"].splitlines()[0][:100]
        table.append([str(r["generic"]), r["kernel"], cfg, _fmt(r.get("regs")), spill, _fmt(r.get("stack_bytes")),
                      "-" if not r.get("compile_s") else f"{r['compile_s']:.2f}", status])
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"sm_{arch}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))


def _fmt(v) -> str:
    return "-" if v is None else str(v)
