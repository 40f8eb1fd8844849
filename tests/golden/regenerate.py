"""Rewrite the golden files: ``python tests/golden/regenerate.py``.

Inputs ``<case>.mlir`` come from ``tests/helpers/corpus.py`` (and the shipped
example); expected outputs ``<case>.<model>.mlir`` are what the pass prints
today.  Review the diff before committing: a golden file is a claim.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from helpers.corpus import CORPUS  # noqa: E402

from costfuse.cost_models.always import Always
from costfuse.cost_models.threshold import Threshold
from costfuse.fusion_pass import FusionPass, run_pipeline  # noqa: E402
from costfuse.ir import parse_module, print_module  # noqa: E402

CASES = ["chain_f32", "broadcast", "reduction_sum", "multi_use", "transpose_index", "named_matmul", "cast_bf16"]
MODELS = {"always": Always, "threshold": lambda: Threshold(max_chain_length=2, max_body_ops=8)}


def inputs() -> dict[str, str]:
    cases = {c: CORPUS[c]() for c in CASES}
    cases["softmax_gelu"] = (HERE.parents[1] / "examples" / "softmax_gelu.mlir").read_text()
    return cases


def fused_text(text: str, model: str, name: str) -> str:
    module = parse_module(text, name)
    run_pipeline(module, FusionPass(MODELS[model]()))
    return print_module(module)


def main() -> None:
    for name, text in inputs().items():
        (HERE / f"{name}.mlir").write_text(text)
        for model in MODELS:
            (HERE / f"{name}.{model}.mlir").write_text(fused_text(text, model, name))


if __name__ == "__main__":
    main()
