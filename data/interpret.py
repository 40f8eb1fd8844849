"""Run a lowered kernel on the CPU with Triton's interpreter.

This is how the lowering is checked without a GPU: the very source the GPU
would compile runs under ``TRITON_INTERPRET`` on torch CPU tensors (numpy
arrays are rejected by the interpreter), and its outputs are compared with
IREE's llvm-cpu run of the same generic.

Two things here are deliberate:

* **No process-wide ``TRITON_INTERPRET=1``.**  Triton reads the setting
  lazily through ``triton.knobs.runtime.interpret`` -- when ``@triton.jit``
  decorates a function and when it launches -- so we set the knob inside
  ``knobs.runtime.scope()`` only while importing and launching the kernel.
  Other code in the same process (the compile path, other tests) keeps
  compiling normally, and nothing has to be set before ``import triton``.
* **A fix for the interpreter's bf16 conversions.**  Triton 3.6's interpreter
  converts f32 -> bf16 by truncation and int/f64 -> bf16 with a raw numpy
  ``astype`` into bf16's uint16 storage (garbage), while the GPU rounds to
  nearest even.  Inside the scope we route every conversion to or from bf16
  through torch, which rounds like the GPU.  The kernel source is untouched.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np

from costfuse.data.kernel_files import load_kernel_module, write_kernel

_TL_TO_TORCH = {"fp64": "float64", "fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "int64": "int64",
                "int32": "int32", "int16": "int16", "int8": "int8", "int1": "bool"}


def _torch_cast(data: np.ndarray, src, dst) -> np.ndarray:
    import torch

    t = torch.from_numpy(np.array(data, order="C"))
    if str(src) == "bf16":
        t = t.view(torch.bfloat16)
    out = t.to(getattr(torch, _TL_TO_TORCH[str(dst)]))
    if str(dst) == "bf16":
        out = out.view(torch.uint16)
    return out.numpy()


@contextlib.contextmanager
def interpreter_mode():
    """Within the block, ``@triton.jit`` functions imported or launched are interpreted."""
    import triton
    from triton.runtime import interpreter as interp

    original = interp.InterpreterBuilder.cast_impl

    def cast_impl(self, src, dst_type):
        s, d = src.dtype.scalar, dst_type.scalar
        if (str(s) == "bf16") != (str(d) == "bf16"):
            return interp.TensorHandle(_torch_cast(src.data, s, d), d)
        return original(self, src, dst_type)

    with triton.knobs.runtime.scope():
        triton.knobs.runtime.interpret = True
        interp.InterpreterBuilder.cast_impl = cast_impl
        try:
            yield
        finally:
            interp.InterpreterBuilder.cast_impl = original


def to_torch(a: np.ndarray):
    """numpy (bf16 as ``ml_dtypes.bfloat16``) -> a contiguous torch CPU tensor."""
    import torch

    a = np.array(a, order="C")  # a copy; unlike ascontiguousarray it keeps 0-d arrays 0-d
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def to_numpy(t) -> np.ndarray:
    import torch

    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.uint16).numpy().view(ml_dtypes.bfloat16).copy()
    return t.numpy().copy()


def run_interpreted(source: str, args: list[np.ndarray], directory: str | Path | None = None) -> list[np.ndarray]:
    """Run a generated kernel file's ``launch`` under the interpreter.

    ``args`` are the generic's operands, inputs then outputs' initial values
    (the same arrays the IREE reference function takes).  Returns the final
    outputs as numpy arrays.  ``directory`` is where the kernel file is written
    (default: the CostFuse cache).
    """
    path = write_kernel(source, directory)
    tensors = [to_torch(a) for a in args]
    with interpreter_mode(), np.errstate(all="ignore"):  # GPUs do not warn about NaN/inf either
        module = load_kernel_module(path)
        n_out = len(module.OUTPUTS)
        if len(tensors) != len(module.INPUTS) + n_out:
            raise ValueError(f"kernel takes {len(module.INPUTS)} inputs + {n_out} outputs, got {len(tensors)} arrays")
        module.launch(*tensors)
    return [to_numpy(t) for t in tensors[len(tensors) - n_out:]]
