"""data.compile and data.ptxas_output: triton.compile for sm_80/90/100 on the CPU, ptxas -v labels,
timeouts, memory caps and the result cache."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from lowering_cases import Operand, generic_module, row_reduction

from costfuse.ir import parse_module
from costfuse.data.compile import (CompilePool, CompileResult, CompileTask, ResultCache, compile_kernel, kernel_id,
                                   parse_arch, ptxas_version, triton_version)
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.walk import generics_of
from costfuse.data.ptxas_output import CubinUsage, cubin_resource_usage, parse_ptxas_log

LOG_SM90 = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'kernel' for 'sm_90a'
ptxas info    : Function properties for kernel
    464 bytes stack frame, 456 bytes spill stores, 452 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers
ptxas info    : Compile time = 1514.112 ms
"""
LOG_SM100 = """ptxas-blackwell info    : 0 bytes gmem
ptxas-blackwell info    : Compiling entry function 'kernel' for 'sm_100a'
ptxas-blackwell info    : Function properties for kernel
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas-blackwell info    : Used 14 registers, used 1 barriers, 16 bytes smem
"""


def _kernel(text: str, config: LaunchConfig | None = None):
    module = parse_module(text)
    (g,) = generics_of(module)
    return lower_generic(g, config)


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


SMALL = row_reduction((64, 256), "f32", "arith.addf", ["%v = math.exp %a0 : f32"])


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
