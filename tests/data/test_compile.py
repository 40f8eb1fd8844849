"""data.compile and data.ptxas_output: triton.compile for sm_80/90/100 on the CPU, ptxas -v labels,
timeouts, memory caps and the result cache."""

from __future__ import annotations

import os
import re
import resource
import socket
import struct
import subprocess
import sys
import threading
import time
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest
import triton
from costfuse.data.compile import (
    CompilePool,
    CompileResult,
    CompileTask,
    ResultCache,
    _worker_entry,
    _worker_main,
    compile_kernel,
    kernel_id,
    parse_arch,
    ptxas_version,
    triton_version,
)
from costfuse.launch import LaunchConfig
from costfuse.data.ptxas_output import (
    EIATTR_FRAME_SIZE,
    EIATTR_REGCOUNT,
    CubinUsage,
    PtxasStats,
    cubin_resource_usage,
    parse_ptxas_log,
)
from helpers.compile_logs import LOG_SM90, LOG_SM100, SMALL, _kernel
from helpers.errors import one_line
from helpers.lowering_cases import Operand, generic_module
from triton.backends.compiler import GPUTarget


def spilling_kernel():
    """8 exp'd inputs whose 28 pairwise products are summed: with 64 elements
    per thread (XBLOCK 2048, 1 warp) this needs > 255 registers and spills ~450 B
    at sm_90 in about 2 s of compile time."""
    k, body, acc, n = 8, [], None, 0
    body += [f"%e{i} = math.exp %a{i} : f32" for i in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            n += 1
            body.append(f"%p{n} = arith.mulf %e{i}, %e{j} : f32")
            if acc:
                body.append(f"%s{n} = arith.addf {acc}, %p{n} : f32")
                acc = f"%s{n}"
            else:
                acc = f"%p{n}"
    body.append(f"yield {acc}")
    text = generic_module(1, ["parallel"], [Operand((1 << 16,), "f32", "d0")] * k,
                          [Operand((1 << 16,), "f32", "d0")], body)
    return _kernel(text, LaunchConfig(2048, 1, 1))


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory):
    """A private COSTFUSE_CACHE_DIR for this module (kernels, triton cache, results)."""
    root = tmp_path_factory.mktemp("costfuse_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COSTFUSE_CACHE_DIR", str(root))
        yield root


@pytest.fixture(scope="module")
def pool(cache_root):
    """One warm worker for the module; no result cache, so every call compiles."""
    with CompilePool(jobs=1, timeout_s=60, cache=False, keep_cubin=True) as p:
        yield p


# ---------------------------------------------------------------------------
# Pure functions


def test_parse_ptxas_log_sm90():
    s = parse_ptxas_log(LOG_SM90)
    assert (s.regs, s.stack_bytes, s.spill_store_bytes, s.spill_load_bytes, s.smem_bytes, s.gpu_name) == \
        (255, 464, 456, 452, 0, "sm_90a")


def test_parse_ptxas_log_blackwell_with_smem():
    s = parse_ptxas_log(LOG_SM100)
    assert (s.regs, s.smem_bytes, s.gpu_name) == (14, 16, "sm_100a")


def test_parse_ptxas_log_rejects_garbage():
    with pytest.raises(ValueError, match="Used N registers"):
        parse_ptxas_log("ptxas fatal   : something went wrong")
    with pytest.raises(ValueError, match="entry functions"):
        parse_ptxas_log(LOG_SM90 + LOG_SM90)


@pytest.mark.parametrize("arch, expected", [("sm_90", 90), ("sm_90a", 90), ("80", 80), (100, 100)])
def test_parse_arch(arch, expected):
    assert parse_arch(arch) == expected


@pytest.mark.parametrize("arch", ["hopper", "sm_42", 75])
def test_parse_arch_rejects_what_costfuse_targets_does_not_know(arch):
    """One check for every front door: costfuse.targets.get_target's (issue #27, bug 6)."""
    with pytest.raises(ValueError, match="unknown arch .*; known: sm_80, sm_90, sm_100"):
        parse_arch(arch)


def test_an_arch_that_cannot_be_targeted_is_refused_before_anything_is_cached(tmp_path):
    """sm_42 used to crash the worker, and the crash was cached as the kernel's label ("error (cached)")."""
    cache = ResultCache(tmp_path / "results")
    k = _kernel(SMALL)
    with CompilePool(jobs=1, timeout_s=60, cache=cache) as p:
        with pytest.raises(ValueError, match="unknown arch 42"):
            p.run([CompileTask(k.source, k.config, 42)])
        assert not p._workers, "no worker may start for a task that cannot be compiled"
    assert not (tmp_path / "results").exists()


def test_versions_are_recorded():
    assert triton_version() == "3.6.0"
    assert re.fullmatch(r"\d+\.\d+\.\d+", ptxas_version(90))
    assert ptxas_version(100) != "" and ptxas_version(80) == ptxas_version(90)


def test_kernel_id_covers_config_and_arch():
    k = _kernel(SMALL)
    ids = {kernel_id(k.source, k.config, 90), kernel_id(k.source, k.config, 80),
           kernel_id(k.source, LaunchConfig(1, 256, 2), 90)}
    assert len(ids) == 3 and kernel_id(k.source, k.config, "sm_90") == kernel_id(k.source, k.config, 90)


def test_result_round_trips_through_dict():
    r = CompileResult("abc", "sm_90", "ok", regs=32, spill_store_bytes=0, spill_load_bytes=0, stack_bytes=0,
                      shared_bytes=0, compile_s=0.4, triton_version="3.6.0", ptxas_version="12.8.93")
    assert CompileResult.from_dict(r.to_dict()) == r


# ---------------------------------------------------------------------------
# Real compiles (CPU only: triton.compile + bundled ptxas)


@pytest.mark.parametrize("arch", [90, 80, 100])
def test_compile_each_required_arch(pool, arch):
    k = _kernel(SMALL)
    (r,) = pool.run([CompileTask(k.source, k.config, arch)])
    assert r.status == "ok", r.error
    assert r.arch == f"sm_{arch}" and 8 <= r.regs <= 255
    assert r.spill_store_bytes == 0 and r.stack_bytes == 0
    assert r.shared_bytes >= 0 and r.compile_s > 0
    assert re.search(rf"for 'sm_{arch}a?'", r.ptxas_log) and r.ptxas_version == ptxas_version(arch)
    assert cubin_resource_usage(r.cubin) == {"kernel": CubinUsage(r.regs, r.stack_bytes)}  # the log's numbers


