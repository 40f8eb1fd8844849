"""The numerical oracle for "fusion preserves semantics".

A fused module must compute what the original computed.  We check that by
compiling both with IREE for the host CPU (``llvm-cpu``), running them with
``iree.runtime`` on the same seeded random inputs and comparing the outputs
with a tolerance that depends on the element type (docs/design.md §5).

Three things here are deliberate and easy to get wrong:

* IREE demotes ``f64`` to ``f32`` by default (``--iree-input-demote-f64-to-f32``)
  and then rejects f64 buffers at the call boundary.  The oracle must run the
  IR as written (an f64 program is checked in f64), so we turn every
  demotion/promotion off.  The price: codegen leaves f64 ``tanh``/``sin``
  (and f16 ``maximumf``) as libm calls the embedded linker cannot resolve --
  :func:`_compile` then relinks against the system libm -- and it cannot
  lower f64 ``math.erf`` at all; such a module fails with an
  :class:`IRError` that says so, rather than silently running in f32.
* numpy has no bfloat16.  ``iree.runtime`` maps ``ml_dtypes.bfloat16`` (a
  dependency of ``iree-base-runtime``) to its BF16 element type, so bf16
  arrays are ``ml_dtypes.bfloat16`` numpy arrays in and out.
* We run on the synchronous ``local-sync`` driver: one thread, no scheduling
  nondeterminism, and it does not fight other jobs for the shared cores.

Compiled modules are cached per process by the SHA-256 of the module text, so
checking many candidates against one original compiles the original once.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
from iree.compiler import ir

from costfuse.ir import IRError, parse_module

# Flags on top of ``--iree-hal-target-backends=llvm-cpu``; see the module docstring.
COMPILE_FLAGS: tuple[str, ...] = (
    "--iree-llvmcpu-target-cpu=generic",  # reproducible code, and no "generic CPU" warning
    "--iree-input-demote-f64-to-f32=false",
    "--iree-input-demote-i64-to-i32=false",
    "--iree-input-promote-f16-to-f32=false",
    "--iree-input-promote-bf16-to-f32=false",
)
# Fallback when the embedded linker misses a libm symbol: link a system shared
# library instead (needs a system linker, e.g. /usr/bin/ld; same generated code).
SYSTEM_LINK_FLAGS: tuple[str, ...] = ("--iree-llvmcpu-link-embedded=false",)

# MLIR element type -> numpy dtype, for the types the oracle can feed and read.
NUMPY_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
}


@dataclass(frozen=True)
class Tolerance:
    """``|after - before| <= atol + rtol * |before|`` elementwise (numpy.isclose)."""

    rtol: float
    atol: float


# Why these: fusion may change the order of a reduction and lets LLVM contract
# a*b+c into an FMA, so results move by a few ulps of the *intermediate* values,
# which can be larger than the output.  f32 eps is 1.2e-7, f16 9.8e-4, bf16 7.8e-3.
TOLERANCES: dict[str, Tolerance] = {
    "f64": Tolerance(rtol=1e-10, atol=1e-12),
    "f32": Tolerance(rtol=1e-5, atol=1e-5),
    "f16": Tolerance(rtol=1e-2, atol=1e-2),
    "bf16": Tolerance(rtol=5e-2, atol=5e-2),
}
_EXACT = Tolerance(rtol=0.0, atol=0.0)  # integers and i1

# Random inputs: uniform in [-RANDOM_RANGE, RANDOM_RANGE] for floats, keeping
# exp/tanh/softmax away from overflow; integers in [0, RANDOM_INT_HIGH), small
# and non-negative so they are valid indices for any dim of at least that size.
RANDOM_RANGE = 2.0
RANDOM_INT_HIGH = 4

Signature = list[tuple[tuple[int, ...], str]]


@dataclass(frozen=True)
class _Value:
    """One argument or result of the function: a ranked static tensor, or a scalar.

    The runtime wants 0-d numpy arrays for ``tensor<f32>`` but Python numbers
    for a bare ``f32``, and ``function_signature`` gives both shape ``()``.
    """

    shape: tuple[int, ...]
    elem: str
    is_tensor: bool

    @property
    def dtype(self) -> np.dtype:
        return NUMPY_DTYPES[self.elem]


# ---------------------------------------------------------------------------
# Signatures


def _find_func(module: ir.Module, function: str) -> ir.Operation:
    names = []
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        if name == function:
            return op.operation
        names.append(name)
    raise IRError(f"no func.func @{function} in module (found: {', '.join('@' + n for n in names) or 'none'})")


def _describe(t: ir.Type, what: str, function: str) -> _Value:
    """(shape, element type) of a ranked static tensor or a scalar."""
    if isinstance(t, ir.ShapedType) and not isinstance(t, ir.RankedTensorType):
        raise IRError(f"@{function}: {what} has type {t}; the oracle feeds only ranked tensors and scalars")
    if isinstance(t, ir.RankedTensorType):
        rt = t
        if not rt.has_static_shape:
            raise IRError(f"@{function}: {what} has dynamic shape {t}; the oracle needs static shapes")
        shape, elem = tuple(rt.shape), str(rt.element_type)
    else:
        shape, elem = (), str(t)
    if elem not in NUMPY_DTYPES:
        raise IRError(f"@{function}: {what} has unsupported type {t} (supported elements: {', '.join(NUMPY_DTYPES)})")
    return _Value(shape, elem, isinstance(t, ir.RankedTensorType))


def _signature(text: str, function: str) -> tuple[list[_Value], list[_Value]]:
    module = parse_module(text, f"<@{function} module>")
    ftype = ir.FunctionType(ir.TypeAttr(_find_func(module, function).attributes["function_type"]).value)
    ins = [_describe(t, f"input {i}", function) for i, t in enumerate(ftype.inputs)]
    outs = [_describe(t, f"result {i}", function) for i, t in enumerate(ftype.results)]
    return ins, outs


def function_signature(text: str, function: str) -> Signature:
    """Input ``(shape, element type)`` pairs of ``func.func @function``.

    Element types are MLIR spellings (``'f32'``, ``'bf16'``, ``'i1'``...);
    scalars have shape ``()``.  Raises :class:`IRError` for unparsable text, a
    missing function, dynamic shapes or element types the oracle cannot feed.
    """
    return [(v.shape, v.elem) for v in _signature(text, function)[0]]


# ---------------------------------------------------------------------------
# Inputs


def random_inputs(text: str, function: str, seed: int) -> list[np.ndarray]:
    """Seeded random arguments for ``@function``, one numpy array per input.

    Floats are uniform in ``[-RANDOM_RANGE, RANDOM_RANGE]`` (drawn in f64 then
    cast, so every float type sees the same values up to rounding); integers
    are in ``[0, RANDOM_INT_HIGH)``; ``i1`` is a fair coin.  Whether an input
    must be positive (a log, a sqrt) is not knowable from the IR, so nothing
    here tries; such functions give NaNs in *both* runs, which compare equal.
    """
    rng = np.random.default_rng(seed)
    out = []
    for shape, elem in function_signature(text, function):
        dtype = NUMPY_DTYPES[elem]
        if elem == "i1":
            arr = rng.random(shape) < 0.5
        elif np.issubdtype(dtype, np.integer):
            arr = rng.integers(0, RANDOM_INT_HIGH, size=shape)
        else:
            arr = rng.uniform(-RANDOM_RANGE, RANDOM_RANGE, size=shape)
        out.append(np.asarray(arr).astype(dtype))
    return out


# ---------------------------------------------------------------------------
# Compile and run

_VMFB_CACHE: OrderedDict[str, bytes] = OrderedDict()
_VMFB_CACHE_SIZE = 256
_runtime_config = None
# A directory that keeps compiled modules across processes (unset: memory only).  Mutation
# testing sets it: each mutant's tests run in a fresh process, and compiling the reference
# is most of a lowering test's time (experiments/mutation.py).
DISK_CACHE_ENV = "COSTFUSE_REFERENCE_CACHE"


@functools.lru_cache(maxsize=1)
def _compiler_version() -> str:
    from importlib.metadata import version

    return version("iree-base-compiler")


def _disk_cached(key: str) -> Path | None:
    root = os.environ.get(DISK_CACHE_ENV)
    return Path(root) / f"{key}.vmfb" if root else None


def _compile_error(err: Exception, function: str) -> IRError:
    """IREE's diagnostics, trimmed to the first few ``error:`` lines, as an :class:`IRError`."""
    errors = [ln.strip() for ln in str(err).splitlines() if "error:" in ln][:3]
    errors = [e if len(e) <= 300 else e[:297] + "..." for e in errors] or [str(err).splitlines()[0]]
    hint = ""
    if any("math." in e and "f64" in e for e in errors):
        hint = (
            " (llvm-cpu has no f64 lowering for some math ops, e.g. math.erf; the oracle will not"
            " demote f64 to f32, since that changes the semantics under test)"
        )
    return IRError(f"@{function}: iree-compile (llvm-cpu) failed{hint}", errors)


