"""``costfuse-data compile``: lower and compile every generic of one module.

``costfuse-data compile IN.mlir --arch sm_90 [--jobs N] [--timeout S] [--json]``
lowers every ``linalg.generic`` to a Triton kernel, compiles it for the arch
on the CPU, and prints one row per generic: kernel, config, mode, HBM bytes,
registers, spill bytes, status.  A module with kernel functions (``--fusion
groups``, docs/groups.md) gets one row per kernel function instead, each
lowered at its own ``costfuse.launch`` (``data.lower_kernel``).  Unsupported
generics get a row too (``status=unsupported`` and the reason), so nothing
disappears silently.  Exit status: 0 when the
table was produced (compile errors and time-outs are labels, not failures),
1 for unreadable or invalid input (``costfuse-data``'s convention,
:mod:`costfuse.cli_common`: the ``ValueError``/``IRError`` raised here become
its one-line error).

:func:`add_compile` registers the subcommand on ``data.cli``'s parser.
"""

from __future__ import annotations

import json
import sys

from costfuse.cli_common import EXIT_OK, float_at_least, int_at_least, known_arch


def add_compile(sub) -> None:
    p = sub.add_parser("compile", help="lower and compile every generic of a module; print registers and spills",
                       description="Lower every linalg.generic of IN.mlir to a Triton kernel and compile it for "
                                   "--arch on the CPU (triton.compile + Triton's own ptxas -v log).")
    p.add_argument("input", metavar="IN.mlir", help="MLIR module ('-' for stdin)")
    add_arch_option(p)
    p.add_argument("--jobs", "-j", type=int_at_least(1), default=1, help="parallel compile workers (default 1)")
    add_compile_limits(p)
    p.add_argument("--config", metavar="XBLOCK,RBLOCK,WARPS",
                   help="explicit launch config for every kernel instead of the heuristic")
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the result cache")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per generic")
    p.set_defaults(func=run_compile)


def add_arch_option(p) -> None:
    """``--arch``: checked against :mod:`costfuse.targets` when parsed, as ``costfuse-opt``'s is, so an arch
    that cannot be targeted is one usage line (exit 1), not LLVM errors recorded as every kernel's label."""
    from costfuse.targets import TARGETS

    p.add_argument("--arch", type=known_arch, default="sm_90",
                   help=f"GPU arch to compile for: {', '.join(TARGETS)} (default sm_90)")


def add_compile_limits(p) -> None:
    """``--timeout`` and ``--mem-limit-gb``, the per-kernel compile limits (``compile`` and the dataset jobs),
    checked when parsed: a limit of -1 s would time out every kernel."""
    from costfuse.data.compile import DEFAULT_MEM_LIMIT_GB, DEFAULT_TIMEOUT_S

    p.add_argument("--timeout", type=float_at_least(0, strict=True), default=DEFAULT_TIMEOUT_S,
                   help=f"seconds per kernel before status=timeout, > 0 (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--mem-limit-gb", type=float_at_least(0), default=DEFAULT_MEM_LIMIT_GB,
                   help=f"address-space cap per compile worker, GiB (default {DEFAULT_MEM_LIMIT_GB:g}; 0 = none)")


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


def _lower(module, config):
    """(report, row key, names): every kernel function when the module has any
    (``data.lower_kernel``, each at its own ``costfuse.launch``), else every generic (v1)."""
    from costfuse.data.lower import lower_module
    from costfuse.data.lower_kernel import function_name, kernel_functions, lower_kernels

    funcs = kernel_functions(module)
    if not funcs:
        return lower_module(module, (lambda info: config) if config else None), "generic", None
    if config:
        raise ValueError("--config sets the config of bare generics; this module has kernel functions, "
                         "whose costfuse.launch is their config")
    return lower_kernels(module), "index", [function_name(f) for f in funcs]


def run_compile(args) -> int:
    from costfuse.ir import load_module
    from costfuse.data.compile import CompilePool, CompileTask, parse_arch

    # A bad config, unreadable IR or a config that does not fit raise ValueError/IRError: exit 1 (the arch
    # and the limits were checked when parsed).
    arch = parse_arch(args.arch)
    config = _parse_config(args.config) if args.config else None
    module = load_module(args.input)
    report, key, names = _lower(module, config)
    tasks = [CompileTask(k.source, k.config, arch) for _, k in report.kernels]
    progress = _progress(len(tasks)) if sys.stderr.isatty() and not args.json else None
    with CompilePool(args.jobs, args.timeout, args.mem_limit_gb or None, cache=not args.no_cache) as pool:
        results = pool.run(tasks, on_result=progress)
    if progress:
        print(file=sys.stderr)
    rows = []
    for (index, kernel), res in zip(report.kernels, results):
        rows.append({key: index, "kernel": kernel.kernel or _describe(kernel), "config": kernel.config.to_dict(),
                     "mode": kernel.mode, "hbm_bytes": kernel.hbm_bytes,
                     **{k: v for k, v in res.to_dict().items() if k != "ptxas_log"}, "cached": res.cached})
    for index, err in report.unsupported:
        rows.append({key: index, "kernel": names[index] if names else "-", "config": None, "status": "unsupported",
                     "error": str(err)})
    rows.sort(key=lambda r: r[key])
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

    header = ["#", "kernel", "config", "mode", "hbm B", "regs", "spill st/ld B", "stack B", "time s", "status"]
    table = [header]
    for r in rows:
        cfg = LaunchConfig.from_dict(r["config"]).short() if r.get("config") else "-"
        spill = "-" if r.get("spill_store_bytes") is None else f"{r['spill_store_bytes']}/{r['spill_load_bytes']}"
        status = r["status"] + (" (cached)" if r.get("cached") else "")
        if r["status"] != "ok" and r.get("error"):
            status += ": " + r["error"].splitlines()[0][:100]
        table.append([str(r["generic"] if "generic" in r else r["index"]), r["kernel"], cfg, r.get("mode", "-"),
                      _fmt(r.get("hbm_bytes")), _fmt(r.get("regs")), spill, _fmt(r.get("stack_bytes")),
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
