"""``costfuse-data generate``, ``generate-groups``, ``generate-inductor`` and ``stats``: the dataset jobs' command line."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from costfuse.cli_common import UsageError, int_at_least
from costfuse.data.cli_compile import add_arch_option, add_compile_limits
from costfuse.data.config_sampling import DEFAULT_BOUND_WORDS
from costfuse.data.families import FAMILIES


def add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate, lower and compile random fusion candidates into a Parquet dataset",
                       description="Resumable: rerun the same command to finish an interrupted job.")
    p.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated subset of {','.join(FAMILIES)}")
    p.add_argument("--programs", type=int_at_least(1), default=20, help="programs in all, families round-robin (default 20)")
    p.add_argument("--seed", type=int, default=0,
                   help="first seed; program i gets seed + i, skipped if an earlier program has its content (default 0)")
    p.add_argument("--out", required=True, help="dataset directory (Parquet shards)")
    _executor_options(p)
    p.add_argument("--max-groups", type=int_at_least(0), default=4,
                   help="multi-op groups kept per program, besides singletons (default 4)")
    p.add_argument("--sample-configs", type=int_at_least(1), default=3,
                   help="configs per fused group: the heuristic plus N-1 sampled (default 3); singletons get 1")
    p.add_argument("--bound-words", type=int, default=DEFAULT_BOUND_WORDS,
                   help=f"sampled configs keep live words x elems/thread <= this (default {DEFAULT_BOUND_WORDS})")
    _compile_options(p)
    p.set_defaults(func=_generate)


def add_generate_groups(sub: argparse._SubParsersAction) -> None:
    from costfuse.data.group_job import DEFAULT_BOUND_REGS, DEFAULT_LOW_REGS
    from costfuse.data.group_programs import GROUP_KINDS

    p = sub.add_parser("generate-groups",
                       help="dataset v2: kernel groups of random group programs, each compiled at many launch configs",
                       description="Resumable: rerun the same command to finish an interrupted job (data/group_job.py).")
    p.add_argument("--kinds", default=",".join(GROUP_KINDS), help=f"comma-separated subset of {','.join(GROUP_KINDS)}")
    p.add_argument("--programs", type=int_at_least(1), default=20, help="programs in all, kinds round-robin (default 20)")
    p.add_argument("--seed", type=int, default=0,
                   help="first seed; program i gets seed + i, skipped if an earlier program drew the same (default 0)")
    p.add_argument("--out", required=True, help="dataset directory (Parquet shards, schema v2)")
    _executor_options(p)
    p.add_argument("--sample-configs", type=int_at_least(0), default=12,
                   help="sampled configs per group, besides the heuristic and the policies' choices; "
                        "pointwise groups get a third (default 12)")
    p.add_argument("--low-regs", type=int_at_least(1), default=DEFAULT_LOW_REGS,
                   help=f"lowest analytical register estimate a sampled config targets (default {DEFAULT_LOW_REGS})")
    p.add_argument("--bound-regs", type=int_at_least(1), default=DEFAULT_BOUND_REGS,
                   help=f"sampled configs keep the analytical register estimate <= this (default {DEFAULT_BOUND_REGS})")
    _compile_options(p)
    p.set_defaults(func=_generate_groups)


def add_generate_inductor(sub: argparse._SubParsersAction) -> None:
    from costfuse.data.inductor_job import DEFAULT_BOUND_REGS, DEFAULT_LOW_REGS, DEFAULT_SAMPLE_CONFIGS
    from costfuse.data.inductor_programs import INDUCTOR_KINDS

    p = sub.add_parser("generate-inductor",
                       help="dataset sm90_inductor_v1: Inductor's own kernels of the workload blocks and their "
                            "compositions, each compiled at its candidate configs and at sampled ones",
                       description="Resumable: rerun the same command to finish an interrupted job "
                                   "(data/inductor_job.py; no GPU: docs/inductor.md).")
    p.add_argument("--kinds", default=",".join(INDUCTOR_KINDS),
                   help=f"comma-separated subset of {','.join(INDUCTOR_KINDS)}")
    p.add_argument("--programs", type=int_at_least(1), default=20, help="programs in all, kinds round-robin (default 20)")
    p.add_argument("--seed", type=int, default=0,
                   help="first seed; program i gets seed + i, skipped if an earlier program drew the same (default 0)")
    p.add_argument("--out", required=True, help="dataset directory (Parquet shards, schema v3)")
    _executor_options(p)
    p.add_argument("--sample-configs", type=int_at_least(0), default=DEFAULT_SAMPLE_CONFIGS,
                   help="sampled configs per kernel in its own mode, besides Inductor's candidates; pointwise "
                        f"kernels get a third (default {DEFAULT_SAMPLE_CONFIGS})")
    p.add_argument("--low-regs", type=int_at_least(1), default=DEFAULT_LOW_REGS,
                   help=f"lowest analytical register estimate a sampled config targets (default {DEFAULT_LOW_REGS})")
    p.add_argument("--bound-regs", type=int_at_least(1), default=DEFAULT_BOUND_REGS,
                   help=f"sampled configs keep the analytical register estimate <= this (default {DEFAULT_BOUND_REGS})")
    _compile_options(p)
    p.set_defaults(func=_generate_inductor)


def _executor_options(p: argparse.ArgumentParser) -> None:
    """Where the job runs: the target arch, local workers or Ray (both dataset jobs)."""
    add_arch_option(p)
    p.add_argument("--jobs", type=int_at_least(1), default=2, help="parallel compile workers (local executor; default 2)")
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="ray: one task per batch, on RAY_ADDRESS's cluster or a local Ray instance")


def _compile_options(p: argparse.ArgumentParser) -> None:
    """Per-kernel compile limits and the shard size (both dataset jobs)."""
    add_compile_limits(p)
    p.add_argument("--batch-programs", type=int_at_least(1), default=4, help="programs per shard (default 4)")


def add_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="counts, spill rates and register/spill histograms of a dataset")
    p.add_argument("dir", help="dataset directory")
    p.add_argument("--plots", metavar="PLOTS_DIR", default=None,
                   help="where to write the PNG plots (default: DIR_plots beside DIR, never inside it, so that "
                        "DIR holds only the dataset)")
    p.set_defaults(func=_stats)


def _generate(args: argparse.Namespace) -> int:
    from costfuse.data.job import JobSpec

    families = _names(args.families, FAMILIES, "families")
    spec = JobSpec(families=families, programs=args.programs, seed=args.seed, arch=args.arch,
                   max_groups=args.max_groups, sample_configs=args.sample_configs, bound_words=args.bound_words,
                   timeout_s=args.timeout, mem_limit_gb=args.mem_limit_gb)
    return _run_job(spec, args)


def _generate_groups(args: argparse.Namespace) -> int:
    from costfuse.data.group_job import GroupJobSpec
    from costfuse.data.group_programs import GROUP_KINDS

    kinds = _names(args.kinds, GROUP_KINDS, "group kinds")
    spec = GroupJobSpec(kinds=kinds, programs=args.programs, seed=args.seed, arch=args.arch,
                        sample_configs=args.sample_configs, low_regs=args.low_regs, bound_regs=args.bound_regs,
                        timeout_s=args.timeout, mem_limit_gb=args.mem_limit_gb)
    return _run_job(spec, args)


def _generate_inductor(args: argparse.Namespace) -> int:
    from costfuse.data.inductor_job import InductorJobSpec
    from costfuse.data.inductor_programs import INDUCTOR_KINDS

    kinds = _names(args.kinds, INDUCTOR_KINDS, "Inductor program kinds")
    spec = InductorJobSpec(kinds=kinds, programs=args.programs, seed=args.seed, arch=args.arch,
                           sample_configs=args.sample_configs, low_regs=args.low_regs, bound_regs=args.bound_regs,
                           timeout_s=args.timeout, mem_limit_gb=args.mem_limit_gb)
    return _run_job(spec, args)


def _names(text: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    """The comma-separated names of ``text``; ``ValueError`` if one is not ``known``, or if there is none
    (an empty list would leave the job no program to draw: it used to fail dividing by zero)."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = sorted(set(names) - set(known))
    if unknown or not names:
        raise ValueError(f"{f'unknown {what} {unknown}' if unknown else f'no {what} given'}; "
                         f"choose from {', '.join(known)}")
    return names


