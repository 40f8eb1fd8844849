"""The model bundle: the one definition of what ``costfuse-train --export`` writes and the pass reads.

A bundle is a folder::

    metadata.json      format, feature schema version and columns, feature ranges seen in
                       training, target arch with the triton and ptxas versions of its labels,
                       dataset hash, metrics, the training command, and per head its
                       kind / transform / threshold / file (a classifier may add a
                       decision_threshold and a precision_threshold: cuts the learned
                       group policy may decide at, costfuse.cost_models.learned_groups)
    spill.json         one XGBoost JSON model per head (spill, spill_bytes, regs, latency)
    ...

The trainer (:mod:`costfuse.train.model_io`) writes it with these names; the
learned cost model reads it here.  Reading needs only ``json`` and NumPy: the
trees run in :mod:`costfuse.cost_models.forest`, and XGBoost is imported
lazily, only for a head whose trees cannot be flattened or, where the trees'
compiled walk cannot be built, for a large batch when XGBoost happens to be
installed (it is faster than NumPy there).  Importing
XGBoost, scikit-learn and pandas through the trainer cost the pass ~2 s of
start-up for nothing.

Every error is a :class:`BundleError` whose one-line message names the file
and what is wrong with it (a truncated head file must not reach XGBoost's
C++ parser, whose error is a backtrace).
"""

from __future__ import annotations

import functools
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from costfuse.cost_models.forest import Forest, flatten
from costfuse.cost_models.forest_native import native_walk
from costfuse.featurize.columns import FEATURE_COLUMNS, FEATURE_SCHEMA_VERSION
from costfuse.featurize.group_features import GROUP_FEATURE_COLUMNS, GROUP_FEATURE_SCHEMA_VERSION, GROUP_SCHEMAS
from costfuse.targets import arch_name

FORMAT = "costfuse-model/1"
METADATA_FILE = "metadata.json"
SMALL_BATCH = 32
"""Where the trees' compiled walk cannot be built (:mod:`costfuse.cost_models.forest_native`), batches up to
this many rows run in NumPy and larger ones go to XGBoost when it is installed (slower for a few rows, faster
for many: ``experiments/results/bench_decisions.md``, "Prediction cost per call"); the compiled walk takes
every batch."""

TRANSFORMS = {
    "none": (lambda y: y, lambda z: z),
    "log1p": (np.log1p, np.expm1),
    "log": (np.log, np.exp),
}
"""A regressor head's target transform: name -> (forward, applied to labels in training; inverse, applied to
predictions)."""


@dataclass(frozen=True)
class HeadSpec:
    """What a head predicts: its kind, target transform, and the ``--target`` group it belongs to.

    ``scale``: a feature column the (transformed) target is a share of: the booster learns
    ``target / X[scale]`` and predicts ``clip(score, 0, 1) x X[scale]``, so the prediction never exceeds that
    column (the group register head: registers as a share of the warps' register cap, which a spilling
    kernel saturates; issue #29).  ``objective``: XGBoost's objective when not its default.
    """

    name: str
    kind: str          # "classifier" | "regressor"
    transform: str     # key of TRANSFORMS
    target: str        # "spills" | "regs" | "latency"
    registered_name: str
    scale: str = ""
    objective: str = ""


HEADS: dict[str, HeadSpec] = {h.name: h for h in (
    HeadSpec("spill", "classifier", "none", "spills", "costfuse-spill"),
    HeadSpec("spill_bytes", "regressor", "log1p", "spills", "costfuse-spill-bytes"),
    HeadSpec("regs", "regressor", "none", "regs", "costfuse-regs"),
    HeadSpec("latency", "regressor", "log", "latency", "costfuse-latency"),
)}
GROUP_HEADS: dict[str, HeadSpec] = {**HEADS, "regs": HeadSpec("regs", "regressor", "none", "regs", "costfuse-regs",
                                                              scale="regs_available", objective="reg:absoluteerror")}
"""The group heads' specs: v1's, but registers are learned as a share of the register cap
(``regs_available``) with an absolute-error objective (the register goal is an MAE), and predicted as at most
the cap (issue #29: a spilling kernel reports the cap; the head must not exceed it)."""
KINDS = ("classifier", "regressor")
SCHEMAS = {FEATURE_SCHEMA_VERSION: FEATURE_COLUMNS, **GROUP_SCHEMAS}
"""Feature schemas a bundle may be trained on: v1, one fused generic at a config (the elementwise pass);
v2 and v3, a kernel group at a launch (``featurize/group_features.py``, the group pass; v3 appends the
local-memory columns to v2's, so this code still feeds a v2 bundle the columns it was trained on)."""


