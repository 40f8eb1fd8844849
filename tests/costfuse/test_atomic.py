"""costfuse/atomic.py: a write either lands whole or leaves the old file, and the file is readable by others.

Every long job's output goes through it (shards, compile results, kernel
sources, provenance, model metadata), so the guarantees are checked once here
and through the writers that use it.
"""

import json
import stat

import pytest

from costfuse import atomic
from costfuse.data.kernel_files import write_kernel
from costfuse.data.store import write_shard
from helpers.rows import row


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "f.json"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic.atomic_path(target) as tmp:
            tmp.write_text("half of the new")
            raise RuntimeError("disk full")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.json"]


def test_a_write_replaces_the_file_whole_and_gives_it_the_shared_mode(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    target.write_text("old")
    with atomic.atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp != target   # beside it: the rename stays on one filesystem
        tmp.write_text("new")
        assert target.read_text() == "old"               # a reader sees the old file until the end
    assert target.read_text() == "new"
    assert _mode(target) == 0o644                         # not mkstemp's 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def test_write_json_is_indented_sorted_and_ends_in_a_newline(tmp_path):
    path = atomic.write_json(tmp_path / "p.json", {"b": 1, "a": [1, 2]})
    assert path.read_text() == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": 1\n}\n'
    assert json.loads(path.read_text()) == {"a": [1, 2], "b": 1}


def test_shards_and_kernel_files_are_readable_by_others(tmp_path):
    shard = write_shard(tmp_path / "ds", "s", [row()])
    kernel = write_kernel("print('k')\n", tmp_path / "kernels")
    assert (_mode(shard), _mode(kernel)) == (0o644, 0o644)
    assert kernel.read_text() == "print('k')\n"
