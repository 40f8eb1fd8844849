"""PyTorch -> Linalg on tensors, without torch-mlir (docs/design.md §5).

The path is ``torch.export.export`` -> a few graph rewrites for ops the
torch-mlir backend shipped in IREE cannot legalize -> IREE's ``FxImporter``
(``import_frozen_program``) -> the pipelines
``torchdynamo-export-to-torch-backend-pipeline`` and
``torch-backend-to-linalg-on-tensors-backend-pipeline``.

Weights: ``import_frozen_program`` freezes parameters and buffers into the
module as constants, so the function's arguments are exactly the model's
inputs -- what :func:`costfuse.reference.run_mlir` wants: the oracle runs the
exported text directly, with no weight files.  We inline them as
``dense<"0x...">`` rather than the importer's default ``dense_resource`` blobs
(:func:`_inline_weights_hooks`), because IREE 3.13 cannot compile bf16
``dense_resource`` constants, and because a module without a resource trailer
stays self-contained when tools cut ops out of it.  Hex prints about 2 bytes
of text per byte of weights, so keep example dims small.

Graph rewrites (:func:`legalize_exported_program`) work around ops that
torch-mlir's Linalg backend, as shipped in IREE, leaves unlegalized:
``aten.squeeze.dims`` (-> ``aten.view``) and a tuple-unpacked
``aten.unbind.int`` (-> ``aten.select`` per item).  We do *not* call
``ExportedProgram.run_decompositions()``: the backend pipeline decomposes what
it needs itself, and core-ATen decomposition is what turns ``squeeze.dim``
into ``squeeze.dims`` in every ``nn.TransformerEncoderLayer`` variant (torch
2.13), not just norm_first/gelu as first noted in docs/design.md §5.  One
more rewrite is numerical, not a legalization: a f16/bf16 ``aten.layer_norm``
runs in f32 (:func:`_layer_norm_in_float`), as in torch, where the backend
would keep its statistics in the input's dtype.

Training graphs (``--make-fx``): a forward that calls ``torch.autograd.grad``
or ``torch.func.vjp`` cannot go through ``torch.export``, so
:func:`trace_with_make_fx` traces it with ``make_fx`` first and the resulting
``GraphModule`` is exported as above (docs/design.md §5), after the rewrites
Inductor makes to the same graph: the one-hot scatter as a ``where``
(:func:`scatter_into_fill_as_where`) and uniform fills as ``full`` with dead
code dropped (:func:`uniform_fills_as_full`).  Without ``--make-fx``,
such a forward is refused in one line that says to use it (:func:`_autograd_calls`
sees the call; torch's own message blames torch).  Integer inputs, such as
cross-entropy labels, are ``--shape 2048:i64``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import NamedTuple

from costfuse.cli_common import ArgumentParser, run_command, write_output

PIPELINE = (
    "builtin.module("
    "torchdynamo-export-to-torch-backend-pipeline,"
    "torch-backend-to-linalg-on-tensors-backend-pipeline)"
)

DTYPES = ("f32", "f16", "bf16", "f64")
INT_DTYPES = ("i64", "i32")  # for inputs only (--shape 2048:i64): the module itself is cast to a float --dtype


class TorchImportError(Exception):
    """A module could not be exported or lowered to Linalg; the message says which step and why."""


# ---------------------------------------------------------------------------
# Graph rewrites on the exported program


def _static_shape(node) -> list[int] | None:
    val = node.meta.get("val")
    shape = getattr(val, "shape", None)
    if shape is None or not all(isinstance(d, int) for d in shape):
        return None
    return [int(d) for d in shape]


def _squeeze_dims_as_view(graph, node) -> bool:
    """``aten.squeeze.dims`` has no torch-mlir lowering here; a view to the known output shape does."""
    import torch

    shape = _static_shape(node)
    if shape is None:
        return False
    with graph.inserting_before(node):
        view = graph.call_function(torch.ops.aten.view.default, (node.args[0], shape))
    view.meta = dict(node.meta)
    node.replace_all_uses_with(view)
    graph.erase_node(node)
    return True


def _unbind_as_selects(graph, node) -> bool:
    """``q, k, v = t.unbind(0)`` (tuple-unpacking a tensor) leaves a tensor list the backend
    cannot legalize (``torch.constant.int`` survives); one ``aten.select`` per item does."""
    import operator

    import torch

    users = list(node.users)
    if not all(u.op == "call_function" and u.target is operator.getitem for u in users):
        return False
    x = node.args[0]
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    for user in users:
        with graph.inserting_before(user):
            select = graph.call_function(torch.ops.aten.select.int, (x, dim, user.args[1]))
        select.meta = dict(user.meta)
        user.replace_all_uses_with(select)
        graph.erase_node(user)
    graph.erase_node(node)
    return True


def _layer_norm_in_float(graph, node) -> bool:
    """A f16/bf16 ``layer_norm(x, shape, w, b, eps)`` as ``layer_norm(x in f32, shape) * w + b``, cast back.

    torch-mlir's lowering of ``native_layer_norm`` computes the mean and the
    variance in the input's dtype, so a bf16 LayerNorm would sum its rows in
    bf16.  torch does not: its decomposition (``native_layer_norm`` in
    torch/_refs/__init__.py, through ``_normalize``) normalizes in the
    computation dtype, f32, then applies the weight and the bias there (the
    f32 x bf16 product promotes) and casts back; its CUDA kernel and Inductor
    do the same.  This is that decomposition, with the f32 normalization left
    to the backend as for f32 inputs.  (``run_decompositions`` with torch's
    rule would do too, but it leaves ``prims.var``, which torch-mlir
    accumulates in f64.)
    """
    import torch

    aten = torch.ops.aten
    val = node.meta.get("val")
    if val is None or val.dtype not in (torch.float16, torch.bfloat16):
        return False
    x, shape, weight, bias = (list(node.args) + [None] * 4)[:4]
    eps = node.args[4] if len(node.args) > 4 else node.kwargs.get("eps", 1e-5)

    def call(target, *args, **kwargs):
        new = graph.call_function(target, args, kwargs)
        fake = [a.meta["val"] if isinstance(a, torch.fx.Node) else a for a in args]
        # the importer types each value by ``tensor_meta`` first, then by its fake tensor: give it the new one
        new.meta = {**{k: v for k, v in node.meta.items() if k != "tensor_meta"}, "val": target(*fake, **kwargs)}
        return new

    with graph.inserting_before(node):
        out = call(aten.layer_norm.default, call(aten._to_copy.default, x, dtype=torch.float32), shape, None, None, eps)
        if weight is not None:
            out = call(aten.mul.Tensor, out, weight)
        if bias is not None:
            out = call(aten.add.Tensor, out, bias)
        out = call(aten._to_copy.default, out, dtype=val.dtype)
    node.replace_all_uses_with(out)
    graph.erase_node(node)
    return True


def _graph_rewrites() -> dict[object, Callable]:
    """ATen overload -> rewrite(graph, node) returning whether it rewrote.  Add pitfalls here."""
    import torch

    return {
        torch.ops.aten.squeeze.dims: _squeeze_dims_as_view,
        torch.ops.aten.unbind.int: _unbind_as_selects,
        torch.ops.aten.layer_norm.default: _layer_norm_in_float,
    }


def legalize_exported_program(program) -> int:
    """Rewrite, in place, the ops of ``program`` the Linalg backend cannot lower; return how many."""
    rewrites = _graph_rewrites()
    graph = program.graph_module.graph
    count = 0
    for node in list(graph.nodes):
        rewrite = rewrites.get(node.target) if node.op == "call_function" else None
        if rewrite is not None and rewrite(graph, node):
            count += 1
    if count:
        graph.lint()
        program.graph_module.recompile()
    return count


# ---------------------------------------------------------------------------
# Export and lower


def _inline_weights_hooks():
    """An ``FxImporterHooks`` that freezes tensors as ``dense<...>`` (see the module docstring)."""
    import numpy as np
    import torch
    from iree.compiler import ir
    from iree.compiler.extras.fx_importer import TORCH_DTYPE_TO_MLIR_TYPE, FxImporterHooks

    # Same-width integer views: DenseElementsAttr.get(type=...) reinterprets them bit for bit,
    # which is how bf16 (unknown to numpy) gets in exactly.
    storage = {1: (torch.uint8, np.uint8), 2: (torch.int16, np.uint16), 4: (torch.int32, np.uint32), 8: (torch.int64, np.uint64)}

    class _InlineWeights(FxImporterHooks):
        def resolve_literal(self, gni, literal, info):
            if (
                not isinstance(literal, torch.Tensor)
                or isinstance(literal, torch._subclasses.FakeTensor)
                or literal.is_meta
                or literal.layout != torch.strided
                or literal.numel() <= 1  # the default path makes these splats already
                or literal.dtype not in TORCH_DTYPE_TO_MLIR_TYPE
                or literal.element_size() not in storage
            ):
                return None
            as_int, np_int = storage[literal.element_size()]
            bits = literal.detach().cpu().contiguous().view(as_int).numpy().view(np_int)
            attr = ir.DenseElementsAttr.get(bits, type=TORCH_DTYPE_TO_MLIR_TYPE[literal.dtype]())
            vtensor = gni._cc.tensor_to_vtensor_type(literal)  # the hook API hands us no public type builder
            return ir.Operation.create("torch.vtensor.literal", results=[vtensor], attributes={"value": attr}).result

    return _InlineWeights()


def first_line(err: BaseException) -> str:
    """The first line of ``err``'s message (its type's name when it has none), for one-line errors."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def trace_with_make_fx(module, example_inputs: tuple):
    """``make_fx`` of ``module`` on fake tensors with the core-ATen decompositions: a ``GraphModule`` that exports.

    ``torch.export`` cannot trace ``torch.autograd.grad``/``torch.func.vjp``
    (a training graph's backward); ``make_fx`` can.  The decompositions are
    needed because the Linalg backend has no lowering for the composite ops
    autograd emits (``native_layer_norm_backward``, ``nll_loss_backward``)
    nor for ``nll_loss_forward``.  Their decompositions scatter into a
    constant fill, which :func:`scatter_into_fill_as_where` turns pointwise.
    """
    import torch
    from torch._decomp import core_aten_decompositions
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        with torch.enable_grad():
            traced = make_fx(module, decomposition_table=core_aten_decompositions(), tracing_mode="fake")(*example_inputs)
    except Exception as err:  # make_fx raises whatever the traced code raises
        raise TorchImportError(
            f"make_fx failed for {type(module).__name__}: {type(err).__name__}: {first_line(err)}"
        ) from err
    scatter_into_fill_as_where(traced)
    uniform_fills_as_full(traced)
    return traced


