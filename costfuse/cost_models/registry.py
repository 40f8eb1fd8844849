"""``--model`` as an MLflow URI: ``models:/NAME@ALIAS`` (the registry), ``runs:/RUN/PATH``, ``scheme://...``.

The registry holds each head as its own ``xgboost``-flavour model
(``costfuse-train`` registers ``costfuse-spill``, ``costfuse-spill-bytes``, ...),
with the bundle's metadata, limited to that head, in its ``MLmodel`` file;
:func:`load_registered` gathers the heads registered at one alias.

Nothing is written into the working folder: a registry URI needs a tracking
store, from ``--tracking-uri`` or ``MLFLOW_TRACKING_URI``, and with neither
we fail at once (MLflow's own default would create ``./mlflow.db``, spend
~16 s migrating it, then find no model).  A local store (SQLite file,
folder) must already exist for the same reason.  MLflow is imported only
here, only for such URIs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from urllib.parse import urlparse

from costfuse.cost_models.bundle import (
    GROUP_FEATURE_SCHEMA_VERSION, GROUP_REGISTRY_PREFIX, HEADS, INDUCTOR_REGISTRY_PREFIX, METADATA_FILE, Bundle,
    BundleError, load_bundle,
    registered_name,
)

NEEDS_TRACKING = ("models:/", "runs:/")


class NotRegistered(BundleError):
    """The registry has no model of that name, or none at that alias."""


def tracking_uri_for(uri: str, tracking_uri: str = "") -> str:
    """The tracking store to read ``uri`` from: ``tracking_uri``, else ``$MLFLOW_TRACKING_URI``.

    Raises :class:`BundleError` (one line, saying what to pass) when ``uri`` needs a store and none is
    given, or when a local store does not exist.  ``""`` for URIs that need no store.
    """
    resolved = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI", "")
    if not resolved:
        if uri.startswith(NEEDS_TRACKING):
            raise BundleError(f"{uri}: a registry URI needs an MLflow tracking store; pass --tracking-uri URI "
                              "(e.g. sqlite:////abs/path/mlflow.db or http://HOST:5000) or set MLFLOW_TRACKING_URI")
        return ""
    path = _local_store(resolved)
    if path is not None and not path.exists():
        raise BundleError(f"{uri}: tracking store {path} does not exist (from {resolved}); "
                          "pass the --tracking-uri costfuse-train logged to")
    return resolved


def _local_store(uri: str) -> Path | None:
    """The file or folder of a local tracking URI (``sqlite:///rel.db``, ``sqlite:////abs.db``, ``file:...``,
    a bare path), ``None`` for a server or an in-memory store."""
    if uri.startswith("sqlite:"):
        rest = uri[len("sqlite:"):].split("?", 1)[0]
        name = rest[3:] if rest.startswith("///") else ""
        return Path(name) if name and name != ":memory:" else None  # ':memory:': SQLite's in-memory store
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(parsed.path)
    if uri in ("databricks", "databricks-uc"):  # MLflow's bare names for a Databricks workspace: a server
        return None
    return Path(uri) if not parsed.scheme or len(parsed.scheme) == 1 else None  # len 1: a Windows drive


def load_uri(uri: str, tracking_uri: str = "", heads: tuple[str, ...] | None = None) -> Bundle:
    """The bundle (or single registered head) at MLflow URI ``uri``; raises :class:`BundleError`."""
    resolved = tracking_uri_for(uri, tracking_uri)
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")  # no network here; never wait on one
    os.environ.setdefault("DO_NOT_TRACK", "true")
    import mlflow
    from mlflow.exceptions import MlflowException

    if resolved:
        mlflow.set_tracking_uri(resolved)
    with tempfile.TemporaryDirectory(prefix="costfuse-model-") as tmp:
        try:
            local = Path(mlflow.artifacts.download_artifacts(artifact_uri=uri, dst_path=tmp))
        except MlflowException as err:
            cls = NotRegistered if _is_not_registered(err) else BundleError
            raise cls(f"{uri}: {type(err).__name__}: {str(err).strip().splitlines()[0]}") from None
        except OSError as err:
            raise BundleError(f"{uri}: {err}") from None
        if (local / METADATA_FILE).is_file():   # either feature schema: the caller holds it to the one it needs
            return load_bundle(local, heads, where=uri, schema=None)
        if not (local / "MLmodel").is_file():
            raise BundleError(f"{uri}: neither {METADATA_FILE} nor an MLflow MLmodel file in it")
        from mlflow.models import Model

        return load_bundle(local, heads, metadata=Model.load(str(local / "MLmodel")).metadata or {}, where=uri,
                           schema=None)


def load_registered(uri: str, tracking_uri: str = "", heads: tuple[str, ...] | None = None) -> Bundle:
    """:func:`load_uri`, plus, for ``models:/NAME@ALIAS``, the other ``heads`` registered at the same alias
    (a group head's siblings by their group names, ``costfuse-group-...``; the Inductor handler's by
    theirs, ``costfuse-inductor-...``).

    A head not registered at that alias is simply absent; one trained on another dataset (another
    dataset hash) is left out, since heads of different runs need not agree.  Any other failure is raised.
    """
    bundle = load_uri(uri, tracking_uri, heads)
    if not (uri.startswith("models:/") and "@" in uri):
        return bundle
    name, alias = uri[len("models:/"):].rsplit("@", 1)
    inductor = name.startswith(INDUCTOR_REGISTRY_PREFIX)
    schema = GROUP_FEATURE_SCHEMA_VERSION if inductor or name.startswith(GROUP_REGISTRY_PREFIX) else None
    meta, loaded = dict(bundle.metadata), dict(bundle.heads)
    for spec in HEADS.values():
        if spec.name in loaded or (heads is not None and spec.name not in heads):
            continue
        try:
            more = load_uri(f"models:/{registered_name(spec, schema, inductor)}@{alias}", tracking_uri, heads)
        except NotRegistered:
            continue
        if more.metadata.get("dataset_hash") == meta.get("dataset_hash"):
            loaded.update(more.heads)
    meta["heads"] = {name: head.spec for name, head in loaded.items()}
    return Bundle(meta, loaded)


def _is_not_registered(err) -> bool:
    """MLflow's answer for an unknown model name, or an unknown alias of a known one."""
    code, text = getattr(err, "error_code", ""), str(err)
    return code == "RESOURCE_DOES_NOT_EXIST" or (code == "INVALID_PARAMETER_VALUE" and "alias" in text
                                                 and "not found" in text)
