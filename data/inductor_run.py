"""Run Inductor's output module for sm_90 on a CPU, its Triton kernels under the interpreter.

The numerics check of the Inductor handler (issue #25, part 7): Inductor's
code at CostFuse's configs against eager torch at small sizes, with no GPU.
:func:`run_interpreted` writes the module and the inputs to a folder and runs
``python -m costfuse.data.inductor_run`` there with ``TRITON_INTERPRET=1``
set before Triton is imported, so Triton's and Inductor's own ``@jit``
library functions (``tl.sum``, ``triton_helpers.max2``) are interpreted too
(:mod:`costfuse.data.interpret` turns the interpreter on for one kernel, which
only works for kernels that call no such function).  Inside, :func:`run_module`
executes the module's wrapper with its CUDA pieces stood in for:

* every ``async_compile.triton(NAME, SOURCE)`` kernel becomes a
  :class:`InterpretedKernel`: the ``@triton.jit`` function without Inductor's
  runtime decorator, launched at the kernel's own config (its fixed config,
  else Inductor's first candidate), on a grid of ``ceil(numel / BLOCK)``
  programs per tiled dim, as Inductor's launcher computes it;
* ``empty_strided_cuda`` allocates on the CPU, the raw stream is 0, and
  ``torch.cuda``'s device guard does nothing.

It also turns on :func:`costfuse.data.interpret.interpreter_mode`'s bf16
conversions (the interpreter's own truncate) and lets a one-element tensor be
a loop bound (:func:`_one_element_index`).  Inputs and outputs travel as
``torch.save`` files.
"""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STAND_INS = {
    "from torch._C import _cuda_getCurrentRawStream as get_raw_stream":
        "get_raw_stream = lambda *args: 0",
    "empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda":
        "empty_strided_cuda = lambda size, stride, dtype: torch.empty_strided(size, stride, dtype=dtype)",
    "async_compile = AsyncCompile()": "async_compile = __costfuse_compile__",
}
"""Lines of Inductor's wrapper and what runs instead on a CPU."""


class InterpretedKernel:
    """One of Inductor's Triton kernels, launched under the interpreter by the wrapper's ``.run(...)``, at
    the first of the configs Inductor's runtime builds for it (the one, for a pinned kernel)."""

    def __init__(self, name: str, source: str, directory: str):
        from costfuse.data.inductor_device import fake_sm90
        from costfuse.data.kernel_files import load_kernel_module, write_kernel

        with fake_sm90():
            module = load_kernel_module(write_kernel(source, directory))
        module.libdevice = LIBDEVICE
        tuner = getattr(module, name)
        self.name, self.fn, self.config = name, tuner.fn, tuner.configs[0]
        self.grid_dims = 2 if tuner.inductor_meta.get("grid_type") == "Grid2D" else 1
        self.params = list(self.fn.arg_names)

    def run(self, *args, stream=None, **kwargs):
        blocks = {k: v for k, v in self.config.kwargs.items() if k in self.params}
        named = dict(zip(self.params, args))
        grid = [math.ceil(int(named.get(f"{p}numel", 1)) / blocks.get(f"{p.upper()}BLOCK", 1))
                for p in ("x", "y")[: self.grid_dims]]
        self.fn[tuple(grid)](*args, **blocks, num_warps=self.config.num_warps)


class _Libdevice:
    """CUDA's libdevice for interpreted kernels: Triton's interpreter runs no extern function (a libdevice
    call returns nothing there), so each one Inductor emits for the checked blocks is written with
    ``tl.math`` and ``tl`` ops, which the interpreter runs in NumPy.  Anything else raises, naming it."""

    def __getattr__(self, name: str):
        import triton.language as tl

        own = {
            "tanh": lambda x: 2.0 / (1.0 + tl.math.exp(-2.0 * x)) - 1.0,
            "pow": lambda x, y: tl.math.exp2(y * tl.math.log2(x)),
            "log1p": lambda x: tl.math.log(1.0 + x),
            "expm1": lambda x: tl.math.exp(x) - 1.0,
            "isinf": lambda x: tl.math.abs(x) == float("inf"),
            "isnan": lambda x: x != x,
            "trunc": lambda x: tl.where(x < 0, tl.math.ceil(x), tl.math.floor(x)),
        }
        if name in own:
            return own[name]
        if hasattr(tl.math, name):
            return getattr(tl.math, name)
        raise NotImplementedError(f"libdevice.{name} has no interpreter stand-in (costfuse.data.inductor_run)")


