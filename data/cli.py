"""``costfuse-data``: the dataset job's command line.

Subcommands: ``generate`` (random programs → labelled Parquet), ``generate-groups`` (dataset v2),
``generate-inductor`` (Inductor's own kernels, ``data/inductor_job.py``), ``stats``,
``profile`` (GPU latency rows), ``merge-latency`` (those rows into the dataset) and ``compile`` (lower +
compile one module).
Each lives next to the code it drives; this file only dispatches.  Exit codes
and error lines follow :mod:`costfuse.cli_common` (1 bad input, 2 a bug).
"""

from __future__ import annotations

import argparse
import sys

from costfuse.cli_common import ArgumentParser, run_command
from costfuse.ir import IRError


def _add_profile(sub: argparse._SubParsersAction) -> None:
    from costfuse.data import profile

    p = sub.add_parser("profile", help="time every kernel of a dataset on the GPU (latency rows)")
    profile.add_arguments(p)
    p.set_defaults(func=profile.main_from_args)


def _add_merge_latency(sub: argparse._SubParsersAction) -> None:
    from costfuse.data import merge_latency

    p = sub.add_parser("merge-latency", help="set the dataset's latency_us/gpu_name from `profile` rows",
                       description="Idempotent: refuses, changing nothing, on a row that does not fit the dataset.")
    merge_latency.add_arguments(p)
    p.set_defaults(func=merge_latency.main_from_args)


def parser() -> argparse.ArgumentParser:
    from costfuse.data.cli_compile import add_compile
    from costfuse.data.cli_generate import add_generate, add_generate_groups, add_generate_inductor, add_stats

    p = ArgumentParser(prog="costfuse-data",
                       description="The dataset job: generate, generate-groups, generate-inductor, stats, profile, "
                                   "merge-latency, compile.",
                       epilog="Exit status: 0 success, 1 bad input or usage, 2 internal error "
                              "(COSTFUSE_DEBUG=1 prints its traceback).")
    sub = p.add_subparsers(dest="command", required=True, help="`costfuse-data COMMAND --help` for its options")
    add_generate(sub)
    add_generate_groups(sub)
    add_generate_inductor(sub)
    add_stats(sub)
    _add_profile(sub)
    _add_merge_latency(sub)
    add_compile(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # usage errors (exit 1) and --help (exit 0), already printed: returned as costfuse-opt's
        return int(exc.code or 0)
    # RuntimeError: no CUDA device for `profile`, a compile worker that cannot start.
    return run_command(f"costfuse-data {args.command}", lambda: args.func(args),
                       bad_input=(IRError, ValueError, RuntimeError),
                       interrupted="; rerun the same command to resume")


if __name__ == "__main__":
    sys.exit(main())
