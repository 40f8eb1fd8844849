"""The programs of dataset ``sm90_inductor_v1``: workload blocks and random compositions of them, at random sizes.

A program is ``(kind, seed)``.  ``kind`` is a block of
``experiments/workloads/blocks.py`` by its dataset-v2 name
(:data:`costfuse.data.group_programs.KINDS`: softmax, norms forward and
backward, cross-entropy, attention epilogues, gates, residual + norm, AdamW)
or ``compose``: a chain of two or three distinct blocks, each taking the
previous one's (first) output as its main ``rows x n`` input.  The sizes are
drawn as dataset v2 draws them (:func:`costfuse.data.group_programs._log_uniform_int`):
rows log-uniform in 1..65,536, row length log-uniform in 64..262,144 (half
the time rounded to a power of two), dtype f32, bf16 or f16; attention
blocks view the rows as ``heads x queries``.  A program of more than
:data:`MAX_ELEMS` elements per ``rows x n`` tensor gets fewer rows, so that
Inductor's index arithmetic stays 32-bit, as in the models the blocks come from.

Everything here is a pure function of ``(kind, seed)``: :func:`draw_params`
is cheap (no torch), :func:`build_program` makes the module and its inputs
(``(shape, torch dtype)`` pairs, what :func:`costfuse.data.inductor_codegen.inductor_code` takes).
"""

from __future__ import annotations

import math
import random

from costfuse.data.group_programs import BLOCKS, DTYPES, KINDS, MIN_N, MIN_ROWS, MAX_ROWS, _log_uniform_int

MAX_N = 262144          # issue #25 part 5: row length 64..262,144
MAX_ELEMS = 2**31 - 1   # elements of one rows x n tensor: Inductor's int32 indexing
COMPOSE = "compose"
INDUCTOR_KINDS = (*KINDS, COMPOSE)
LAST_ONLY = {"cross_entropy_fwd"}   # returns a scalar loss: nothing can follow it
HEADS = (1, 2, 4, 8, 16)


def draw_params(kind: str, seed: int) -> dict:
    """The random choices of program ``(kind, seed)``: ``blocks`` (the chain), ``rows``, ``n``, ``dtype``,
    ``heads`` (rows = heads x queries, for attention blocks)."""
    if kind not in INDUCTOR_KINDS:
        raise ValueError(f"unknown Inductor program kind {kind!r}; choose from {', '.join(INDUCTOR_KINDS)}")
    rng = random.Random(f"inductor:{kind}:{seed}")
    if kind == COMPOSE:
        first = [k for k in KINDS if k not in LAST_ONLY]
        chain = rng.sample(first, rng.choice((2, 3)) - 1)
        chain.append(rng.choice([k for k in KINDS if k not in chain]))
    else:
        chain = [kind]
    n = _log_uniform_int(rng, MIN_N, MAX_N)
    if rng.random() < 0.5:
        n = 2 ** round(math.log2(n))
    rows = _log_uniform_int(rng, MIN_ROWS, MAX_ROWS)
    heads = rng.choice(HEADS) if any(_attention(k) for k in chain) else 1
    rows = max(1, min(rows, MAX_ELEMS // n))
    rows = heads * max(1, rows // heads)
    return {"blocks": chain, "rows": rows, "n": n, "dtype": rng.choice(DTYPES), "heads": heads}


def _attention(kind: str) -> bool:
    return "A" in KINDS[kind].inputs[0]


def input_shapes(params: dict) -> list[tuple[tuple[int, ...], str]]:
    """``(shape, dtype name)`` of every input: the main ``rows x n`` tensor, then each block's other inputs."""
    rows, n, dtype = params["rows"], params["n"], params["dtype"]
    dims = {"R": rows, "N": n}
    out = [((rows, n), dtype)]
    for kind in params["blocks"]:
        for template in KINDS[kind].inputs[1:]:
            shape, _, own = template.partition(":")
            out.append((tuple(dims[d] for d in shape.split("x")), own or dtype))
    return out


def build_program(params: dict):
    """``(module, inputs)``: the chain as one ``nn.Module`` over the main input and the blocks' other inputs,
    returning the last block's output and every other output of the blocks (so none is dead code)."""
    import torch

    from costfuse.torch_import import build_module, load_factory, torch_dtype

    stages = [(kind, build_module(load_factory(f"{BLOCKS}:{KINDS[kind].block}"), 0, params["dtype"]))
              for kind in params["blocks"]]
    arity = [len(KINDS[kind].inputs) - 1 for kind in params["blocks"]]
    rows, n, heads = params["rows"], params["n"], params["heads"]

    class Chain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stages = torch.nn.ModuleList([m for _, m in stages])

        def forward(self, x, *rest):
            outputs, at = [], 0
            for (kind, _), module, k in zip(stages, self.stages, arity):
                args, at = rest[at:at + k], at + k
                if _attention(kind):
                    y = module(x.view(1, heads, rows // heads, n))
                    y = y.view(rows, n)
                else:
                    y = module(x, *args)
                if isinstance(y, tuple):
                    y, *more = y
                    outputs += more
                x = y
            return (x, *outputs)

    inputs = [(shape, torch_dtype(dtype)) for shape, dtype in input_shapes(params)]
    return Chain(), inputs