LIBDEVICE = _Libdevice()


class StandInCompile:
    """``async_compile`` of the wrapper: its kernels become :class:`InterpretedKernel`."""

    def __init__(self, directory: str):
        self.directory = directory

    def triton(self, name: str, source: str, device_str: str = "cuda"):
        return InterpretedKernel(name, source, self.directory)

    def wait(self, scope) -> None:
        return None


@contextlib.contextmanager
def _no_cuda_guard():
    import torch

    class Guard:
        def __init__(self, *args):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    saved = {name: getattr(torch.cuda, name) for name in ("_DeviceGuard", "set_device")}
    torch.cuda._DeviceGuard, torch.cuda.set_device = Guard, (lambda *args: None)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(torch.cuda, name, value)


@contextlib.contextmanager
def _one_element_index():
    """Let a one-element tensor be a Python index under the interpreter.  The interpreter holds a scalar
    kernel argument as a one-element array, and NumPy 2 refuses ``int()`` of one that is not 0-d, so a
    looped kernel's ``tl.range(0, r0_numel, R0_BLOCK)`` failed (``only 0-dimensional arrays can be
    converted``): Inductor's looped code, pinned or not, could not run here before."""
    from triton.runtime import interpreter as interp

    original = interp._patch_lang_tensor

    def patch(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    interp._patch_lang_tensor = patch
    try:
        yield
    finally:
        interp._patch_lang_tensor = original


def run_module(code: str, inputs: list, directory: str) -> tuple:
    """The outputs of Inductor's output module ``code`` on CPU tensors ``inputs`` (see the module docstring)."""
    from costfuse.data.interpret import interpreter_mode

    for line, stand_in in STAND_INS.items():
        code = code.replace(line, stand_in)
    scope = {"__name__": "costfuse_inductor_module", "__costfuse_compile__": StandInCompile(directory)}
    from torch._inductor.runtime import triton_helpers

    triton_helpers.libdevice = LIBDEVICE   # a fresh process of its own (run_interpreted): nothing to restore
    with interpreter_mode(), _no_cuda_guard(), _one_element_index():
        exec(compile(code, str(Path(directory) / "inductor_module.py"), "exec"), scope)
        return tuple(scope["call"](list(inputs)))


def run_interpreted(code: str, inputs: list, timeout_s: float = 600.0) -> tuple:
    """:func:`run_module` in a fresh process with ``TRITON_INTERPRET=1`` (see the module docstring)."""
    import torch

    with tempfile.TemporaryDirectory(prefix="costfuse_inductor_run_") as d:
        Path(d, "module.py").write_text(code)
        torch.save(list(inputs), Path(d, "inputs.pt"))
        env = {**os.environ, "TRITON_INTERPRET": "1"}
        done = subprocess.run([sys.executable, "-m", "costfuse.data.inductor_run", d], env=env, text=True,
                              capture_output=True, timeout=timeout_s)
        if done.returncode != 0:
            raise RuntimeError(f"interpreted run failed: {done.stderr.strip()[-3000:]}")
        return tuple(torch.load(Path(d, "outputs.pt")))


def _main(directory: str) -> int:
    import torch

    code = Path(directory, "module.py").read_text()
    inputs = torch.load(Path(directory, "inputs.pt"))
    torch.save(list(run_module(code, inputs, directory)), Path(directory, "outputs.pt"))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
