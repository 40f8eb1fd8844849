"""The tests' own layout (docs/design.md §7, issue #28): they mirror the packages, and no test module imports another.

A test of ``data/groups.py`` sits in ``tests/data/``, one of ``costfuse/groups.py``
in ``tests/costfuse/``: a reader finds a module's tests where its folder says, and
a file named after a module of another package (``tests/test_groups.py`` once
tested ``data/groups.py``) is caught.  What tests share lives in ``tests/helpers/``
or a ``conftest.py``: a test module imported by another is loaded twice under
two names, and its helpers move whenever it does.  Like ``test_layers.py``, these
are checks over the source tree, each with a planted violation that it must see.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()  # its planted violations cite test files that do not exist
REPO = HERE.parents[1]
# The mirrored package folders: tests/<folder>/ holds the tests of <folder>/ (its subfolders likewise).
PACKAGES = ("costfuse", "data", "featurize", "train", "experiments")
# Test files of the repo as a whole, not of one package: they stay at tests/.
ROOT_TESTS = {"test_docs.py", "test_layers.py", "test_layout.py", "test_packaging.py"}
# Folders of tests/ that hold no tests: shared code and golden files.
NOT_TESTS = {"helpers", "golden"}
# Where a path to a test file may be cited (docs, comments); generated reports are rewritten by their scripts.
CITING = ("*.py", "*.md", "*.toml", "Makefile")
SKIPPED = {".venv", ".git", "build", "mlruns", "node_modules", "results"}


def _skipped(path: Path, repo: Path) -> bool:
    """Whether ``path`` lies in a folder no check reads (any virtual environment, ``.venv-torch2.11.0`` too)."""
    return any(p in SKIPPED or p.startswith(".venv") for p in path.relative_to(repo).parts)


def _test_files(tests: Path) -> list[Path]:
    return sorted(tests.rglob("test_*.py"))


def _is_test_module(name: str) -> bool:
    """``test_store``, ``tests.test_store``, ``tests.data.test_lower``, ``conftest``: any of a test folder's
    own modules (helpers import as ``helpers.x``, never through ``tests``)."""
    parts = name.split(".")
    return parts[0] == "tests" or any(p.startswith("test_") or p == "conftest" for p in parts)


def test_module_imports(tests: Path) -> list[str]:
    """``file:line: imports NAME`` for every import of a test module by a file under ``tests/``, lazy ones
    included.  A relative import counts too: no test folder is a package, so it can only name a sibling."""
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names if _is_test_module(a.name)]
            elif isinstance(node, ast.ImportFrom) and node.level:
                names = ["." * node.level + (node.module or "")]
            elif isinstance(node, ast.ImportFrom) and _is_test_module(node.module):
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(tests.parent)}:{node.lineno}: imports {name}" for name in names]
    return found


test_module_imports.__test__ = False  # a check over a folder, called by the tests below


def _modules(repo: Path) -> dict[str, list[Path]]:
    """Module or package name -> the folders or files of that name in the packages (``groups`` ->
    ``costfuse/groups.py``, ``data/groups.py``; ``cost_models`` -> ``costfuse/cost_models``)."""
    out: dict[str, list[Path]] = {}
    for pkg in PACKAGES:
        for path in (repo / pkg).rglob("*"):
            if "__pycache__" in path.parts or _skipped(path, repo):
                continue
            if path.suffix == ".py" or path.is_dir():
                out.setdefault(path.stem, []).append(path.relative_to(repo))
    return out


def misplaced(repo: Path) -> list[str]:
    """Why each test file is not where its package's mirror says, as far as the tree shows it: at
    ``tests/`` only the whole-repo tests; elsewhere under a folder that mirrors a package folder; and
    ``test_NAME.py`` under the mirror of the package holding module ``NAME`` when one package does."""
    tests, found = repo / "tests", []
    found += [f"tests/{pkg}/: missing (the mirror of {pkg}/)" for pkg in PACKAGES if not (tests / pkg).is_dir()]
    modules = _modules(repo)
    for path in _test_files(tests):
        rel = path.relative_to(tests)
        folder = rel.parent
        if folder == Path("."):
            if rel.name not in ROOT_TESTS:
                found.append(f"tests/{rel}: at tests/, which holds only {sorted(ROOT_TESTS)}")
            continue
        if folder.parts[0] in NOT_TESTS or folder.parts[0] not in PACKAGES or not (repo / folder).is_dir():
            found.append(f"tests/{rel}: tests/{folder}/ mirrors no package folder")
            continue
        homes = modules.get(rel.stem.removeprefix("test_"), [])
        if homes and not any(h == folder or h.parent == folder for h in homes):
            found.append(f"tests/{rel}: tests {', '.join(map(str, homes))}, so it belongs in "
                         f"{' or '.join(f'tests/{h.parent}/' for h in homes)}")
    return found


def stale_citations(repo: Path) -> list[str]:
    """``file: tests/x.py`` for every test path the docs and code cite that does not exist (moved files)."""
    found = []
    for pattern in CITING:
        for path in repo.rglob(pattern):
            if _skipped(path, repo) or not path.is_file() or path == HERE:
                continue
            for cited in sorted(set(re.findall(r"\btests/[\w/]+\.py\b", path.read_text(errors="replace")))):
                if not (repo / cited).is_file():
                    found.append(f"{path.relative_to(repo)}: {cited}")
    return found


def test_no_test_module_imports_another():
    assert test_module_imports(REPO / "tests") == []


def test_every_test_file_sits_in_its_packages_mirror():
    assert misplaced(REPO) == []


def test_every_cited_test_file_exists():
    assert stale_citations(REPO) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


MIRRORS = {f"{pkg}/__init__.py": "" for pkg in PACKAGES} | {f"tests/{pkg}/conftest.py": "" for pkg in PACKAGES}


@pytest.mark.parametrize("text, name", [
    ("from test_store import row", "test_store"),
    ("from tests.test_store import row", "tests.test_store"),
    ("def f():\n    from tests.data.test_lower import check", "tests.data.test_lower"),
    ("import test_job", "test_job"),
    ("from .test_job import LABELS", ".test_job"),
    ("from conftest import GroupRun", "conftest"),
])
def test_an_import_of_a_test_module_is_seen(tmp_path, text, name):
    tests = _tree(tmp_path, {"tests/data/test_x.py": text + "\n", "tests/helpers/ok.py": "from helpers.rows import row\n"})
    got = test_module_imports(tests / "tests")
    assert len(got) == 1 and got[0].startswith("tests/data/test_x.py:") and got[0].endswith(f"imports {name}"), got


@pytest.mark.parametrize("rel, why", [
    ("tests/test_store.py", "at tests/"),
    ("tests/helpers/test_rows.py", "tests/helpers/ mirrors no package"),
    ("tests/costfuse/nowhere/test_x.py", "tests/costfuse/nowhere/ mirrors no package"),
    ("tests/costfuse/test_groups.py", "tests data/groups.py, so it belongs in tests/data/"),
    ("tests/data/test_lower.py", "tests featurize/lower.py, so it belongs in tests/featurize/"),
])
def test_a_misplaced_test_file_is_seen(tmp_path, rel, why):
    repo = _tree(tmp_path, {**MIRRORS, "data/groups.py": "", "featurize/lower.py": "", "costfuse/cost_models/a.py": "",
                            "tests/costfuse/cost_models/test_cost_models.py": "", "tests/costfuse/cost_models/test_a.py": "",
                            "tests/test_layout.py": "", rel: ""})
    got = misplaced(repo)
    assert len(got) == 1 and got[0].startswith(rel) and why in got[0], got


def test_a_missing_mirror_is_seen(tmp_path):
    repo = _tree(tmp_path, {k: v for k, v in MIRRORS.items() if k != "tests/train/conftest.py"})
    assert misplaced(repo) == ["tests/train/: missing (the mirror of train/)"]


def test_a_stale_citation_is_seen(tmp_path):
    repo = _tree(tmp_path, {"tests/data/test_store.py": "", "docs/a.md": "see tests/test_store.py and tests/data/test_store.py",
                            "experiments/results/report.md": "tests/test_old.py"})
    assert stale_citations(repo) == ["docs/a.md: tests/test_store.py"]