def uniform_fills_as_full(gm) -> int:
    """Rewrite, in place, ``full_like(x, value)`` of a static shape as ``full(shape, value)``, then drop dead code.

    The fill depends on ``x``'s shape and dtype only, but as an FX use it keeps
    ``x`` and everything that computes it alive.  Autograd's backward of a mean
    loss starts from ``full_like(loss, 1)``, so without this rewrite the
    backward graph still computes the forward loss: for cross-entropy, a gather
    of the whole log-softmax at the labels, which forces that (rows, vocab)
    tensor into memory.  Inductor does the same before it fuses anything
    (``constant_fold_uniform_value`` in torch/_inductor/fx_passes/joint_graph.py,
    torch 2.13, run by ``joint_graph_passes``: a uniform tensor becomes an
    ``aten.full``, and dead nodes go), so its cross-entropy backward has no
    gather kernel (docs/peers.md).  Returns how many fills it rewrote.
    """
    import torch

    aten = torch.ops.aten
    graph, count = gm.graph, 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.full_like.default:
            continue
        like, value = node.args[0], node.args[1]
        shape, val = _static_shape(like), like.meta.get("val")
        if shape is None or val is None or not isinstance(value, (int, float, bool)):
            continue
        kwargs = {"dtype": node.kwargs.get("dtype") or val.dtype, "device": node.kwargs.get("device") or val.device}
        with graph.inserting_before(node):
            full = graph.call_function(aten.full.default, (shape, value), kwargs)
        full.meta = dict(node.meta)
        node.replace_all_uses_with(full)
        graph.erase_node(node)
        count += 1
    return _recompiled(gm, count, dead_code=True)


