"""The compiled forest walk (``costfuse/cost_models/forest_walk.c``) gives the NumPy walk's numbers, and
CostFuse falls back to NumPy, with a warning, where it cannot be built."""

from __future__ import annotations

import logging
from pathlib import Path

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


def test_both_walks_send_a_nan_where_xgboost_learned_to_send_it():
    """Trees trained with missing values learn a default direction per split (the shipped heads never saw
    one, so every split of theirs sends a NaN right): both walks follow it, as XGBoost does."""
    import json

    import xgboost as xgb

    from costfuse.cost_models.forest import flatten

    rng = np.random.default_rng(7)
    X = rng.random((400, 3))
    y = X[:, 0] + 2 * X[:, 1]
    X[::4, 0] = np.nan
    y[::4] = -3.0   # a missing x0 means a low label: the splits on x0 learn to send NaN left
    booster = xgb.train({"max_depth": 3, "nthread": 1}, xgb.DMatrix(X, y), 20)
    forest = flatten(json.loads(booster.save_raw("json")))
    inner = forest.children[0::2] != np.arange(len(forest.threshold))
    assert forest.default_left[inner].any() and not forest.default_left[inner].all()
    rows = X[:40].astype(np.float32)
    expected = booster.inplace_predict(rows)
    np.testing.assert_allclose(forest.predict(rows), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(forest.link(forest.numpy_margin(rows)), expected, rtol=1e-5, atol=1e-5)


def test_both_walks_compare_as_float32():
    """A float64 value just below a split rounds onto it in float32, which goes right: so does each walk."""
    forest = load_group_heads().heads["spill"].forest
    width = int(forest.feature.max()) + 1
    X = _rows(forest, 50, width, 3).astype(np.float64)
    below = np.nextafter(X, -np.inf)   # float64 neighbours, the same float32
    assert (below.astype(np.float32) == X.astype(np.float32))[np.isfinite(X)].all()
    np.testing.assert_array_equal(forest.numpy_margin(below), forest.numpy_margin(X))
    np.testing.assert_array_equal(forest.margin(below), forest.margin(X))


def test_rows_go_to_the_compiled_walk_once_it_is_built(monkeypatch):
    forest = load_group_heads().heads["spill"].forest
    assert forest_native.native_walk() is not None
    monkeypatch.setattr(type(forest), "numpy_margin", lambda self, X: pytest.fail("walked in NumPy"))
    assert forest.margin(np.zeros((3, int(forest.feature.max()) + 1), np.float32)).shape == (3,)


def test_the_library_is_named_by_its_source_and_written_beside_itself(fresh_walk, monkeypatch, tmp_path):
    """Another source (a new CostFuse) builds another library next to the first; each is compiled into a
    temporary file of its own folder and renamed (one filesystem: the rename is atomic)."""
    import os
    import re

    renames = []
    real_replace = os.replace
    monkeypatch.setattr(forest_native.os, "replace", lambda a, b: renames.append((a, b)) or real_replace(a, b))
    first = forest_native.build()
    source = tmp_path / "forest_walk.c"
    source.write_text(forest_native.SOURCE.read_text() + "/* a later version */\n")
    monkeypatch.setattr(forest_native, "SOURCE", source)
    second = forest_native.build()
    assert first != second and first.exists() and second.exists() and first.parent == second.parent
    assert all(re.fullmatch(r"forest_walk_[0-9a-f]{16}\.so", p.name) for p in (first, second))
    assert [Path(b) for _, b in renames] == [first, second]
    assert all(Path(a).parent == Path(b).parent for a, b in renames)
    assert forest_native.build() == second and len(renames) == 2   # built once


def test_a_compiler_error_is_quoted_cut_to_300_characters(fresh_walk, monkeypatch, tmp_path, caplog):
    cc = tmp_path / "cc"
    cc.write_text("#!/bin/sh\necho 'forest_walk.c:1: error:' $(printf 'x%.0s' $(seq 400)) >&2\nexit 3\n")
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    with caplog.at_level(logging.WARNING, logger=forest_native.__name__):
        assert forest_native.native_walk() is None
    message = caplog.records[-1].getMessage()
    assert f"{cc} exited 3: forest_walk.c:1: error: x" in message and "b'" not in message
    quoted = message.split("exited 3: ", 1)[1]
    assert quoted.startswith("forest_walk.c:1: error: " + "x" * (300 - 24) + ")")


def test_a_good_cached_library_loads_as_it_is(fresh_walk, caplog):
    built = forest_native.build()
    stamp = built.stat().st_mtime_ns
    with caplog.at_level(logging.WARNING, logger=forest_native.__name__):
        assert forest_native.native_walk() is not None
    assert not caplog.records and built.stat().st_mtime_ns == stamp


def test_a_cached_library_that_does_not_load_is_built_again(fresh_walk, caplog):
    """(A library this process loaded stays loaded under its path: the damaged one here never was.)"""
    built = forest_native.build()
    built.write_bytes(b"not a shared library")
    with caplog.at_level(logging.WARNING, logger=forest_native.__name__):
        assert forest_native.native_walk() is not None
    [record] = caplog.records
    assert record.getMessage().startswith(f"the cached forest walk {built} does not load (")
    assert record.getMessage().endswith("); building it again") and isinstance(record.args[1], OSError)
    assert built.read_bytes().startswith(b"\x7fELF"), "the damaged file was replaced by a build"
    forest = load_group_heads().heads["spill"].forest
    X = _rows(forest, 10, int(forest.feature.max()) + 1, 1)
    np.testing.assert_allclose(forest.margin(X), forest.numpy_margin(X), rtol=0, atol=1e-9)


def test_a_damaged_library_another_process_removed_meanwhile_is_built_again(fresh_walk, monkeypatch):
    """Two processes that both find the cached library damaged both remove it: the second finds it gone."""
    built = forest_native.build()
    built.write_bytes(b"not a shared library")
    real = forest_native.ctypes.CDLL
    calls = []

    def cdll(path):
        calls.append(path)
        if len(calls) == 1:
            built.unlink()   # the other process got there first
            raise OSError("invalid ELF header")
        return real(path)

    monkeypatch.setattr(forest_native.ctypes, "CDLL", cdll)
    assert forest_native.native_walk() is not None
    assert calls == [str(built), str(built)]
