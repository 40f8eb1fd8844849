"""Write a file so that a reader sees the old one or the whole new one, never half of it.

Every file a long job leaves behind (dataset shards, compile results, kernel
sources, latency provenance, model metadata) goes through :func:`atomic_path`:
the bytes go to a temporary file in the same directory (so the rename stays
on one filesystem), which is renamed over the target only once it is
complete; an interrupted or failing write leaves the target as it was and
removes its temporary file.  ``mkstemp`` makes the file private (0600); the
finished file gets :data:`FILE_MODE` as files a user creates do, so a
dataset or model written here is readable by whoever it is shared with.

Standard library only.  ``data/profile.py`` runs on the GPU machine without
an install and so keeps its own copy of this (its ``write_rows``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FILE_MODE = 0o644


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on a clean exit it replaces ``target``.

    The caller writes the whole file to the yielded path (by name: pyarrow,
    XGBoost and ``Path.write_text`` all take one).  The directory must exist.
    """
    target = Path(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(target: str | os.PathLike, text: str) -> Path:
    """Atomically write ``text`` to ``target``; returns ``target`` as a Path."""
    with atomic_path(target) as tmp:
        tmp.write_text(text)
    return Path(target)


def write_json(target: str | os.PathLike, obj: Any) -> Path:
    """Atomically write ``obj`` as indented JSON with sorted keys and a final newline."""
    return write_text(target, json.dumps(obj, indent=2, sort_keys=True) + "\n")
