"""Seeded random *group programs* for dataset v2: the group kinds of docs/design.md §10 at random sizes.

A program is one of the real blocks of ``experiments/workloads/blocks.py``
(softmax, log-softmax, cross-entropy forward and backward, LayerNorm and
RMSNorm forward and backward, attention-score epilogues with scale, causal
mask, tanh softcap or ALiBi, GELU and SiLU gates, residual + norm, AdamW),
exported to Linalg by the same importer the workloads went through
(``costfuse import-torch``), at a random row count, row length and dtype;
plus ``row_random``: v1's ``reduce`` family (a random prologue, a row
reduction, a random epilogue), for row groups no model writes.

Sizes are drawn log-uniformly: rows from 1 to 65,536, row length N from 64
to 131,072 (half the draws a power of two, as hidden sizes are; half any
integer, as vocabularies are), dtype f32, bf16 or f16.  Rows only set the
grid, N sets what a thread holds, so the export traces on ``meta`` tensors:
no memory, whatever the size.  Blocks that build tensors on the CPU inside
``forward`` (the attention masks' aranges) or whose lowering needs a real
value cannot trace on ``meta``; those trace on real tensors with the rows cut
so that rows x N <= 2^22 (``params["traced_on"]`` and ``params["rows"]``
record what was used).

A program is reproducible from ``(kind, seed)``: every draw comes from
``random.Random(f"{kind}:{seed}")`` and is recorded in ``params``, which
decides the text, so equal params mean equal programs (the job skips a
repeat by its params, before paying for an export).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

from costfuse.data.families import RandomProgram, generate


def _blocks_file() -> Path:
    """``experiments/workloads/blocks.py`` of the checkout this module runs from: the nearest folder above it
    that holds one (the repository, or a staged copy of it, as the mutation check's, where ``data/`` sits
    under ``costfuse/``); else the repository's path, which the error then names."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "experiments" / "workloads" / "blocks.py"
        if candidate.is_file():
            return candidate
    return here.parents[1] / "experiments" / "workloads" / "blocks.py"


BLOCKS = _blocks_file()
DTYPES = ("f32", "bf16", "f16")
MIN_ROWS, MAX_ROWS = 1, 65536
MIN_N, MAX_N = 64, 131072
REAL_TRACE_MAX_NUMEL = 2**22


@dataclass(frozen=True)
class Kind:
    """A block of ``blocks.py`` and its inputs: ``R``/``N`` templates (``"RxN"``, ``"N"``, ``"R:i64"``)."""

    block: str
    inputs: tuple[str, ...]
    make_fx: bool = False


KINDS: dict[str, Kind] = {
    "softmax": Kind("Softmax", ("RxN",)),
    "log_softmax": Kind("LogSoftmax", ("RxN",)),
    "cross_entropy_fwd": Kind("CrossEntropyForward", ("RxN", "R:i64"), make_fx=True),
    "cross_entropy_bwd": Kind("CrossEntropyBackward", ("RxN", "R:i64"), make_fx=True),
    "layernorm_fwd": Kind("LayerNormForward", ("RxN", "N", "N")),
    "layernorm_bwd": Kind("LayerNormBackward", ("RxN", "N", "N", "RxN"), make_fx=True),
    "rmsnorm_fwd": Kind("RMSNormForward", ("RxN", "N")),
    "rmsnorm_bwd": Kind("RMSNormBackward", ("RxN", "N", "RxN"), make_fx=True),
    "attention_causal": Kind("AttentionCausal", ("1xAxQxN",)),
    "attention_softcap": Kind("AttentionSoftcap", ("1xAxQxN",)),
    "attention_alibi": Kind("AttentionAlibi", ("1xAxQxN",)),
    "gelu_tanh": Kind("BiasGeluTanh", ("RxN", "N")),
    "gelu_erf": Kind("BiasGeluErf", ("RxN", "N")),
    "swiglu": Kind("SwiGLU", ("RxN", "RxN")),
    "add_rmsnorm": Kind("AddRMSNorm", ("RxN", "RxN", "N")),
    "add_layernorm": Kind("AddLayerNorm", ("RxN", "RxN", "N", "N")),
    "adamw": Kind("AdamWStep", ("RxN",) * 4),
}
GROUP_KINDS = (*KINDS, "row_random")


def _log_uniform_int(rng: random.Random, lo: int, hi: int) -> int:
    return min(hi, max(lo, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def draw_params(kind: str, seed: int) -> dict:
    """The random choices of program ``(kind, seed)``: cheap, no export."""
    if kind not in GROUP_KINDS:
        raise ValueError(f"unknown group kind {kind!r}; choose from {', '.join(GROUP_KINDS)}")
    if kind == "row_random":
        return {"family": "reduce", "seed": seed, "content": generate("reduce", seed).content_hash}
    rng = random.Random(f"{kind}:{seed}")
    n = _log_uniform_int(rng, MIN_N, MAX_N)
    if rng.random() < 0.5:
        n = 2 ** round(math.log2(n))
    params = {"rows": _log_uniform_int(rng, MIN_ROWS, MAX_ROWS), "n": n, "dtype": rng.choice(DTYPES)}
    if "A" in KINDS[kind].inputs[0]:
        params["heads"] = rng.choice((1, 2, 4, 8, 16))
        params["rows"] = params["heads"] * max(1, params["rows"] // params["heads"])
    return params


def _shapes(kind: Kind, params: dict, rows: int) -> list:
    """``(dims, own dtype or None)`` per input at ``rows`` (attention: ``heads`` x queries = rows)."""
    heads = params.get("heads", 1)
    dims = {"R": rows, "N": params["n"], "A": heads, "Q": max(1, rows // heads)}
    out = []
    for template in kind.inputs:
        shape, _, own = template.partition(":")
        out.append((tuple(int(d) if d.isdigit() else dims[d] for d in shape.split("x")), own or None))
    return out


def _export(kind: Kind, params: dict, rows: int, on_meta: bool) -> str:
    import torch

    from costfuse.torch_import import InputSpec, build_module, example_inputs, import_module, load_factory, torch_dtype

    module = build_module(load_factory(f"{BLOCKS}:{kind.block}"), 0, params["dtype"])
    shapes = _shapes(kind, params, rows)
    if on_meta:
        inputs = tuple(torch.empty(d, dtype=torch_dtype(own or params["dtype"]), device="meta") for d, own in shapes)
    else:
        inputs = example_inputs([InputSpec(d, own) for d, own in shapes], params["dtype"], 0)
    return import_module(module, inputs, make_fx=kind.make_fx)


def generate_group_program(kind: str, seed: int) -> RandomProgram:
    """The program of ``(kind, seed)``: MLIR text with one ``func.func @main``.

    Raises ``TorchImportError`` if the block cannot be exported at all.
    """
    from costfuse.torch_import import TorchImportError

    params = draw_params(kind, seed)
    if kind == "row_random":
        prog = generate("reduce", seed)
        return RandomProgram(kind, seed, prog.text, {**params, **prog.params})
    spec = KINDS[kind]
    try:
        text = _export(spec, params, params["rows"], on_meta=True)
        return RandomProgram(kind, seed, text, {**params, "traced_on": "meta"})
    except TorchImportError:
        rows = max(1, min(params["rows"], REAL_TRACE_MAX_NUMEL // params["n"]))
        if "heads" in params:
            rows = max(params["heads"], rows - rows % params["heads"])
        text = _export(spec, params, rows, on_meta=False)
        return RandomProgram(kind, seed, text, {**params, "rows": rows, "traced_on": "cpu"})