def schema_family(version) -> tuple[int, ...]:
    """The feature schemas one featurizer serves: every group schema for a group one, else ``version`` alone."""
    return tuple(GROUP_SCHEMAS) if version in GROUP_SCHEMAS else (version,)


def current_columns(version) -> tuple[str, ...]:
    """The columns this code's featurizer computes for a bundle of feature schema ``version``."""
    return GROUP_FEATURE_COLUMNS if version in GROUP_SCHEMAS else SCHEMAS[version]
NEEDS_XGBOOST = ("its trees need XGBoost (objective or tree type not evaluable in NumPy), which is not installed: "
                 "pip install xgboost")


class BundleError(ValueError):
    """A model bundle that cannot be used: missing or broken files, another feature schema, not CostFuse's."""


def read_json(path: Path) -> tuple[bytes, Any]:
    """``(raw bytes, parsed value)`` of a JSON file; :class:`BundleError` naming it if missing or invalid."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BundleError(f"{path}: no such file") from None
    except OSError as err:
        raise BundleError(f"{path}: cannot read it ({err.strerror or err})") from None
    try:
        return raw, json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BundleError(f"{path}: not valid JSON, truncated or corrupt? ({err})") from None


def _either(versions) -> str:
    """``v1``, ``v1 or v2``, ``v1, v2 or v3``: schema versions as a message names them."""
    names = [f"v{v}" for v in versions]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def check_schema(metadata: Any, where: str, schema: int | None = FEATURE_SCHEMA_VERSION) -> None:
    """Raise :class:`BundleError` unless ``metadata`` is a CostFuse model of feature schema ``schema``
    (``None``: any schema in :data:`SCHEMAS`; a group schema: any group schema, :func:`schema_family`)
    with exactly that schema's columns.

    A model fed columns it was not trained on predicts garbage silently, so we fail loudly instead.
    """
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        found = metadata.get("format") if isinstance(metadata, dict) else type(metadata).__name__
        raise BundleError(f"{where}: not a CostFuse model (format {found!r}, expected {FORMAT})")
    version = metadata.get("feature_schema_version")
    expected = schema_family(schema) if schema is not None else tuple(SCHEMAS)
    if version not in expected or version not in SCHEMAS:
        computes = _either(expected)
        raise BundleError(
            f"{where}: trained on feature schema v{version}, but this featurize computes {computes}; "
            "retrain it (costfuse-train --data DIR --export DIR) or use a matching CostFuse version")
    columns = SCHEMAS[version]
    if list(metadata.get("feature_columns", [])) != list(columns):
        raise BundleError(f"{where}: feature columns differ from featurize's schema v{version} columns "
                          f"(schema v{version} on both sides: bump the schema version when columns change)")
    ranges, heads = metadata.get("feature_ranges"), metadata.get("heads")
    if not isinstance(ranges, dict) or not set(columns) <= set(ranges):
        raise BundleError(f"{where}: 'feature_ranges' is missing or lacks some feature columns")
    if not isinstance(heads, dict):
        raise BundleError(f"{where}: 'heads' is missing")
    for name, head in heads.items():
        if not isinstance(head, dict) or head.get("kind") not in KINDS or head.get("transform") not in TRANSFORMS \
                or not isinstance(head.get("file"), str) or not isinstance(head.get("threshold"), (int, float)):
            raise BundleError(f"{where}: head {name!r} needs a kind ({', '.join(KINDS)}), a transform "
                              f"({', '.join(TRANSFORMS)}), a threshold and a file")
        for cut in ("decision_threshold", "precision_threshold"):
            if not isinstance(head.get(cut, 0.0), (int, float)):
                raise BundleError(f"{where}: head {name!r} has a {cut} that is not a number")
        if head.get("scale", "") and head["scale"] not in columns:
            raise BundleError(f"{where}: head {name!r} is scaled by {head['scale']!r}, not a feature column")


def arch_problem(metadata: dict, arch: str) -> str | None:
    """Why a model trained on ``metadata``'s labels does not fit target ``arch``, or ``None`` if it does.

    Registers and spills are per-arch facts (another arch has another register file and ptxas).
    """
    trained = metadata.get("arch")
    if not trained:
        return f"it does not record the arch of its labels (re-export it with costfuse-train), target {arch}"
    if arch_name(trained) != arch_name(arch):   # sm_90a's labels are sm_90's
        versions = f"triton {metadata.get('triton_version') or '?'}, ptxas {metadata.get('ptxas_version') or '?'}"
        return f"trained on {trained} labels ({versions}), but the target is {arch}"
    return None


def require_arch(metadata: dict, arch: str, allow_mismatch: bool, who: str) -> None:
    """Refuse (``ValueError`` naming ``who``) a model whose labels are of another arch than ``arch``,
    unless ``allow_mismatch``."""
    problem = arch_problem(metadata, arch)
    if problem and not allow_mismatch:
        raise ValueError(f"{who}: {problem}; pass --allow-arch-mismatch to use it anyway")


class LoadsOnFirstUse:
    """A learned policy: constructing it does no I/O (its fields are checked, nothing is read); its model
    loads on first use, or at once through :meth:`load`, which the CLI calls so a bad model fails
    before the pass runs.  Subclasses read their model in :meth:`_ensure_loaded`."""

    @classmethod
    def load(cls, **options):
        """The policy with its model loaded now (a bad model fails here, with one line)."""
        policy = cls(**options)
        policy._ensure_loaded()
        return policy

    def _ensure_loaded(self):
        raise NotImplementedError


def check_spill_budget(budget: float) -> None:
    if budget < 0:
        raise ValueError(f"--spill-budget must be >= 0 bytes, got {budget}")


@dataclass
class Head:
    """One head of a bundle: its metadata entry, its trees in NumPy, and its XGBoost JSON for the fallback."""

    name: str
    spec: dict                     # metadata["heads"][name]: kind, transform, threshold, file
    where: str                     # the head's file, for messages
    raw: bytes = field(repr=False)
    forest: Forest | None = field(repr=False)
    _booster: Any = field(default=None, repr=False)
    take: np.ndarray | None = field(default=None, repr=False)   # its columns among this code's, if they differ
    width: int = 0                 # this code's columns (rows of that width are mapped through ``take``)
    scale: int | None = None       # index of the ``scale`` column among the head's own columns

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predictions for rows ``X`` (shape ``(n, columns)``: this code's featurizer's columns, or the
        bundle's own), shape ``(n,)``, in natural units.

        A classifier gives P(positive); compare it with ``spec["threshold"]``.
        """
        X = np.asarray(X, float)
        if self.take is not None and X.ndim == 2 and X.shape[1] == self.width:
            X = X[:, self.take]
        if self.forest is not None and (len(X) <= SMALL_BATCH or native_walk() is not None
                                        or not _xgboost_installed()):
            out = self.forest.predict(X)
        else:
            out = self.booster().inplace_predict(X)
        out = np.asarray(out, float).reshape(len(X))
        if self.spec["kind"] == "classifier":
            return out
        if self.scale is not None:
            out = np.clip(out, 0.0, 1.0) * X[:, self.scale]
        return TRANSFORMS[self.spec["transform"]][1](out)

    def booster(self):
        """This head as an ``xgboost.Booster`` on one thread (XGBoost is imported here, on first use)."""
        if self._booster is None:
            try:
                import xgboost as xgb
            except ImportError:
                raise BundleError(f"{self.where}: {NEEDS_XGBOOST}") from None
            booster = xgb.Booster()
            booster.load_model(bytearray(self.raw))
            booster.set_param({"nthread": 1})
            self._booster = booster
        return self._booster


