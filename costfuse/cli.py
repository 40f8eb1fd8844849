"""Command-line entry points: ``costfuse-opt`` and ``costfuse``.

``costfuse-opt IN.mlir [-o OUT.mlir] [--fusion groups|elementwise] [--cost-model NAME] [model options] [--explain]``
runs the fusion pass: kernel groups (the default: docs/groups.md) or v1's
elementwise producer->consumer fusion, decided by ``learned`` (the shipped
models) unless ``--cost-model`` names another.  Each cost model's dataclass fields become its options
(``Threshold.max_chain_length`` is ``--max-chain-length``), so a new model
needs no CLI code (only a help line in :data:`FIELD_HELP`).  Exit codes and
error lines follow :mod:`costfuse.cli_common`: 1 for the user's input, 2 for a
bug in CostFuse.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys

from costfuse.cli_common import (
    EXIT_BAD_INPUT, EXIT_INTERNAL, ArgumentParser, RawEpilogFormatter, run_command, write_output,
)
from costfuse.cost_models import NAMES, SEAMS, make_policy, policy_class
from costfuse.cost_models.analytical import TILE_POLICIES
from costfuse.cost_models.learned_groups import SPILL_CUTS
from costfuse.ir import IRError, load_module, print_module
from costfuse.policy import EdgePolicy, GroupPolicy
from costfuse.targets import TARGETS

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "main", "opt_main"]

# One help line per cost-model field (the option it becomes), choices where the field has a fixed set,
# and the words for a default that is empty.  tests/costfuse/test_cli_conventions.py checks every field has one.
FIELD_HELP = {
    "max_chain_length": "most original generics one fused op may merge",
    "max_body_ops": "most ops in a fused body",
    "arch": "GPU target whose constants (bandwidth, registers per thread) the estimate uses",
    "margin": "fuse only if the fused time is at least this fraction below the parts' time, 0 <= F < 1",
    "tile_policy": "launch config each kernel is costed at: heuristic = what the lowering picks, "
                   "wide = the heuristic's XBLOCK grown up to 4x",
    "model": "model bundle folder (costfuse-train --export) or models:/NAME@ALIAS",
    "tracking_uri": "MLflow tracking URI for a models:/ --model or --group-model",
    "spill_budget": "spill bytes per thread (store + load) a fusion may add (groups: a kernel's config may have)",
    "group_model": "group heads' bundle folder (group feature schema v2 to v5) or models:/NAME@ALIAS, which decide "
                   "kernel groups and their configs",
    "allow_arch_mismatch": "use a model trained on another arch's labels instead of refusing it",
    "spill_cut": "group heads' P(spill) cut, each read out of fold on the training programs: f1 = the F1-best "
                 "one, recall = the one that kept 95%% of the spilling kernels (fewer spilling picks, less "
                 "persistence), precision = the lowest whose precision is still 0.8 (bundles that record it)",
    "spill_slowdown": "how many times slower a pick predicted spill-free runs if it spills after all: within the "
                      "fastest spill-free config's mode, pick the least time x (1 + (S-1) P(spill)); 1 = the "
                      "fastest (at a zero --spill-budget only)",
}
DEFAULT_COST_MODEL = "learned"
"""The model the project exists for, with the shipped bundles, in either fusion mode (issue #27, item 2)."""
FIELD_CHOICES = {"arch": tuple(TARGETS), "tile_policy": TILE_POLICIES, "spill_cut": SPILL_CUTS}
EMPTY_DEFAULT = {"model": "the shipped model in costfuse/models/",
                 "tracking_uri": "$MLFLOW_TRACKING_URI; a models:/ model with neither fails",
                 "group_model": "the shipped group model in costfuse/models/groups/"}


def _options(cls: type) -> list[dataclasses.Field]:
    """The fields of a policy class that are CLI options."""
    return [f for f in dataclasses.fields(cls) if f.init and f.metadata.get("cli", True)]


def _model_fields() -> dict[str, dataclasses.Field]:
    fields = {}
    for name in NAMES:
        for seam in SEAMS:
            for f in _options(policy_class(name, seam)):
                fields.setdefault(f.name, f)
    return fields


def _owners(field_name: str) -> list[str]:
    """The cost-model names one of whose policies has the option ``field_name``."""
    return [n for n in NAMES if any(field_name in {f.name for f in _options(policy_class(n, s))} for s in SEAMS)]


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_cost_model_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cost-model`` plus every model's fields as options (default: the model's own)."""
    parser.add_argument("--cost-model", choices=sorted(NAMES), default=DEFAULT_COST_MODEL,
                        help="who decides each fusion; its own options below say 'for NAME' (default "
                             f"{DEFAULT_COST_MODEL}: the shipped models, costfuse/models/ for edges and "
                             "costfuse/models/groups/ for kernel groups)")
    for name, f in _model_fields().items():
        owners = _owners(name)
        kind = type(f.default) if f.default is not dataclasses.MISSING else str
        default = EMPTY_DEFAULT.get(name, f.default) if f.default in ("", None) else f.default
        choices = FIELD_CHOICES.get(name)
        notes = ([f"one of {', '.join(choices)}"] if choices else []) + ([] if kind is bool else [f"default {default}"])
        help_text = f"{FIELD_HELP.get(name, 'see docs/cost_models.md')}; for {', '.join(owners)}"
        help_text += f" ({'; '.join(notes)})" if notes else ""
        if kind is bool:  # a flag: type=bool would read "--flag False" as True
            parser.add_argument(_option(name), dest=name, action="store_true", default=None, help=help_text)
        else:
            parser.add_argument(_option(name), dest=name, type=kind, default=None, help=help_text,
                                choices=choices)


def cost_model_from_args(args: argparse.Namespace) -> EdgePolicy | GroupPolicy:
    """Build the chosen model's policy for ``--fusion``'s seam, its model loaded; refuse options that
    belong to another model or seam."""
    seam = "groups" if args.fusion == "groups" else "edges"
    cls = policy_class(args.cost_model, seam)
    own = {f.name for f in _options(cls)}
    given = {n: getattr(args, n) for n in _model_fields() if getattr(args, n) is not None}
    stray = sorted(set(given) - own)
    if stray:
        raise ValueError(f"{', '.join(_option(s) for s in stray)} does not apply to --cost-model {args.cost_model} "
                         f"--fusion {args.fusion}")
    return make_policy(args.cost_model, seam, **given)


def _opt_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog="costfuse-opt", description="Fuse linalg.generic ops as a cost model decides.",
                       epilog="Exit status: 0 success, 1 bad input or usage, 2 internal error "
                              "(COSTFUSE_DEBUG=1 prints its traceback).")
    p.add_argument("input", help="input .mlir file, or - for stdin")
    p.add_argument("-o", "--output", default="-", help="output .mlir file, or - for stdout (default)")
    p.add_argument("--fusion", choices=FUSIONS, default="groups",
                   help="groups: form kernel groups (reductions with the ops around them) and outline each into a "
                        "private function with its launch config; elementwise: v1, fuse elementwise producers into "
                        "consumers as upstream linalg-fuse-elementwise-ops (one of groups, elementwise; default groups)")
    add_cost_model_arguments(p)
    p.add_argument("--allow-multi-use", action="store_true",
                   help="--fusion elementwise only: also fuse producers with other users (recomputes them); "
                        "upstream refuses these")
    p.add_argument("--no-cleanup", action="store_true", help="skip canonicalize,cse after fusion")
    p.add_argument("--ptxas-labels", action="store_true",
                   help="--cost-model inductor, --fusion groups: its spill filter and RBLOCK halving read ptxas's "
                        "registers and stack frame, as Inductor's autotuner does (compiles each formed kernel's "
                        "candidate configs on the CPU; default: the analytical register estimate, the fallback)")
    p.add_argument("--explain", nargs="?", const="decisions", choices=EXPLAIN, metavar="decisions|configs",
                   help="print one line per decision to stderr (bare --explain: decisions); --explain=configs "
                        "also lists, under each kernel, every config the model weighed (P(spill), registers, "
                        "bytes, time) and why the pick won (--fusion groups)")
    from costfuse.data.cli_compile import add_emit_triton_option

    add_emit_triton_option(p)
    p.add_argument("--verify-picks", action="store_true",
                   help="--fusion groups: compile each kernel's config with ptxas (cached) and, while it spills, "
                        "the policy's next-best configs, so no emitted config spills where one compiled clean")
    p.add_argument("--verify-timeout", type=float, default=60.0,
                   help="--verify-picks: seconds one compile may take before it counts as failed (default 60)")
    return p


def opt_main(argv: list[str] | None = None) -> int:
    try:
        args = _opt_parser().parse_args(argv)
    except SystemExit as exc:   # usage errors (exit 1) and --help (exit 0), already printed
        return int(exc.code or 0)
    return run_command("costfuse-opt", lambda: _opt(args), bad_input=(IRError, ValueError))


FUSIONS = ("groups", "elementwise")
EXPLAIN = ("decisions", "configs")


def _opt(args: argparse.Namespace) -> int:
    model = cost_model_from_args(args)
    if args.ptxas_labels and not (args.fusion == "groups" and hasattr(model, "labeller")):
        raise ValueError(f"--ptxas-labels applies to --cost-model inductor with --fusion groups, not "
                         f"--cost-model {args.cost_model} --fusion {args.fusion}")
    if args.fusion == "groups":
        return _opt_groups(args, model)
    if args.verify_picks:
        raise ValueError("--verify-picks applies to --fusion groups (it checks each kernel's launch config)")
    from costfuse.fusion_pass import FusionPass, run_pipeline

    module = load_module(args.input)
    fusion = FusionPass(model, allow_multi_use=args.allow_multi_use)
    decisions = run_pipeline(module, fusion, cleanup=not args.no_cleanup)
    text = print_module(module)
    emitted = _emit_triton(args.emit_triton, module)
    if args.explain:
        for d in decisions:
            print(d.line(), file=sys.stderr)
        for line in emitted:
            print(line, file=sys.stderr)
        fused = sum(d.fuse for d in decisions)
        print(f"# {model.name}: {fused} fused, {len(decisions) - fused} not fused, "
              f"{text.count('linalg.generic')} generics left", file=sys.stderr)
    write_output(args.output, text)
    return 0


def _opt_groups(args: argparse.Namespace, model: GroupPolicy) -> int:
    if args.allow_multi_use:
        raise ValueError("--allow-multi-use applies to --fusion elementwise; kernel groups store a value "
                         "used outside its group")
    if not isinstance(model, GroupPolicy):
        raise ValueError(f"--cost-model {args.cost_model} does not decide kernel groups; use --fusion elementwise")
    if args.ptxas_labels:   # the entry layer may reach data/; the policy (the core's side) may not
        from costfuse.data.compile import CompilePool
        from costfuse.data.ptxas_labels import PtxasLabeller

        with CompilePool(jobs=1) as pool:
            model.labeller = PtxasLabeller(pool, model.arch)
            return _run_groups(args, model)
    return _run_groups(args, model)


def _run_groups(args: argparse.Namespace, model: GroupPolicy) -> int:
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline

    module = load_module(args.input)
    from costfuse.data.refusals import lowering_refusal

    with _verifier(args) as verifier:
        fusion = GroupFusionPass(model, weigh_configs=args.explain == "configs", refuses=lowering_refusal,
                                 verifier=verifier)
        kernels = run_group_pipeline(module, fusion, cleanup=not args.no_cleanup)
    text = print_module(module)
    emitted = _emit_triton(args.emit_triton, module)
    if args.explain:
        for d in fusion.recomputed:
            print("recompute" + d.line()[4:], file=sys.stderr)
        for d in fusion.decisions:
            print(d.line(), file=sys.stderr)
        for k in kernels:
            print(k.line(), file=sys.stderr)
            if args.explain == "configs":
                for line in _weighed_lines(model, k):
                    print(line, file=sys.stderr)
        for line in emitted:
            print(line, file=sys.stderr)
        print(fusion.summary(kernels), file=sys.stderr)
        decided, fell_back = model.group_fallbacks
        if decided:
            print(f"# {model.name}: {decided} group decisions, {fell_back} by the analytical fallback",
                  file=sys.stderr)
        if verifier is not None:
            print(verifier.counts.line(), file=sys.stderr)
    write_output(args.output, text)
    return 0


def _weighed_lines(model: GroupPolicy, record) -> list[str]:
    """``--explain=configs`` under one kernel line: every config ``model`` weighed for it, fastest first,
    the one it runs at marked ``*``, with why it won and why each other lost."""
    if record.kernel.shape is None:
        return ["  no configs weighed: not a row kernel, it keeps v1's config"]
    weighed = record.weighed
    if not weighed:
        return [f"  no configs weighed: {model.name} runs a fixed config or accepts none"]
    return [f"  {len(weighed)} configs weighed by {model.name}, fastest first by its time:"] + [
        w.line() for w in weighed]


def _emit_triton(directory: str | None, module) -> list[str]:
    """With ``--emit-triton DIR``: lower the pass's output as ``costfuse-data compile`` does and write each
    kernel's Triton source to ``DIR`` (:mod:`costfuse.data.triton_files`); one ``--explain`` line per
    kernel saying where it went (or why it has no file)."""
    if not directory:
        return []
    from costfuse.data.cli_compile import lower_units
    from costfuse.data.triton_files import write_sources

    report, _, names = lower_units(module)
    written = write_sources(report, names, directory)
    who = (lambda i: f"@{names[i]}") if names else (lambda i: f"generic {i}")
    lines = [(i, f"triton {who(i)} -> {path}") for i, path in written.items()]
    lines += [(i, f"triton {who(i)}: no file, the lowering refuses it ({err})") for i, err in report.unsupported]
    return [line for _, line in sorted(lines)]


@contextlib.contextmanager
def _verifier(args: argparse.Namespace):
    """``--verify-picks``: a PickVerifier compiling through one ptxas worker (the entry layer injects it, so the
    pass never imports the dataset side: costfuse/verify_picks.py); ``None`` without the flag."""
    if not args.verify_picks:
        yield None
        return
    if args.verify_timeout <= 0:
        raise ValueError(f"--verify-timeout must be > 0 seconds, got {args.verify_timeout:g}")
    from costfuse.data.compile import CompilePool
    from costfuse.data.pick_compiler import ptxas_check
    from costfuse.verify_picks import PickVerifier

    with CompilePool(1, args.verify_timeout) as pool:
        yield PickVerifier(ptxas_check(pool, getattr(args, "arch", None) or "sm_90"))


# ``costfuse COMMAND ...``: each command parses its own options.
COMMANDS = {"opt": "run the fusion pass (the same as costfuse-opt)",
            "import-torch": "export a torch.nn.Module to Linalg MLIR",
            "inductor-report": "Inductor's sm_90 reduction kernels: CostFuse's decisions beside Inductor's "
                               "candidates, with ptxas labels"}


def _main_parser() -> ArgumentParser:
    p = ArgumentParser(prog="costfuse", description="CostFuse's commands; `costfuse COMMAND --help` for each.",
                       epilog="commands:\n" + "\n".join(f"  {n:<14}{h}" for n, h in COMMANDS.items()),
                       formatter_class=RawEpilogFormatter)
    p.add_argument("command", choices=tuple(COMMANDS), help="one of: " + ", ".join(COMMANDS))
    rest = p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the command's own arguments")
    rest.required = False  # argparse marks a REMAINDER positional required; `costfuse opt` alone is valid
    return p


def main(argv: list[str] | None = None) -> int:
    """``costfuse opt ...`` (= costfuse-opt), ``costfuse import-torch ...`` and ``costfuse inductor-report ...``."""
    args = _main_parser().parse_args(sys.argv[1:] if argv is None else argv)
    return {"opt": opt_main, "import-torch": _import_torch, "inductor-report": _inductor_report}[args.command](
        args.args)


def _inductor_report(argv: list[str]) -> int:
    from costfuse.data.inductor_report import cli

    return cli(argv)


def _import_torch(argv: list[str]) -> int:
    from costfuse.torch_import import cli

    return cli(argv)


if __name__ == "__main__":
    sys.exit(main())
