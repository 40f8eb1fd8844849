"""A faked sm_90 GPU, so Inductor generates its CUDA Triton kernels on a machine with none.

Inductor decides what to generate from the device it sees: ``torch.cuda``'s
properties (SM count, registers, compute capability) and Triton's active
driver (the compile target).  :func:`fake_sm90` patches both for the length
of a ``with`` block and restores every patched attribute on exit, so the rest
of the process (and the test suite sharing it) keeps its real, GPU-less
torch:

* Triton's active driver becomes :class:`FakeDriver`: target
  ``GPUTarget("cuda", 90, 32)``, device 0, stream 0, and no benchmarker (a
  benchmark would need a GPU; it raises);
* ``torch.cuda`` and Dynamo's ``CudaInterface`` answer as one H100-class
  sm_90 device (:data:`SM90`: 132 SMs, 65,536 registers per SM, the figures
  ``costfuse/targets.py`` holds for sm_90).

Codegen only: nothing can run on this device.  Kernels compile with ptxas
through :mod:`costfuse.data.compile` (no driver needed there), or run under
the Triton interpreter on CPU tensors (:mod:`costfuse.data.inductor_run`).
The recipe and its checks: docs/inductor.md, "Inductor on a CPU".
"""

from __future__ import annotations

import contextlib
import types

from costfuse.targets import get_target

_T = get_target("sm_90")
SM90 = types.SimpleNamespace(
    name="NVIDIA H100 (faked by costfuse for codegen)", major=9, minor=0, multi_processor_count=_T.sms,
    regs_per_multiprocessor=_T.regs_per_sm, max_threads_per_multi_processor=2048, max_threads_per_block=1024,
    warp_size=32, total_memory=80 * 2**30, shared_memory_per_block_optin=232448, L2_cache_size=50 * 2**20,
    gcnArchName="", uuid="costfuse-fake-sm90")


class FakeDriver:
    """Triton's driver for a GPU that is not there: it names the target and refuses to benchmark."""

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 90, 32)

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, *args) -> int:
        return 0

    def get_device_interface(self):
        import torch

        return torch.cuda

    def get_benchmarker(self):
        raise RuntimeError("costfuse: the faked sm_90 device cannot benchmark (codegen only, no GPU)")


def _patches():
    """``(object, attribute, value)`` of every patch: the CUDA answers of torch and of Dynamo."""
    import torch
    from torch._dynamo import device_interface as di
    from torch._subclasses import fake_tensor

    cuda = di.CudaInterface
    always = staticmethod(lambda *a, **k: True)
    return [
        (cuda, "is_available", always),
        (cuda, "get_device_properties", staticmethod(lambda device=None: SM90)),
        (cuda, "get_compute_capability", staticmethod(lambda device=None: 90)),
        (cuda, "current_device", staticmethod(lambda: 0)),
        (cuda, "device_count", staticmethod(lambda: 1)),
        (cuda, "is_bf16_supported", always),
        (cuda, "is_triton_capable", always),
        (cuda, "raise_if_triton_unavailable", staticmethod(lambda device=None: None)),
        (torch.cuda, "get_device_properties", lambda device=None: SM90),
        (torch.cuda, "get_device_capability", lambda device=None: (9, 0)),
        (torch.cuda, "current_device", lambda: 0),
        (torch.cuda, "device_count", lambda: 1),
        (torch.cuda, "is_available", lambda: True),
        # torch 2.11 makes a real CUDA tensor when a fake one is first made on an available device
        (fake_tensor, "init_gpu_context", lambda device: None),
    ]


@contextlib.contextmanager
def fake_sm90():
    """Inside the block, Inductor sees one sm_90 GPU and Triton compiles for it (see the module docstring)."""
    from torch._inductor.runtime import triton_helpers
    from triton.runtime.driver import driver

    saved_driver = driver._active
    patches = _patches() + [(triton_helpers, "set_driver_to_gpu", lambda: None)]
    saved = [(obj, name, obj.__dict__[name] if name in obj.__dict__ else getattr(obj, name))
             for obj, name, _ in patches]
    try:
        driver.set_active(FakeDriver())
        for obj, name, value in patches:
            setattr(obj, name, value)
        yield SM90
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        driver._active = saved_driver