@dataclass
class Bundle:
    """A loaded bundle: its metadata (``heads`` limited to the loaded ones) and its heads by name."""

    metadata: dict
    heads: dict[str, Head]


def load_bundle(directory: str | Path, heads: tuple[str, ...] | None = None, metadata: dict | None = None,
                where: str = "", schema: int | None = FEATURE_SCHEMA_VERSION) -> Bundle:
    """Read the bundle in ``directory``: its ``metadata.json`` (or ``metadata``, as given) and its head files.

    ``heads``: the names to load (default all; names the bundle lacks are skipped).  ``where`` names the
    model in messages (default: the metadata file).  Raises :class:`BundleError`.
    """
    directory = Path(directory)
    if metadata is None:
        if not directory.is_dir():
            raise BundleError(f"{directory}: no such model folder")
        where = where or str(directory / METADATA_FILE)
        metadata = read_json(directory / METADATA_FILE)[1]
    where = where or str(directory)
    check_schema(metadata, where, schema)
    columns, current = list(metadata["feature_columns"]), current_columns(metadata["feature_schema_version"])
    take = None if columns == list(current) else np.array([current.index(c) for c in columns], np.intp)
    loaded = {}
    for name, spec in metadata["heads"].items():
        if heads is not None and name not in heads:
            continue
        path = directory / spec["file"]
        raw, model = read_json(path)
        try:
            forest = flatten(model)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise BundleError(f"{path}: not an XGBoost JSON model ({type(err).__name__}: {err})") from None
        if forest is None and not _xgboost_installed():  # say so now, not at the first large prediction
            raise BundleError(f"{path}: {NEEDS_XGBOOST}")
        scale = columns.index(spec["scale"]) if spec.get("scale") else None
        loaded[name] = Head(name, spec, str(path), raw, forest, take=take, width=len(current), scale=scale)
    return Bundle({**metadata, "heads": {n: metadata["heads"][n] for n in loaded}}, loaded)


