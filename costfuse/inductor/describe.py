"""Read a kernel Inductor is about to generate into an :class:`InductorKernel` (docs/inductor.md).

Inductor hands its choices handler a ``SIMDKernelFeatures`` (the kernel's
scheduler nodes in order, ``numel`` rows of ``reduction_numel`` elements) and
its fusion hooks two scheduler nodes.  :func:`describe_features` and
:func:`describe_nodes` turn either into plain numbers
(:mod:`costfuse.featurize.inductor_kernel`), or raise :class:`NotCovered`
naming what the learned heads were never trained on, so the handler can leave
that kernel to Inductor and count why:

* dynamic shapes (a symbolic ``numel`` or ``reduction_numel``);
* a kernel that is not a row kernel: a reduction whose hint is not ``INNER``
  (a column reduction, or the second stage of a split reduction), a tiling
  other than ``x`` by ``r0_`` (two reduction dims, 2-D pointwise tiles), a
  node over neither every element nor one per row;
* split, cooperative and mix-order reductions (Inductor's own two-stage
  schemes: its kernel then is not the row loop the heads describe);
* dtypes outside training: floats other than f32, bf16 and f16
  (:data:`TRAINED_FLOATS`: dataset v2's dtypes, ``data/group_programs.py``).

Everything here reads Inductor objects through attributes present in torch
2.11 and 2.13 (``SIMDKernelFeatures.scheduler_nodes``, ``op_counts``,
``get_reduction_hint``; a node's ``_body``, ``read_writes``, ``group``); a
missing one is reported as not covered rather than guessed.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from costfuse.featurize.inductor_kernel import (
    FULL, REDUCE, ROWWISE, InductorKernel, KernelBuffer, KernelNode, mlir_name,
)
from costfuse.featurize.liveness import Body, Node, max_live

TRAINED_FLOATS = {"torch.float32": 32, "torch.bfloat16": 16, "torch.float16": 16}
INTEGER_DTYPES = {"torch.int64": 64, "torch.int32": 32, "torch.int16": 16, "torch.int8": 8, "torch.uint8": 8,
                  "torch.bool": 8}
DTYPE_BITS = {**TRAINED_FLOATS, **INTEGER_DTYPES}


_LIVE_WORDS: WeakKeyDictionary = WeakKeyDictionary()
"""Loop body -> (its FX graph, :func:`body_live_words`): the fusion hook describes a node again for every pair
Inductor asks about, and the liveness walk was half of each verdict's time (``experiments/inductor_report.py``'s
hook seconds)."""


class NotCovered(Exception):
    """The kernel is outside what the learned heads describe; the message says why (one line)."""


def static_int(expr, what: str) -> int:
    """``expr`` (a sympy integer or an int) as an int; :class:`NotCovered` when it is symbolic."""
    try:
        return int(expr)
    except (TypeError, ValueError):
        raise NotCovered(f"dynamic shapes ({what} = {expr})") from None


def describe_features(features, tiling: dict | None = None) -> InductorKernel:
    """The :class:`InductorKernel` of the kernel ``features`` (Inductor's ``SIMDKernelFeatures``) describes;
    ``tiling``: the kernel's tiling dict (``{'x': ..., 'r0_': ...}``), when known."""
    rows = static_int(features.numel, "numel")
    n = static_int(features.reduction_numel, "reduction_numel")
    if tiling is not None and set(tiling) - {"x", "r0_"}:
        raise NotCovered(f"tiling {', '.join(tiling)}: not a row kernel (x by r0_)")
    if n > 1:
        hint = str(features.get_reduction_hint())
        if not hint.endswith("INNER"):
            raise NotCovered(f"reduction hint {hint.rsplit('.', 1)[-1]}: not a row reduction")
    return describe_nodes(list(features.scheduler_nodes()), rows, n)


def describe_nodes(nodes: list, rows: int, n: int) -> InductorKernel:
    """The :class:`InductorKernel` of scheduler ``nodes`` (in schedule order) as one kernel over ``rows`` x
    ``n`` (``n`` = 1: pointwise)."""
    from torch._inductor.virtualized import V

    names = {node.get_name() for node in nodes}
    buffers: dict[str, KernelBuffer] = {}
    out_nodes, outputs = [], []
    graph_outputs = set(V.graph.get_output_names())
    for node in nodes:
        role = _role(node, rows, n)
        reads = tuple(dict.fromkeys(d.name for d in node.read_writes.reads if _is_data_dep(d)))
        writes = tuple(dict.fromkeys(d.name for d in node.read_writes.writes if _is_data_dep(d)))
        for name in reads + writes:
            if name not in buffers:
                buffers[name] = _buffer(V.graph, name)
        for buf in node.get_outputs():
            users = {getattr(u.node, "get_name", lambda: "OUTPUT")() for u in buf.users}
            if buf.get_name() in graph_outputs or users - names:
                outputs.append(buf.get_name())
        counts = dict(node._body.op_counts)
        out_nodes.append(KernelNode(
            name=node.get_name(), role=role, ops=tuple(sorted(counts.items())), reads=reads, writes=writes,
            reduction_type=_reduction_type(node) if role == REDUCE else None,
            live_words=_live_words(node._body, buffers), indirect_loads=counts.get("indirect_indexing", 0)))
    kernel = InductorKernel(rows, n, tuple(out_nodes), tuple(buffers.values()), tuple(dict.fromkeys(outputs)))
    return kernel


def _is_data_dep(dep) -> bool:
    """A read or write of a buffer's elements (``MemoryDep``/``StarDep``), not an ordering-only ``WeakDep``."""
    return type(dep).__name__ != "WeakDep"


def _role(node, rows: int, n: int) -> str:
    if node.is_reduction():
        return REDUCE
    try:
        size = 1
        for s in node.group[1]:
            size *= static_int(s, "a node's size")
    except (AttributeError, IndexError, TypeError):
        raise NotCovered(f"node {node.get_name()} has no static loop size") from None
    if size == rows * n:
        return FULL
    if size == rows:
        return ROWWISE
    raise NotCovered(f"node {node.get_name()} runs over {size} elements, neither {rows} rows nor {rows * n} elements")


def _reduction_type(node) -> str | None:
    return getattr(getattr(getattr(node, "node", None), "data", None), "reduction_type", None)


def _buffer(graph, name: str) -> KernelBuffer:
    buf = graph.get_buffer(name)
    if buf is None:
        raise NotCovered(f"buffer {name} is unknown to the graph")
    dtype = str(buf.get_dtype())
    if dtype not in DTYPE_BITS:
        raise NotCovered(f"dtype {dtype.removeprefix('torch.')} of {name} is outside training (f32, bf16, f16)")
    return KernelBuffer(name, static_int(buf.get_numel(), f"numel of {name}"), DTYPE_BITS[dtype])


def _live_words(body, buffers: dict[str, KernelBuffer]) -> int:
    """:func:`body_live_words`, walked once per loop body (and again if Inductor gives the body a new graph)."""
    graph = getattr(getattr(body, "root_block", None), "graph", None)
    try:
        seen = _LIVE_WORDS.get(body)
    except TypeError:   # not weakly referable: no memo
        return body_live_words(body, buffers)
    if seen is not None and seen[0] is graph:
        return seen[1]
    words = body_live_words(body, buffers)
    _LIVE_WORDS[body] = (graph, words)
    return words


def body_live_words(body, buffers: dict[str, KernelBuffer]) -> int:
    """The most 32-bit words live in one loop body (``body``: Inductor's ``LoopBody``), by
    :func:`costfuse.featurize.liveness.max_live` over its ops in order: a load's value counts from the load
    (64-bit buffers two words), a constant never, stores define nothing."""
    graph = getattr(getattr(body, "root_block", None), "graph", None)
    if graph is None:
        return 1
    ids: dict = {}
    types: list[str] = []
    nodes: list[Node] = []
    for fx in graph.nodes:   # a few dozen ops per body, several bodies per decision: kept to plain lookups
        op, target, args = fx.op, fx.target, fx.args
        if op != "call_method":
            continue
        operands = tuple([ids[a] for a in args if a in ids])
        if target == "store" or target == "store_reduction":   # a store reads its value, defines nothing
            nodes.append(Node("linalg.yield", operands, ()))
            continue
        value = ids[fx] = len(types)
        wide = target == "load" and len(args) > 1 and getattr(buffers.get(args[1]), "bits", 32) == 64
        types.append("i64" if wide else "f32")
        nodes.append(Node(mlir_name(target), operands, (value,)))
    if not nodes:
        return 1
    bits = tuple(64 if t == "i64" else 32 for t in types)
    return max(1, max_live(Body(0, tuple(nodes), tuple(types), bits))[1])
