"""Compile labels: registers and spills of the cubin Triton would run (docs/design.md §3, §5).

``compile_kernel(src, config, arch)`` runs ``triton.compile`` for
``GPUTarget('cuda', arch, 32)`` on a CPU-only machine and reads Triton's *own*
``ptxas -v`` log (``knobs.nvidia.dump_ptxas_log``; parsed by
:mod:`data.ptxas_output`), so the numbers describe the very cubin that would be
loaded -- re-running ptxas with other flags gives slightly different ones.
This module is the machinery around the compiler: worker processes, the
pool that schedules them, the result cache and the ids it is keyed by.

Why the machinery:

* **Worker processes with a wall-clock timeout and a memory cap.**  A heavily
  spilling kernel can keep ptxas busy for minutes holding gigabytes (docs/design.md
  §5).  Each compile runs in a long-lived worker (spawned, its own session);
  the worker sets ``RLIMIT_AS``, which ptxas inherits, and the parent kills
  the worker's whole process group when the deadline passes, recording
  ``status="timeout"``.  Workers are plain subprocesses (not multiprocessing),
  so callers need no ``if __name__ == "__main__"`` guard.  Workers are reused between kernels because starting
  Python + Triton costs about as much as a typical compile.
* **Pointer arguments are specialised as 16-byte aligned** (``tt.divisibility``),
  as ``JITFunction`` does for every torch allocation; without it Triton emits
  scalar loads and the register counts would describe a kernel nobody runs.
* **A result cache keyed by kernel id** = SHA-256 of (source, config, arch,
  triton version, ptxas version).  The source embeds the generic's IR, so the
  id covers IR + config + arch + versions.  Timeouts are cached with their
  limit and retried under a longer one.

Statuses: ``ok``; ``error`` (the compiler failed; ``error`` holds its
message, starting with ``memory cap`` if the worker ran out of its address
space); ``timeout``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from costfuse.atomic import write_text
from costfuse.caches import cache_dir
from costfuse.data.kernel_files import source_digest, write_kernel
from costfuse.launch import LaunchConfig
from costfuse.data.ptxas_output import parse_ptxas_log
from costfuse.targets import get_target

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MEM_LIMIT_GB = 8.0
WORKER_START_TIMEOUT_S = 120.0
STATUSES = ("ok", "error", "timeout")
_PROJECT_ROOT = str(Path(__file__).resolve().parents[1])  # so workers import `data` from any cwd


# ---------------------------------------------------------------------------
# Results


@dataclass
class CompileResult:
    """Labels of one (kernel source, config, arch) compile.

    Sizes are bytes per thread (stack, spills) or per block (shared); ``regs``
    is registers per thread.  All label fields are ``None`` unless ``status ==
    "ok"``.  ``compile_s`` is the wall time of ``triton.compile`` in the worker
    (the limit, for a timeout).
    """

    kernel_id: str
    arch: str
    status: str
    regs: int | None = None
    spill_store_bytes: int | None = None
    spill_load_bytes: int | None = None
    stack_bytes: int | None = None
    shared_bytes: int | None = None
    compile_s: float = 0.0
    error: str | None = None
    triton_version: str = ""
    ptxas_version: str = ""
    ptxas_log: str = ""
    timeout_s: float | None = None
    cached: bool = False
    cubin: bytes | None = field(default=None, repr=False)

    @property
    def spill_bytes(self) -> int | None:
        if self.spill_store_bytes is None:
            return None
        return self.spill_store_bytes + (self.spill_load_bytes or 0)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("cubin")
        d.pop("cached")
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "CompileResult":
        known = {f for f in cls.__dataclass_fields__ if f not in ("cubin", "cached")}
        return cls(**{k: v for k, v in d.items() if k in known})


# ---------------------------------------------------------------------------
# Versions and ids


def parse_arch(arch: str | int) -> int:
    """``'sm_90'``, ``'sm_90a'``, ``'90'`` or ``90`` -> 90; ``ValueError`` for an arch :mod:`costfuse.targets`
    does not know, before anything is compiled or cached (``sm_42`` once crashed the worker and was cached as
    the kernel's label)."""
    return int(get_target(arch).arch.removeprefix("sm_"))


def arch_name(arch: str | int) -> str:
    return f"sm_{parse_arch(arch)}"


@lru_cache(maxsize=None)
def triton_version() -> str:
    import triton

    return triton.__version__


@lru_cache(maxsize=None)
def ptxas_path(arch: int) -> str:
    """The ptxas Triton itself runs for ``arch`` (``ptxas-blackwell`` from sm_100)."""
    import triton

    tool = triton.knobs.nvidia.ptxas_blackwell if arch >= 100 else triton.knobs.nvidia.ptxas
    return tool.path


@lru_cache(maxsize=None)
def ptxas_version(arch: int) -> str:
    """E.g. ``12.8.93`` from ``ptxas --version`` of the binary used for ``arch``."""
    import subprocess

    out = subprocess.run([ptxas_path(arch), "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1]


def kernel_id(source: str, config: LaunchConfig, arch: str | int) -> str:
    """Hash of source (which embeds the IR) + config + arch + triton/ptxas versions."""
    a = parse_arch(arch)
    key = json.dumps([source_digest(source), config.to_dict(), a, triton_version(), ptxas_version(a)], sort_keys=True)
    return source_digest(key)[:24]


# ---------------------------------------------------------------------------
# Cache


class ResultCache:
    """One JSON file per kernel id under ``<root>/compile/``."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else cache_dir() / "compile"

    def _path(self, kid: str) -> Path:
        return self.root / kid[:2] / f"{kid}.json"

    def get(self, kid: str, timeout_s: float) -> CompileResult | None:
        p = self._path(kid)
        try:
            res = CompileResult.from_dict(json.loads(p.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        if res.status == "timeout" and (res.timeout_s or 0) < timeout_s:
            return None  # a longer limit might finish
        res.cached = True
        return res

    def put(self, res: CompileResult) -> None:
        p = self._path(res.kernel_id)
        p.parent.mkdir(parents=True, exist_ok=True)
        write_text(p, json.dumps(res.to_dict()))


# ---------------------------------------------------------------------------
# Worker process


def _worker_main(conn, mem_limit_bytes: int | None, triton_cache: str, kernel_dir: str) -> None:
    """Loop: receive (source, config dict, arch, keep_cubin), compile, send a dict."""
    os.environ["TRITON_CACHE_DIR"] = triton_cache
    import contextlib
    import io
    import resource

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from costfuse.data.kernel_files import load_kernel_module

    triton.knobs.nvidia.dump_ptxas_log = True
    triton.knobs.compilation.always_compile = True  # the log only exists on a real compile
    if mem_limit_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit_bytes, mem_limit_bytes))
    conn.send({"ready": os.getpid()})
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        source, config, arch, keep_cubin = msg
        out: dict = {}
        buf = io.StringIO()
        t0 = time.perf_counter()
        try:
            module = load_kernel_module(write_kernel(source, kernel_dir))
            fn = getattr(module, module.KERNEL_NAME)
            sig = module.SIGNATURE
            # A kernel file may name its block constexprs otherwise (Inductor's R0_BLOCK is the config's
            # RBLOCK), fix constants, and bring its own argument attributes (costfuse.data.inductor_codegen).
            # A constant may be a constexpr no config names (Inductor's xnumel = 1 of a whole-tensor reduction).
            keys, constants = getattr(module, "CONFIG_KEYS", {}), getattr(module, "CONSTANTS", {})
            constexprs = {k: constants[k] if k in constants else config[keys.get(k, k)]
                          for k, v in sig.items() if v == "constexpr"}
            constexprs.update(constants)
            attrs = getattr(module, "ATTRS", None) or {
                (i,): [["tt.divisibility", 16]] for i, v in enumerate(sig.values()) if v.startswith("*")}
            with contextlib.redirect_stdout(buf):
                k = triton.compile(
                    ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs),
                    target=GPUTarget("cuda", arch, 32),
                    options={"num_warps": config["num_warps"], "num_stages": config["num_stages"]},
                )
            out["shared"] = int(k.metadata.shared)
            if keep_cubin:
                out["cubin"] = k.asm["cubin"]
            out["status"] = "ok"
        except MemoryError:
            out["status"], out["error"] = "error", "memory cap exceeded (MemoryError in the compiler)"
        except Exception as err:  # compiler errors of every kind become status="error"
            text = f"{type(err).__name__}: {err}"
            if "bad_alloc" in text or "out of memory" in text.lower():
                text = "memory cap exceeded: " + text
            out["status"], out["error"] = "error", text[:4000]
        out["compile_s"] = time.perf_counter() - t0
        out["log"] = buf.getvalue()
        conn.send(out)


def _worker_entry() -> None:
    """``python -c 'from costfuse.data.compile import _worker_entry; _worker_entry()' FD MEM CACHE KDIR``."""
    import socket
    from multiprocessing.connection import Connection

    fd, mem, triton_cache, kernel_dir = sys.argv[1:5]
    sock = socket.socket(fileno=int(fd))
    _worker_main(Connection(sock.detach()), int(mem) or None, triton_cache, kernel_dir)


class _Worker:
    """One compile worker: a plain subprocess (not multiprocessing, which would
    re-import the caller's ``__main__``) in its own session, talking over a
    socket pair, so the parent can kill it together with its ptxas."""

    def __init__(self, mem_limit_bytes, kernel_dir):
        import socket
        import subprocess
        import tempfile
        from multiprocessing.connection import Connection

        # Triton's own cache is write-only for us (always_compile), so each
        # worker gets a scratch one, removed with the worker.
        self.triton_cache = tempfile.mkdtemp(prefix="costfuse_triton_")
        parent, child = socket.socketpair()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PROJECT_ROOT, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from costfuse.data.compile import _worker_entry; _worker_entry()", str(child.fileno()),
             str(mem_limit_bytes or 0), self.triton_cache, kernel_dir],
            pass_fds=[child.fileno()], start_new_session=True, env=env, stdin=subprocess.DEVNULL)
        child.close()
        self.conn = Connection(parent.detach())
        self.ready = False
        self.task = None      # (index, deadline)

    def wait_ready(self) -> None:
        if self.ready:
            return
        try:
            if not self.conn.poll(WORKER_START_TIMEOUT_S):
                raise EOFError
            self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise RuntimeError(f"compile worker failed to start (exit code {self.proc.returncode}); "
                               "is the memory cap too small to import triton?") from None
        self.ready = True

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(timeout=30)
        self._cleanup()

    def stop(self) -> None:
        try:
            self.conn.send(None)
            self.proc.wait(timeout=5)
        except Exception:
            pass
        if self.proc.poll() is None:
            self.kill()
        else:
            self._cleanup()

    def _cleanup(self) -> None:
        import shutil

        self.conn.close()
        shutil.rmtree(self.triton_cache, ignore_errors=True)


@dataclass(frozen=True)
class CompileTask:
    source: str
    config: LaunchConfig
    arch: int


class CompilePool:
    """``jobs`` compile workers with a per-compile wall-clock ``timeout_s`` and
    a per-worker address-space cap ``mem_limit_gb``.  Use as a context
    manager; :meth:`run` compiles tasks in parallel, consulting the cache."""

    def __init__(self, jobs: int = 1, timeout_s: float = DEFAULT_TIMEOUT_S, mem_limit_gb: float | None = DEFAULT_MEM_LIMIT_GB,
                 cache: ResultCache | None | bool = True, keep_cubin: bool = False):
        if jobs < 1:
            raise ValueError("jobs must be >= 1")
        self.jobs = jobs
        self.timeout_s = float(timeout_s)
        self.mem_limit_bytes = int(mem_limit_gb * 2**30) if mem_limit_gb else None
        self.cache = ResultCache() if cache is True else (cache or None)
        self.keep_cubin = keep_cubin
        self._kernel_dir = str(cache_dir() / "kernels")
        self._workers: list[_Worker] = []

    def __enter__(self) -> "CompilePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self._workers:
            w.stop()
        self._workers = []

    def start(self) -> None:
        """Start all workers now and wait until they have imported Triton."""
        while len(self._workers) < self.jobs:
            self._workers.append(self._new_worker())
        for w in self._workers:
            w.wait_ready()

    def _new_worker(self) -> _Worker:
        return _Worker(self.mem_limit_bytes, self._kernel_dir)

    def _result(self, task: CompileTask, kid: str, status: str, **kw) -> CompileResult:
        return CompileResult(kernel_id=kid, arch=arch_name(task.arch), status=status, triton_version=triton_version(),
                             ptxas_version=ptxas_version(task.arch), timeout_s=self.timeout_s, **kw)

    def _from_worker(self, task: CompileTask, kid: str, out: dict) -> CompileResult:
        log = out.get("log", "")
        if out["status"] != "ok":
            return self._result(task, kid, "error", error=out.get("error"), compile_s=out["compile_s"], ptxas_log=log)
        try:
            stats = parse_ptxas_log(log)
        except ValueError as err:
            return self._result(task, kid, "error", error=f"unparsable ptxas log: {err}", compile_s=out["compile_s"],
                                ptxas_log=log)
        return self._result(task, kid, "ok", regs=stats.regs, spill_store_bytes=stats.spill_store_bytes,
                            spill_load_bytes=stats.spill_load_bytes, stack_bytes=stats.stack_bytes,
                            shared_bytes=stats.smem_bytes + out.get("shared", 0), compile_s=out["compile_s"],
                            ptxas_log=log, cubin=out.get("cubin"))

    def run(self, tasks: list[CompileTask], on_result=None) -> list[CompileResult]:
        """Compile every task; results in task order.  ``on_result(i, result)``
        is called as each finishes (for progress output)."""
        from multiprocessing.connection import wait

        results: list[CompileResult | None] = [None] * len(tasks)
        ids = [kernel_id(t.source, t.config, t.arch) for t in tasks]

        def finish(i: int, res: CompileResult) -> None:
            results[i] = res
            if self.cache is not None and not res.cached:
                self.cache.put(res)
            if on_result:
                on_result(i, res)

        pending = deque()
        for i, t in enumerate(tasks):
            hit = self.cache.get(ids[i], self.timeout_s) if self.cache is not None and not self.keep_cubin else None
            if hit is not None:
                finish(i, hit)
            else:
                pending.append(i)
        while len(self._workers) < min(self.jobs, len(pending)):
            self._workers.append(self._new_worker())
        while pending or any(w.task for w in self._workers):
            for w in self._workers:
                if w.task is None and pending:
                    i = pending.popleft()
                    w.wait_ready()
                    t = tasks[i]
                    w.conn.send((t.source, t.config.to_dict(), t.arch, self.keep_cubin))
                    w.task = (i, time.monotonic() + self.timeout_s)
            busy = [w for w in self._workers if w.task]
            nearest = min(w.task[1] for w in busy)
            ready = wait([w.conn for w in busy], timeout=max(0.0, nearest - time.monotonic()))
            for k, w in enumerate(self._workers):
                if w.task is None:
                    continue
                i, deadline = w.task
                if w.conn in ready:
                    try:
                        out = w.conn.recv()
                    except (EOFError, OSError):
                        code = w.proc.poll()
                        w.kill()
                        self._workers[k] = self._new_worker()
                        why = f"compile worker died (exit code {code})"
                        if self.mem_limit_bytes:
                            why = f"memory cap of {self.mem_limit_bytes / 2**30:g} GiB likely exceeded: {why}"
                        finish(i, self._result(tasks[i], ids[i], "error", error=why))
                        continue
                    w.task = None
                    finish(i, self._from_worker(tasks[i], ids[i], out))
                elif time.monotonic() >= deadline:
                    w.kill()
                    self._workers[k] = self._new_worker()
                    finish(i, self._result(tasks[i], ids[i], "timeout", compile_s=self.timeout_s,
                                           error=f"compile exceeded {self.timeout_s:g} s"))
        return results


def compile_kernel(src: str, config: LaunchConfig, arch: str | int = "sm_90", *, timeout_s: float = DEFAULT_TIMEOUT_S,
                   mem_limit_gb: float | None = DEFAULT_MEM_LIMIT_GB, cache: ResultCache | None | bool = True,
                   keep_cubin: bool = False) -> CompileResult:
    """Compile one generated kernel source for ``arch`` and return its labels.

    ``src`` is a kernel file text from :mod:`data.lowering` (it carries
    ``SIGNATURE``/``KERNEL_NAME``); ``config`` supplies the constexprs and
    ``num_warps``/``num_stages``.  Runs in a fresh worker process bounded by
    ``timeout_s`` and ``mem_limit_gb``; for many kernels use
    :class:`CompilePool`, which reuses workers.  ``keep_cubin`` returns the
    cubin bytes too (and bypasses the cache).
    """
    with CompilePool(1, timeout_s, mem_limit_gb, cache, keep_cubin) as pool:
        return pool.run([CompileTask(src, config, parse_arch(arch))])[0]