@pytest.fixture(scope="module")
def spilled(pool):
    """The compile result (with its cubin) of :func:`spilling_kernel` at sm_90."""
    k = spilling_kernel()
    (r,) = pool.run([CompileTask(k.source, k.config, 90)])
    assert r.status == "ok", r.error
    return r


def test_spills_are_reported_and_match_the_cubin(spilled):
    """Registers and stack parsed from the ptxas log are the ones the cubin itself records."""
    r = spilled
    assert r.regs == 255 and r.spill_store_bytes > 0 and r.spill_load_bytes > 0 and r.stack_bytes > 0
    assert cubin_resource_usage(r.cubin) == {"kernel": CubinUsage(r.regs, r.stack_bytes)}


def test_cubin_reader_agrees_with_cuobjdump(pool, spilled, tmp_path):
    """Our ELF reader against NVIDIA's own, which the pinned Triton wheel ships (so this never skips)."""
    import triton

    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    assert tool.is_file(), f"{tool}: missing; triton {triton.__version__} should ship cuobjdump"
    k = _kernel(SMALL)
    (small,) = pool.run([CompileTask(k.source, k.config, 90)])
    for i, r in enumerate((spilled, small)):
        cubin = tmp_path / f"k{i}.cubin"
        cubin.write_bytes(r.cubin)
        out = subprocess.run([str(tool), "--dump-resource-usage", str(cubin)], capture_output=True, text=True,
                             check=True).stdout
        found = {f: CubinUsage(int(regs), int(stack))
                 for f, regs, stack in re.findall(r"Function (\w+):\s+REG:(\d+) STACK:(\d+)", out)}
        assert found and found == cubin_resource_usage(r.cubin), out


def test_cubin_reader_rejects_what_is_not_a_cubin(spilled):
    with pytest.raises(ValueError, match="not a cubin"):
        cubin_resource_usage(b"#!/bin/sh\n")
    with pytest.raises(ValueError, match="malformed cubin"):
        cubin_resource_usage(spilled.cubin[:2000])


def test_compiler_error_becomes_status_error(pool):
    k = _kernel(SMALL)
    broken = k.source.replace("tl.program_id(0)", "tl.no_such_function(0)")
    (r,) = pool.run([CompileTask(broken, k.config, 90)])
    assert r.status == "error" and "no_such_function" in r.error and r.regs is None


def test_static_assert_guards_a_mismatched_config(pool):
    """A persistent kernel compiled with a too-small RBLOCK must fail, not silently drop elements."""
    k = _kernel(SMALL)
    (r,) = pool.run([CompileTask(k.source, LaunchConfig(1, 64, 2), 90)])
    assert r.status == "error" and ("static_assert" in r.error.lower() or "RBLOCK" in r.error)


def test_timeout_kills_the_compile_and_the_pool_recovers(cache_root):
    k = spilling_kernel()
    small = _kernel(SMALL)
    with CompilePool(jobs=1, timeout_s=0.3, cache=False) as p:
        p.start()
        slow, fast = p.run([CompileTask(k.source, k.config, 90), CompileTask(small.source, small.config, 90)])
    assert slow.status == "timeout" and slow.compile_s == pytest.approx(0.3)
    assert "0.3 s" in slow.error
    assert fast.status in ("ok", "timeout")  # the fresh worker may also be slow on a loaded machine


def test_memory_cap_becomes_an_error(cache_root):
    k = _kernel(SMALL)
    r = compile_kernel(k.source, k.config, "sm_90", mem_limit_gb=0.15, cache=False)
    assert r.status == "error" and "memory" in r.error.lower()


def test_cache_hits_and_timeouts_retry_under_longer_limits(cache_root, tmp_path):
    cache = ResultCache(tmp_path / "results")
    k = _kernel(SMALL)
    with CompilePool(jobs=1, timeout_s=60, cache=cache) as p:
        (first,) = p.run([CompileTask(k.source, k.config, 90)])
        (second,) = p.run([CompileTask(k.source, k.config, 90)])
    assert not first.cached and second.cached
    assert (second.regs, second.kernel_id) == (first.regs, first.kernel_id)
    timed_out = CompileResult(first.kernel_id, "sm_90", "timeout", timeout_s=1.0)
    cache.put(timed_out)
    assert cache.get(first.kernel_id, timeout_s=1.0).status == "timeout"
    assert cache.get(first.kernel_id, timeout_s=5.0) is None


def test_parallel_pool_matches_serial(cache_root):
    kernels = [_kernel(SMALL, c) for c in (None, LaunchConfig(2, 256, 4), LaunchConfig(1, 128, 2))]
    tasks = [CompileTask(k.source, k.config, 90) for k in kernels]
    with CompilePool(jobs=2, timeout_s=60, cache=False) as p:
        par = p.run(tasks)
    with CompilePool(jobs=1, timeout_s=60, cache=False) as p:
        ser = p.run(tasks)
    assert [(r.status, r.regs, r.spill_store_bytes) for r in par] == \
        [(r.status, r.regs, r.spill_store_bytes) for r in ser]


# ---------------------------------------------------------------------------
# The compile worker, the cubin reader and the pool's rare paths, in-process.  The worker
# (_worker_main, _worker_entry) only ever runs in a subprocess, where neither coverage nor mutmut sees
# it, so here it runs in a thread of the test process, on one end of a pipe (or of a socket pair named
# in sys.argv); triton.compile and resource.setrlimit are wrapped to record what the worker asks for,
# and the environment and Triton knobs it sets are restored afterwards.  The cubin reader runs on small
# hand-built ELF files (the signedness, skipping and messages real cubins never exercise); the pool's
# rare paths (a worker that dies, a compile that reaches its deadline) run against stub workers on
# pipes, with a fake clock where the deadline matters.

MEM = 3 << 30


class _WorkerThread(threading.Thread):
    """Runs ``target(*args)``, keeping what it raised; closes ``close`` (the worker's pipe end) when done."""

    def __init__(self, target, *args, close=None):
        super().__init__(daemon=True)
        self.target_, self.args_, self.close_, self.error = target, args, close, None

    def run(self):
        try:
            self.target_(*self.args_)
        except BaseException as err:  # noqa: BLE001 -- reported by the test, not by the thread
            self.error = err
        finally:
            if self.close_ is not None:
                self.close_.close()


