"""MLflow logging of a training run, and the registry entries the pass loads.

Where runs go (first that is set wins): ``--tracking-uri``, the
``MLFLOW_TRACKING_URI`` environment variable, then the embedded default
``sqlite:///<cwd>/mlflow.db``.  Artifacts go where the store is: for a SQLite
store, ``mlartifacts/`` beside the database file (``./mlartifacts`` for the
default), so a run never litters the working directory of a store kept
elsewhere; ``--artifacts DIR`` picks another folder.  Either is fixed when
the experiment is created (MLflow cannot move it later).  The team setup is
``mlflow server`` + Postgres, whose ``--artifacts-destination`` decides;
nothing here changes for it but the URI.

A run logs: params (booster, split, dataset), tags (dataset hash, feature
schema version, command), metrics (:meth:`TrainResult.summary`), the text
report, feature importances (JSON), PNG plots, the whole model bundle, and
each head as an ``xgboost``-flavour model in JSON, registered as
``costfuse-<head>`` with an alias (``models:/costfuse-spill@champion``).

Telemetry is switched off: these machines have no network, and a training
run must not wait on one.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
os.environ.setdefault("DO_NOT_TRACK", "true")

DB_FILE = "mlflow.db"
ARTIFACTS_DIR = "mlartifacts"
DEFAULT_EXPERIMENT = "costfuse"
DEFAULT_ALIAS = "champion"


def default_tracking_uri(cwd: str | os.PathLike | None = None) -> str:
    """``sqlite:///<cwd>/mlflow.db`` (absolute, so runs from subdirectories land in one place)."""
    return f"sqlite:///{Path(cwd or Path.cwd()).resolve() / DB_FILE}"


def resolve_tracking_uri(cli_value: str | None = None) -> str:
    """``--tracking-uri`` if given, else ``$MLFLOW_TRACKING_URI``, else :func:`default_tracking_uri`."""
    return cli_value or os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri()


def sqlite_path(uri: str) -> Path | None:
    """The database file of a ``sqlite:///PATH`` URI (relative to the cwd, as SQLAlchemy reads it); else None."""
    if not uri.startswith("sqlite:///"):
        return None
    path = uri[len("sqlite:///"):].split("?", 1)[0]
    return Path(path).resolve() if path and path != ":memory:" else None


def artifact_location(uri: str, artifacts: str | os.PathLike | None = None) -> str | None:
    """Where a new experiment's artifacts go: ``artifacts`` if given, else
    ``<folder of the SQLite file>/mlartifacts`` for a SQLite store, else None
    (the store's own choice: a server's ``--artifacts-destination``)."""
    if artifacts is not None:
        return Path(artifacts).resolve().as_uri()
    db = sqlite_path(uri)
    return (db.parent / ARTIFACTS_DIR).as_uri() if db is not None else None


def ensure_experiment(name: str, uri: str, artifacts: str | os.PathLike | None = None) -> str:
    """The id of experiment ``name``, created if missing with :func:`artifact_location`'s folder.

    An existing experiment keeps its folder (MLflow cannot move it); asking
    for another one with ``artifacts`` is a ``ValueError`` rather than a
    silent write elsewhere.
    """
    import mlflow

    client = mlflow.MlflowClient(uri)
    exp = client.get_experiment_by_name(name)
    location = artifact_location(uri, artifacts)
    if exp is None:
        return client.create_experiment(name, artifact_location=location)
    if artifacts is not None and exp.artifact_location.rstrip("/") != location.rstrip("/"):
        raise ValueError(f"experiment {name!r} already keeps its artifacts in {exp.artifact_location}; "
                         f"pass that as --artifacts, or a new --experiment")
    return exp.experiment_id


@contextmanager
def quiet_mlflow(enabled: bool = True):
    """Hold back everything MLflow writes to stderr (INFO logs, "Successfully registered model ...",
    warnings) for ``-q``, and replay it if the block fails, so quiet never hides why.

    The switch is ``sys.stderr`` itself: MLflow writes through several paths,
    and some of its own context managers turn its logging stream back on.
    """
    if not enabled:
        yield
        return
    held = io.StringIO()
    try:
        with redirect_stderr(held):
            yield
    except BaseException:
        sys.stderr.write(held.getvalue())
        raise


@dataclass(frozen=True)
class LoggedRun:
    """Where a run went: its id, tracking URI, and the registry URI of each head."""

    run_id: str
    tracking_uri: str
    model_uris: dict[str, str]


def log_run(result, *, tracking_uri: str, experiment: str = DEFAULT_EXPERIMENT, command: str = "",
            alias: str | None = DEFAULT_ALIAS, register: bool = True, report: str = "",
            artifacts: str | os.PathLike | None = None) -> LoggedRun:
    """Log ``result`` (a :class:`train.pipeline.TrainResult`) as one MLflow run; see the module docstring.

    With ``register``, each head becomes a new version of ``costfuse-<head>``
    and, with ``alias``, that alias is moved to it.  ``artifacts``: see
    :func:`ensure_experiment`.
    """
    import mlflow
    import mlflow.xgboost
    import xgboost as xgb

    from costfuse.train.model_io import export, metadata_from
    from costfuse.train.plots import all_plots

    mlflow.set_tracking_uri(tracking_uri)
    exp_id = ensure_experiment(experiment, tracking_uri, artifacts)
    client = mlflow.MlflowClient(tracking_uri)
    t = result.table
    schema_version = t.schema[0]
    meta = metadata_from(result, command)
    model_uris: dict[str, str] = {}
    with mlflow.start_run(experiment_id=exp_id) as run, tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        mlflow.log_params({
            **{f"xgb.{k}": v for k, v in vars(result.params).items()},
            "heads": ",".join(result.heads), "dataset": t.source, "dataset_hash": t.dataset_hash,
            "feature_schema_version": schema_version, "rows": len(t),
            "programs": len(set(t.programs)), "families": ",".join(sorted(set(t.families))),
            "test_rows": int(result.split.test.sum()),
            **{f"baseline.{b.name}": b.description[:250] for b in result.baselines},
        })
        mlflow.set_tags({"dataset_hash": t.dataset_hash, "feature_schema_version": str(schema_version),
                         "command": command[:5000]})
        mlflow.log_metrics({k: float(v) for k, v in result.summary().items() if v == v})  # NaN-free
        if report:
            mlflow.log_text(report, "report.txt")
        for name, r in result.heads.items():
            mlflow.log_dict(r.head.importances(), f"importances/{name}.json")
        if all_plots(result, tmp / "plots"):
            mlflow.log_artifacts(str(tmp / "plots"), "plots")
        export(result, tmp / "bundle", command)
        mlflow.log_artifacts(str(tmp / "bundle"), "bundle")
        for name, r in result.heads.items():
            head_meta = {**meta, "heads": {name: {**meta["heads"][name], "file": "model.json"}}}
            info = mlflow.xgboost.log_model(
                r.head.booster(), name=name, model_format="json", metadata=json.loads(json.dumps(head_meta)),
                registered_model_name=r.spec.registered_name if register else None,
                pip_requirements=[f"xgboost=={xgb.__version__}"])
            if register:
                version = info.registered_model_version
                if alias:
                    client.set_registered_model_alias(r.spec.registered_name, alias, version)
                    model_uris[name] = f"models:/{r.spec.registered_name}@{alias}"
                else:
                    model_uris[name] = f"models:/{r.spec.registered_name}/{version}"
            else:
                model_uris[name] = info.model_uri
    return LoggedRun(run.info.run_id, tracking_uri, model_uris)