def _recompiled(gm, count: int, dead_code: bool = False) -> int:
    """After ``count`` rewrites of ``gm``'s graph: drop dead code if asked, check it, regenerate its code."""
    if count:
        if dead_code:
            gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
    return count


def scatter_into_fill_as_where(gm) -> int:
    """Rewrite, in place, ``scatter(fill, dim, index, value)`` with one index per row as ``where(index == iota, value, fill)``.

    The core-ATen ``nll_loss_backward`` builds cross-entropy's one-hot this
    way; lowered as is it becomes a ``tm_tensor.scatter`` (not upstream MLIR,
    and a wall in the middle of the row group).  This is Inductor's
    ``scatter_upon_const_tensor`` (torch/_inductor/fx_passes/joint_graph.py,
    torch 2.13), with the same conditions: the scattered value is a scalar, the
    base a ``full``/``full_like``, and ``index`` has size 1 along ``dim`` and
    the base's size elsewhere, and the same result: the fill's value is a
    scalar of the ``where``, so the lowered kernel reads no (rows, vocab)
    tensor of zeros (left to the backend, the ``full`` becomes such a
    ``dense<0.0>`` constant, read like any input).  Returns how many it
    rewrote.
    """
    import torch

    aten = torch.ops.aten
    fills = (aten.full.default, aten.full_like.default)  # what core-ATen makes of zeros/zeros_like/full
    graph, count = gm.graph, 0
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten.scatter.value:
            continue
        base, dim, index, value = node.args
        base_val, index_val = base.meta.get("val"), index.meta.get("val")
        if base.op != "call_function" or base.target not in fills or base_val is None or index_val is None:
            continue
        dim %= base_val.dim()
        want = [1 if d == dim else size for d, size in enumerate(base_val.shape)]
        if list(index_val.shape) != want or not isinstance(value, (int, float)):
            continue
        view_shape = [base_val.shape[dim] if d == dim else 1 for d in range(base_val.dim())]
        with graph.inserting_before(node):
            iota = graph.call_function(
                aten.arange.default, (base_val.shape[dim],), {"dtype": index_val.dtype, "device": index_val.device}
            )
            mask = graph.call_function(aten.eq.Tensor, (index, graph.call_function(aten.view.default, (iota, view_shape))))
            background = base.args[1]
            if isinstance(background, (int, float, bool)):  # Inductor's where(mask, val, background_val).to(dtype)
                where = graph.call_function(aten.where.Scalar, (mask, value, background))
                where = graph.call_function(aten._to_copy.default, (where,), {"dtype": base_val.dtype})
            else:
                where = graph.call_function(aten.where.ScalarSelf, (mask, value, base))
        node.replace_all_uses_with(where)
        graph.erase_node(node)
        count += 1
    return _recompiled(gm, count)


