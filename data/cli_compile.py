"""``costfuse-data compile``: lower and compile every kernel of one module.

``costfuse-data compile IN.mlir --arch sm_90 [--jobs N] [--timeout S] [--json] [--kernel NAME]
[--config [MODE,]XBLOCK,RBLOCK,WARPS] [--emit-triton DIR]``
lowers the module to Triton kernels, compiles each for the arch on the CPU,
and prints one row per kernel: kernel, config, mode, HBM bytes, registers,
spill bytes, status.  An *outlined* module (written by ``costfuse-opt --fusion
groups``: its kernels are functions marked ``costfuse.kernel``,
docs/groups.md) gets one row per kernel function, each lowered at its own
``costfuse.launch`` (``data/lowering/kernel.py``); any other module one row per
``linalg.generic`` (v1).  Unsupported kernels get a row too
(``status=unsupported`` and the reason), so nothing disappears silently.
``--json`` rows have one schema for both kinds of module,
:data:`ROW_FIELDS` (the ``--help`` epilog and docs/lowering.md list it).
Exit status: 0 when the table was produced (compile errors and time-outs are
labels, not failures), 1 for unreadable or invalid input and options
(``costfuse-data``'s convention, :mod:`costfuse.cli_common`: the
``ValueError``/``IRError`` raised here become its one-line error).

:func:`add_compile` registers the subcommand on ``data.cli``'s parser.
"""

from __future__ import annotations

import json
import sys

from costfuse.cli_common import EXIT_OK, float_at_least, int_at_least, known_arch


DESCRIPTION = """\
Lower IN.mlir to Triton kernels and compile each for --arch on the CPU (triton.compile and Triton's
own ptxas -v log); print one row per kernel: config, mode, HBM bytes, registers, spill bytes, status.

What a row is depends on the module:
  outlined module  written by `costfuse-opt --fusion groups`: its kernels are functions marked
                   costfuse.kernel, called from the caller; one row per kernel function, lowered
                   to one Triton kernel at the function's own costfuse.launch (pointwise,
                   persistent or looped); --kernel NAME keeps one, and --config recompiles
                   it at the launch given
  any other module one row per linalg.generic, each its own kernel at the lowering's heuristic
                   config (or --config)"""

ROW_FIELDS = {
    "unit": "function (a kernel function of an outlined module) | generic (any other module's)",
    "index": "the unit's position from 0: functions in module order, generics in textual order",
    "kernel": "the function's name; for a generic: input->output shape, dtype, pw|red, body ops",
    "config": "the launch compiled: {XBLOCK, RBLOCK, num_warps, num_stages}",
    "mode": "pointwise | persistent | looped",
    "issued_bytes": "bytes the kernel's own loads and stores issue (each pass counted), cache hits included",
    "dram_bytes": "of those, the bytes that reach DRAM by the L2 model (costfuse/estimates.py, 'Issued and DRAM "
                  "bytes'): a kernel function's row re-read in a later pass is served by L2 when the resident programs' rows fit, "
                  "a broadcast operand is read once; null for a bare generic (no row kernel to model)",
    "status": "ok | error | timeout | unsupported",
    "error": "why, when status is not ok",
    "arch": "the target compiled for, sm_NN",
    "kernel_id": "the result cache's key: source, config, arch, Triton and ptxas versions",
    "regs": "registers per thread (ptxas -v)",
    "spill_store_bytes": "spill stores per thread (ptxas -v)",
    "spill_load_bytes": "spill loads per thread (ptxas -v)",
    "stack_bytes": "stack frame per thread (ptxas -v)",
    "shared_bytes": "shared memory per block",
    "compile_s": "seconds triton.compile took (the limit, for a timeout)",
    "timeout_s": "the --timeout it was compiled under",
    "triton_version": "Triton that compiled it",
    "ptxas_version": "ptxas that compiled it",
    "cached": "true when the row came from the result cache (--no-cache: never)",
}
"""The ``--json`` schema: every row has exactly these keys, ``null`` where one does not apply (an
unsupported kernel has no config and no compile; the labels are ``null`` unless ``status`` is ``ok``)."""


def _epilog() -> str:
    width = max(map(len, ROW_FIELDS))
    return "\n".join(["--json prints a list of objects, one per row, each with exactly these keys",
                      "(null where one does not apply: an unsupported kernel has no config and no compile;",
                      "the ptxas labels are null unless status is ok):"]
                     + [f"  {name:<{width}}  {text}" for name, text in ROW_FIELDS.items()]
                     + ["", "Exit status: 0 when the rows were printed (compile errors and time-outs are labels),",
                        "1 for unreadable input or a bad option, 2 internal error."])


