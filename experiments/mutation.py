"""Mutation testing of the core (issue #15): mutmut 3 over each module, against that module's own fast tests.

    .venv/bin/pip install -e .[dev]                      # mutmut, pinned
    .venv/bin/python experiments/mutation.py [STAGE ...] [--rerun-survivors] [--report-only] [--children N]

A periodic check, not part of CI.  Every job runs under ``nice -n 19`` with one
test process at a time (``--max-children 1``), so it can share a small machine;
``--children N`` runs N at once where the machine is free (the lowering stages
take hours with one).
Rerunning the same command resumes: mutmut keeps each mutant's verdict in the
stage's ``mutants/*.meta`` and only retests functions whose code changed, and
the report (``experiments/results/mutation.md``) is rewritten after every stage.
After adding tests, ``--rerun-survivors`` retests the survivors only.

Why a driver and not a ``[tool.mutmut]`` section in our pyproject: mutmut 3
names a mutant after its file's path (``data/store.py`` -> ``data.store``) and
switches it on only inside functions whose ``__module__`` is that name, but our
package-dir mapping installs ``data/`` as ``costfuse.data``; run from the repo
root, the tests would import the editable install and no ``data/`` mutant would
ever be active.  So each stage runs in a staging tree, ``build/mutation/NAME/``,
laid out as the package is installed (``costfuse/data/`` is ``data/``, and so on),
whose pyproject carries the ``[tool.mutmut]`` section for that stage: the files
to mutate and only their fast test files (``-m "not slow and not gpu"``).
mutmut's own forced-fail check (every mutated function raises; some test must
fail) then proves that the tests import the mutated copy.

Verdicts outlive the machine: ``build/`` is not committed, so after every stage
the driver copies each file's verdicts (mutmut's exit codes, its function
hashes, and the mutated lines of what was not killed) into the committed
``experiments/results/mutation_verdicts.json``.  A new checkout seeds mutmut's
``.meta`` files from it before a stage runs; mutmut then keeps the verdict of
every mutant whose function is unchanged and retests only the rest, and the
report reads it for stages not run on this machine.  A report row with neither
(written before the verdicts were kept) is carried over from the previous
report, and the report says which rows were.

Survivors judged equivalent live in ``experiments/mutation_equivalent.toml``,
each with the mutated line and a reason; an entry whose line no longer matches
its mutant (the function changed) is reported stale and counts as a survivor.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

from costfuse.atomic import write_json, write_text

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "build" / "mutation"
REPORT = REPO / "experiments" / "results" / "mutation.md"
VERDICTS = REPO / "experiments" / "results" / "mutation_verdicts.json"
EQUIVALENT = REPO / "experiments" / "mutation_equivalent.toml"
PYTEST_ARGS = ["-p", "no:cacheprovider", "-m", "not slow and not gpu"]
# Installed layout: the repo folder on the left is the package folder on the right.
PACKAGE_DIRS = {"costfuse": "costfuse", "data": "costfuse/data", "featurize": "costfuse/featurize",
                "train": "costfuse/train"}
# What the tests read besides the package (examples, the shipped dataset, experiments.*).
ASSETS = ["tests", "examples", "experiments", "docs", "README.md", "CONTRIBUTING.md", "data"]


@dataclass(frozen=True)
class Stage:
    """One mutmut run: the repo files it mutates and the fast test files that judge them."""

    name: str
    files: tuple[str, ...]
    tests: tuple[str, ...]


PASS_TESTS = ("tests/costfuse/test_graph.py", "tests/costfuse/test_rewrite.py", "tests/costfuse/test_fusion_pass.py",
              "tests/costfuse/test_pass_refusals.py", "tests/costfuse/test_pass_golden.py",
              "tests/costfuse/cost_models/test_cost_models.py")
# Not tests/costfuse/test_groups_pass.py: it checks numerics through IREE (~100 s), too slow to run per mutant.
GROUP_TESTS = ("tests/costfuse/test_kernel_shape.py", "tests/costfuse/cost_models/test_peer_models.py",
               "tests/costfuse/test_gathers.py", "tests/costfuse/test_outline_structure.py",
               "tests/costfuse/cost_models/test_group_time.py", "tests/costfuse/test_groups.py")

# The lowering's stages (data/lowering/): the files each mutates, and the tests written for its survivors,
# which run after the lowering tests every stage shares (LOWER_TESTS).
LOWER_TESTS = ("tests/data/test_lower.py", "tests/data/test_lower_gather.py")
LOWER_STAGES = (
    ("lower_reduction", ("data/lowering/reduction.py",), ("tests/data/test_lower_reduction.py",)),
    ("lower_body", ("data/lowering/body.py",), ("tests/data/test_lower_body.py",)),
    ("lower_walk", ("data/lowering/walk.py",),
     ("tests/data/test_lowering_walk.py", "tests/data/test_lower_kernel.py", "tests/data/test_lower_reduction.py")),
    ("lower_reference", ("data/lowering/reference_functions.py",), ("tests/data/test_lower_kernel.py",)),
    ("lower", ("data/lowering/generic.py", "data/lowering/generic_info.py", "data/lowering/index_space.py",
               "data/lowering/kernel_args.py", "data/lowering/source.py", "data/lowering/report.py",
               "data/lowering/unsupported.py"), ()),
)

# In priority order: the small core modules first, then the larger ones, fastest tests first.
STAGES = (
    Stage("graph", ("costfuse/graph.py",), PASS_TESTS),
    Stage("rewrite", ("costfuse/rewrite.py",), PASS_TESTS),
    Stage("fusion_pass", ("costfuse/fusion_pass.py",), PASS_TESTS),
    Stage("cost_models_core", ("costfuse/cost_models/always.py", "costfuse/cost_models/threshold.py"), PASS_TESTS),
    # The policy seams hold the group interface too (GroupEstimate, WeighedConfig): the v1 pass tests alone
    # left 138 of its 286 mutants untested (the run of 2026-12-06).
    Stage("policy", ("costfuse/policy.py",), PASS_TESTS + GROUP_TESTS + (
        "tests/costfuse/test_explain_configs.py", "tests/costfuse/cost_models/test_analytical.py",
        "tests/costfuse/test_policy.py")),
    Stage("analytical", ("costfuse/cost_models/analytical.py",), ("tests/costfuse/cost_models/test_analytical.py",)),
    Stage("estimates", ("costfuse/estimates.py",),
          ("tests/costfuse/test_estimates.py", "tests/featurize/test_liveness.py",
           "tests/featurize/test_group_features.py", "tests/costfuse/cost_models/test_group_time.py")),
    # launch.py took the config spaces in with issue #28: their sampler's tests run against it too.
    Stage("launch", ("costfuse/launch.py",),
          GROUP_TESTS + ("tests/data/test_config_sampling.py", "tests/costfuse/test_launch.py")),
    Stage("rowspace", ("costfuse/rowspace.py",), GROUP_TESTS),
    # The kernel shape counts the online softmax's and Welford's looped passes and flops: their tests too.
    Stage("kernel", ("costfuse/kernel.py",),
          GROUP_TESTS + ("tests/costfuse/test_online_softmax.py", "tests/costfuse/test_welford.py")),
    Stage("online_softmax", ("costfuse/online_softmax.py",), ("tests/costfuse/test_online_softmax.py",) + GROUP_TESTS),
    # The recognizer alone: test_welford.py holds every rule of it (the lowering's numerics are not its tests).
    Stage("welford", ("costfuse/welford.py",), ("tests/costfuse/test_welford.py",)),
    # Inductor's policy reads the formed kernel's shape in final_config (its autotuning): its tests see
    # what formation hands over there.
    Stage("groups", ("costfuse/groups.py",),
          GROUP_TESTS + ("tests/costfuse/cost_models/test_peer_xla_native.py",
                         "tests/costfuse/cost_models/test_peer_inductor_autotune.py")),
    Stage("unit_reshapes", ("costfuse/unit_reshapes.py",), GROUP_TESTS),
    Stage("store", ("data/store.py", "costfuse/atomic.py"), ("tests/data/test_store.py", "tests/costfuse/test_atomic.py")),
    Stage("featurize", ("featurize/features.py", "featurize/liveness.py"),
          ("tests/featurize/test_features.py", "tests/featurize/test_liveness.py")),
    Stage("outline", ("costfuse/outline.py",), GROUP_TESTS),
    Stage("cost_models_peers", ("costfuse/cost_models/inductor.py", "costfuse/cost_models/xla.py",
                                "costfuse/cost_models/group_time.py"),
          GROUP_TESTS + ("tests/costfuse/cost_models/test_peer_inductor_autotune.py",
                         "tests/costfuse/cost_models/test_peer_xla_native.py", "tests/costfuse/test_explain_configs.py",
                         "tests/costfuse/cost_models/test_peer_inductor_source.py",
                         "tests/experiments/test_peer_fidelity.py")),
    Stage("forest", ("costfuse/cost_models/forest.py", "costfuse/cost_models/forest_native.py"),
          ("tests/costfuse/cost_models/test_forest_native.py", "tests/costfuse/cost_models/test_learned.py",
           "tests/costfuse/cost_models/test_bundle.py")),
    Stage("cost_models_learned", ("costfuse/cost_models/learned.py", "costfuse/cost_models/bundle.py",
                                  "costfuse/cost_models/registry.py"),
          ("tests/costfuse/cost_models/test_learned.py", "tests/costfuse/cost_models/test_bundle.py",
           "tests/costfuse/cost_models/test_learned_groups.py", "tests/costfuse/test_model_options.py")),
    # v3: the learned group policy's pick (the Inductor handler decides through it), the group features with
    # the Inductor kernel they describe, and the handler's decisions.
    Stage("learned_groups", ("costfuse/cost_models/learned_groups.py",),
          ("tests/costfuse/cost_models/test_learned_pick_walk.py", "tests/costfuse/cost_models/test_learned_groups.py",
           "tests/costfuse/test_explain_configs.py", "tests/costfuse/test_verify_picks.py")),
    Stage("group_features", ("featurize/group_features.py", "featurize/inductor_kernel.py"),
          ("tests/featurize/test_group_features.py", "tests/featurize/test_inductor_kernel.py",
           "tests/costfuse/cost_models/test_learned_groups.py")),
    Stage("inductor_decide", ("costfuse/inductor/decide.py", "costfuse/inductor/configs.py",
                              "costfuse/inductor/prune.py"),
          ("tests/costfuse/inductor/test_prune_configs.py", "tests/costfuse/inductor/test_decide.py",
           "tests/costfuse/inductor/test_inductor_handler.py",
           "tests/featurize/test_inductor_kernel.py")),
    Stage("inductor_handler", ("costfuse/inductor/describe.py", "costfuse/inductor/choices.py"),
          ("tests/costfuse/inductor/test_decide.py", "tests/costfuse/inductor/test_inductor_handler.py",
           "tests/featurize/test_inductor_kernel.py")),
    # install() and the guards for torch 2.11 (experiments/torch_compat.sh runs them on 2.11 itself).
    Stage("inductor_install", ("costfuse/inductor/compat.py", "costfuse/inductor/installation.py"),
          ("tests/costfuse/inductor/test_inductor_handler.py",)),
    Stage("lower_kernel", ("data/lowering/kernel.py", "data/lowering/kernel_function.py"),
          ("tests/data/test_lower_kernel.py", "tests/data/test_lower_gather.py")),
    # A few modules per stage: a surviving lowering mutant reruns every IREE comparison (~100 s), so these
    # stages run for hours; split, each stage's verdicts land in the report as soon as it ends.
    *(Stage(name, files, LOWER_TESTS + tests) for name, files, tests in LOWER_STAGES),
    Stage("compile", ("data/compile.py", "data/ptxas_output.py"),
          ("tests/data/test_compile.py", "tests/data/test_cli_compile.py")),
)


def installed_path(repo_path: str) -> str:
    """``data/store.py`` -> ``costfuse/data/store.py``: where the file sits in the installed package."""
    top, _, rest = repo_path.partition("/")
    if top not in PACKAGE_DIRS:
        raise ValueError(f"{repo_path}: not under one of the package folders {sorted(PACKAGE_DIRS)}")
    return f"{PACKAGE_DIRS[top]}/{rest}"


def _sync_file(src: Path, dst: Path) -> None:
    """Copy only when the bytes differ, keeping the mtime: mutmut regenerates a file's mutants by mtime."""
    if dst.exists() and dst.read_bytes() == src.read_bytes():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)