AUTOGRAD_CALLS = (("autograd", "grad"), ("func", "vjp"))
"""What ``--make-fx`` is for: ``torch.<module>.<function>`` calls that ``torch.export`` cannot trace."""


@contextmanager
def _autograd_calls():
    """Yield a list that collects the :data:`AUTOGRAD_CALLS` (as ``torch.autograd.grad``) made inside the block.

    ``torch.export`` of a forward that calls ``torch.autograd.grad`` fails with
    a message that blames torch ("We found a fake tensor in the exported
    program constant's list ... Please file an issue"), not the missing
    ``--make-fx``; seeing the call is how we can say what to do instead.
    The functions are wrapped for the block only and still run.
    """
    import functools

    import torch

    seen: list[str] = []
    saved = []
    for owner_name, attr in AUTOGRAD_CALLS:
        owner = getattr(torch, owner_name)
        original = getattr(owner, attr)

        def spy(*args, _original=original, _name=f"torch.{owner_name}.{attr}", **kwargs):
            seen.append(_name)
            return _original(*args, **kwargs)

        saved.append((owner, attr, original))
        setattr(owner, attr, functools.wraps(original)(spy))
    try:
        yield seen
    finally:
        for owner, attr, original in saved:
            setattr(owner, attr, original)


def export_program(module, example_inputs: tuple, make_fx: bool = False):
    """``torch.export`` of ``module`` in eval mode (traced by :func:`trace_with_make_fx` first if
    ``make_fx``), legalized for the Linalg backend.  A forward that calls ``torch.autograd.grad`` or
    ``torch.func.vjp`` without ``make_fx`` is refused with the advice to use it."""
    import torch

    module.eval()
    name = type(module).__name__
    traced = trace_with_make_fx(module, example_inputs) if make_fx else module
    with _autograd_calls() as called:
        try:
            program = torch.export.export(traced, tuple(example_inputs))
        except Exception as err:  # torch.export raises many types; all mean "not exportable"
            if called and not make_fx:
                raise TorchImportError(f"torch.export failed for {name}: its forward calls {called[0]}, which "
                                       "torch.export cannot trace; rerun with --make-fx") from err
            raise TorchImportError(
                f"torch.export failed for {name}: {type(err).__name__}: {first_line(err)}") from err
    legalize_exported_program(program)
    return program


