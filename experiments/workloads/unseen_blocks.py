"""Blocks neither dataset v2 nor the workloads contain: the Inductor handler's held-out checks (issue #25).

The group heads were trained on random groups of the kinds in ``blocks.py``
(``data/group_programs.py``), and the workloads are those kinds at LLM sizes.
These compose the same operations differently, or at rows the training never
had, so the handler's report (``experiments/inductor_report.py``) can say how
it does on blocks it has not seen.  Conventions as in ``blocks.py``: no
parameters (weights are inputs), every class its own factory; :data:`SHAPES`
gives each block's inputs (``"4096x8192"``, ``"1024:i64"`` for labels).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RMSNormGate(nn.Module):
    """A gated RMSNorm (Mamba-2's ``RMSNormGated``): ``rms_norm(x * silu(z)) * w``."""

    def forward(self, x, z, w):
        g = (x * F.silu(z)).float()
        return (g * torch.rsqrt(g.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w


class LayerNormGelu(nn.Module):
    """LayerNorm then GELU, one block (a ViT MLP's pre-norm feeding its activation without a matmul)."""

    def forward(self, x, w, b):
        return F.gelu(F.layer_norm(x, (x.shape[-1],), w, b))


class LabelSmoothingCrossEntropy(nn.Module):
    """Cross-entropy with label smoothing 0.1 at GPT-2's vocabulary (50,257: not a power of two)."""

    def forward(self, logits, labels):
        return F.cross_entropy(logits.float(), labels, label_smoothing=0.1)


class SoftmaxTemperature(nn.Module):
    """Sampling probabilities: ``softmax(logits / 0.7)`` over GPT-2's vocabulary, in f32."""

    def forward(self, logits):
        return torch.softmax(logits.float() / 0.7, dim=-1)


class LongRowRMSNorm(nn.Module):
    """RMSNorm over rows of 65,536 (twice the longest row of dataset v2's kinds at these dims)."""

    def forward(self, x, w):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w


class ZLoss(nn.Module):
    """PaLM's auxiliary z-loss: ``1e-4 * logsumexp(logits)**2``, averaged over tokens."""

    def forward(self, logits):
        return 1e-4 * torch.logsumexp(logits.float(), dim=-1).pow(2).mean()


SHAPES: dict[str, tuple[list[str], str]] = {
    "RMSNormGate": (["4096x8192", "4096x8192", "8192"], "bf16"),
    "LayerNormGelu": (["4096x4096", "4096", "4096"], "f32"),
    "LabelSmoothingCrossEntropy": (["2048x50257", "2048:i64"], "bf16"),
    "SoftmaxTemperature": (["1024x50257"], "bf16"),
    "LongRowRMSNorm": (["1024x65536", "65536"], "bf16"),
    "ZLoss": (["2048x32000"], "bf16"),
}