def _reply(conn, thread: _WorkerThread, timeout: float = 120.0):
    """The worker's next message; fails at once if the worker ended without sending one."""
    deadline = time.monotonic() + timeout
    while not conn.poll(0.05):
        if not thread.is_alive() and not conn.poll():
            raise AssertionError(f"worker ended without replying ({thread.error!r})")
        assert time.monotonic() < deadline, "worker did not reply"
    return conn.recv()


def _finish(conn, thread: _WorkerThread) -> None:
    """Send the stop message and check the worker returned cleanly."""
    conn.send(None)
    thread.join(30)
    assert not thread.is_alive() and thread.error is None


def _spies(mp: pytest.MonkeyPatch) -> SimpleNamespace:
    """Record ``resource.setrlimit`` (not applied: it would cap this process) and ``triton.compile`` (applied)."""
    seen = SimpleNamespace(setrlimit=[], compile=[])
    real_compile = triton.compile

    def compile_spy(src, target=None, options=None):
        k = real_compile(src, target=target, options=options)
        seen.compile.append((src, target, options, k))
        return k

    mp.setattr(resource, "setrlimit", lambda *args: seen.setrlimit.append(args))
    mp.setattr(triton, "compile", compile_spy)
    return seen


BROKEN = _kernel(SMALL).source.replace("tl.program_id(0)", "tl.no_such_function(0)")
# A kernel file as Inductor's harness writes one (costfuse.data.inductor_codegen): its row block is R0_BLOCK,
# which the config calls RBLOCK (CONFIG_KEYS); a constexpr no config names is fixed (CONSTANTS); its own
# argument attributes (ATTRS: here the output pointer gets no alignment).
INDUCTOR_STYLE = (_kernel(SMALL).source
                  .replace("'RBLOCK': 'constexpr'}", "'R0_BLOCK': 'constexpr', 'xnumel': 'constexpr'}")
                  .replace("RBLOCK: tl.constexpr)", "R0_BLOCK: tl.constexpr, xnumel: tl.constexpr)")
                  .replace("RBLOCK >=", "R0_BLOCK >=").replace("tl.arange(0, RBLOCK)", "tl.arange(0, R0_BLOCK)")
                  .replace("xmask = xindex < 64", "xmask = xindex < xnumel")
                  + "\nCONFIG_KEYS = {'R0_BLOCK': 'RBLOCK'}\nCONSTANTS = {'xnumel': 64}\n"
                  "ATTRS = {(0,): [['tt.divisibility', 16]]}\n")
LONG = "x" * 5000
FAILING = {  # kernel file -> what the worker's `error` must say
    "memory": ("raise MemoryError", ("memory cap exceeded", "MemoryError")),
    "bad_alloc": ("raise RuntimeError('std::bad_alloc')", ("memory cap exceeded", "std::bad_alloc")),
    "oom": ("raise RuntimeError('CUDA: Out Of Memory')", ("memory cap exceeded", "CUDA: Out Of Memory")),
    "long": (f"raise RuntimeError('{LONG}')", ("RuntimeError: ", LONG[:100])),
}


@pytest.fixture
def session(tmp_path_factory):
    """One ``_worker_main`` session in a thread: a compile keeping the cubin (sm_90), one without (sm_80),
    a compiler error and the kernel files of :data:`FAILING`, then ``None``.  Returns the replies, each
    compile's wall time seen from here, and what the worker left set or asked for.

    One session per test, not per module: mutmut maps a function to the tests during which it was
    entered, and ``_worker_main`` is entered once per session, so a shared session would leave every
    test but the first out of its mutants' runs."""
    tmp = tmp_path_factory.mktemp("worker")
    k = _kernel(SMALL)
    messages = {"cubin": (k.source, k.config.to_dict(), 90, True), "plain": (k.source, k.config.to_dict(), 80, False),
                "broken": (BROKEN, k.config.to_dict(), 90, True),
                "inductor": (INDUCTOR_STYLE, k.config.to_dict(), 90, False),
                **{name: (src, k.config.to_dict(), 90, False) for name, (src, _) in FAILING.items()}}
    out = SimpleNamespace(tmp=tmp, replies={}, wall={})
    with pytest.MonkeyPatch.context() as mp, triton.knobs.nvidia.scope(), triton.knobs.compilation.scope():
        mp.setenv("COSTFUSE_CACHE_DIR", str(tmp / "costfuse"))
        mp.delenv("TRITON_CACHE_DIR", raising=False)
        out.seen = _spies(mp)
        parent, child = Pipe()
        thread = _WorkerThread(_worker_main, child, MEM, str(tmp / "triton"), str(tmp / "kernels"), close=child)
        thread.start()
        out.ready = _reply(parent, thread)
        for name, msg in messages.items():
            t0 = time.perf_counter()
            parent.send(msg)
            out.replies[name] = _reply(parent, thread)
            out.wall[name] = time.perf_counter() - t0
        _finish(parent, thread)
        out.env = os.environ.get("TRITON_CACHE_DIR")
        out.knobs = (triton.knobs.nvidia.dump_ptxas_log, triton.knobs.compilation.always_compile)
    return out


def test_worker_says_ready_with_its_pid_after_setting_up(session):
    assert session.ready == {"ready": os.getpid()}
    assert session.env == str(session.tmp / "triton")
    assert session.knobs == (True, True)  # the ptxas log, and a real compile even on a cache hit
    assert session.seen.setrlimit == [(resource.RLIMIT_AS, (MEM, MEM))]


def test_worker_replies_to_a_compile_with_its_cubin_and_ptxas_log(session):
    r = session.replies["cubin"]
    (_, _, _, compiled), *_ = session.seen.compile
    assert sorted(r) == ["compile_s", "cubin", "log", "shared", "status"]
    assert r["status"] == "ok" and r["shared"] == int(compiled.metadata.shared) > 0
    assert r["cubin"] == compiled.asm["cubin"] and r["cubin"][:4] == b"\x7fELF"
    stats = parse_ptxas_log(r["log"])
    assert stats.gpu_name == "sm_90a" and "Used" in r["log"]
    assert cubin_resource_usage(r["cubin"]) == {"kernel": CubinUsage(stats.regs, stats.stack_bytes)}
    assert 0 < r["compile_s"] <= session.wall["cubin"]