def _pipeline_errors(err, name: str) -> str:
    from costfuse.ir import diagnostics_of

    diags = [str(d) for d in diagnostics_of(err, name)]
    if not diags:
        diags = [ln.strip() for ln in str(err).splitlines() if "error" in ln] or [first_line(err)]
    return "; ".join(diags)


def import_module(module, example_inputs: tuple, func_name: str = "main", make_fx: bool = False) -> str:
    """Linalg-on-tensors MLIR text for ``module(*example_inputs)`` as ``func.func @func_name``.

    Shapes and dtypes are specialised to ``example_inputs``.  ``make_fx``
    traces the module with :func:`trace_with_make_fx` before exporting it
    (training graphs).  Weights are frozen
    into the module as ``dense<...>`` constants (see the module docstring),
    so ``@func_name`` takes exactly the example inputs' tensors.  Raises
    :class:`TorchImportError` naming the step (export, import, lowering) and the
    first MLIR diagnostic.
    """
    from iree.compiler import ir
    from iree.compiler.extras.fx_importer import FxImporter
    from iree.compiler.passmanager import PassManager

    name = type(module).__name__
    program = export_program(module, example_inputs, make_fx=make_fx)
    importer = FxImporter(hooks=_inline_weights_hooks())
    try:
        importer.import_frozen_program(program, func_name=func_name)
    except Exception as err:  # the importer raises NotImplementedError/AssertionError/...
        raise TorchImportError(f"FX import failed for {name}: {type(err).__name__}: {first_line(err)}") from err
    with importer.module.context:
        try:
            PassManager.parse(PIPELINE).run(importer.module.operation)
        except ir.MLIRError as err:
            raise TorchImportError(f"lowering {name} to Linalg failed: {_pipeline_errors(err, name)}") from None
    text = str(importer.module)
    return text if text.endswith("\n") else text + "\n"


# ---------------------------------------------------------------------------
# CLI: costfuse import-torch MODULE:FACTORY --shape 2x16x32 -o OUT.mlir


def parse_shape(text: str) -> tuple[int, ...]:
    """``'2x16x32'`` -> ``(2, 16, 32)``; raises ``argparse.ArgumentTypeError`` on anything else."""
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        dims = ()
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"bad shape {text!r}: expected positive ints joined by 'x', e.g. 2x16x32")
    return dims


class InputSpec(NamedTuple):
    """One ``--shape``: the dims, and the input's own dtype (``2048:i64``) or None for the module's ``--dtype``."""

    dims: tuple[int, ...]
    dtype: str | None = None


def parse_input(text: str) -> InputSpec:
    """``'2x16x32'`` -> dims only; ``'2048:i64'`` -> an integer input; ``argparse.ArgumentTypeError`` otherwise."""
    shape, sep, dtype = text.partition(":")
    if sep and dtype not in DTYPES + INT_DTYPES:
        raise argparse.ArgumentTypeError(
            f"bad input {text!r}: dtype after ':' must be one of {', '.join(DTYPES + INT_DTYPES)}, e.g. 2048:i64"
        )
    return InputSpec(parse_shape(shape), dtype or None)


@contextmanager
def _quiet_stderr(enabled: bool = True):
    """Silence stderr, at both the Python and the file-descriptor level, while torch works.

    torch.export prints whole graphs and logging warnings to stderr when it
    fails (and some warnings when it succeeds); the CLI promises one line.
    The fd-level redirect also catches C++ and logging handlers that hold the
    original stream.  ``--verbose`` turns this off.
    """
    if not enabled:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull, redirect_stderr(io.StringIO()):
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


@contextmanager
def _cwd_importable():
    """Let ``examples.torch_blocks`` resolve from the working directory, as ``python -m`` would."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def load_factory(target: str) -> Callable:
    """``'pkg.mod:factory'`` or ``'path/to/file.py:factory'`` -> the callable; ``TorchImportError`` if absent."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise TorchImportError(f"expected MODULE:FACTORY, got {target!r}")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise TorchImportError(f"{path}: no such file")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            with _cwd_importable():
                mod = importlib.import_module(module_name)
    except TorchImportError:
        raise
    except Exception as err:  # ImportError, or whatever the module's own top level raises
        raise TorchImportError(f"cannot import {module_name}: {type(err).__name__}: {first_line(err)}") from err
    factory = getattr(mod, attr, None)
    if not callable(factory):
        raise TorchImportError(f"{module_name} has no callable {attr!r}")
    return factory


