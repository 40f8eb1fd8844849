"""``costfuse-data``: the dataset job's command line.

Subcommands: ``generate`` (random programs → labelled Parquet), ``stats``,
``profile`` (GPU latency rows) and ``compile`` (lower + compile one module).
Each lives next to the code it drives; this file only dispatches.  Errors
are one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import sys

from costfuse.ir import IRError


def _add_profile(sub: argparse._SubParsersAction) -> None:
    from costfuse.data import profile

    p = sub.add_parser("profile", help="time every kernel of a dataset on the GPU (latency rows)")
    profile.add_arguments(p)
    p.set_defaults(func=profile.main_from_args)


def parser() -> argparse.ArgumentParser:
    from costfuse.data.cli_generate import add_generate, add_stats

    p = argparse.ArgumentParser(prog="costfuse-data", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    add_generate(sub)
    add_stats(sub)
    _add_profile(sub)
    try:
        from costfuse.data.cli_compile import add_compile
    except ImportError:
        pass
    else:
        add_compile(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (IRError, ValueError, RuntimeError, OSError) as err:
        print(f"costfuse-data {args.command}: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"costfuse-data {args.command}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