def add_compile(sub) -> None:
    from costfuse.cli_common import RawEpilogFormatter

    p = sub.add_parser("compile", help="lower and compile every kernel of a module; print registers and spills",
                       description=DESCRIPTION, epilog=_epilog(), formatter_class=RawEpilogFormatter)
    p.add_argument("input", metavar="IN.mlir", help="MLIR module ('-' for stdin)")
    add_arch_option(p)
    p.add_argument("--jobs", "-j", type=int_at_least(1), default=1, help="parallel compile workers (default 1)")
    add_compile_limits(p)
    p.add_argument("--config", metavar="[MODE,]XBLOCK,RBLOCK,WARPS",
                   help="launch config for every generic instead of the heuristic; for an outlined module, the "
                        "launch to recompile one kernel function at instead of its costfuse.launch (--kernel "
                        "names it; MODE pointwise|persistent|looped, default: pointwise for a pointwise kernel, "
                        "persistent when RBLOCK holds the row, else looped)")
    p.add_argument("--kernel", metavar="NAME",
                   help="compile only this kernel function of an outlined module (needed with --config when "
                        "the module has several)")
    add_emit_triton_option(p)
    p.add_argument("--no-cache", action="store_true", help="ignore and do not write the result cache")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per row (keys below)")
    p.set_defaults(func=run_compile)


def add_emit_triton_option(p) -> None:
    """``--emit-triton DIR`` (``compile`` and ``costfuse-opt``): each kernel's Triton source, as a file
    named after its kernel (:mod:`data.triton_files`)."""
    p.add_argument("--emit-triton", metavar="DIR",
                   help="write each kernel's Triton source to DIR/<kernel function>.py (DIR/generic_<index>.py "
                        "for a bare generic); DIR is created if missing")


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
    """``(mode or None, LaunchConfig)`` of ``--config [MODE,]XBLOCK,RBLOCK,WARPS``."""
    from costfuse.launch import MODES, LaunchConfig

    parts = text.split(",")
    mode = parts.pop(0) if parts and parts[0] in MODES else None
    try:
        x, r, w = (int(v) for v in parts)
    except ValueError:
        raise ValueError(f"--config {text!r}: expected [MODE,]XBLOCK,RBLOCK,WARPS with MODE one of "
                         f"{', '.join(MODES)}") from None
    return mode, LaunchConfig(XBLOCK=x, RBLOCK=r, num_warps=w)


def _launch_for(func, mode, config):
    """The ``KernelLaunch`` a user's ``--config`` means for kernel function ``func``: ``mode`` when given,
    else pointwise for a pointwise kernel, persistent when RBLOCK holds the row, looped otherwise (a
    function that is no row kernel is lowered as its one generic, which reads only the blocks)."""
    from costfuse.data.lowering.kernel_function import kernel_members
    from costfuse.kernel import NotAKernel, analyze_kernel
    from costfuse.launch import KernelLaunch

    if mode is None:
        try:
            shape = analyze_kernel(kernel_members(func))
        except NotAKernel:
            shape = None
        if shape is None:
            mode = "pointwise" if config.RBLOCK == 1 else "looped"
        elif shape.pointwise:
            mode = "pointwise"
        else:
            mode = "persistent" if config.RBLOCK >= shape.n else "looped"
    return KernelLaunch(mode, config.XBLOCK, config.RBLOCK, config.num_warps)


def _describe(kernel) -> str:
    """``4x8->4 f32 red 3ops``: first operand, output, type, kind, body size."""
    first = kernel.inputs[0] if kernel.inputs else kernel.outputs[0]
    shape = "x".join(map(str, first.shape)) or "scalar"
    out = "x".join(map(str, kernel.outputs[0].shape)) or "scalar"
    kind = "red" if kernel.reduction else "pw"
    return f"{shape}->{out} {first.elem} {kind} {kernel.body_ops}ops"