def _sync_tree(src: Path, dst: Path, keep) -> None:
    for path in sorted(src.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and keep(path):
            _sync_file(path, dst / path.relative_to(src))


def build_stage(stage: Stage, work: Path = WORK, repo: Path = REPO) -> Path:
    """The staging tree for ``stage``: the package as installed, the test assets, a pyproject for mutmut."""
    root = work / stage.name
    for top, target in PACKAGE_DIRS.items():  # the package, Python files and the shipped model
        _sync_tree(repo / top, root / target, lambda p, top=top: top == "costfuse" or p.suffix == ".py")
        if (root / "mutants").is_dir():  # mutmut copies the package's other files (the model) only once
            _sync_tree(repo / top, root / "mutants" / target, lambda p, top=top: top == "costfuse" and p.suffix != ".py")
    for asset in ASSETS:
        src = repo / asset
        if src.is_file():
            _sync_file(src, root / asset)
        elif src.is_dir():  # data/: only what is not a module (the shipped dataset, its card)
            _sync_tree(src, root / asset, lambda p, a=asset: a != "data" or p.suffix != ".py")
    (root / "pyproject.toml").write_text(stage_pyproject(stage, (repo / "pyproject.toml").read_text()))
    return root


def sources_changed(stage: Stage, work: Path = WORK, repo: Path = REPO) -> bool:
    """Whether a file the stage mutates differs from (or is missing in) its staged copy."""
    for f in stage.files:
        staged = work / stage.name / installed_path(f)
        if not staged.exists() or staged.read_bytes() != (repo / f).read_bytes():
            return True
    return False


def tests_changed(stage: Stage, work: Path = WORK, repo: Path = REPO) -> bool:
    """Whether a test file of the stage differs from the copy mutmut last mapped (``mutants/tests``)."""
    for t in stage.tests:
        mapped = work / stage.name / "mutants" / t
        if mapped.exists() and mapped.read_bytes() != (repo / t).read_bytes():
            return True
    return False


def all_judged(stage: Stage, work: Path = WORK) -> bool:
    """Every file of the stage has verdicts and none is still 'not checked'."""
    results = collect(stage, work, lines=False)
    return len(results) == len(stage.files) and all(
        st != "not checked" for r in results for st in r.status.values())


def _toml_list(items) -> str:
    return "[" + ", ".join(json.dumps(str(x)) for x in items) + "]"


def stage_pyproject(stage: Stage, repo_pyproject: str) -> str:
    """The repo's pyproject (pytest's markers and options) plus this stage's ``[tool.mutmut]``."""
    if "[tool.mutmut]" in repo_pyproject:
        raise ValueError("pyproject.toml: has a [tool.mutmut] section; experiments/mutation.py writes its own per stage")
    return repo_pyproject.rstrip() + "\n\n" + "\n".join([
        "[tool.mutmut]",
        'source_paths = ["costfuse"]',
        f"only_mutate = {_toml_list(installed_path(f) for f in stage.files)}",
        f"also_copy = {_toml_list(a for a in ASSETS if a != 'tests')}",
        f"pytest_add_cli_args = {_toml_list(PYTEST_ARGS)}",
        f"pytest_add_cli_args_test_selection = {_toml_list(stage.tests)}",
        'process_isolation = "forkserver"  # torch and the MLIR bindings are not fork-safe after use',
        "use_git_change_detection = false  # the stage is not a git checkout",
    ]) + "\n"


def _selection(pyproject: str) -> list[str]:
    """The test files a stage's pyproject selects (empty for one written before the selection existed)."""
    return tomllib.loads(pyproject).get("tool", {}).get("mutmut", {}).get("pytest_add_cli_args_test_selection", [])


def tests_only_added(old_config: str | None, new_config: str) -> bool:
    """Whether a stage's new pyproject selects the old one's test files and more: its killed mutants stay
    killed, and its survivors and untested mutants are tried again (the run of 2026-12-06 kept 379 "no
    tests" verdicts of the peers' stage after their own test files joined it)."""
    if not old_config:
        return False
    before, after = set(_selection(old_config)), set(_selection(new_config))
    return before != after and before <= after


def mutmut_exe() -> str:
    exe = Path(sys.executable).parent / "mutmut"
    if not exe.exists():
        raise SystemExit(f"{exe}: mutmut is not installed; run: .venv/bin/pip install -e .[dev]")
    return str(exe)


def run_stage(root: Path, children: int = 1) -> int:
    """``nice -n 19 mutmut run --max-children CHILDREN`` in the stage (it tests every mutant without a verdict);
    its output goes to ``mutmut.log``.  Each mutant's tests run in a new process, so the IREE
    reference modules the lowering tests compile are kept on disk, shared by all stages
    (``costfuse.reference.DISK_CACHE_ENV``): compiling them is most of those tests' time."""
    from costfuse.reference import DISK_CACHE_ENV

    cmd = ["nice", "-n", "19", mutmut_exe(), "run", "--max-children", str(children)]
    env = {**os.environ, DISK_CACHE_ENV: str(WORK / "reference_cache")}
    with open(root / "mutmut.log", "a") as log:
        log.write(f"\n# {datetime.datetime.now().isoformat(timespec='seconds')} {' '.join(cmd)}\n")
        log.flush()
        return subprocess.run(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT).returncode


def forget_verdicts(root: Path, stage: Stage, statuses: tuple[str, ...]) -> int:
    """Clear the verdicts with these statuses so the next run retests those mutants (after new tests).

    Done in mutmut's ``.meta`` files rather than by naming mutants on its command line: named
    mutants whose function no test calls make ``mutmut run NAME`` fail.  Returns how many were cleared.
    """
    names = _status_names()
    cleared = 0
    for f in stage.files:
        meta = root / "mutants" / (installed_path(f) + ".meta")
        if not meta.exists():
            continue
        data = json.loads(meta.read_text())
        for key, code in data["exit_code_by_key"].items():
            if status_of(code, names) in statuses:   # not names[code]: mutmut's defaultdict would keep the key
                data["exit_code_by_key"][key] = None
                cleared += 1
        meta.write_text(json.dumps(data, indent=4))
    return cleared


@dataclass
class FileResult:
    """Verdicts of one file's mutants: mutant name -> mutmut status, and survivors' mutated lines."""

    path: str
    status: dict[str, str] = field(default_factory=dict)
    line: dict[str, str] = field(default_factory=dict)


def _status_names() -> dict:
    from mutmut.stats import status_by_exit_code  # lazy: importing mutmut reads the cwd's config
    return status_by_exit_code


def status_of(code: int | None, names: dict) -> str:
    """mutmut's name for a test run's exit code; a signal it does not name (SIGABRT: -6) crashed the
    test process, which fails the run as a segfault does (mutmut would call it 'suspicious')."""
    if code is not None and code < 0 and code not in names:
        return "crashed"
    return names[code]


def _mutated_line(root: Path, installed: str, name: str) -> str:
    """The mutant's '+' lines of mutmut's diff, joined: what the report and the equivalence list quote."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = os.getcwd()
    os.chdir(root)
    try:
        diff = get_diff_for_mutant(name, path=installed)
    finally:
        os.chdir(cwd)
    plus = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return " / ".join(plus) or "(line removed)"


def _meta_path(stage: Stage, f: str, work: Path) -> Path:
    return work / stage.name / "mutants" / (installed_path(f) + ".meta")


def _module(f: str) -> str:
    """``data/lowering/generic.py`` -> ``costfuse.data.lowering.generic``: the prefix of its mutants' names."""
    return installed_path(f)[:-3].replace("/", ".")


def collect(stage: Stage, work: Path = WORK, lines: bool = True, kept: dict | None = None) -> list[FileResult]:
    """Read mutmut's per-file ``.meta`` verdicts of a stage; a file with none on disk takes its entry in
    ``kept`` (see :func:`load_verdicts`), else gives no result (not run yet).
    With ``lines``, also the mutated line of each judged mutant not killed."""
    root = work / stage.name
    statuses = _status_names()
    results = []
    for f in stage.files:
        meta = _meta_path(stage, f, work)
        if meta.exists():
            codes = json.loads(meta.read_text())["exit_code_by_key"]
            res = FileResult(f, {k: status_of(v, statuses) for k, v in codes.items()})
            for name, status in res.status.items():
                if lines and status not in ("killed", "timeout", "crashed", "not checked"):
                    res.line[name] = _mutated_line(root, installed_path(f), name)
        elif kept and f in kept:
            prefix = _module(f) + "."
            codes = _exit_codes(kept[f], prefix)
            res = FileResult(f, {k: status_of(v, statuses) for k, v in codes.items()},
                             {prefix + n: line for n, line in kept[f]["lines"].items()} if lines else {})
        else:
            continue
        results.append(res)
    return results


def load_verdicts(path: Path = VERDICTS) -> dict[str, dict]:
    """The committed verdicts: ``{repo file: {"hash_by_function_name", "exit_codes", "lines"}}``, where
    ``exit_codes`` maps a function to its mutants' exit codes in mutant-number order (1, 2, ...) and
    ``lines`` holds the mutated line of each mutant not killed (empty when there is no file)."""
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise SystemExit(f"{path}: not valid JSON: {e}") from None


def _exit_codes(entry: dict, prefix: str) -> dict[str, int | None]:
    """An entry's exit codes under mutmut's mutant names (``prefix`` + ``x_f__mutmut_N``)."""
    return {f"{prefix}{func}__mutmut_{n}": code
            for func, codes in entry["exit_codes"].items() for n, code in enumerate(codes, 1)}


def keep_verdicts(stage: Stage, work: Path = WORK, path: Path = VERDICTS,
                  results: list[FileResult] | None = None) -> int:
    """Copy the verdicts on disk of ``stage``'s files (``results``, collected from disk when not given)
    into the committed file (other files' entries stay).

    Written atomically, one line per file so a diff shows which files changed.  Returns the files kept."""
    table = load_verdicts(path)
    results = collect(stage, work) if results is None else results
    for res in results:
        meta = json.loads(_meta_path(stage, res.path, work).read_text())
        prefix = _module(res.path) + "."
        by_func: dict[str, dict[int, int | None]] = {}
        for name, code in meta["exit_code_by_key"].items():
            func, n = _function_of(name.removeprefix(prefix)), name.rsplit("__mutmut_", 1)[1]
            by_func.setdefault(func, {})[int(n)] = code
        for func, codes in by_func.items():
            if sorted(codes) != list(range(1, len(codes) + 1)):
                raise SystemExit(f"{_meta_path(stage, res.path, work)}: {func}'s mutants are not numbered 1..{len(codes)}")
        table[res.path] = {
            "hash_by_function_name": meta["hash_by_function_name"],
            "exit_codes": {func: [codes[n] for n in range(1, len(codes) + 1)] for func, codes in sorted(by_func.items())},
            "lines": {name.removeprefix(prefix): line for name, line in sorted(res.line.items())},
        }
    body = ",\n".join(f"{json.dumps(f)}: {json.dumps(e, sort_keys=True)}" for f, e in sorted(table.items()))
    write_text(path, "{\n" + body + "\n}\n")
    return len(results)


def seed_verdicts(stage: Stage, work: Path = WORK, path: Path = VERDICTS) -> list[str]:
    """Write mutmut's ``.meta`` for each of ``stage``'s files that has none but a kept entry.

    mutmut, generating that file's mutants, keeps the verdict of every function whose hash is unchanged
    and clears the rest, so a new checkout retests only what changed.  Returns the files seeded."""
    kept = load_verdicts(path)
    seeded = []
    for f in stage.files:
        meta = _meta_path(stage, f, work)
        if meta.exists() or f not in kept:
            continue
        meta.parent.mkdir(parents=True, exist_ok=True)
        write_json(meta, {"exit_code_by_key": _exit_codes(kept[f], _module(f) + "."),
                          "hash_by_function_name": kept[f]["hash_by_function_name"],
                          "type_check_error_by_key": {}, "durations_by_key": {}, "estimated_durations_by_key": {}})
        seeded.append(f)
    return seeded


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, dict]:
    """``{mutant: {"line": ..., "reason": ...}}`` from the equivalence list (empty when there is none)."""
    if not path.exists():
        return {}
    try:
        table = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise SystemExit(f"{path}: not valid TOML: {e}") from None
    for name, entry in table.items():
        if not isinstance(entry, dict) or not {"line", "reason"} <= entry.keys():
            raise SystemExit(f"{path}: entry {name!r} needs both 'line' and 'reason'")
    return table


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def mark_equivalent(name: str, reason: str, path: Path = EQUIVALENT) -> None:
    """Append ``name`` to the equivalence list with its current mutated line (it must be a survivor)."""
    stage = next((s for s in STAGES for f in s.files
                  if name.startswith(installed_path(f)[:-3].replace("/", ".") + ".")), None)
    found = [r for r in collect(stage) if name in r.status] if stage else []
    if not found or found[0].status[name] != "survived":
        raise SystemExit(f"{name}: not a survivor in any stage's verdicts (run its stage first)")
    if name in load_equivalent(path):
        raise SystemExit(f"{path}: {name} is already listed")
    with open(path, "a") as f:
        f.write(f"\n[{_toml_str(name)}]\nline = {_toml_str(found[0].line[name])}\nreason = {_toml_str(reason)}\n")