def test_worker_reply_without_keep_cubin_has_no_cubin(session):
    r = session.replies["plain"]
    assert sorted(r) == ["compile_s", "log", "shared", "status"] and r["status"] == "ok"
    assert parse_ptxas_log(r["log"]).gpu_name == "sm_80"
    assert 0 < r["compile_s"] <= session.wall["plain"]


def test_worker_compiles_the_kernel_file_with_aligned_pointers_and_the_config(session):
    """The kernel's constexprs come from the config, its pointers are 16-byte aligned, the target is the arch."""
    k = _kernel(SMALL)
    assert [(src.name, target, options) for src, target, options, _ in session.seen.compile] == [
        ("kernel", GPUTarget("cuda", arch, 32), {"num_warps": k.config.num_warps, "num_stages": k.config.num_stages})
        for arch in (90, 80)] + [("kernel", GPUTarget("cuda", 90, 32), {"num_warps": k.config.num_warps,
                                                                         "num_stages": k.config.num_stages})]
    for src, *_ in session.seen.compile[:2]:
        assert src.signature == {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "XBLOCK": "constexpr", "RBLOCK": "constexpr"}
        assert src.constants == {(2,): k.config.XBLOCK, (3,): k.config.RBLOCK}
        assert src.attrs == {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}


def test_worker_compiles_an_inductor_kernel_file_with_its_own_block_names_constants_and_attributes(session):
    """CONFIG_KEYS maps the file's R0_BLOCK to the config's RBLOCK, CONSTANTS fixes xnumel, ATTRS replaces
    the default alignment of every pointer."""
    k = _kernel(SMALL)
    assert session.replies["inductor"]["status"] == "ok", session.replies["inductor"].get("error")
    src = session.seen.compile[2][0]
    assert src.signature == {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "XBLOCK": "constexpr",
                             "R0_BLOCK": "constexpr", "xnumel": "constexpr"}
    assert src.constants == {(2,): k.config.XBLOCK, (3,): k.config.RBLOCK, (4,): 64}
    assert src.attrs == {(0,): [["tt.divisibility", 16]]}


def test_worker_writes_kernel_files_to_its_kernel_dir(session):
    written = {p.read_text() for p in (session.tmp / "kernels").glob("k_*.py")}
    assert _kernel(SMALL).source in written and BROKEN in written


def test_worker_reports_a_compiler_error(session):
    r = session.replies["broken"]
    assert sorted(r) == ["compile_s", "error", "log", "status"] and r["status"] == "error"
    assert r["error"].startswith("CompilationError: ") and "no_such_function" in r["error"]
    assert r["log"] == "" and 0 < r["compile_s"] <= session.wall["broken"]


@pytest.mark.parametrize("name", FAILING)
def test_a_failing_compile_names_a_memory_failure_as_such_and_is_cut_at_4000_characters(session, name):
    """A memory failure is named as such (MemoryError, bad_alloc, 'out of memory' in any case), with the
    compiler's own words; any error text is cut at 4000 characters."""
    r = session.replies[name]
    assert sorted(r) == ["compile_s", "error", "log", "status"] and (r["status"], r["log"]) == ("error", "")
    assert all(p in r["error"] for p in FAILING[name][1]) and len(r["error"]) <= 4000, r["error"][:200]
    assert r["error"].startswith("memory cap exceeded") == (name != "long")   # the diagnosis comes first
    if name == "long":
        assert len(r["error"]) == 4000
    assert 0 < r["compile_s"] <= session.wall[name]


