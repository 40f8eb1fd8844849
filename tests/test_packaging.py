"""Installed layout: the repo's folders live under the ``costfuse`` namespace.

``pip install`` must not put modules named ``data``, ``train`` or
``featurize`` on the import path, where they would shadow a user's own
``data/`` folder or another package (docs/design.md, "Layout").
"""

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).parents[1]


def test_namespaced_modules_import_from_any_folder_and_bare_names_do_not(tmp_path):
    code = ("import importlib.util, costfuse.data.lowering.generic, costfuse.featurize.features, costfuse.train.cli; "
            "print(costfuse.data.lowering.generic.__file__); "
            "print([n for n in ('data', 'train', 'featurize') if importlib.util.find_spec(n) is not None])")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    path, leaked = r.stdout.splitlines()
    assert Path(path) == REPO / "data" / "lowering" / "generic.py"
    assert leaked == "[]"


def test_a_users_data_folder_is_not_shadowed(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("WHO = 'user'\n")
    code = "import costfuse.data.store, data; print(data.WHO)"
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "user"



def test_every_package_folder_is_listed_for_the_wheel():
    """``[tool.setuptools] packages`` is an explicit list: a subpackage missing from it (``data/lowering/``)
    would import from the editable install and be absent from a wheel."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    for package, folder in setuptools["package-dir"].items():
        for init in sorted((REPO / folder).rglob("__init__.py")):
            sub = init.parent.relative_to(REPO / folder).parts
            assert ".".join((package, *sub)) in listed, f"{init.parent.relative_to(REPO)} is not in the wheel"
