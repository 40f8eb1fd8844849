"""Fuse a producer ``linalg.generic`` into its consumer, giving one generic.

The fused op is built *detached* first (:func:`build_fused`) so a cost model
can inspect it before anything changes; :func:`commit` then inserts it in
place of the consumer.  This mirrors upstream ``fuseElementwiseOps``:

* operands: the consumer's inputs with the fused one replaced by the
  producer's inputs, then the consumer's outputs;
* maps: each producer input map composed with the inverse of the producer's
  result map and the consumer's map of the fused operand;
* payload: the producer's body (its yield feeding the value the consumer's
  block argument used to carry), then the consumer's body.

The fused op carries ``costfuse.chain_length`` = producer's + consumer's, so
the chain length can be read off any fused op.

Every fused op is verified before anyone sees it: legality (upstream's
preconditions) does not catch everything, e.g. upstream's
``fusion_different_axes``, where a producer that only writes its init feeds a
consumer with more loops than its output map, leaves a fused op whose indexing
maps are not invertible.  :func:`build_fused` raises :class:`Unfusable` then.
"""

from __future__ import annotations

from iree.compiler import ir
from iree.compiler.dialects import arith, linalg

from costfuse.graph import (
    CHAIN_ATTR,
    Edge,
    body,
    chain_length,
    indexing_maps,
    inputs,
    num_inputs,
    producer_loop_exprs,
)


class Unfusable(ValueError):
    """The fused op would not verify; the message is the one-line reason."""


def _fused_maps(edge: Edge, exprs: list[ir.AffineExpr]) -> list[ir.AffineMap]:
    cmaps = indexing_maps(edge.consumer)
    n = cmaps[0].n_dims
    to_consumer = ir.AffineMap.get(n, 0, exprs)
    pmaps = indexing_maps(edge.producer)[: num_inputs(edge.producer)]
    moved = [ir.AffineMap.get(n, 0, [r.compose(to_consumer) for r in m.results]) for m in pmaps]
    i = edge.operand
    return cmaps[:i] + moved + cmaps[i + 1 :]


def _fused_inputs(edge: Edge) -> list[ir.Value]:
    cin = inputs(edge.consumer)
    return cin[: edge.operand] + inputs(edge.producer) + cin[edge.operand + 1 :]


def _clone_into(src: ir.Block, mapping: dict, exprs: list[ir.AffineExpr] | None) -> ir.Value | None:
    """Clone ``src``'s ops at the current insertion point; return the yielded value.

    ``mapping`` maps old values to new ones and is extended as we go.  With
    ``exprs`` (producer bodies) each ``linalg.index`` is re-expressed in the
    fused op's loops: a consumer dim, or a constant for a broadcast dim.
    """
    yielded = None
    for op in src.operations:
        if op.name == "linalg.yield":
            yielded = [mapping.get(v, v) for v in op.operands]
            if exprs is None:
                linalg.YieldOp(yielded)
            continue
        if exprs is not None and op.name == "linalg.index":
            e = exprs[ir.IntegerAttr(op.attributes["dim"]).value]
            if isinstance(e, ir.AffineDimExpr):
                new = linalg.IndexOp(e.position).result
            else:
                index = ir.IndexType.get()
                new = arith.ConstantOp(index, ir.IntegerAttr.get(index, e.value)).result
            mapping[op.results[0]] = new
            continue
        clone = op.clone()
        for k, v in enumerate(clone.operands):
            if v in mapping:
                clone.operands[k] = mapping[v]
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    return yielded[0] if yielded else None


def _dedup(inputs: list[ir.Value], maps: list[ir.AffineMap]) -> list[int]:
    """For each input, the index of the first input with the same value and map.

    Upstream's fusion canonicalizes the same way; without it a value read
    through both the producer and the consumer would count as two uses and
    block the next fusion.
    """
    first: list[int] = []
    for k, (v, m) in enumerate(zip(inputs, maps)):
        first.append(next((j for j in range(k) if inputs[j] == v and maps[j] == m), k))
    return first


def build_fused(edge: Edge) -> ir.Operation:
    """The generic that ``edge.producer`` fused into ``edge.consumer`` would be (detached).

    Raises :class:`Unfusable` (and frees the op) if MLIR's verifier rejects it.
    """
    producer, consumer = edge.producer, edge.consumer
    exprs = producer_loop_exprs(edge)
    maps = _fused_maps(edge, exprs)
    fused_inputs = _fused_inputs(edge)
    first = _dedup(fused_inputs, maps)
    keep = [k for k in range(len(fused_inputs)) if first[k] == k]
    n_in = len(fused_inputs)
    cblock, pblock = body(consumer), body(producer)
    n_pin = num_inputs(producer)
    i = edge.operand
    cargs, pargs = list(cblock.arguments), list(pblock.arguments)
    old_in_args = cargs[:i] + pargs[:n_pin] + cargs[i + 1 : num_inputs(consumer)]
    out_args = cargs[num_inputs(consumer) :]
    with consumer.context, ir.Location.fused([producer.location, consumer.location]):
        fused = linalg.GenericOp(
            [r.type for r in consumer.results],
            [fused_inputs[k] for k in keep],
            list(consumer.operands)[num_inputs(consumer) :],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(maps[k]) for k in keep + list(range(n_in, len(maps)))]),
            consumer.attributes["iterator_types"],
        )
        sources = [old_in_args[k] for k in keep] + out_args
        block = fused.regions[0].blocks.append(*[a.type for a in sources], arg_locs=[a.location for a in sources])
        new_args = list(block.arguments)
        new_in = [new_args[keep.index(first[k])] for k in range(n_in)]
        pmap = dict(zip(pargs[:n_pin], new_in[i : i + n_pin]))
        cmap = dict(zip(cargs[:i], new_in[:i]))
        cmap.update(zip(cargs[i + 1 : num_inputs(consumer)], new_in[i + n_pin :]))
        cmap.update(zip(out_args, new_args[len(keep) :]))
        with ir.InsertionPoint(block):
            cmap[cargs[i]] = _clone_into(pblock, pmap, exprs)
            _clone_into(cblock, cmap, None)
        fused.attributes[CHAIN_ATTR] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), chain_length(producer) + chain_length(consumer)
        )
    _verify(fused.operation, consumer)
    return fused.operation


def _verify(fused: ir.Operation, consumer: ir.Operation) -> None:
    """Raise :class:`Unfusable` with the verifier's first message if ``fused`` does not verify.

    The op is verified in the consumer's place: a detached op fails dominance
    for every value its body captures from the function (a constant, say).
    """
    ir.InsertionPoint(consumer).insert(fused)
    try:
        fused.verify()
    except ir.MLIRError as err:
        diags = err.error_diagnostics
        message = " ".join((diags[0].message if diags else str(err)).split())
        fused.erase()
        raise Unfusable(f"fused op would not verify: {message}") from None
    fused.detach_from_parent()


def commit(edge: Edge, fused: ir.Operation) -> ir.Operation:
    """Put ``fused`` in place of the consumer; drop the producer if nothing else uses it."""
    ir.InsertionPoint(edge.consumer).insert(fused)
    for old, new in zip(edge.consumer.results, fused.results):
        old.replace_all_uses_with(new)
    edge.consumer.erase()
    if not any(True for _ in edge.producer.results[0].uses):
        edge.producer.erase()
    return fused


def discard(fused: ir.Operation) -> None:
    """Free a detached op that a cost model rejected."""
    fused.erase()
