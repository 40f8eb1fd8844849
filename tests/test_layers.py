"""The import contract of docs/design.md §7: the layers import downwards only, so no package cycle can form.

``import-linter`` is the field's tool for this, but it reads a package from the
folder it is installed in, and ours maps ``costfuse.data``, ``costfuse.featurize``
and ``costfuse.train`` onto top-level folders (``pyproject.toml``), which hides
them from it (that is how the cycle issue #28 found went unnoticed).  So the
contract is checked here on the source tree itself, with the same semantics
(layers, forbidden imports), counting every import a module makes, lazy ones
inside functions included: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Top to bottom.  A module may import its own layer and the layers below it, never one above: the
# trainer reads the dataset's store (train -> data), the dataset job runs the passes and the policies
# to label their choices (data -> passes; the Inductor harness runs the Inductor handler), the passes
# and the Inductor handler ask the policies (passes -> cost_models), the policies read features
# (cost_models -> featurize), and the compiler core imports none of them.
LAYERS = ("entry", "train", "data", "passes", "cost_models", "featurize", "core")
ENTRY = {"costfuse/cli.py"}
PASSES = {"costfuse/fusion_pass.py", "costfuse/group_pass.py", "costfuse/expanding_producers.py",
          "costfuse/verify_picks.py"}
PASS_PACKAGES = ("costfuse/inductor/",)   # Inductor's choices handler: CostFuse's decisions inside Inductor
# data/profile.py runs on the GPU machine without an install: it imports nothing of CostFuse at all.
STANDALONE = {"data/profile.py"}


def layer_of_file(rel: str) -> str:
    if rel in ENTRY:
        return "entry"
    if rel in PASSES or rel.startswith(PASS_PACKAGES):
        return "passes"
    top = rel.split("/")[0]
    if top in ("data", "train", "featurize"):
        return top
    if rel.startswith("costfuse/cost_models/"):
        return "cost_models"
    return "core"


def layer_of_module(name: str) -> str | None:
    """The layer of an imported ``costfuse...`` module (``None`` when it is not ours)."""
    parts = name.split(".")
    if parts[0] != "costfuse":
        return None
    if len(parts) == 1:
        return "core"
    sub = parts[1]
    if sub in ("data", "train", "featurize"):
        return sub
    if sub == "cost_models":
        return "cost_models"
    if f"costfuse/{sub}/" in PASS_PACKAGES:
        return "passes"
    return layer_of_file(f"costfuse/{sub}.py")


def sources() -> list[Path]:
    return sorted(p for d in ("costfuse", "data", "featurize", "train") for p in (REPO / d).rglob("*.py"))


def imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for every import in ``path``, nested ones included; ``from costfuse.x import y``
    counts ``costfuse.x.y`` too (``y`` may be a submodule)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def violations() -> list[str]:
    found = []
    for path in sources():
        rel = str(path.relative_to(REPO))
        mine = layer_of_file(rel)
        for line, name in imports(path):
            theirs = layer_of_module(name)
            if theirs is None:
                continue
            if rel in STANDALONE:
                found.append(f"{rel}:{line}: imports {name}, but it must run without CostFuse installed")
            elif LAYERS.index(theirs) < LAYERS.index(mine):
                found.append(f"{rel}:{line}: {mine} imports {name} ({theirs})")
    return sorted(set(found))


def test_every_layer_imports_only_downwards():
    assert violations() == []


@pytest.mark.parametrize("text, layer", [
    ("from costfuse.data.lowering.generic import lower_generic", "data"),
    ("from costfuse.cost_models import policy_class", "cost_models"),
    ("import costfuse.featurize.features", "featurize"),
    ("from costfuse.group_pass import GroupFusionPass", "passes"),
    ("import costfuse.inductor.choices", "passes"),
    ("from costfuse import cli", "entry"),
])
def test_the_contract_sees_an_upward_import_from_the_core(tmp_path, monkeypatch, text, layer):
    """Planted in a core module (lazily, inside a function), each import above the core is reported."""
    core = tmp_path / "costfuse"
    core.mkdir()
    (core / "planted.py").write_text(f"def f():\n    {text}\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    got = violations()
    assert got and all(v.startswith("costfuse/planted.py:2: core imports costfuse.") and v.endswith(f"({layer})")
                       for v in got), got


def test_formation_and_the_passes_load_no_model_they_do_not_use():
    """``import costfuse.groups`` once loaded every cost model, featurize and data, through the cost models'
    package; the catalog now imports a model only when asked for it."""
    import subprocess

    code = ("import sys, costfuse.groups, costfuse.group_pass, costfuse.fusion_pass; "
            "print(sorted(m for m in sys.modules if m.startswith(('costfuse.cost_models.', 'costfuse.featurize', "
            "'costfuse.data', 'costfuse.train'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['costfuse.cost_models.always']"   # the passes' default policy, nothing else