def test_worker_returns_when_the_parent_goes_away(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", "unchanged")
    parent, child = Pipe()
    with triton.knobs.nvidia.scope(), triton.knobs.compilation.scope():
        thread = _WorkerThread(_worker_main, child, None, str(tmp_path / "triton"), str(tmp_path / "k"), close=child)
        thread.start()
        assert _reply(parent, thread) == {"ready": os.getpid()}
        parent.close()
        thread.join(30)
    assert not thread.is_alive() and thread.error is None


@pytest.mark.parametrize("extra", [[], ["trailing"]], ids=["four-args", "trailing-arg"])
def test_worker_entry_serves_the_socket_named_in_argv(tmp_path, monkeypatch, extra):
    """``python -c ... FD MEM CACHE KDIR``: the worker talks on FD, caps memory at MEM, uses CACHE and KDIR."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "costfuse"))
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    seen = _spies(monkeypatch)
    parent, child = socket.socketpair()
    parent = Connection(parent.detach())
    monkeypatch.setattr(sys, "argv", ["-c", str(child.detach()), str(MEM), str(tmp_path / "triton"),
                                      str(tmp_path / "kernels"), *extra])
    with triton.knobs.nvidia.scope(), triton.knobs.compilation.scope():
        thread = _WorkerThread(_worker_entry)
        thread.start()
        assert _reply(parent, thread) == {"ready": os.getpid()}
        parent.send(("raise RuntimeError('boom')", {}, 90, False))
        assert _reply(parent, thread)["error"] == "RuntimeError: boom"
        assert os.environ["TRITON_CACHE_DIR"] == str(tmp_path / "triton")
        _finish(parent, thread)
    parent.close()
    assert seen.setrlimit == [(resource.RLIMIT_AS, (MEM, MEM))]
    assert [p.read_text() for p in (tmp_path / "kernels").glob("k_*.py")] == ["raise RuntimeError('boom')"]


def test_parse_ptxas_log_needs_both_lines_and_quotes_the_log_tail():
    tail = "x" * 2000
    log = "ptxas info    : Used 12 registers\n" + "y" * 100 + tail  # no 'bytes stack frame' line
    with pytest.raises(ValueError) as err:
        parse_ptxas_log(log)
    reason, quoted = str(err.value).split("\n", 1)
    assert "'Used N registers'" in reason and "'bytes stack frame'" in reason
    assert quoted == tail                                   # the log's last 2000 characters, no more


def test_parse_ptxas_log_without_an_entry_line_has_no_gpu_name():
    log = "\n".join(line for line in LOG_SM90.splitlines() if "Compiling entry" not in line)
    assert parse_ptxas_log(log) == PtxasStats(255, 464, 456, 452, 0, "")


def _pool_and_task():
    k = _kernel(SMALL)
    return CompilePool(cache=False), CompileTask(k.source, k.config, 90)


def test_worker_error_reply_becomes_an_error_result():
    pool, task = _pool_and_task()
    r = pool._from_worker(task, "kid", {"status": "error", "error": "boom", "compile_s": 0.5, "log": "printed"})
    assert (r.kernel_id, r.arch, r.status, r.error, r.compile_s, r.ptxas_log, r.regs) == \
        ("kid", "sm_90", "error", "boom", 0.5, "printed", None)


def test_unparsable_ptxas_log_becomes_an_error_result():
    pool, task = _pool_and_task()
    r = pool._from_worker(task, "kid", {"status": "ok", "shared": 0, "compile_s": 0.5, "log": "garbage"})
    assert (r.kernel_id, r.arch, r.status, r.compile_s, r.ptxas_log, r.regs) == \
        ("kid", "sm_90", "error", 0.5, "garbage", None)
    assert r.error.startswith("unparsable ptxas log: ptxas log has no 'Used N registers'")


def test_ok_reply_adds_the_compilers_shared_memory_to_the_logs():
    pool, task = _pool_and_task()
    r = pool._from_worker(task, "kid", {"status": "ok", "shared": 128, "compile_s": 0.5, "log": LOG_SM100})
    assert (r.status, r.regs, r.shared_bytes, r.compile_s, r.ptxas_log) == ("ok", 14, 16 + 128, 0.5, LOG_SM100)


def _worker_processes() -> set[int]:
    """The compile worker processes this process has running, read from /proc: what a pool really started."""
    found = set()
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and b"_worker_entry" in (proc / "cmdline").read_bytes():
                found.add(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue                                         # not a process, or it just ended
    return found


def test_a_pool_runs_one_worker_process_per_job_and_closing_it_ends_them(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    others = _worker_processes()                             # another test's pool may still be up
    with CompilePool(jobs=2, cache=False) as pool:
        pool.start()
        workers = _worker_processes() - others
        assert len(workers) == 2
        pool.start()                                         # started already: no more workers
        assert _worker_processes() - others == workers
    assert not workers & _worker_processes()


def test_result_cache_files_live_under_root_by_id_prefix(tmp_path, monkeypatch):
    """``<root>/<first two id characters>/<id>.json``; the default root is ``$COSTFUSE_CACHE_DIR/compile``."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "costfuse"))
    r = CompileResult("abcdef", "sm_90", "ok", regs=32)
    ResultCache(tmp_path / "mine").put(r)
    ResultCache().put(r)
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.json")) == \
        ["costfuse/compile/ab/abcdef.json", "mine/ab/abcdef.json"]


def test_result_cache_retries_a_timeout_without_a_recorded_limit(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put(CompileResult("abcdef", "sm_90", "timeout", timeout_s=None))
    assert cache.get("abcdef", timeout_s=0.5) is None


def test_compile_kernel_defaults_to_sm_90_and_the_shared_cache(tmp_path, monkeypatch):
    """With no arch, cache or keep_cubin given, a result cached for sm_90 is returned without compiling."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    k = _kernel(SMALL)
    kid = kernel_id(k.source, k.config, 90)
    ResultCache().put(CompileResult(kid, "sm_90", "ok", regs=7, spill_store_bytes=0, stack_bytes=0))
    r = compile_kernel(k.source, k.config)
    assert (r.cached, r.kernel_id, r.regs, r.cubin) == (True, kid, 7, None)


def test_compile_kernel_keep_cubin_compiles_despite_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    cache = ResultCache(tmp_path / "results")
    k = _kernel(SMALL)
    cache.put(CompileResult(kernel_id(k.source, k.config, 90), "sm_90", "ok", regs=7))
    r = compile_kernel(k.source, k.config, "sm_90", cache=cache, keep_cubin=True)
    assert r.status == "ok" and not r.cached and r.regs != 7
    assert cubin_resource_usage(r.cubin) == {"kernel": CubinUsage(r.regs, r.stack_bytes)}


def test_result_from_dict_ignores_cubin_and_cached():
    r = CompileResult("abc", "sm_90", "ok", regs=32)
    assert CompileResult.from_dict({**r.to_dict(), "cubin": b"\x7fELF", "cached": True}) == r

EIFMT_HVAL, EIFMT_SVAL = 3, 4
SECTIONS = (b".shstrtab", b".strtab", b".symtab", b".nv.info")  # indices 1..4 after the null section
NSEC = len(SECTIONS) + 1


def _attr(attr: int, sym: int, value: int) -> bytes:
    """An .nv.info entry with a symbol index and a value (how REGCOUNT and FRAME_SIZE are stored)."""
    return struct.pack("<BBHII", EIFMT_SVAL, attr, 8, sym, value)


def _sval(attr: int, payload: bytes) -> bytes:
    return struct.pack("<BBH", EIFMT_SVAL, attr, len(payload)) + payload


def _cubin(info: bytes, *, st_name: int = 1, names: tuple[bytes, ...] = SECTIONS) -> bytes:
    """A little-endian ELF64 file with a null section, then .shstrtab, .strtab, .symtab (symbol 1 is
    ``kernel``) and .nv.info holding ``info``; the section headers come last."""
    shstrtab = b"\0" + b"\0".join(names) + b"\0"
    strtab = b"\0kernel\0"
    symtab = bytes(24) + struct.pack("<I", st_name) + bytes(20)
    body, headers = b"", [bytes(64)]
    for i, (data, link, entsize) in enumerate([(shstrtab, 0, 0), (strtab, 0, 0), (symtab, 2, 24), (info, 0, 0)]):
        headers.append(struct.pack("<IIQQQQIIQQ", shstrtab.index(b"\0" + names[i] + b"\0") + 1, 0, 0, 0,
                                   64 + len(body), len(data), link, 0, 0, entsize))
        body += data
    elf = bytearray(64)
    elf[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<Q", elf, 0x28, 64 + len(body))
    struct.pack_into("<HHH", elf, 0x3A, 64, NSEC, 1)
    return bytes(elf) + body + b"".join(headers)


def _patched(cubin: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(cubin)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


USAGE = _attr(EIATTR_REGCOUNT, 1, 40) + _attr(EIATTR_FRAME_SIZE, 1, 16)


def test_hand_built_cubin_reads_back():
    assert cubin_resource_usage(_cubin(USAGE)) == {"kernel": CubinUsage(40, 16)}


def test_cubin_reader_skips_other_attributes_whole():
    """Only 8-byte EIFMT_SVAL REGCOUNT/FRAME_SIZE entries count; other entries are skipped by their own
    size (EIFMT_SVAL) or as 4 bytes (the rest), even when their payload looks like a REGCOUNT entry."""
    info = (struct.pack("<BBH", EIFMT_HVAL, 0x1B, 0x100) + USAGE
            + _sval(0x0A, _attr(EIATTR_REGCOUNT, 1, 999)) + _attr(0x12, 1, 777))
    assert cubin_resource_usage(_cubin(info)) == {"kernel": CubinUsage(40, 16)}


def test_cubin_reader_skips_an_attribute_of_32_kib():
    """Attribute sizes are unsigned 16-bit: a 0x8000-byte payload is skipped, not stepped back into."""
    payload = bytearray(0x8000)
    payload[15:19] = struct.pack("<BBH", EIFMT_SVAL, 0x0A, 0x7FFF)
    payload[28:40] = _attr(EIATTR_REGCOUNT, 1, 999)
    payload[40:44] = struct.pack("<BBH", EIFMT_SVAL, 0x0A, 0x7FFF)
    assert cubin_resource_usage(_cubin(USAGE + _sval(0x0A, bytes(payload)))) == {"kernel": CubinUsage(40, 16)}


def test_cubin_reader_reads_values_unsigned():
    info = _attr(EIATTR_REGCOUNT, 1, 40) + _attr(EIATTR_FRAME_SIZE, 1, 2**31 + 16)
    assert cubin_resource_usage(_cubin(info)) == {"kernel": CubinUsage(40, 2**31 + 16)}


def test_cubin_reader_says_what_is_wrong_with_a_file_that_is_no_usable_cubin():
    with pytest.raises(ValueError, match=r"^not a cubin: .*little-endian ELF64"):
        cubin_resource_usage(b"\x7fELF\x02\x02" + bytes(58))  # big-endian
    with pytest.raises(ValueError, match=r"^malformed cubin: KeyError: '\.nv\.info'$"):
        cubin_resource_usage(_cubin(USAGE, names=SECTIONS[:3] + (b".nv.other",)))
    with pytest.raises(ValueError, match=r"^cubin \.nv\.info .*symbol 1 only regs"):
        cubin_resource_usage(_cubin(_attr(EIATTR_REGCOUNT, 1, 40)))
    with pytest.raises(ValueError, match=r"^cubin \.nv\.info .*no EIATTR_REGCOUNT"):
        cubin_resource_usage(_cubin(_attr(0x12, 1, 5)))


def _section_header(cubin: bytes, index: int) -> int:
    return struct.unpack_from("<Q", cubin, 0x28)[0] + 64 * index


@pytest.mark.parametrize("field", ["shstrndx", "symtab_link"])
def test_cubin_reader_refuses_out_of_range_section_indices(field):
    """Indices are unsigned: 2**16 - 4 is not section -4 (.shstrtab), 2**32 - 3 is not section -3 (.strtab)."""
    cubin = _cubin(USAGE)
    if field == "shstrndx":
        cubin = _patched(cubin, 0x3E, "<H", 2**16 - (NSEC - 1))
    else:
        cubin = _patched(cubin, _section_header(cubin, 3) + 40, "<I", 2**32 - (NSEC - 2))
    with pytest.raises(ValueError, match=r"^malformed cubin: IndexError: "):
        cubin_resource_usage(cubin)


def test_cubin_reader_refuses_a_symbol_name_past_the_string_table():
    """st_name is unsigned: 2**32 - 7 is not 7 bytes before the end of .strtab (which spells 'kernel')."""
    with pytest.raises(ValueError, match=r"^malformed cubin: symbol 1: ValueError: subsection not found$"):
        cubin_resource_usage(_cubin(USAGE, st_name=2**32 - 7))


def test_cubin_reader_refuses_a_symbol_past_the_symbol_table():
    info = _attr(EIATTR_REGCOUNT, 5, 40) + _attr(EIATTR_FRAME_SIZE, 5, 16)   # .symtab holds symbols 0 and 1
    with pytest.raises(ValueError, match=r"^malformed cubin: symbol 5: error: unpack_from requires"):
        cubin_resource_usage(_cubin(info))


HUGE_SHOFF = 2**64 - 64 * NSEC  # -(the header table's size) if read signed: the real headers, from the end


def test_cubin_reader_raises_valueerror_for_a_section_table_offset_past_2_63():
    with pytest.raises(ValueError, match="malformed cubin"):
        cubin_resource_usage(_patched(_cubin(USAGE), 0x28, "<Q", HUGE_SHOFF))


TRUNCATED = USAGE + struct.pack("<BBH", EIFMT_SVAL, EIATTR_REGCOUNT, 8)  # the header of a 4th entry, no payload


def test_cubin_reader_raises_valueerror_for_a_truncated_last_attribute():
    with pytest.raises(ValueError, match="malformed cubin: error: "):
        cubin_resource_usage(_cubin(TRUNCATED))


class _Proc:
    """A worker process that has (``alive=False``) or has not exited when asked to stop."""

    def __init__(self, alive: bool):
        self.pid, self.alive, self.waits = 1 << 22, alive, []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        return 0

    def poll(self):
        return None if self.alive else 0


def _popen_calls(monkeypatch, tmp_path, alive=False) -> list:
    """Record every worker ``Popen`` (args, kwargs) instead of starting a process."""
    import subprocess
    import tempfile

    calls = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **kw: calls.append((a, kw)) or _Proc(alive))
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # the worker's scratch Triton cache lands here
    return calls


def _worker(monkeypatch, tmp_path, mem, alive=False):
    from costfuse.data import compile as comp

    calls = _popen_calls(monkeypatch, tmp_path, alive)
    return comp._Worker(mem, "/kernels"), calls


def test_a_worker_runs_the_entry_with_the_project_on_its_path_and_no_stdin(monkeypatch, tmp_path):
    import subprocess

    from costfuse.data import compile as comp

    w, [(args, kw)] = _worker(monkeypatch, tmp_path, None)
    assert os.path.basename(w.triton_cache).startswith("costfuse_triton_")
    argv = args[0]
    assert argv[:3] == [sys.executable, "-c", "from costfuse.data.compile import _worker_entry; _worker_entry()"]
    assert argv[4:] == ["0", w.triton_cache, "/kernels"]          # no memory cap: 0
    assert kw["env"]["PYTHONPATH"] == os.pathsep.join([comp._PROJECT_ROOT, "/elsewhere"])
    assert kw["stdin"] is subprocess.DEVNULL and kw["start_new_session"] is True
    w._cleanup()
    assert not os.path.exists(w.triton_cache)
    w._cleanup()   # again (a killed worker is cleaned up twice): the cache is gone, and that is fine


def test_a_stopped_worker_that_exits_is_only_cleaned_up(monkeypatch, tmp_path):
    w, _ = _worker(monkeypatch, tmp_path, 2 << 30)
    sent = []
    w.conn = SimpleNamespace(send=sent.append, close=lambda: sent.append("closed"))
    killed = []
    monkeypatch.setattr(os, "killpg", lambda pid, sig: killed.append(pid))
    w.stop()
    assert sent[0] is None and "closed" in sent and not killed   # asked to stop, it did: nothing to kill
    assert w.proc.waits and None not in w.proc.waits            # never waits without a limit
    assert not os.path.exists(w.triton_cache)


def test_a_stopped_worker_still_running_is_killed(monkeypatch, tmp_path):
    w, _ = _worker(monkeypatch, tmp_path, None, alive=True)
    w.conn = SimpleNamespace(send=lambda m: None, close=lambda: None)
    killed = []
    monkeypatch.setattr(os, "killpg", lambda pid, sig: killed.append(pid))
    w.stop()
    assert killed == [w.proc.pid]                               # its whole process group, ptxas included
    assert w.proc.waits and None not in w.proc.waits            # never waits without a limit
    assert not os.path.exists(w.triton_cache)


def test_a_pool_defaults_to_one_worker_and_the_shared_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    pool = CompilePool()
    assert pool.jobs == 1 and isinstance(pool.cache, ResultCache) and pool.keep_cubin is False
    assert CompilePool(cache=False).cache is None
    with pytest.raises(ValueError, match="^jobs must be >= 1$"):
        CompilePool(jobs=0)


def test_closing_a_pool_twice_is_harmless(monkeypatch, tmp_path):
    """close() stops the workers and leaves an empty pool: the ``with`` block's exit may close it again."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    stopped = []
    pool = CompilePool(cache=False)
    pool._workers = [SimpleNamespace(stop=lambda: stopped.append(1))]
    pool.close()
    pool.close()
    assert stopped == [1] and pool._workers == []


def test_a_worker_that_never_says_ready_is_killed_after_the_start_timeout(monkeypatch, tmp_path):
    """The parent waits WORKER_START_TIMEOUT_S for the worker's hello, not forever, then kills it and says why."""
    from costfuse.data import compile as comp

    w, _ = _worker(monkeypatch, tmp_path, None, alive=True)
    waited = []
    w.conn = SimpleNamespace(poll=lambda timeout: waited.append(timeout) or False, close=lambda: None)
    w.proc.returncode = -9
    killed = []
    monkeypatch.setattr(os, "killpg", lambda pid, sig: killed.append(pid))
    with pytest.raises(RuntimeError) as err:
        w.wait_ready()
    one_line(err, "compile worker failed to start", "exit code -9", "memory cap")
    assert str(err.value).endswith("; is the memory cap too small to import triton?")   # the likely cause, last
    assert err.value.__cause__ is None and err.value.__suppress_context__
    assert waited == [comp.WORKER_START_TIMEOUT_S] and killed == [w.proc.pid] and not w.ready
    assert not os.path.exists(w.triton_cache)


@pytest.mark.parametrize("mem_limit_gb, argv_mem",
                         [(None, "0"), (0, "0"), (1.5, str(3 << 29)), ("default", str(8 << 30))])
def test_a_pools_workers_get_its_memory_cap_and_the_shared_kernel_dir(monkeypatch, tmp_path, mem_limit_gb, argv_mem):
    """Each worker is told its address-space cap in bytes (0: none, for ``None`` or 0 GiB; 8 GiB by default)
    and writes kernel files to ``$COSTFUSE_CACHE_DIR/kernels``."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "costfuse"))
    calls = _popen_calls(monkeypatch, tmp_path)
    kw = {} if mem_limit_gb == "default" else {"mem_limit_gb": mem_limit_gb}
    pool = CompilePool(cache=False, **kw)
    w = pool._new_worker()
    [(args, _)] = calls
    assert args[0][4:] == [argv_mem, w.triton_cache, str(tmp_path / "costfuse" / "kernels")]
    w._cleanup()


def test_a_run_served_from_the_cache_starts_no_worker_and_reports_each_result(tmp_path, monkeypatch):
    """Cached results (a timeout too, when its limit was at least the pool's) come back in task order, each
    passed to ``on_result(i, result)``; with nothing left to compile no worker process is started."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path))
    k = _kernel(SMALL)
    tasks = [CompileTask(k.source, k.config, 90), CompileTask(k.source, k.config, 80)]
    cache = ResultCache(tmp_path / "results")
    cache.put(CompileResult(kernel_id(k.source, k.config, 90), "sm_90", "ok", regs=7))
    cache.put(CompileResult(kernel_id(k.source, k.config, 80), "sm_80", "timeout", timeout_s=60.0))
    pool = CompilePool(jobs=2, timeout_s=30, cache=cache)
    started, reported = _popen_calls(monkeypatch, tmp_path), []
    with pool:
        results = pool.run(tasks, on_result=lambda i, r: reported.append((i, r)))
    assert [(r.arch, r.status, r.regs, r.timeout_s, r.cached) for r in results] == \
        [("sm_90", "ok", 7, None, True), ("sm_80", "timeout", None, 60.0, True)]
    assert reported == list(enumerate(results)) and started == []


SHIPPED = Path(__file__).resolve().parents[2] / "data" / "sm90_v1"


def test_kernel_id_reproduces_the_shipped_datasets_ids(monkeypatch):
    """A row's ``kernel_id`` is the id of its own source, launch config, arch and versions: 24 hex digits
    of the SHA-256 of the key, the config's keys sorted, so the cache and the dataset name a kernel alike
    whatever order ``LaunchConfig.to_dict`` lists its fields in."""
    from costfuse.data import compile as comp

    shard = sorted(SHIPPED.glob("*.parquet"))[0]
    rows = pq.read_table(shard, columns=["kernel_id", "triton_src", "xblock", "rblock", "num_warps", "arch",
                                         "triton_version", "ptxas_version"]).to_pylist()
    assert any(r["rblock"] > 1 for r in rows) and any(r["rblock"] == 1 for r in rows)  # both kinds of config
    for r in rows:
        monkeypatch.setattr(comp, "triton_version", lambda r=r: r["triton_version"])
        monkeypatch.setattr(comp, "ptxas_version", lambda arch, r=r: r["ptxas_version"])
        kid = kernel_id(r["triton_src"], LaunchConfig(r["xblock"], r["rblock"], r["num_warps"]), r["arch"])
        assert kid == r["kernel_id"] and len(kid) == 24


DIE, HANG = "die", "hang"
OK_REPLY = {"status": "ok", "shared": 0, "compile_s": 0.25, "log": LOG_SM90}


class _StubConn:
    """The parent's end of a stub worker's pipe.  Sending a task makes the worker answer at once, as
    ``answers[source]`` says: a reply dict, :data:`DIE` (its end closes: the parent reads EOF) or
    :data:`HANG` (nothing comes)."""

    def __init__(self, answers: dict, events: list):
        self._near, self._far = Pipe()
        self.answers, self.events = answers, events

    def fileno(self):
        return self._near.fileno()

    def recv(self):
        return self._near.recv()

    def send(self, msg):
        source = msg[0]
        self.events.append(("sent", source))
        answer = self.answers[source]
        if answer == DIE:
            self._far.close()
        elif answer != HANG:
            self._far.send(answer)


class _StubWorker:
    """A ``_Worker`` without a process: ready at once, its exit code -9 (killed, as by the OOM killer)."""

    def __init__(self, answers: dict, events: list):
        self.conn, self.task, self.events = _StubConn(answers, events), None, events
        self.proc = SimpleNamespace(poll=lambda: -9)

    def wait_ready(self):
        pass

    def kill(self):
        self.events.append(("killed", self))

    def stop(self):
        pass


def _stub_pool(monkeypatch, answers: dict, **kw):
    """A pool whose workers are :class:`_StubWorker`; returns it, the events list and the workers started."""
    events, started = [], []
    pool = CompilePool(**kw)
    monkeypatch.setattr(pool, "_new_worker", lambda: started.append(_StubWorker(answers, events)) or started[-1])
    return pool, events, started


def _provenance(timeout_s: float) -> dict:
    """The toolchain and limit every result of a pool records, for sm_90."""
    return {"arch": "sm_90", "triton_version": triton.__version__, "ptxas_version": ptxas_version(90),
            "timeout_s": timeout_s}


@pytest.mark.parametrize("mem_limit_gb, error", [
    (1.5, "memory cap of 1.5 GiB likely exceeded: compile worker died (exit code -9)"),
    (None, "compile worker died (exit code -9)"),
], ids=["capped", "uncapped"])
def test_a_worker_that_dies_gives_an_error_result_and_is_replaced(monkeypatch, mem_limit_gb, error):
    """A worker that dies mid-compile yields ``status="error"`` naming its exit code (and, under a memory cap,
    the cap in GiB first: the likely cause); it is killed and a fresh worker compiles the next task."""
    pool, events, started = _stub_pool(monkeypatch, {"dies": DIE, "fine": OK_REPLY},
                                       jobs=1, timeout_s=30, mem_limit_gb=mem_limit_gb, cache=False)
    tasks = [CompileTask("dies", LaunchConfig(64), 90), CompileTask("fine", LaunchConfig(64), 90)]
    reported = []
    died, fine = pool.run(tasks, on_result=lambda i, r: reported.append((i, r)))
    assert died == CompileResult(kernel_id("dies", LaunchConfig(64), 90), status="error", error=error,
                                 **_provenance(30.0))
    assert (fine.kernel_id, fine.status, fine.regs) == (kernel_id("fine", LaunchConfig(64), 90), "ok", 255)
    assert reported == [(0, died), (1, fine)]
    assert len(started) == 2 and events == [("sent", "dies"), ("killed", started[0]), ("sent", "fine")]


def test_a_dead_worker_does_not_hold_back_the_replies_already_in(monkeypatch):
    """Every reply that has arrived is reported in the same sweep as a worker's death, before more work is
    handed out: progress (``on_result``) never lags behind finished compiles."""
    answers = {"dies": DIE, "first": OK_REPLY, "next": OK_REPLY}
    pool, events, started = _stub_pool(monkeypatch, answers, jobs=2, timeout_s=30, cache=False)
    tasks = [CompileTask(src, LaunchConfig(64), 90) for src in answers]
    results = pool.run(tasks, on_result=lambda i, r: events.append(("result", i)))
    assert [r.status for r in results] == ["error", "ok", "ok"]
    assert events == [("sent", "dies"), ("sent", "first"), ("killed", started[0]), ("result", 0), ("result", 1),
                      ("sent", "next"), ("result", 2)]


def test_a_compile_at_its_deadline_times_out_without_waiting_longer(monkeypatch, tmp_path):
    """The pool waits for replies only until the nearest deadline, and a compile still running when its
    deadline comes is a timeout: the worker is killed, and the result (limit and id recorded) is cached
    so that a pool with the same limit does not retry it but one with a longer limit does."""
    import multiprocessing.connection

    from costfuse.data import compile as comp

    ticks = iter([0.0, 4.5, 5.0])   # task sent (deadline 5 s later), the wait's timeout, the deadline check

    def clock():
        t = next(ticks, None)
        assert t is not None, "the pool kept waiting after the deadline"
        return t

    waits, real_wait = [], multiprocessing.connection.wait
    monkeypatch.setattr(comp, "time", SimpleNamespace(monotonic=clock))
    monkeypatch.setattr(multiprocessing.connection, "wait",
                        lambda conns, timeout: waits.append(timeout) or real_wait(conns, 0))
    cache = ResultCache(tmp_path)
    pool, events, started = _stub_pool(monkeypatch, {"slow": HANG}, jobs=1, timeout_s=5, cache=cache)
    kid = kernel_id("slow", LaunchConfig(64), 90)
    [r] = pool.run([CompileTask("slow", LaunchConfig(64), 90)])
    assert r == CompileResult(kid, status="timeout", compile_s=5.0, error="compile exceeded 5 s", **_provenance(5.0))
    assert waits == [0.5] and events == [("sent", "slow"), ("killed", started[0])] and len(started) == 2
    assert cache.get(kid, timeout_s=5.0).status == "timeout" and cache.get(kid, timeout_s=5.5) is None
