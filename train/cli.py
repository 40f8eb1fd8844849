"""``costfuse-train``: train the learned cost model's heads on a dataset directory.

    costfuse-train --data DIR [--target all|spills|regs|latency] [--tracking-uri URI]
                   [--artifacts DIR] [--experiment NAME] [--export DIR] [--no-tracking] [-q] ...

Prints the report (models side by side on one grouped split, per-family
hold-outs, the goals), logs the run to MLflow (see :mod:`train.tracking`)
and, with ``--export``, writes the model bundle the pass loads
(``--export costfuse/models/`` ships the default model).  Progress goes to
stderr, one line per fit (``-q``: none, MLflow's own lines included).  Exit
status as every CostFuse CLI (:mod:`costfuse.cli_common`): 0 on success, 1
for unusable input (missing dataset, bad options), 2 for a bug.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import time

from costfuse.cli_common import ArgumentParser, UsageError, int_at_least, run_command
from costfuse.train.dataset import load_table
from costfuse.train.fit import TARGETS, XGBParams
from costfuse.train.tracking import DEFAULT_ALIAS, DEFAULT_EXPERIMENT


def parser() -> argparse.ArgumentParser:
    ap = ArgumentParser(
        prog="costfuse-train",
        epilog="Exit status: 0 success, 1 bad input or usage, 2 internal error "
               "(COSTFUSE_DEBUG=1 prints its traceback).",
        description="Train the learned cost model's heads (spill classifier, spill bytes, registers, latency) "
                    "on a dataset directory, report them beside the baselines, log the run to MLflow.")
    ap.add_argument("--data", required=True, action="append",
                    help="dataset directory of Parquet shards (costfuse-data generate); repeat it to train the "
                         "group heads on dataset v2 plus v1's row kernels (--data data/sm90_v2 --data data/sm90_v1)")
    ap.add_argument("--target", default="all", choices=("all",) + TARGETS,
                    help="heads to train: spills = classifier + spill bytes; latency needs GPU labels (default all)")
    ap.add_argument("--arch", default="sm_90", help="rows of this arch only (default sm_90)")
    ap.add_argument("--tracking-uri", default=None,
                    help="MLflow tracking URI (default: $MLFLOW_TRACKING_URI, else sqlite:///./mlflow.db)")
    ap.add_argument("--artifacts", default=None, metavar="DIR",
                    help="artifact folder of a new experiment (default: mlartifacts/ beside a SQLite store's "
                         "file; a server's own --artifacts-destination)")
    ap.add_argument("--experiment", default=DEFAULT_EXPERIMENT,
                    help=f"MLflow experiment (default {DEFAULT_EXPERIMENT})")
    ap.add_argument("--alias", default=DEFAULT_ALIAS,
                    help=f"registry alias moved to the new versions (default {DEFAULT_ALIAS}; '' moves none)")
    ap.add_argument("--no-register", action="store_true", help="log the models but do not register them")
    ap.add_argument("--no-tracking", action="store_true", help="do not log to MLflow at all")
    ap.add_argument("--export", default=None, metavar="DIR",
                    help="also write the model bundle (JSON boosters + metadata) here")
    ap.add_argument("--no-holdout", action="store_true", help="skip the held-out-family splits")
    ap.add_argument("--test-size", type=float, default=0.25, help="fraction of programs held out (default 0.25)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the program split and the boosters")
    ap.add_argument("--n-estimators", type=int_at_least(1), default=XGBParams.n_estimators,
                    help="boosting rounds (trees) per head")
    ap.add_argument("--max-depth", type=int_at_least(1), default=XGBParams.max_depth, help="depth of each tree")
    ap.add_argument("--learning-rate", type=float, default=XGBParams.learning_rate,
                    help="shrinkage applied to each tree's contribution")
    ap.add_argument("--jobs", type=int_at_least(1), default=XGBParams.n_jobs, help="XGBoost threads")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress lines on stderr, and none of MLflow's own (the report still goes to stdout)")
    return ap


def progress(quiet: bool):
    """``log(msg)``: one stderr line with the seconds since the start, so a long run shows where it is."""
    if quiet:
        return lambda msg: None
    t0 = time.perf_counter()
    return lambda msg: print(f"[costfuse-train {time.perf_counter() - t0:6.1f} s] {msg}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    command = "costfuse-train " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    # ValueError covers DatasetError and a split that cannot be made (e.g. a single program).
    return run_command("costfuse-train", lambda: _train(args, command), bad_input=(ValueError,))


def _train(args: argparse.Namespace, command: str) -> int:
    log = progress(args.quiet)
    if not 0 < args.test_size < 1:
        raise UsageError(f"--test-size must be in (0, 1), got {args.test_size}")
    groups = _has_v2(args.data)
    log(f"reading and featurizing {', '.join(args.data)}" + (" (group features)" if groups else ""))
    if groups:
        from costfuse.train.group_dataset import load_group_table

        table = load_group_table(args.data, args.arch)
    elif len(args.data) > 1:
        raise UsageError("several --data directories train the group heads: one of them must be dataset v2 "
                         "(costfuse-data generate-groups)")
    else:
        table = load_table(args.data[0], args.arch)
    log(f"featurized {len(table)} rows")
    if args.target == "latency" and not table.has_latency:
        raise UsageError(f"{args.data} has no latency_us labels (profile on a GPU first)")
    if not args.no_tracking:  # a store or --artifacts that cannot work fails now, not after the training
        from costfuse.train.tracking import ensure_experiment, quiet_mlflow, resolve_tracking_uri

        uri = resolve_tracking_uri(args.tracking_uri)
        with quiet_mlflow(args.quiet):
            ensure_experiment(args.experiment, uri, args.artifacts)

    from costfuse.train import model_io, pipeline, report

    params = XGBParams(n_estimators=args.n_estimators, max_depth=args.max_depth, learning_rate=args.learning_rate,
                       n_jobs=args.jobs, seed=args.seed)
    if groups:
        from costfuse.cost_models.bundle import GROUP_FEATURE_SCHEMA_VERSION, GROUP_HEADS, registered_name
        from costfuse.train.group_baselines import group_baselines
        from costfuse.train.group_report import dataset_metrics, render_datasets, versions

        result = pipeline.run(table, args.target, params, args.test_size, holdout=not args.no_holdout, log=log,
                              baseline_factory=group_baselines, head_specs=GROUP_HEADS)
        result.goal_specs = tuple(g for v in versions(result) for g in pipeline.DATASET_GOALS[v])
        result.extra = dataset_metrics(result)
        # Registered apart from v1's heads (costfuse-group-spill, ...), and heads that learned Inductor's
        # kernels apart from both (costfuse-inductor-spill, ...).
        inductor = 3 in versions(result)
        for r in result.heads.values():
            r.spec = dataclasses.replace(r.spec, registered_name=registered_name(
                r.spec, GROUP_FEATURE_SCHEMA_VERSION, inductor))
        text = report.render(result) + "\n" + render_datasets(result)
    else:
        result = pipeline.run(table, args.target, params, args.test_size, holdout=not args.no_holdout, log=log)
        text = report.render(result)
    print(text)
    if args.export:
        path = model_io.export(result, args.export, command, report=text)
        print(f"\nexported model bundle to {path}")
    if not args.no_tracking:
        from costfuse.train.tracking import log_run

        log(f"logging the run to MLflow at {uri}")
        with quiet_mlflow(args.quiet):
            logged = log_run(result, tracking_uri=uri, experiment=args.experiment, command=command,
                             alias=args.alias or None, register=not args.no_register, report=text,
                             artifacts=args.artifacts)
        print(f"\nMLflow run {logged.run_id} at {logged.tracking_uri}")
        for name, model_uri in logged.model_uris.items():
            print(f"  {name}: {model_uri}")
    log("done")
    return 0


def _has_v2(directories: list[str]) -> bool:
    """Whether any of ``directories`` holds dataset v2 or v3 shards (a kernel group, or an Inductor kernel, per row)."""
    from pathlib import Path

    from costfuse.data.store import shard_version, shards

    return any(shard_version(p) in (2, 3) for d in directories if Path(d).is_dir() for p in shards(d)[:1])


if __name__ == "__main__":
    sys.exit(main())