def _function_of(name: str) -> str:
    """``pkg.mod.x_f__mutmut_12`` -> ``pkg.mod.x_f``: the mutated function."""
    return name.rsplit("__mutmut_", 1)[0]


def equivalence(name: str, res: FileResult, equivalent: dict[str, dict]) -> dict | None:
    """The list's entry for mutant ``name``, if any.

    mutmut numbers a function's mutants afresh when the file changes, so a listed mutant is also found
    under a new number: the same function, the same mutated line (the line says what the mutant is)."""
    if name in equivalent:
        return equivalent[name]
    line = res.line.get(name)
    return next((e for n, e in equivalent.items() if e["line"] == line and _function_of(n) == _function_of(name)),
                None)


def classify(res: FileResult, equivalent: dict[str, dict]) -> dict[str, str]:
    """mutmut's status per mutant, with listed survivors whose line still matches turned into 'equivalent'."""
    out = {}
    for name, status in res.status.items():
        entry = equivalence(name, res, equivalent) if status == "survived" else None
        if status == "survived" and entry is not None:
            status = "equivalent" if entry["line"] == res.line.get(name) else "stale equivalence"
        out[name] = status
    return out


COLUMNS = ("killed", "timeout", "crashed", "survived", "no tests", "equivalent", "other", "not checked")


