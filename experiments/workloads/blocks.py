"""The non-matmul parts of real LLM training and inference graphs, as ``torch.nn`` modules.

These are the workloads of the kernel-group experiments (docs/design.md §10):
each module is one *group kind* of that section (softmax, a norm forward or
backward, cross-entropy, an attention-score epilogue, a gate, residual + norm,
an optimizer step, the backward of a decoder layer's chain of norms), written
the way the model it names writes it, so the exported Linalg has the ops the
real graph has (bf16 -> f32 upcasts included).

Conventions, all so that ``costfuse import-torch experiments/workloads/blocks.py:CLASS``
exports a small, matmul-free module (``experiments/workloads/export.py``):

* No parameters and no tensor constants: weights, biases and optimizer state
  are *inputs*.  The importer inlines parameters as hex constants, which at
  hidden 8192 or vocab 128k would be megabytes of text; masks and ALiBi slopes
  are built from ``arange`` so they lower to ``linalg.index`` arithmetic.
* Every class is its own factory (no constructor arguments needed), and its
  hyper-parameters are class attributes with the model's values.
* Backward modules (``*Backward``) call :func:`torch.autograd.grad` inside
  ``forward``; ``torch.export`` cannot trace that, so they are exported with
  ``costfuse import-torch --make-fx`` (traced with ``make_fx`` first).  Their
  ``forward`` turns grad mode on itself, so eager calls under ``no_grad``
  still compute the gradients.
* Cross-entropy takes integer labels as a real ``int64`` input
  (``--shape ROWS:i64``), not labels derived from a float input: that is the
  graph a training step runs, with no extra ops that a real one lacks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

# ---------------------------------------------------------------------------
# Shared pieces (the functions the modules below and their backward share)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """``LlamaRMSNorm.forward`` (HF transformers, models/llama/modeling_llama.py): f32 statistics, input-dtype output."""
    xf = x.to(torch.float32)
    variance = xf.pow(2).mean(-1, keepdim=True)
    return weight * (xf * torch.rsqrt(variance + eps)).to(x.dtype)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """``nn.LayerNorm`` over the last dim with its affine weight and bias passed in (GPT-2's ``ln_1``/``ln_2``)."""
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def grads(fn: Callable[..., torch.Tensor], wrt: Sequence[torch.Tensor], rest: Sequence[torch.Tensor] = (),
          grad_out: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
    """Gradients of ``fn(*wrt, *rest)`` w.r.t. ``wrt`` for output gradient ``grad_out`` (None: a scalar loss).

    Fresh leaves, so the result is the graph of exactly these gradients, and
    grad mode on, so eager callers under ``torch.no_grad()`` get them too.
    """
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_(True) for t in wrt]
        out = fn(*leaves, *rest)
        return torch.autograd.grad(out, leaves, grad_out)


def factory_device(scores: torch.Tensor) -> torch.device | None:
    """Where ``forward`` builds its masks and biases: on the scores' GPU (torch.compile refuses a CPU mask
    against CUDA scores, though eager takes it), else on the default device.  Not on ``meta``: dataset v2's
    attention programs were exported from real CPU tensors after a meta trace failed here
    (data/group_programs.py), and a meta trace would change them."""
    return scores.device if scores.device.type == "cuda" else None


def causal_mask(q_len: int, k_len: int, device: torch.device | None = None) -> torch.Tensor:
    """True where query i must not see key j (j > i, queries aligned to the last keys), from aranges, no constant."""
    i = torch.arange(q_len, device=device).unsqueeze(-1) + (k_len - q_len)
    j = torch.arange(k_len, device=device).unsqueeze(0)
    return j > i


def masked_softmax(scores: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Causal ``masked_fill`` with the dtype's min, softmax in f32, cast back: HF eager attention's tail."""
    mask = causal_mask(scores.shape[-2], scores.shape[-1], factory_device(scores))
    scores = scores.masked_fill(mask, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=-1, dtype=torch.float32).to(dtype)


# ---------------------------------------------------------------------------
# Softmax and log-softmax


class Softmax(nn.Module):
    """Group kind: softmax.  A row softmax in the input dtype, as ``nn.Softmax(dim=-1)`` in any model."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


class LogSoftmax(nn.Module):
    """Group kind: log-softmax.  Token log-probs over the vocabulary in f32, as RLHF trainers take them
    (TRL's ``logprobs_from_logits``: ``F.log_softmax(logits, dim=-1)`` on upcast logits)."""

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(logits.float(), dim=-1)


# ---------------------------------------------------------------------------
# Norms, forward and backward


class LayerNormForward(nn.Module):
    """Group kind: LayerNorm forward.  GPT-2's ``nn.LayerNorm(n_embd, eps=1e-5)`` with weight and bias as inputs."""

    eps = 1e-5

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return layer_norm(x, weight, bias, self.eps)


class LayerNormBackward(nn.Module):
    """Group kind: LayerNorm backward.  dx, dweight, dbias of GPT-2's LayerNorm for an output gradient ``grad_y``
    (dx is the row group; dweight and dbias reduce over rows, as in every training step)."""

    eps = 1e-5

    def forward(self, x, weight, bias, grad_y):
        return grads(lambda x, w, b: layer_norm(x, w, b, self.eps), (x, weight, bias), grad_out=grad_y)


class RMSNormForward(nn.Module):
    """Group kind: RMSNorm forward.  HF ``LlamaRMSNorm`` (eps 1e-6 as Llama-2; upcast to f32, cast back, times weight)."""

    eps = 1e-6

    def forward(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, weight, self.eps)


class RMSNormBackward(nn.Module):
    """Group kind: RMSNorm backward.  dx and dweight of :class:`RMSNormForward` for an output gradient ``grad_y``
    (the kernel of docs/design.md §10's spill table)."""

    eps = 1e-6

    def forward(self, x, weight, grad_y):
        return grads(lambda x, w: rms_norm(x, w, self.eps), (x, weight), grad_out=grad_y)


# ---------------------------------------------------------------------------
# Cross-entropy, forward and backward


def _lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """HF ``ForCausalLMLoss``: upcast the logits to f32, then mean ``F.cross_entropy`` with ignore_index -100."""
    return F.cross_entropy(logits.float(), labels, ignore_index=-100, reduction="mean")


class CrossEntropyForward(nn.Module):
    """Group kind: cross-entropy forward.  The LM loss of HF causal LMs (Llama-2 vocab 32000, Llama-3 128256)
    on already-shifted ``(rows, vocab)`` logits and int64 labels; returns the scalar mean loss."""

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return _lm_loss(logits, labels)


class CrossEntropyBackward(nn.Module):
    """Group kind: cross-entropy backward.  d loss / d logits of :class:`CrossEntropyForward` (loss gradient 1),
    in the logits' dtype: softmax minus one-hot, scaled by 1/rows."""

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        (grad_logits,) = grads(_lm_loss, (logits,), (labels,))
        return grad_logits


# ---------------------------------------------------------------------------
# Attention-score epilogues with their softmax; scores are (batch, heads, q, k)


class AttentionCausal(nn.Module):
    """Group kind: attention-score epilogue (scale + causal mask) with softmax.  HF Llama/GPT-2 eager attention:
    ``scores * head_dim**-0.5``, causal ``masked_fill`` with the dtype's min, f32 softmax, cast back."""

    head_dim = 128

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return masked_softmax(scores * self.head_dim**-0.5, scores.dtype)


class AttentionSoftcap(nn.Module):
    """Group kind: attention-score epilogue (scale + tanh softcap + causal mask) with softmax.  Gemma-2 eager
    attention: ``scaling = query_pre_attn_scalar**-0.5``, then ``tanh(s / 50) * 50`` (attn_logit_softcapping)."""

    query_pre_attn_scalar = 256
    softcap = 50.0

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        s = scores * self.query_pre_attn_scalar**-0.5
        s = torch.tanh(s / self.softcap) * self.softcap
        return masked_softmax(s, scores.dtype)


class AttentionAlibi(nn.Module):
    """Group kind: attention-score epilogue (scale + ALiBi bias + causal mask) with softmax.  BLOOM:
    ``scores * head_dim**-0.5 + slope_h * key_position`` with slopes ``2**(-8 (h+1) / heads)``
    (``build_alibi_tensor`` for a power-of-two head count), built from aranges."""

    head_dim = 128

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        heads, k_len = scores.shape[1], scores.shape[-1]
        f32 = {"dtype": torch.float32, "device": factory_device(scores)}
        slopes = torch.pow(2.0, -8.0 * (torch.arange(heads, **f32) + 1) / heads)
        alibi = slopes.view(heads, 1, 1) * torch.arange(k_len, **f32).view(1, 1, k_len)
        s = scores * self.head_dim**-0.5 + alibi.to(scores.dtype)
        return masked_softmax(s, scores.dtype)


# ---------------------------------------------------------------------------
# Gates


class BiasGeluTanh(nn.Module):
    """Group kind: GELU gate (tanh).  GPT-2's MLP after ``c_fc``: the Linear's bias add, then ``gelu_new``
    (``F.gelu(approximate="tanh")``); the matmul stays outside, the bias is an input."""

    def forward(self, h: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.gelu(h + bias, approximate="tanh")


class BiasGeluErf(nn.Module):
    """Group kind: GELU gate (erf).  BERT's ``BertIntermediate`` after its dense matmul: bias add, then exact
    ``nn.GELU()``."""

    def forward(self, h: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.gelu(h + bias)


class SwiGLU(nn.Module):
    """Group kind: SiLU gate.  Llama's ``LlamaMLP``: ``silu(gate_proj(x)) * up_proj(x)``, the two projections'
    outputs as inputs."""

    def forward(self, gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        return F.silu(gate) * up


# ---------------------------------------------------------------------------
# Residual add + norm


class AddRMSNorm(nn.Module):
    """Group kind: residual add + norm.  A Llama decoder layer's ``residual + attn_out`` then
    ``post_attention_layernorm``; returns (normed, new residual), both used later."""

    eps = 1e-6

    def forward(self, residual: torch.Tensor, h: torch.Tensor, weight: torch.Tensor):
        s = residual + h
        return rms_norm(s, weight, self.eps), s


class AddLayerNorm(nn.Module):
    """Group kind: residual add + norm.  GPT-2's ``Block``: ``residual + attn_out`` then ``ln_2``;
    returns (normed, new residual)."""

    eps = 1e-5

    def forward(self, residual, h, weight, bias):
        s = residual + h
        return layer_norm(s, weight, bias, self.eps), s


# ---------------------------------------------------------------------------
# Norm chains between two matmuls, backward (issue #29: where a whole-row kernel runs out of registers)


def gemma_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """``Gemma2RMSNorm.forward`` (HF transformers, models/gemma2/modeling_gemma2.py; Gemma-3 has the same):
    f32 statistics, times ``1 + weight``, cast back."""
    xf = x.float()
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (out * (1.0 + weight.float())).type_as(x)


def norm_span(norm: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], x, attn_out, mlp_out, w_in, w_post_attn,
              w_pre_ffn, w_post_ffn, w_next_in):
    """The non-matmul span of a decoder layer with norms before and after each sublayer ("sandwich" or
    Peri-LN), from the layer's input to the next layer's attention input: ``input_layernorm(x)`` (attention
    input), ``h = x + post_attention_layernorm(attn_out)``, ``pre_feedforward_layernorm(h)`` (MLP input),
    ``out = h + post_feedforward_layernorm(mlp_out)`` and the next layer's ``input_layernorm(out)``.
    Returns the four values a matmul or the next layer reads."""
    h = x + norm(attn_out, w_post_attn)
    out = h + norm(mlp_out, w_post_ffn)
    return norm(x, w_in), norm(h, w_pre_ffn), out, norm(out, w_next_in)


def span_grads(norm, x, attn_out, mlp_out, weights, out_grads):
    """Gradients of :func:`norm_span` w.r.t. its three activations and five weights, for the gradients of its
    four outputs (what the backward of the matmuls around it hands over)."""
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_(True) for t in (x, attn_out, mlp_out, *weights)]
        return torch.autograd.grad(norm_span(norm, *leaves), leaves, out_grads)


class GemmaNormSpanBackward(nn.Module):
    """Group kind: norm-chain backward.  Gemma-2's and Gemma-3's decoder layers norm before *and* after
    attention and the MLP (``input_layernorm``, ``post_attention_layernorm``, ``pre_feedforward_layernorm``,
    ``post_feedforward_layernorm``, each a ``Gemma2RMSNorm`` with eps 1e-6): the backward of
    :func:`norm_span` with those norms.  Five row reductions chained in one row: the longest-lived
    whole-row kernel of a training step."""

    eps = 1e-6

    def forward(self, x, attn_out, mlp_out, w_in, w_post_attn, w_pre_ffn, w_post_ffn, w_next_in,
                g_attn_in, g_mlp_in, g_out, g_next_in):
        return span_grads(lambda t, w: gemma_rms_norm(t, w, self.eps), x, attn_out, mlp_out,
                          (w_in, w_post_attn, w_pre_ffn, w_post_ffn, w_next_in), (g_attn_in, g_mlp_in, g_out, g_next_in))


class PeriLNSpanBackward(nn.Module):
    """Group kind: norm-chain backward.  Peri-LN (Kim et al. 2025, "Peri-LN: Revisiting Layer Normalization in
    the Transformer Architecture"): a norm around each sublayer's input and output, here with Llama's RMSNorm
    (:func:`rms_norm`, eps 1e-6); the backward of :func:`norm_span` with those norms."""

    eps = 1e-6

    def forward(self, x, attn_out, mlp_out, w_in, w_post_attn, w_pre_ffn, w_post_ffn, w_next_in,
                g_attn_in, g_mlp_in, g_out, g_next_in):
        return span_grads(lambda t, w: rms_norm(t, w, self.eps), x, attn_out, mlp_out,
                          (w_in, w_post_attn, w_pre_ffn, w_post_ffn, w_next_in), (g_attn_in, g_mlp_in, g_out, g_next_in))


# ---------------------------------------------------------------------------
# Optimizer


class AdamWStep(nn.Module):
    """Group kind: AdamW step.  ``torch.optim.AdamW``'s single-tensor (foreach=False) update
    (torch/optim/adamw.py ``_single_tensor_adam`` with decoupled weight decay) written functionally, at step 10
    with the default betas and eps, lr 3e-4, weight decay 0.1; returns (param, exp_avg, exp_avg_sq)."""

    lr, beta1, beta2, eps, weight_decay, step = 3e-4, 0.9, 0.999, 1e-8, 0.1, 10

    def forward(self, param, grad, exp_avg, exp_avg_sq):
        param = param * (1 - self.lr * self.weight_decay)
        exp_avg = torch.lerp(exp_avg, grad, 1 - self.beta1)
        exp_avg_sq = torch.addcmul(exp_avg_sq * self.beta2, grad, grad, value=1 - self.beta2)
        step_size = self.lr / (1 - self.beta1**self.step)
        bias_correction2_sqrt = math.sqrt(1 - self.beta2**self.step)
        denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + self.eps
        return torch.addcdiv(param, exp_avg, denom, value=-step_size), exp_avg, exp_avg_sq