GROUP_REGISTRY_PREFIX = "costfuse-group-"
"""Group heads are registered apart from v1's: ``costfuse-group-spill``, ... (``costfuse-train`` on v2 data)."""
INDUCTOR_REGISTRY_PREFIX = "costfuse-inductor-"
"""Group heads trained on Inductor's kernels (dataset v3, the handler's model) apart from both:
``costfuse-inductor-spill``, ..."""
SCHEMA_ROLE = {
    FEATURE_SCHEMA_VERSION: ("v1's edge heads", "--model", "--fusion elementwise"),
    **{v: ("kernel-group heads", "--group-model", "--fusion groups") for v in GROUP_SCHEMAS},
}
"""Per feature schema: what its bundle holds, the option that takes it, and the fusion mode that uses it."""


def registered_name(spec: HeadSpec, schema: int = FEATURE_SCHEMA_VERSION, inductor: bool = False) -> str:
    """The registry name of head ``spec`` in a bundle of feature schema ``schema``; ``inductor``: group heads
    trained on Inductor's kernels (the handler's, ``costfuse-inductor-spill``, ...)."""
    if schema in GROUP_SCHEMAS:
        prefix = INDUCTOR_REGISTRY_PREFIX if inductor else GROUP_REGISTRY_PREFIX
        return spec.registered_name.replace("costfuse-", prefix, 1)
    return spec.registered_name


def load_model(source: str, heads: tuple[str, ...], schema: int, tracking_uri: str = "") -> Bundle:
    """The bundle a user named with :data:`SCHEMA_ROLE`'s option for ``schema``: a folder, or an MLflow URI
    (``models:/NAME@ALIAS`` brings the heads registered at the same alias).

    A file is refused rather than read as its folder, and a bundle of the other feature schema is named
    for what it is (the group heads given to ``--model`` are not "a feature-schema mismatch to retrain",
    they belong to ``--group-model``).  Raises :class:`BundleError` with one line.
    """
    option = SCHEMA_ROLE[schema][1]
    if is_uri(source):
        from costfuse.cost_models.registry import load_registered

        bundle = load_registered(source, tracking_uri, heads)
    elif Path(source).is_file():
        raise BundleError(f"{source}: a file; {option} takes a model folder (the one holding {METADATA_FILE}, e.g. "
                          f"{option} {Path(source).parent}) or models:/NAME@ALIAS")
    else:
        bundle = load_bundle(source, heads, schema=None)
    found = bundle.metadata.get("feature_schema_version")   # a known one: load_bundle checked it
    if found in SCHEMA_ROLE and found not in schema_family(schema):
        what, its_option, its_fusion = SCHEMA_ROLE[found]
        raise BundleError(f"{source}: holds {what} (feature schema v{found}), but {option} takes "
                          f"{SCHEMA_ROLE[schema][0]} ({_either(schema_family(schema))}); "
                          f"pass it as {its_option}, with {its_fusion}")
    return bundle


def is_uri(text: str) -> bool:
    """Whether ``--model`` names an MLflow URI (``models:/NAME@ALIAS``, ``runs:/...``, ``scheme://...``)."""
    return "://" in text or text.startswith(("models:/", "runs:/"))


@functools.cache
def _xgboost_installed() -> bool:
    """Whether XGBoost can be imported, without importing it."""
    return importlib.util.find_spec("xgboost") is not None