def tally(status: dict[str, str]) -> Counter:
    """Counts per report column; mutmut's rarer verdicts (suspicious, skipped, ...) go under 'other'."""
    counts = Counter(status.values())
    counts["survived"] += counts.pop("stale equivalence", 0)
    counts["crashed"] += counts.pop("segfault", 0)
    for key in [k for k in counts if k not in COLUMNS]:
        counts["other"] += counts.pop(key)
    return counts


def score_text(counts: Counter) -> str:
    """(killed + timed out + crashed) / (mutants - equivalent), marked 'so far' while some have no verdict."""
    total = sum(counts.values()) - counts["equivalent"] - counts["not checked"]
    if total == 0:
        return "pending"
    text = f"{(counts['killed'] + counts['timeout'] + counts['crashed']) / total:.1%}"
    return text + " so far" if counts["not checked"] else text


CARRIED = "Carried over from the report written "


def previous_rows(report: str) -> dict[str, tuple[str, list[str], str]]:
    """``{file: (table row, survivor section lines, date)}`` from a report this script wrote; the date is
    when those verdicts were reported (a carried row keeps its first date)."""
    written = re.search(r"^Written (\d{4}-\d{2}-\d{2})", report, re.M)
    carried = {f: date for date, files in re.findall(rf"^{CARRIED}(\S+) .*?: (.*)\.$", report, re.M)
               for f in re.findall(r"`([^`]+)`", files)}
    rows = {}
    for line in report.splitlines():
        m = re.match(r"\| `([^`]+)` \|", line)
        if m:
            rows[m[1]] = line
    sections = dict(re.findall(r"^### `([^`]+)`\n(.*?)(?=^### |\Z)", report, re.M | re.S))
    return {f: (row, sections.get(f, "").rstrip("\n").split("\n") if f in sections else [],
                carried.get(f, written[1] if written else "unknown"))
            for f, row in rows.items()}


