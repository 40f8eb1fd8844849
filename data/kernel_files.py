"""Generated kernels live in real ``.py`` files.

Triton reads a ``@triton.jit`` function's source with ``inspect.getsource``
(docs/design.md §5), so a kernel held only in a string cannot be compiled or
interpreted.  Files are content-addressed (SHA-256 of the source) under
``$COSTFUSE_CACHE_DIR/kernels`` (default ``~/.cache/costfuse/kernels``), so
writing the same kernel twice is free and concurrent writers cannot clash.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

from costfuse.atomic import write_text
from costfuse.caches import cache_dir

def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def write_kernel(source: str, directory: str | os.PathLike | None = None) -> Path:
    """Write ``source`` to ``<directory>/k_<sha16>.py`` (atomically) and return the path."""
    d = Path(directory) if directory is not None else cache_dir() / "kernels"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"k_{source_digest(source)[:16]}.py"
    if path.exists() and path.read_text() == source:
        return path
    return write_text(path, source)


def load_kernel_module(path: str | os.PathLike) -> ModuleType:
    """Import a generated kernel file as a fresh module (not put in ``sys.modules``).

    Whether its ``@triton.jit`` functions are interpreted or compiled depends
    on ``triton.knobs.runtime.interpret`` *at import time*.
    """
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"costfuse_kernel_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
