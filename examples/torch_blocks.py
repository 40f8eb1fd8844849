"""Small standard ``torch.nn`` blocks: the "real model" inputs of the fusion pass.

Each factory takes no arguments (so ``costfuse import-torch
examples.torch_blocks:NAME`` can call it) and returns a fresh module; the CLI
seeds torch before calling it.  Dims are small on purpose: weights are frozen
into the exported MLIR as hex blobs, and the kernels' *structure* (LayerNorm,
softmax, GELU, residual adds around matmuls) is what matters, not their size.

``EXAMPLE_SHAPES`` gives each factory's input shapes; the export script and
the tests read it so that the shapes live in one place.
"""

from __future__ import annotations

import math

import torch
from torch import nn

D_MODEL = 32
N_HEAD = 4
D_FF = 64
BATCH, SEQ = 2, 16


def transformer_encoder_layer(norm_first: bool = True, activation: str = "gelu") -> nn.Module:
    """``nn.TransformerEncoderLayer``; pre-norm + GELU by default, the modern (GPT/ViT) layout.

    Pre-norm GELU gives the interesting generics (erf GELU, LayerNorm feeding
    matmuls); the PyTorch default is :func:`transformer_encoder_layer_postnorm_relu`.
    """
    return nn.TransformerEncoderLayer(
        D_MODEL, N_HEAD, D_FF, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    )


def transformer_encoder_layer_postnorm_relu() -> nn.Module:
    """``nn.TransformerEncoderLayer`` with PyTorch's defaults (post-norm, ReLU)."""
    return transformer_encoder_layer(norm_first=False, activation="relu")


def layernorm_gelu_mlp() -> nn.Module:
    """LayerNorm -> Linear -> GELU (erf) -> Linear: a transformer MLP half without the residual."""
    return nn.Sequential(nn.LayerNorm(D_MODEL), nn.Linear(D_MODEL, D_FF), nn.GELU(), nn.Linear(D_FF, D_MODEL))


class AttentionSoftmax(nn.Module):
    """Multi-head self-attention with the softmax spelled out (no fused SDPA kernel).

    ``softmax(q k^T / sqrt(d_head)) v``, so the export shows the scale, the
    row max/exp/sum/div of the softmax, and the batch matmuls around them.
    """

    def __init__(self, d_model: int = D_MODEL, n_head: int = N_HEAD):
        super().__init__()
        self.n_head, self.d_head = n_head, d_model // n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.n_head, self.d_head).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)
        probs = torch.softmax(scores, dim=-1)
        return self.out((probs @ v).transpose(1, 2).reshape(b, s, d))


def attention_softmax() -> nn.Module:
    """:class:`AttentionSoftmax` at the example dims."""
    return AttentionSoftmax()


EXAMPLE_SHAPES: dict[str, list[tuple[int, ...]]] = {
    "transformer_encoder_layer": [(BATCH, SEQ, D_MODEL)],
    "transformer_encoder_layer_postnorm_relu": [(BATCH, SEQ, D_MODEL)],
    "layernorm_gelu_mlp": [(BATCH, SEQ, D_MODEL)],
    "attention_softmax": [(BATCH, SEQ, D_MODEL)],
}

# The factories whose export is checked in as examples/<name>.mlir.
CHECKED_IN = ("transformer_encoder_layer", "layernorm_gelu_mlp", "attention_softmax")
