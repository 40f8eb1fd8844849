"""Inductor's Triton kernels for sm_90, generated on a CPU, each with its candidate configs.

:func:`inductor_code` runs Inductor's own lowering, scheduling and Triton
codegen on a block, as ``torch.compile`` would on an sm_90 GPU, on a machine
with none (:func:`costfuse.data.inductor_device.fake_sm90`): the block is
traced with ``make_fx`` on fake CUDA tensors (Inductor's decomposition table,
then its post-grad passes), lowered by a ``GraphLowering`` and generated
into Inductor's output module, optionally under a choices handler (CostFuse's,
:mod:`costfuse.inductor`).  :func:`kernels_of` pulls each
``async_compile.triton(NAME, SOURCE)`` kernel out of that module and loads it
the way Inductor's runtime does, which builds its candidate configs
(:class:`InductorKernelSource`); :meth:`InductorKernelSource.compile_source`
is a file the compile pool (:mod:`costfuse.data.compile`) compiles at any of
them with Triton's own ptxas, cached like every other kernel
(docs/inductor.md, "The CPU harness").
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, field

from costfuse.inductor.configs import launch_of
from costfuse.launch import KernelLaunch, LaunchConfig

KERNEL_RE = re.compile(r"async_compile\.triton\('(\w+)', '''\n(.*?)''', device_str='cuda'\)", re.S)
HEURISTIC_RE = re.compile(r"@triton_heuristics\.(\w+)\(")
REDUCTION_HEURISTICS = ("reduction", "persistent_reduction")


@dataclass(frozen=True)
class Candidate:
    """One of Inductor's configs for a kernel: its block constexprs, warps and stages."""

    kwargs: tuple[tuple[str, int], ...]
    num_warps: int
    num_stages: int

    @classmethod
    def of(cls, config) -> "Candidate":
        """From a ``triton.Config``."""
        return cls(tuple(sorted((k, int(v)) for k, v in config.kwargs.items())), int(config.num_warps),
                   int(config.num_stages))


@dataclass
class InductorKernelSource:
    """One Triton kernel of Inductor's output: its name and source as Inductor wrote them, its heuristic
    (``reduction``, ``persistent_reduction``, ``pointwise``, ``fixed_config``, ...), rows (``xnumel``) and
    row length (``rnumel``, 1 when pointwise), Triton signature, constants and argument attributes, and
    Inductor's candidate configs (one for a ``fixed_config`` kernel)."""

    name: str
    source: str
    heuristic: str
    xnumel: int | None
    rnumel: int
    signature: dict
    constants: dict
    attrs: dict
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def reduction(self) -> bool:
        return "r0_numel" in self.signature or self.rnumel > 1

    @property
    def persistent(self) -> bool:
        """A persistent reduction: its row block is a constant of the body, not a parameter."""
        return self.reduction and "R0_BLOCK" not in self.signature

    def launch(self, c: Candidate) -> KernelLaunch:
        """The candidate as a :class:`costfuse.launch.KernelLaunch`."""
        return launch_of(dict(c.kwargs), c.num_warps, self.persistent, self.rnumel)

    def compile_config(self, launch: KernelLaunch) -> LaunchConfig:
        """The compile pool's config of ``launch`` (``RBLOCK`` fills ``R0_BLOCK``)."""
        return LaunchConfig(XBLOCK=launch.xblock, RBLOCK=launch.rblock if self.reduction else 1,
                            num_warps=launch.num_warps)

    def compile_source(self) -> str:
        """The kernel as a compile-pool file: Inductor's source without its runtime decorator (a
        ``CachingAutotuner`` needs a GPU), plus the names :mod:`costfuse.data.compile` reads."""
        src = self.source
        start = src.index("@triton_heuristics.")
        src = src[:start] + src[src.index("@triton.jit", start):]
        src = src.replace("triton_helpers.set_driver_to_gpu()\n", "")
        constants = {k: v for k, v in self.constants.items() if k in self.signature}
        return (f"{src}\n\nKERNEL_NAME = {self.name!r}\nSIGNATURE = {self.signature!r}\n"
                f"CONSTANTS = {constants!r}\nATTRS = {self.attrs!r}\nCONFIG_KEYS = {{'R0_BLOCK': 'RBLOCK'}}\n")


def lift_state(fn, inputs: list) -> tuple:
    """``(fn', inputs')``: a module with parameters or buffers as a function taking them first, then its
    inputs (a real parameter inside a trace on fake CUDA tensors is a CPU tensor Inductor refuses)."""
    import torch

    if not isinstance(fn, torch.nn.Module):
        return fn, inputs
    state = {**dict(fn.named_parameters()), **dict(fn.named_buffers())}
    if not state:
        return fn, inputs
    names = list(state)

    def stateless(*args):
        return torch.func.functional_call(fn, dict(zip(names, args[:len(names)])), args[len(names):])

    return stateless, [(tuple(t.shape), t.dtype) for t in state.values()] + list(inputs)