def _compile(text: str, function: str) -> bytes:
    """The llvm-cpu VM flatbuffer for ``text``, cached by the SHA-256 of the text,
    the flags and the compiler's version: in memory, and on disk too where
    ``$COSTFUSE_REFERENCE_CACHE`` names a directory.

    The default embedded-ELF linker has no libm; when codegen leaves a libm
    call behind (``fmaxf`` for an f16 ``arith.maximumf`` reduction, seen in a
    torch TransformerEncoderLayer), we relink the same code with the system
    linker (:data:`SYSTEM_LINK_FLAGS`) rather than fail.
    """
    key = hashlib.sha256("\n".join((_compiler_version(), *COMPILE_FLAGS, text)).encode()).hexdigest()
    if key in _VMFB_CACHE:
        _VMFB_CACHE.move_to_end(key)
        return _VMFB_CACHE[key]
    on_disk = _disk_cached(key)
    if on_disk is not None and on_disk.is_file():
        return _remember(key, on_disk.read_bytes())
    import iree.compiler as compiler

    def compile_with(flags: tuple[str, ...]) -> bytes:
        return compiler.compile_str(text, target_backends=["llvm-cpu"], extra_args=list(flags))

    try:
        try:
            vmfb = compile_with(COMPILE_FLAGS)
        except compiler.CompilerToolError as err:
            if "undefined symbol" not in str(err):
                raise
            vmfb = compile_with(COMPILE_FLAGS + SYSTEM_LINK_FLAGS)
    except compiler.CompilerToolError as err:
        raise _compile_error(err, function) from None
    if on_disk is not None:
        from costfuse.atomic import atomic_path

        on_disk.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(on_disk) as tmp:
            tmp.write_bytes(vmfb)
    return _remember(key, vmfb)


