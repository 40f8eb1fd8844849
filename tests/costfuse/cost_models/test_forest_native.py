"""The compiled forest walk (``costfuse/cost_models/forest_walk.c``) gives the NumPy walk's numbers, and
CostFuse falls back to NumPy, with a warning, where it cannot be built."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from costfuse.cost_models import forest_native
from costfuse.cost_models.learned_groups import load_group_heads
from costfuse.inductor.decide import SHIPPED_INDUCTOR_MODEL_DIR


@pytest.fixture
def fresh_walk(monkeypatch, tmp_path):
    """:func:`forest_native.native_walk` forgotten, with an empty cache, and forgotten again afterwards."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    forest_native.native_walk.cache_clear()
    yield tmp_path / "cache"
    forest_native.native_walk.cache_clear()


def _rows(forest, n: int, width: int, seed: int) -> np.ndarray:
    """Rows whose values are the forest's own split values (hit exactly, as whole counts do), a little off
    them, and NaN: every branch of the walk's comparison."""
    rng = np.random.default_rng(seed)
    splits = forest.threshold[forest.children[0::2] != np.arange(len(forest.threshold))]
    X = rng.choice(splits, size=(n, width)).astype(np.float32)
    X[::3] = np.nextafter(X[::3], np.float32(np.inf))
    X[1::5, ::7] = np.nan
    return X


@pytest.mark.parametrize("source", ["groups", "inductor"])
def test_compiled_walk_equals_numpy_on_every_shipped_head(source, fresh_walk):
    bundle = load_group_heads("" if source == "groups" else str(SHIPPED_INDUCTOR_MODEL_DIR))
    assert forest_native.native_walk() is not None, "cc builds the walk on this machine"
    for name, head in bundle.heads.items():
        forest = head.forest
        X = _rows(forest, 300, int(forest.feature.max()) + 1, len(name))
        np.testing.assert_allclose(forest.margin(X), forest.numpy_margin(X), rtol=0, atol=1e-9, err_msg=name)
        assert forest.margin(X[:0]).shape == (0,)
    assert list((fresh_walk / "forest").glob("*.so")), "the library is cached"


def test_disabled_or_without_a_compiler_numpy_walks(fresh_walk, monkeypatch, caplog):
    forest = load_group_heads().heads["spill"].forest
    X = _rows(forest, 20, int(forest.feature.max()) + 1, 0)
    monkeypatch.setenv(forest_native.DISABLE_ENV, "0")
    assert forest_native.native_walk() is None
    forest_native.native_walk.cache_clear()
    monkeypatch.delenv(forest_native.DISABLE_ENV)
    monkeypatch.setenv("CC", "no-such-compiler-here")
    with caplog.at_level(logging.WARNING, logger=forest_native.__name__):
        assert forest_native.native_walk() is None
    assert "no C compiler 'no-such-compiler-here'" in caplog.text and "NumPy" in caplog.text
    np.testing.assert_array_equal(forest.margin(X), forest.numpy_margin(X))


def test_a_failing_compiler_leaves_no_file_behind(fresh_walk, monkeypatch, caplog):
    monkeypatch.setenv("CC", "false")
    with caplog.at_level(logging.WARNING, logger=forest_native.__name__):
        assert forest_native.native_walk() is None
    assert "false exited 1" in caplog.text
    assert not list((fresh_walk / "forest").iterdir())


def test_a_row_too_short_for_the_splits_is_refused_not_read_past(fresh_walk):
    forest = load_group_heads().heads["spill"].forest
    assert forest_native.native_walk() is not None
    with pytest.raises(IndexError):
        forest.margin(np.zeros((2, int(forest.feature.max())), np.float32))