def trace(fn, inputs: list[tuple[tuple[int, ...], object]]):
    """``(graph module, fake inputs, fake mode)`` of ``fn`` on fake CUDA tensors of ``inputs`` ((shape,
    dtype) pairs), traced with Inductor's decompositions, then its post-grad passes where this torch has
    them.

    The trace runs twice: on fake CPU tensors first, where a block that calls ``torch.autograd.grad``
    can run its backward (autograd aborts the process on a CUDA tensor of a CPU-only torch), then the
    resulting graph of plain ATen ops, with every ``device=cpu`` argument made ``cuda``, on fake CUDA
    tensors.  Integer inputs are only shapes here.  A module's parameters and buffers become leading
    graph inputs (:func:`lift_state`), as ``torch.compile``'s AOTAutograd hands them to Inductor.
    A ``fn`` that fails in the first trace (its own forward refuses the inputs) raises
    :class:`costfuse.torch_import.TorchImportError` naming it and the inputs: a bad input, not a bug."""
    import torch
    from torch._inductor.decomposition import select_decomp_table
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    from costfuse.torch_import import TorchImportError, first_line

    lifted, lifted_inputs = lift_state(fn, inputs)
    try:
        with FakeTensorMode():
            cpu_args = [torch.empty(shape, dtype=dtype) for shape, dtype in lifted_inputs]
            cpu_graph = make_fx(lifted, decomposition_table=select_decomp_table(), tracing_mode="fake")(*cpu_args)
    except Exception as err:   # named only on failure: the dataset job traces every kernel through here
        name = type(fn).__name__ if isinstance(fn, torch.nn.Module) else getattr(fn, "__name__", repr(fn))
        given = ", ".join(f"{'x'.join(map(str, shape))} {str(dtype).removeprefix('torch.')}" for shape, dtype in inputs)
        raise TorchImportError(f"{name} does not run on inputs {given}: "
                               f"{type(err).__name__}: {first_line(err)}") from err
    for node in cpu_graph.graph.nodes:
        if isinstance(node.kwargs.get("device"), torch.device) and node.kwargs["device"].type == "cpu":
            node.kwargs = {**node.kwargs, "device": torch.device("cuda", 0)}
    cpu_graph.recompile()
    mode = FakeTensorMode()
    with mode:
        args = [torch.empty(shape, dtype=dtype, device="cuda") for shape, dtype in lifted_inputs]
    gm = make_fx(cpu_graph, tracing_mode="fake")(*args)
    with contextlib.suppress(ImportError):
        from torch._inductor.compile_fx import _recursive_post_grad_passes
        from torch._inductor.virtualized import V

        with V.set_fake_mode(mode), mode:
            _recursive_post_grad_passes(gm, is_inference=True)
    return gm, args, mode


def inductor_code(fn, inputs, choices=None, options: dict | None = None) -> str:
    """Inductor's output module for ``fn`` at ``inputs`` ((shape, dtype) pairs) on the faked sm_90, under
    the choices handler ``choices`` (default: Inductor's own) and ``torch._inductor.config`` ``options``."""
    from torch._inductor import config
    from torch._inductor.debug import DebugContext
    from torch._inductor.graph import GraphLowering
    from torch._inductor.virtualized import V

    from costfuse.data.inductor_device import fake_sm90
    from costfuse.inductor.compat import source_hook, x_dim_kept   # the handler's guards for this torch

    with fake_sm90():
        gm, args, mode = trace(fn, inputs)
        handler = V.set_choices_handler(choices) if choices is not None else contextlib.nullcontext()
        sources = source_hook(choices) if hasattr(choices, "file_source") else contextlib.nullcontext()
        x_dim = x_dim_kept() if choices is not None else contextlib.nullcontext()
        with handler, sources, x_dim, V.set_fake_mode(mode), config.patch(compile_threads=1, **(options or {})), DebugContext():
            graph = GraphLowering(gm, example_inputs=args)
            with V.set_graph_handler(graph):
                graph.run(*args)
                code = graph.codegen()
    code = code[0] if isinstance(code, tuple) else code
    return getattr(code, "value", code)


def kernels_of(code: str, directory: str | None = None) -> list[InductorKernelSource]:
    """Every Triton kernel of Inductor's output module ``code``, with the configs Inductor's runtime builds
    for it (loaded on the faked sm_90, in files under ``directory``)."""
    directory = directory or tempfile.mkdtemp(prefix="costfuse_inductor_")
    return [kernel_source(name, src, directory) for name, src in KERNEL_RE.findall(code)]


def kernel_source(name: str, src: str, directory: str | None = None) -> InductorKernelSource:
    """Kernel ``name`` of Inductor's source ``src`` (one kernel, with its runtime decorator, as
    :func:`kernels_of` finds it and dataset v3 stores it in ``triton_src``), loaded on the faked sm_90
    (in a file under ``directory``) for its Triton signature, constants and candidate configs."""
    from costfuse.data.inductor_device import fake_sm90
    from costfuse.data.kernel_files import load_kernel_module, write_kernel

    directory = directory or tempfile.mkdtemp(prefix="costfuse_inductor_")
    with fake_sm90():
        tuner = getattr(load_kernel_module(write_kernel(src, directory)), name)
        meta = tuner.triton_meta
        return InductorKernelSource(
            name=name, source=src, heuristic=HEURISTIC_RE.search(src).group(1), xnumel=_numel(src, "xnumel"),
            rnumel=_numel(src, "r0_numel") or 1, signature=dict(meta["signature"]),
            constants=dict(meta.get("constants", {})), attrs=dict(meta["configs"][0]),
            candidates=[Candidate.of(c) for c in tuner.configs])


def _numel(src: str, name: str) -> int | None:
    """A static ``xnumel``/``r0_numel``, as Inductor writes it at the top of the kernel body."""
    m = re.search(rf"^    {name} = (\d+)$", src, re.M)
    return int(m.group(1)) if m else None