def lower_units(module, config=None, kernel: str | None = None, mode: str | None = None, target=None):
    """(report, unit, names): every kernel function when the module has any
    (``data/lowering/kernel.py``, each at its own ``costfuse.launch``; with a ``target``, each row kernel's
    DRAM bytes by the pass's L2 model), else every generic (v1).

    ``kernel`` keeps only that kernel function; ``config`` (with ``mode``, or the mode
    :func:`_launch_for` infers) recompiles it at that launch instead of its own.
    """
    from costfuse.data.lowering.generic import lower_module
    from costfuse.data.lowering.kernel import lower_kernel, lower_kernels
    from costfuse.data.lowering.kernel_function import function_name, kernel_functions
    from costfuse.data.lowering.report import LoweringReport
    from costfuse.data.lowering.unsupported import UnsupportedOp

    funcs = kernel_functions(module)
    if not funcs:
        if kernel is not None or mode is not None:
            raise ValueError(f"--{'kernel' if kernel is not None else 'config'} {kernel or mode}: this module has "
                             "no kernel functions (costfuse-opt --fusion groups writes them)")
        return lower_module(module, (lambda info: config) if config else None), "generic", None
    names = [function_name(f) for f in funcs]
    if kernel is None and config is not None:
        if len(funcs) != 1:
            raise ValueError("--config recompiles one kernel function at the launch given; name it with --kernel "
                             f"(one of {', '.join(names)})")
        kernel = names[0]
    if kernel is None:
        return lower_kernels(module, target), "function", names
    if kernel not in names:
        raise ValueError(f"--kernel {kernel}: no kernel function of that name (the module has "
                         f"{', '.join(names)})")
    i = names.index(kernel)
    if config is None:
        whole = lower_kernels(module, target)
        return LoweringReport([k for k in whole.kernels if k[0] == i], [u for u in whole.unsupported if u[0] == i],
                              whole.what), "function", names
    # The user's launch: one that does not fit the kernel is their error (ValueError: exit 1), not a row.
    report = LoweringReport(what="kernel functions")
    try:
        report.kernels.append((i, lower_kernel(funcs[i], _launch_for(funcs[i], mode, config), target)))
    except UnsupportedOp as err:
        report.unsupported.append((i, err))
    return report, "function", names


def _row(**values) -> dict:
    """One ``--json`` row: every key of :data:`ROW_FIELDS`, in its order, ``None`` where ``values`` has none."""
    return {name: values.get(name) for name in ROW_FIELDS}


def run_compile(args) -> int:
    from costfuse.ir import load_module
    from costfuse.data.compile import CompilePool, CompileTask, arch_name, parse_arch
    from costfuse.targets import get_target

    # A bad config, unreadable IR or a config that does not fit raise ValueError/IRError: exit 1 (the arch
    # and the limits were checked when parsed).
    arch = parse_arch(args.arch)
    mode, config = _parse_config(args.config) if args.config else (None, None)
    module = load_module(args.input)
    report, unit, names = lower_units(module, config, args.kernel, mode, get_target(arch_name(arch)))
    if args.emit_triton:
        from costfuse.data.triton_files import write_sources

        written = write_sources(report, names, args.emit_triton)
        print(f"wrote {len(written)} Triton sources to {args.emit_triton}", file=sys.stderr)
    tasks = [CompileTask(k.source, k.config, arch) for _, k in report.kernels]
    progress = _progress(len(tasks)) if sys.stderr.isatty() and not args.json else None
    with CompilePool(args.jobs, args.timeout, args.mem_limit_gb or None, cache=not args.no_cache) as pool:
        results = pool.run(tasks, on_result=progress)
    if progress:
        print(file=sys.stderr)
    rows = []
    for (index, kernel), res in zip(report.kernels, results):
        rows.append(_row(**res.to_dict(), unit=unit, index=index, kernel=kernel.kernel or _describe(kernel),
                         config=kernel.config.to_dict(), mode=kernel.mode, issued_bytes=kernel.hbm_bytes,
                         dram_bytes=kernel.dram_bytes, cached=res.cached))
    for index, err in report.unsupported:
        rows.append(_row(unit=unit, index=index, kernel=names[index] if names else None, status="unsupported",
                         error=str(err), arch=arch_name(arch), cached=False))
    rows.sort(key=lambda r: r["index"])
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
    from costfuse.launch import LaunchConfig

    header = ["#", "kernel", "config", "mode", "issued B", "DRAM B", "regs", "spill st/ld B", "stack B", "time s", "status"]
    table = [header]
    for r in rows:
        cfg = LaunchConfig.from_dict(r["config"]).short() if r.get("config") else "-"
        spill = "-" if r.get("spill_store_bytes") is None else f"{r['spill_store_bytes']}/{r['spill_load_bytes']}"
        status = r["status"] + (" (cached)" if r.get("cached") else "")
        if r["status"] != "ok" and r.get("error"):
            status += ": " + r["error"].splitlines()[0][:100]
        table.append([str(r["index"]), _fmt(r["kernel"]), cfg, _fmt(r["mode"]),
                      _fmt(r.get("issued_bytes")), _fmt(r.get("dram_bytes")), _fmt(r.get("regs")), spill, _fmt(r.get("stack_bytes")),
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
