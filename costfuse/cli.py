"""Command-line entry points: ``costfuse-opt`` and ``costfuse``.

``costfuse-opt IN.mlir [-o OUT.mlir] --cost-model NAME [model options] [--explain]``
runs the fusion pass.  Each cost model's dataclass fields become its options
(``Threshold.max_chain_length`` is ``--max-chain-length``), so a new model
needs no CLI code.  Errors are one line on stderr and a non-zero exit code;
a traceback means a bug in CostFuse, never in the user's input.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from costfuse.cost_models import MODELS, CostModel
from costfuse.ir import IRError, load_module, print_module

EXIT_BAD_INPUT = 1
EXIT_INTERNAL = 2


def _model_fields() -> dict[str, dataclasses.Field]:
    fields = {}
    for cls in MODELS.values():
        for f in dataclasses.fields(cls):
            if f.init:
                fields.setdefault(f.name, f)
    return fields


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_cost_model_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cost-model`` plus every model's fields as options (default: the model's own)."""
    parser.add_argument("--cost-model", choices=sorted(MODELS), default="threshold", help="default: threshold")
    for name, f in _model_fields().items():
        owners = [c.name for c in MODELS.values() if name in {g.name for g in dataclasses.fields(c)}]
        kind = type(f.default) if f.default is not dataclasses.MISSING else str
        parser.add_argument(_option(name), dest=name, type=kind, default=None,
                            help=f"for {', '.join(owners)} (default {f.default})")


def cost_model_from_args(args: argparse.Namespace) -> CostModel:
    """Build the chosen model; refuse options that belong to another model."""
    cls = MODELS[args.cost_model]
    own = {f.name for f in dataclasses.fields(cls) if f.init}
    given = {n: getattr(args, n) for n in _model_fields() if getattr(args, n) is not None}
    stray = sorted(set(given) - own)
    if stray:
        raise ValueError(f"{', '.join(_option(s) for s in stray)} does not apply to --cost-model {cls.name}")
    return cls(**given)


def _opt_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="costfuse-opt", description="Fuse linalg.generic ops as a cost model decides.")
    p.add_argument("input", help="input .mlir file, or - for stdin")
    p.add_argument("-o", "--output", default="-", help="output .mlir file, or - for stdout (default)")
    add_cost_model_arguments(p)
    p.add_argument("--allow-multi-use", action="store_true",
                   help="also fuse producers with other users (recomputes them); upstream refuses these")
    p.add_argument("--no-cleanup", action="store_true", help="skip canonicalize,cse after fusion")
    p.add_argument("--explain", action="store_true", help="print one line per decision to stderr")
    return p


def opt_main(argv: list[str] | None = None) -> int:
    args = _opt_parser().parse_args(argv)
    try:
        model = cost_model_from_args(args)
        from costfuse.fusion_pass import FusionPass, run_pipeline

        module = load_module(args.input)
        fusion = FusionPass(model, allow_multi_use=args.allow_multi_use)
        decisions = run_pipeline(module, fusion, cleanup=not args.no_cleanup)
        text = print_module(module)
    except (IRError, ValueError) as err:
        print(f"costfuse-opt: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as err:  # a bug in CostFuse: still one line, distinct exit code
        print(f"costfuse-opt: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return EXIT_INTERNAL
    if args.explain:
        for d in decisions:
            print(d.line(), file=sys.stderr)
        fused = sum(d.fuse for d in decisions)
        print(f"# {model.name}: {fused} fused, {len(decisions) - fused} not fused, "
              f"{text.count('linalg.generic')} generics left", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``costfuse opt ...`` (= costfuse-opt) and ``costfuse import-torch ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"opt": opt_main, "import-torch": _import_torch}
    if not argv or argv[0] not in commands:
        print(f"usage: costfuse {{{','.join(commands)}}} ...", file=sys.stderr)
        return EXIT_BAD_INPUT if argv and argv[0] not in ("-h", "--help") else 0
    return commands[argv[0]](argv[1:])


def _import_torch(argv: list[str]) -> int:
    from costfuse.torch_import import cli

    return cli(argv)


if __name__ == "__main__":
    sys.exit(main())
