"""Fixtures of the dataset side's tests (``tests/data/`` mirrors ``data/``, installed as ``costfuse.data``)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def kdir(tmp_path_factory):
    """Where one test module's generated kernel files go: shared by its tests, apart from other modules'."""
    return tmp_path_factory.mktemp("kernels")
