"""``costfuse-train``: train the learned cost model's heads on a dataset directory.

    costfuse-train --data DIR [--target all|spills|regs|latency] [--tracking-uri URI]
                   [--experiment NAME] [--export DIR] [--no-tracking] ...

Prints the report (models side by side on one grouped split, per-family
hold-outs, the goals), logs the run to MLflow (see :mod:`train.tracking`)
and, with ``--export``, writes the model bundle the pass loads
(``--export costfuse/models/`` ships the default model).  Exit status: 0 on
success, 2 for unusable input (missing dataset, bad options).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from costfuse.train.dataset import DatasetError, load_table
from costfuse.train.fit import TARGETS, XGBParams
from costfuse.train.tracking import DEFAULT_ALIAS, DEFAULT_EXPERIMENT


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="costfuse-train",
        description="Train the learned cost model's heads (spill classifier, spill bytes, registers, latency) "
                    "on a dataset directory, report them beside the baselines, log the run to MLflow.")
    ap.add_argument("--data", required=True, help="dataset directory of Parquet shards (costfuse-data generate)")
    ap.add_argument("--target", default="all", choices=("all",) + TARGETS,
                    help="heads to train: spills = classifier + spill bytes; latency needs GPU labels (default all)")
    ap.add_argument("--arch", default="sm_90", help="rows of this arch only (default sm_90)")
    ap.add_argument("--tracking-uri", default=None,
                    help="MLflow tracking URI (default: $MLFLOW_TRACKING_URI, else sqlite:///./mlflow.db)")
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
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-estimators", type=int, default=XGBParams.n_estimators)
    ap.add_argument("--max-depth", type=int, default=XGBParams.max_depth)
    ap.add_argument("--learning-rate", type=float, default=XGBParams.learning_rate)
    ap.add_argument("--jobs", type=int, default=XGBParams.n_jobs, help="XGBoost threads (default 2)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    command = "costfuse-train " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    log = (lambda msg: None) if args.quiet else (lambda msg: print(f"[costfuse-train] {msg}", file=sys.stderr))
    if not 0 < args.test_size < 1:
        print("costfuse-train: --test-size must be in (0, 1)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        table = load_table(args.data, args.arch)
    except DatasetError as err:
        print(f"costfuse-train: {err}", file=sys.stderr)
        return 2
    log(f"featurized {len(table)} rows in {time.perf_counter() - t0:.1f} s")
    if args.target == "latency" and not table.has_latency:
        print(f"costfuse-train: {args.data} has no latency_us labels (profile on a GPU first)", file=sys.stderr)
        return 2

    from costfuse.train import model_io, pipeline, report

    params = XGBParams(n_estimators=args.n_estimators, max_depth=args.max_depth, learning_rate=args.learning_rate,
                       n_jobs=args.jobs, seed=args.seed)
    try:
        result = pipeline.run(table, args.target, params, args.test_size, holdout=not args.no_holdout, log=log)
    except ValueError as err:  # e.g. a single program cannot be split
        print(f"costfuse-train: {err}", file=sys.stderr)
        return 2
    text = report.render(result)
    print(text)
    if args.export:
        path = model_io.export(result, args.export, command)
        print(f"\nexported model bundle to {path}")
    if not args.no_tracking:
        from costfuse.train.tracking import log_run, resolve_tracking_uri

        logged = log_run(result, tracking_uri=resolve_tracking_uri(args.tracking_uri), experiment=args.experiment,
                         command=command, alias=args.alias or None, register=not args.no_register, report=text)
        print(f"\nMLflow run {logged.run_id} at {logged.tracking_uri}")
        for name, uri in logged.model_uris.items():
            print(f"  {name}: {uri}")
    log(f"done in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