def build_module(factory: Callable, seed: int, dtype: str):
    """``factory()`` under ``torch.manual_seed(seed)``, cast to ``dtype``, in eval mode."""
    import torch

    torch.manual_seed(seed)
    try:
        module = factory()
    except Exception as err:
        raise TorchImportError(f"{factory.__name__}() raised {type(err).__name__}: {first_line(err)}") from err
    if not isinstance(module, torch.nn.Module):
        raise TorchImportError(f"{factory.__name__}() returned {type(module).__name__}, not a torch.nn.Module")
    return module.to(torch_dtype(dtype)).eval()


def torch_dtype(dtype: str):
    import torch

    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
            "i64": torch.int64, "i32": torch.int32}[dtype]


def example_inputs(shapes: Sequence[tuple[int, ...] | InputSpec], dtype: str, seed: int) -> tuple:
    """Seeded inputs, one per shape (a separate generator, so weights don't shift them).

    Floats are standard normal in ``dtype`` (or an :class:`InputSpec`'s own
    float dtype); integers are in ``[0, RANDOM_INT_HIGH)`` as the oracle draws
    them (:mod:`costfuse.reference`): valid indices for any dim of at least that size.
    """
    import torch

    from costfuse.reference import RANDOM_INT_HIGH

    gen = torch.Generator().manual_seed(seed)

    def one(spec):
        dims, own = (spec.dims, spec.dtype) if isinstance(spec, InputSpec) else (tuple(spec), None)
        if own in INT_DTYPES:
            return torch.randint(0, RANDOM_INT_HIGH, dims, generator=gen, dtype=torch_dtype(own))
        return torch.randn(dims, generator=gen, dtype=torch.float32).to(torch_dtype(own or dtype))

    return tuple(one(spec) for spec in shapes)


def _parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="costfuse import-torch",
        description="Export a torch.nn.Module (from a factory function) to Linalg-on-tensors MLIR.",
    )
    p.add_argument("target", metavar="MODULE:FACTORY", help="e.g. examples.torch_blocks:layernorm_gelu_mlp or path/to/file.py:make")
    p.add_argument("--shape", action="append", type=parse_input, required=True,
                   help="one per input, e.g. 2x16x32; an input with its own dtype adds it, e.g. integer labels 2048:i64")
    p.add_argument("--dtype", choices=DTYPES, default="f32", help="dtype of the module and its inputs (default f32)")
    p.add_argument("--seed", type=int, default=0, help="torch seed for the weights and inputs (default 0)")
    p.add_argument("--make-fx", action="store_true",
                   help="trace with make_fx first: for a forward calling torch.autograd.grad or torch.func.vjp")
    p.add_argument("--func-name", default="main", help="name of the exported func.func (default main)")
    p.add_argument("-o", "--output", default="-", help="output .mlir file (default stdout)")
    p.add_argument("-v", "--verbose", action="store_true", help="let torch's own warnings and graph dumps through to stderr")
    return p


def cli(argv: Sequence[str] | None = None) -> int:
    """``costfuse import-torch``; returns the exit status, printing one-line errors to stderr.

    ``argv`` are the arguments after the subcommand (a leading ``import-torch``
    is tolerated).  Exit codes as every CostFuse CLI (:mod:`costfuse.cli_common`):
    0 on success, 1 on bad usage or an import/export/lowering error, 2 on a bug.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["import-torch"]:
        args_list = args_list[1:]
    try:
        args = _parser().parse_args(args_list)
    except SystemExit as exc:  # argparse already printed the error (or the help)
        return int(exc.code or 0)

    def body() -> int:
        with _quiet_stderr(not args.verbose):
            module = build_module(load_factory(args.target), args.seed, args.dtype)
            inputs = example_inputs(args.shape, args.dtype, args.seed)
            text = import_module(module, inputs, func_name=args.func_name, make_fx=args.make_fx)
        write_output(args.output, text)
        return 0

    return run_command("costfuse import-torch", body, bad_input=(TorchImportError,))


if __name__ == "__main__":
    sys.exit(cli())