def render(results: dict[Stage, list[FileResult]], equivalent: dict[str, dict], command: str,
           previous: str = "") -> str:
    """The Markdown report: one row per file, then every equivalent and every remaining survivor.

    A file with no verdicts (or none judged yet) keeps its row and section of the ``previous`` report,
    if it had one."""
    old = previous_rows(previous)

    lines = [
        "# Mutation testing (issue #15)", "",
        f"Command (from the repo root): `{command}` (resumes; it retests only changed code, and "
        "`--rerun-survivors` retests the survivors after tests were added)  ",
        f"Tool: mutmut {version('mutmut')}, one test process at a time under `nice -n 19`, each stage against only "
        f"its own fast test files (pytest `{shlex.join(PYTEST_ARGS)}`).  ",
        f"Written {datetime.date.today().isoformat()}; a periodic check, not part of CI. "
        "Rerun the same command to resume or refresh; CONTRIBUTING.md says more.", "",
        "Score = (killed + timed out + crashed) / (mutants - equivalent): a mutant that hangs its tests or "
        "crashes the test process (a segfault in the MLIR bindings, an abort) fails a test run too. Goal: >= 85% in each "
        "module. 'no tests': no selected test calls the function. "
        "mutmut mutates function bodies only (not module-level constants or decorated functions).", "",
        "| module | tests | mutants | " + " | ".join(COLUMNS) + " | score |",
        "|---|---|---" + "|---" * len(COLUMNS) + "|---|",
    ]
    details = []
    pending = []
    carried: dict[str, list[str]] = {}
    for stage in STAGES:
        by_file = {r.path: r for r in results.get(stage, [])}
        for f in stage.files:
            res = by_file.get(f)
            if f in old and (res is None or set(res.status.values()) <= {"not checked"}):  # nothing judged here
                row, section, date = old[f]
                lines.append(row)
                details += ["", f"### `{f}`", *section] if section else []
                carried.setdefault(date, []).append(f)
                continue
            if res is None:
                pending.append(f)
                continue
            status = classify(res, equivalent)
            counts = tally(status)
            tests = ", ".join(Path(t).name for t in stage.tests)
            lines.append(f"| `{f}` | {tests} | {len(status)} | " + " | ".join(str(counts[c]) for c in COLUMNS)
                         + f" | {score_text(counts)} |")
            eq = [n for n, st in status.items() if st == "equivalent"]
            left = [n for n, st in status.items()
                    if st not in ("killed", "timeout", "segfault", "crashed", "equivalent", "not checked")]
            if eq or left:
                details += ["", f"### `{f}`"]
            if eq:
                details += ["", "Equivalent (mutated line: why no test can tell):", ""]
                details += [f"- `{n.rpartition('.')[2]}` `{res.line[n]}`: {equivalence(n, res, equivalent)['reason']}" for n in eq]
            if left:
                details += ["", "Not killed yet (status, mutated line):", ""]
                details += [f"- `{n.rpartition('.')[2]}` {status[n]}: `{res.line[n]}`" for n in left]
    for date, files in sorted(carried.items()):
        lines += ["", f"{CARRIED}{date} (their verdicts predate experiments/results/mutation_verdicts.json; "
                  "rerunning their stages refreshes them): " + ", ".join(f"`{f}`" for f in files) + "."]
    if pending:
        lines += ["", "Not run yet: " + ", ".join(f"`{f}`" for f in pending) + "."]
    return "\n".join(lines + ["", "## Survivors per module"] + details) + "\n"


