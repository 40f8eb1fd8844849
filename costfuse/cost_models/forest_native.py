"""The forest walk compiled from C (``forest_walk.c``), built on first use with the machine's C compiler.

NumPy walks every tree a level at a time, so each step of each walk costs a
gather per array: 15-25 µs per row for 300 depth-6 trees here, which made the
tree walk most of an Inductor decision (a cross-entropy backward kernel walks
~100 of its configs before one is predicted spill-free: 3-5 ms, against the
2 ms of issue #25).  The same walk in C costs 3-6 µs per row, and a call's
fixed cost falls from about 0.07 to 0.03 ms
(``experiments/results/bench_decisions.md``, "Prediction cost per call").
No new dependency: the source is compiled with ``$CC`` (default ``cc``),
which any machine that runs Triton kernels has (Triton builds its own launcher
with it), into ``$COSTFUSE_CACHE_DIR/forest/``, once per source and compiler,
written atomically so concurrent processes cannot clash; ``ctypes`` loads it
(a cached library that does not load is built again, once).

Where no compiler works, or ``COSTFUSE_NATIVE_FOREST=0``, :func:`native_walk`
returns ``None`` and the trees run in NumPy as before, with one warning that
says why.  ``tests/costfuse/cost_models/test_forest_native.py`` checks that
the two walks agree on every head of the shipped models.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

from costfuse.caches import cache_dir

SOURCE = Path(__file__).with_name("forest_walk.c")
DISABLE_ENV = "COSTFUSE_NATIVE_FOREST"   # "0": always NumPy
CC_FLAGS = ("-O2", "-shared", "-fPIC")
log = logging.getLogger(__name__)

_P = ctypes.c_void_p
_I = ctypes.c_int64
ARGTYPES = (_P, _I, _I, _P, _P, _P, _P, _P, _P, _I, _I, ctypes.c_double, _P)
"""``forest_margin``'s arguments: X, rows, cols, feature, threshold, children, default_left, value, roots, trees,
depth, offset, out (``forest_walk.c``)."""


@functools.cache
def native_walk():
    """``forest_margin`` from the compiled library, or ``None`` (then the trees run in NumPy) when it is
    disabled or cannot be built here; the reason is logged once."""
    if os.environ.get(DISABLE_ENV, "1") == "0":
        return None
    try:
        library = _load(build())
    except (OSError, subprocess.SubprocessError) as err:
        log.warning("the compiled forest walk is unavailable (%s); the trees run in NumPy, slower", err)
        return None
    walk = library.forest_margin
    walk.argtypes, walk.restype = ARGTYPES, None
    return walk


def _load(path: Path) -> ctypes.CDLL:
    """The library at ``path``; one that is there but does not load (a file damaged on disk, or one a
    cache shared with another machine holds) is built again once, not left to turn every later process
    to NumPy."""
    try:
        return ctypes.CDLL(str(path))
    except OSError as err:
        log.warning("the cached forest walk %s does not load (%s); building it again", path, err)
        path.unlink(missing_ok=True)
        return ctypes.CDLL(str(build()))


def build() -> Path:
    """The compiled library's path, compiling ``forest_walk.c`` first unless this source and compiler built
    it before.  Raises ``OSError`` (no compiler) or ``subprocess.SubprocessError`` (it failed)."""
    cc = os.environ.get("CC") or "cc"
    compiler = shutil.which(cc)
    if compiler is None:
        raise OSError(f"no C compiler {cc!r} on PATH")
    source = SOURCE.read_bytes()
    key = hashlib.sha256(source + f"{compiler}:{CC_FLAGS}:{platform.machine()}".encode()).hexdigest()[:16]
    target = cache_dir() / "forest" / f"forest_walk_{key}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        done = subprocess.run([compiler, *CC_FLAGS, "-o", tmp, str(SOURCE)], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            raise subprocess.SubprocessError(f"{cc} exited {done.returncode}: {done.stderr.strip()[:300]}")
        os.replace(tmp, target)   # atomic: another process sees no library or a whole one
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