def _run_job(spec, args: argparse.Namespace) -> int:
    """Run a v1 or v2 job spec on the chosen executor; print what was skipped, done and written."""
    from costfuse.data.job import pending_programs, run_local, run_ray
    from costfuse.data.store import shard_version, shards

    other = sorted({shard_version(p) for p in shards(args.out)} - {spec.schema_version})
    if other:   # else the job would add shards that no reader takes with the ones there
        raise ValueError(f"{args.out} holds schema v{other[0]} shards; this job writes schema v{spec.schema_version}: "
                         "choose another --out")
    repeats = spec.repeats()
    if repeats:
        print(f"skipping {len(repeats)} programs that repeat an earlier one: "
              + ", ".join(f"{pid} (= {kept})" for pid, kept in repeats.items()))
    programs, todo = len(spec.program_list()), len(pending_programs(spec, args.out))
    print(f"{programs - todo} of {programs} programs already in {args.out}; labelling {todo}")
    t0 = time.perf_counter()
    if args.executor == "ray":
        rows = run_ray(spec, args.out, args.batch_programs)
    else:
        rows = run_local(spec, args.out, args.jobs, args.batch_programs)
    print(f"wrote {rows} rows in {time.perf_counter() - t0:.0f} s to {args.out}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    from costfuse.data.stats import report

    if not Path(args.dir).is_dir():  # else it would print "no rows" and exit 0, as if the job had produced none
        raise UsageError(f"{args.dir}: no such dataset directory")
    print(report(args.dir, args.plots))
    return 0
