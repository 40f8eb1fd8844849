"""Fixtures of the cost models' tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.bundles import make_bundle


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory) -> Path:
    """A two-head bundle (spill, spill_bytes) from :func:`helpers.bundles.make_bundle`, shared by a module's
    tests: the loading and the bundle tests both read it, and training it takes a second or two."""
    return make_bundle(tmp_path_factory.mktemp("learned") / "bundle")