def _remember(key: str, vmfb: bytes) -> bytes:
    _VMFB_CACHE[key] = vmfb
    if len(_VMFB_CACHE) > _VMFB_CACHE_SIZE:
        _VMFB_CACHE.popitem(last=False)
    return vmfb


def _check_args(args: list[np.ndarray], sig: list[_Value], function: str) -> list:
    if len(args) != len(sig):
        raise ValueError(f"@{function} takes {len(sig)} inputs, got {len(args)}")
    checked = []
    for i, (arg, want) in enumerate(zip(args, sig)):
        arr = np.asarray(arg)
        if arr.shape != want.shape or arr.dtype != want.dtype:
            raise ValueError(
                f"@{function} input {i}: expected shape {want.shape} {want.elem} ({want.dtype}), "
                f"got shape {arr.shape} {arr.dtype}"
            )
        # np.ascontiguousarray would turn a 0-d array into 1-d; scalars go in as Python numbers.
        checked.append(np.require(arr, requirements="C") if want.is_tensor else arr.item())
    return checked


def run_mlir(text: str, function: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Compile ``text`` for llvm-cpu, call ``@function(*args)``, return its results.

    ``args`` must match :func:`function_signature` exactly (shape and dtype;
    bf16 as ``ml_dtypes.bfloat16``): the oracle does not cast silently.
    Results are fresh numpy arrays owned by the caller, in result order.
    Raises :class:`IRError` if the text does not parse or IREE cannot compile
    it, ``ValueError`` for mismatched arguments.
    """
    global _runtime_config
    import iree.runtime as rt

    ins, outs = _signature(text, function)
    args = _check_args(args, ins, function)
    vmfb = _compile(text, function)
    if _runtime_config is None:
        _runtime_config = rt.Config("local-sync")
    ctx = rt.SystemContext(config=_runtime_config)
    vm_module = rt.VmModule.copy_buffer(ctx.instance, vmfb)
    ctx.add_vm_module(vm_module)
    results = getattr(ctx.modules, vm_module.name)[function](*args)
    if results is None:
        return []
    if not isinstance(results, (tuple, list)):
        results = (results,)
    # Scalar results come back as Python numbers; give them the declared dtype.
    return [np.array(r.to_host() if hasattr(r, "to_host") else r, dtype=v.dtype) for r, v in zip(results, outs)]


# ---------------------------------------------------------------------------
# Comparison


def tolerance_for(dtype: np.dtype, rtol: float | None = None, atol: float | None = None) -> Tolerance:
    """The default tolerance for ``dtype``, with ``rtol``/``atol`` overriding it."""
    elem = next((k for k, v in NUMPY_DTYPES.items() if v == np.dtype(dtype)), None)
    base = TOLERANCES.get(elem, _EXACT)
    return Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol)


def compare_outputs(
    expected: list[np.ndarray], actual: list[np.ndarray], what: str = "", rtol: float | None = None, atol: float | None = None
) -> None:
    """Raise ``AssertionError`` naming the first output that differs, and by how much.

    NaNs and infinities must appear in the same places in both; everything else
    must be within the dtype's :class:`Tolerance` (``rtol``/``atol`` override).
    """
    prefix = f"{what}: " if what else ""
    if len(expected) != len(actual):
        raise AssertionError(f"{prefix}{len(expected)} outputs before, {len(actual)} after")
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.shape != a.shape or e.dtype != a.dtype:
            raise AssertionError(f"{prefix}output {i}: {e.shape} {e.dtype} before, {a.shape} {a.dtype} after")
        tol = tolerance_for(e.dtype, rtol, atol)
        e64, a64 = e.astype(np.float64), a.astype(np.float64)
        ok = np.isclose(a64, e64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
        if ok.all():
            continue
        diff = np.abs(a64 - e64)
        diff[np.isnan(diff) & ~ok] = np.inf  # a NaN on one side only is the worst error
        diff[ok] = 0.0
        idx = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise AssertionError(
            f"{prefix}output {i} ({e.dtype}, shape {e.shape}): max abs err {diff[idx]:.3g} at index "
            f"{tuple(int(j) for j in idx)} (before {e64[idx]!r}, after {a64[idx]!r}); "
            f"{int((~ok).sum())}/{ok.size} elements outside rtol={tol.rtol:g}, atol={tol.atol:g}"
        )


def assert_same_semantics(
    before: str, after: str, function: str, seed: int = 0, rtol: float | None = None, atol: float | None = None
) -> None:
    """Assert that ``@function`` computes the same thing in ``before`` and ``after``.

    Both run on the same :func:`random_inputs` (from ``before``'s signature,
    which ``after``'s must equal).  Tolerances default per output dtype
    (:data:`TOLERANCES`; integers exact).  The ``AssertionError`` names the
    output, its max abs error and where it is.
    """
    sig_before, sig_after = _signature(before, function), _signature(after, function)
    if sig_before != sig_after:
        raise AssertionError(f"@{function}: signatures differ: before {sig_before}, after {sig_after}")
    inputs = random_inputs(before, function, seed)
    compare_outputs(
        run_mlir(before, function, inputs), run_mlir(after, function, inputs), f"@{function} (seed {seed})", rtol, atol
    )
