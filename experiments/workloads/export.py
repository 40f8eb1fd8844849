"""Export the kernel-group workloads (``blocks.py``) to Linalg with ``costfuse import-torch``.

    python experiments/workloads/export.py                    # LLM sizes -> experiments/workloads/*.mlir + README.md
    python experiments/workloads/export.py --small --out DIR  # the same graphs at small sizes, for numerics tests
    ... [--only softmax_bf16,rmsnorm_bwd_f32]                 # a subset
    python experiments/workloads/export.py --readme           # README.md from the committed files (after --only)

Each file is exactly what the ``costfuse import-torch`` command in its first
lines writes (run in-process, from the repo root), after that header.  Sizes
are symbolic in :data:`WORKLOADS` (``"RxH"``) and resolved by :data:`LLM` or
:data:`SMALL`, so both modes export the same graphs.  The exported text does
not grow with the shapes (the blocks have no weights), but the CLI draws real
example inputs, so an LLM-size run needs a few GB of memory.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from costfuse.torch_import import cli  # noqa: E402

BLOCKS = "experiments/workloads/blocks.py"  # the CLI loads it by path, relative to the repo root

# Dimension symbols of the shape templates.  LLM: the models the blocks come from.
LLM = {
    "R": 4096,    # rows = batch * seq tokens
    "H": 8192,    # hidden of Llama-2 70B, for the standalone norms and softmax
    "D": 4096,    # hidden of Llama-2 7B, for residual + norm and the AdamW parameter (q_proj, D x D)
    "F": 11008,   # Llama-2 7B MLP width (SwiGLU)
    "G": 16384,   # GPT-style 4 x 4096 MLP width (GELU)
    "T": 2048,    # logits rows at vocab 32000 (Llama-2)
    "V": 32000,
    "t": 1024,    # logits rows at vocab 128256 (Llama-3)
    "W": 128256,
    "A": 16,      # attention heads, scores (1, A, S, S)
    "S": 2048,    # sequence length
    "K": 16384,   # hidden of Llama-3.1 405B: where a whole-row RMSNorm backward runs out of registers
    "L": 32768,   # a 32k-long row (long-context attention scores), softmaxed as rows of a matrix
    "E": 3584,    # hidden of Gemma-2 9B (and Qwen2 7B): the norm-chain spans of issue #29
    "M": 3840,    # hidden of Gemma-3 12B
    "N": 1152,    # hidden of Gemma-3 1B
    "B": 2048,    # hidden of Llama-3.2 1B
    "Q": 1024,    # hidden of Qwen3 0.6B
    "P": 896,     # hidden of Qwen2.5 0.5B
    "J": 640,     # hidden of Gemma-3 270M
}
SMALL = {"R": 8, "H": 64, "D": 64, "F": 48, "G": 64, "T": 8, "V": 96, "t": 8, "W": 96, "A": 2, "S": 16, "K": 64, "L": 64,
         "E": 56, "M": 60, "N": 40, "B": 32, "Q": 24, "P": 28, "J": 20}


@dataclass(frozen=True)
class Workload:
    """One exported file: a block of ``blocks.py`` at one dtype, its input shape templates and kind."""

    stem: str
    block: str
    kind: str
    shapes: tuple[str, ...]  # "RxH", or "T:i64" for an integer input
    dtype: str
    make_fx: bool = False  # training graphs (autograd.grad) and nll_loss need `costfuse import-torch --make-fx`

    @property
    def name(self) -> str:
        return f"{self.stem}_{self.dtype}"

    def shape_args(self, dims: dict[str, int]) -> list[str]:
        """The ``--shape`` values at ``dims``: each symbol replaced by its size, dtype suffix kept."""
        out = []
        for template in self.shapes:
            shape, sep, dtype = template.partition(":")
            out.append("x".join(str(dims[s]) if s in dims else s for s in shape.split("x")) + sep + dtype)
        return out

    def argv(self, out: Path, dims: dict[str, int]) -> list[str]:
        """The ``costfuse import-torch`` arguments that write this workload at ``dims`` to ``out``."""
        shapes = [arg for shape in self.shape_args(dims) for arg in ("--shape", shape)]
        return [f"{BLOCKS}:{self.block}", *shapes, "--dtype", self.dtype, *(["--make-fx"] if self.make_fx else []),
                "-o", _relative(out)]


def _relative(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def _expand(stem, block, kind, shapes, dtypes=("bf16", "f32"), make_fx=False) -> list[Workload]:
    return [Workload(stem, block, kind, tuple(shapes), dtype, make_fx) for dtype in dtypes]


def _span(h: str) -> list[str]:
    """The inputs of a norm span's backward (blocks.norm_span): x, attn_out, mlp_out, five norm weights, and the
    gradients of its four outputs."""
    return [f"Rx{h}"] * 3 + [h] * 5 + [f"Rx{h}"] * 4


WORKLOADS: list[Workload] = [
    *_expand("softmax", "Softmax", "softmax", ["RxH"]),
    *_expand("log_softmax", "LogSoftmax", "log-softmax", ["TxV"]),
    *_expand("layernorm_fwd", "LayerNormForward", "LayerNorm forward", ["RxH", "H", "H"]),
    *_expand("layernorm_bwd", "LayerNormBackward", "LayerNorm backward", ["RxH", "H", "H", "RxH"], make_fx=True),
    *_expand("rmsnorm_fwd", "RMSNormForward", "RMSNorm forward", ["RxH", "H"]),
    *_expand("rmsnorm_bwd", "RMSNormBackward", "RMSNorm backward", ["RxH", "H", "RxH"], make_fx=True),
    *_expand("rmsnorm_bwd_16k", "RMSNormBackward", "RMSNorm backward (hidden 16384)", ["RxK", "K", "RxK"],
             make_fx=True),
    *_expand("softmax_32k", "Softmax", "softmax (rows of 32768)", ["RxL"], dtypes=("bf16",)),
    *_expand("cross_entropy_fwd_32k", "CrossEntropyForward", "cross-entropy forward", ["TxV", "T:i64"], make_fx=True),
    *_expand("cross_entropy_bwd_32k", "CrossEntropyBackward", "cross-entropy backward", ["TxV", "T:i64"],
             make_fx=True),
    *_expand("cross_entropy_fwd_128k", "CrossEntropyForward", "cross-entropy forward", ["txW", "t:i64"],
             dtypes=("bf16",), make_fx=True),
    *_expand("cross_entropy_bwd_128k", "CrossEntropyBackward", "cross-entropy backward", ["txW", "t:i64"],
             dtypes=("bf16",), make_fx=True),
    *_expand("attention_causal", "AttentionCausal", "attention epilogue: scale, causal mask, softmax", ["1xAxSxS"]),
    *_expand("attention_softcap", "AttentionSoftcap", "attention epilogue: scale, tanh softcap, causal mask, softmax",
             ["1xAxSxS"]),
    *_expand("attention_alibi", "AttentionAlibi", "attention epilogue: scale, ALiBi, causal mask, softmax",
             ["1xAxSxS"]),
    *_expand("gelu_tanh", "BiasGeluTanh", "GELU gate (tanh), after a bias add", ["RxG", "G"]),
    *_expand("gelu_erf", "BiasGeluErf", "GELU gate (erf), after a bias add", ["RxG", "G"]),
    *_expand("swiglu", "SwiGLU", "SiLU gate (SwiGLU)", ["RxF", "RxF"]),
    *_expand("add_rmsnorm", "AddRMSNorm", "residual add + RMSNorm", ["RxD", "RxD", "D"]),
    *_expand("add_layernorm", "AddLayerNorm", "residual add + LayerNorm", ["RxD", "RxD", "D", "D"]),
    *_expand("adamw", "AdamWStep", "AdamW step", ["DxD"] * 4),
    # Issue #29: blocks where `always` at its heuristic config spills under ptxas (a whole row of five chained
    # norms' backward at 16 elements per thread, right at the 255-register cap: the sizes and dtypes kept are
    # those where it spills; at others, e.g. Gemma-2 2B's 2304 or in bf16 at 3584, ptxas fits them).
    *_expand("gemma_span_bwd_3584", "GemmaNormSpanBackward", "norm-chain backward (Gemma-2 9B sandwich norms)",
             _span("E"), dtypes=("f32",), make_fx=True),
    *_expand("gemma_span_bwd_3840", "GemmaNormSpanBackward", "norm-chain backward (Gemma-3 12B sandwich norms)",
             _span("M"), dtypes=("f32",), make_fx=True),
    *_expand("periln_span_bwd_3584", "PeriLNSpanBackward", "norm-chain backward (Peri-LN, RMSNorm, hidden 3584)",
             _span("E"), dtypes=("f32",), make_fx=True),
    *_expand("periln_span_bwd_4096", "PeriLNSpanBackward", "norm-chain backward (Peri-LN, RMSNorm, hidden 4096)",
             _span("D"), dtypes=("f32",), make_fx=True),
    *_expand("periln_span_bwd_2048", "PeriLNSpanBackward", "norm-chain backward (Peri-LN, RMSNorm, hidden 2048)",
             _span("B"), dtypes=("f32",), make_fx=True),
    *_expand("gemma_span_bwd_1152", "GemmaNormSpanBackward", "norm-chain backward (Gemma-3 1B sandwich norms)",
             _span("N"), dtypes=("bf16",), make_fx=True),
    *_expand("periln_span_bwd_1024", "PeriLNSpanBackward", "norm-chain backward (Peri-LN, RMSNorm, hidden 1024)",
             _span("Q"), dtypes=("f32",), make_fx=True),
    *_expand("periln_span_bwd_896", "PeriLNSpanBackward", "norm-chain backward (Peri-LN, RMSNorm, hidden 896)",
             _span("P"), dtypes=("f32",), make_fx=True),    *_expand("gemma_span_bwd_640", "GemmaNormSpanBackward", "norm-chain backward (Gemma-3 270M sandwich norms)",
             _span("J"), dtypes=("bf16",), make_fx=True),
]
BY_NAME = {w.name: w for w in WORKLOADS}


def header(w: Workload, argv: list[str]) -> str:
    """The comment lines that start each file: what it is, and the exact command that wrote the rest."""
    return (f"// CostFuse workload {w.name}: {w.kind} ({BLOCKS}:{w.block}); written by experiments/workloads/export.py\n"
            f"// costfuse import-torch {' '.join(argv)}\n")


def export(w: Workload, out_dir: Path, dims: dict[str, int]) -> Path:
    """Write ``out_dir/<name>.mlir``: the header, then what ``costfuse import-torch`` writes.  Run from the repo root."""
    out = Path(out_dir) / f"{w.name}.mlir"
    argv = w.argv(out, dims)
    if (rc := cli(argv)) != 0:
        raise RuntimeError(f"{out}: costfuse import-torch exited {rc}")
    out.write_text(header(w, argv) + out.read_text())
    return out


def readme(rows: list[tuple[Workload, Path]]) -> str:
    """``experiments/workloads/README.md``: what the files are, one table row and one command per file."""
    table = ["| name | kind | shapes | dtype | generics | size |", "|---|---|---|---|---|---|"]
    commands = []
    for w, path in rows:
        text = path.read_text()
        shapes = ", ".join(f"`{s}`" for s in w.shape_args(LLM))
        table.append(f"| `{w.name}` | {w.kind} | {shapes} | {w.dtype} | {text.count('linalg.generic')} | "
                     f"{path.stat().st_size / 1024:.1f} KiB |")
        commands.append(text.splitlines()[1].removeprefix("// "))
    total = sum(path.stat().st_size for _, path in rows) / 1024
    return "\n".join([
        "# Workloads: the non-matmul parts of LLM training steps",
        "",
        "Real blocks (`blocks.py`, each class's docstring names its group kind and the model it comes from),",
        "exported to Linalg with `costfuse import-torch` at LLM sizes by `python experiments/workloads/export.py`,",
        "for the kernel-group experiments (docs/design.md §10). Each `.mlir` starts with the command that wrote it.",
        "`python experiments/workloads/export.py --small --out DIR` writes the same graphs at small sizes",
        f"(`{'`, `'.join(f'{k}={v}' for k, v in SMALL.items())}`), which `tests/experiments/test_workloads.py` runs against eager torch.",
        "",
        "- Weights, biases and optimizer state are inputs, so nothing is inlined and each file stays a few KiB.",
        "- Backward graphs and cross-entropy are traced with `make_fx` and the core-ATen decompositions first",
        "  (`--make-fx`): `torch.export` cannot trace `torch.autograd.grad`, and the backend cannot lower",
        "  `nll_loss_forward`/`nll_loss_backward` or `native_layer_norm_backward` as they are.",
        "- The importer then makes Inductor's own joint-graph rewrites (docs/design.md §5): uniform fills become",
        "  `full` and dead code goes, so the cross-entropy backward does not compute the forward loss (a gather of",
        "  the whole log-softmax); the one-hot scatter becomes a `where` with a scalar background, so no",
        "  `dense<0>` (rows, vocab) tensor is read. A bf16/f16 LayerNorm normalizes in f32, as torch's",
        "  decomposition does (the backend alone would keep its statistics in bf16).",
        "- Cross-entropy labels are a real `int64` input (`--shape 2048:i64`), drawn in [0, 4) for the export.",
        "- Known: the backend lowers tanh-GELU with sqrt(2/pi) as 0.797724 (it is 0.7978846), so `gelu_tanh_f32`",
        "  differs from torch by up to ~5e-5 (outside the f32 tolerance, inside bf16's).",
        "",
        f"{len(rows)} files, {total:.0f} KiB in all.",
        "",
        *table,
        "",
        "Commands (from the repo root):",
        "",
        "```sh",
        *commands,
        "```",
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python experiments/workloads/export.py", description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="small sizes (rows 8, hidden 64, vocab 96); needs --out")
    p.add_argument("--out", type=Path, help=f"output folder (default {_relative(HERE)} at LLM sizes)")
    p.add_argument("--only", help="comma-separated workload names (default: all)")
    p.add_argument("--readme", action="store_true",
                   help="only rewrite README.md from the committed LLM-size files (after an --only export)")
    args = p.parse_args(argv)
    if args.readme:
        (HERE / "README.md").write_text(readme([(w, HERE / f"{n}.mlir") for n, w in BY_NAME.items()]))
        return 0
    if args.small and args.out is None:
        p.error("--small needs --out DIR (the committed files are the LLM-size ones)")
    names = args.only.split(",") if args.only else list(BY_NAME)
    if unknown := [n for n in names if n not in BY_NAME]:
        p.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    out_dir = (args.out or HERE).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    os.chdir(REPO)  # the recorded commands are relative to the repo root
    rows = []
    for name in names:
        path = export(BY_NAME[name], out_dir, SMALL if args.small else LLM)
        rows.append((BY_NAME[name], path))
        print(f"{name}: {path.stat().st_size / 1024:.1f} KiB, {path.read_text().count('linalg.generic')} linalg.generic",
              flush=True)
    if not args.small and out_dir == HERE and not args.only:
        (HERE / "README.md").write_text(readme(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