def write_report(command: str, work: Path = WORK, out: Path = REPORT, kept_path: Path = VERDICTS) -> None:
    """Keep the verdicts on disk, then rewrite the report from them and the kept ones (rows of files with
    neither come from the previous report)."""
    kept = load_verdicts(kept_path)
    results = {stage: collect(stage, work, kept=kept) for stage in STAGES}
    for stage, res in results.items():   # each survivor's line is read from mutmut once, for both
        on_disk = [r for r in res if _meta_path(stage, r.path, work).exists()]
        if on_disk:
            keep_verdicts(stage, work, kept_path, on_disk)
    previous = out.read_text() if out.exists() else ""
    write_text(out, render(results, load_equivalent(), command, previous))
    print(f"[report] wrote {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stages", nargs="*", metavar="STAGE",
                    help=f"stages to run, in this order (default: all): {', '.join(s.name for s in STAGES)}")
    ap.add_argument("--rerun-survivors", action="store_true",
                    help="also retest the mutants that survived or had no tests (after adding tests)")
    ap.add_argument("--report-only", action="store_true", help="rewrite the report from the verdicts on disk")
    ap.add_argument("--children", type=int, default=1, metavar="N",
                    help="mutants tested at once (default 1: one test process, so the run shares the machine)")
    ap.add_argument("--equivalent", nargs=2, metavar=("MUTANT", "REASON"),
                    help="list a survivor as equivalent, with the reason no test can tell it apart, then rewrite the report")
    args = ap.parse_args(argv)
    if args.equivalent:
        mark_equivalent(*args.equivalent)
        args.report_only = True
    by_name = {s.name: s for s in STAGES}
    unknown = [n for n in args.stages if n not in by_name]
    if unknown:
        ap.error(f"unknown stage(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
    command = "python experiments/mutation.py"  # the report's command: what refreshes every stage
    if not args.report_only:
        for stage in [by_name[n] for n in args.stages] or STAGES:
            old_config = WORK / stage.name / "pyproject.toml"
            old_config = old_config.read_text() if old_config.exists() else None
            changed = sources_changed(stage)
            untested = args.rerun_survivors and any(
                st == "no tests" for r in collect(stage, lines=False) for st in r.status.values())
            if changed or untested or tests_changed(stage):  # mutmut maps tests to functions once: recollect,
                # or new code stays "no tests" and a new test is never run against the functions it reaches
                (WORK / stage.name / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
            root = build_stage(stage)
            seeded = seed_verdicts(stage)
            if seeded:
                print(f"[mutation] {stage.name}: verdicts of {', '.join(seeded)} seeded from {VERDICTS.name}",
                      file=sys.stderr)
            new_config = (root / "pyproject.toml").read_text()
            changed = changed or bool(seeded) or old_config != new_config  # e.g. its tests changed
            added = tests_only_added(old_config, new_config)
            if added:
                # A killed mutant stays killed, so keep the verdicts (mutmut resets them all when it sees a
                # new test selection in its stats) and remap the tests instead.
                (root / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
            if args.rerun_survivors or added:   # a new test may kill what survived or had no test
                forget_verdicts(root, stage, ("survived", "no tests"))
            if not changed and all_judged(stage):
                print(f"[mutation] {stage.name}: every mutant judged and the code unchanged; skipped", file=sys.stderr)
                continue
            print(f"[mutation] {stage.name}: {', '.join(stage.files)} against {', '.join(stage.tests)}", file=sys.stderr)
            rc = run_stage(root, args.children)
            if rc != 0:
                print(f"[mutation] {stage.name}: mutmut exited {rc}; see {root / 'mutmut.log'}", file=sys.stderr)
            write_report(command)
    write_report(command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
