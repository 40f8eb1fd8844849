"""Rewrite the golden files: ``python tests/golden/regenerate.py``.

Inputs ``<case>.mlir`` come from ``tests/helpers/corpus.py`` (and the shipped
example); expected outputs ``<case>.<model>.mlir`` are what the pass prints
today.  Review the diff before committing: a golden file is a claim.

Kernel groups (``--fusion groups``) have theirs under ``groups/``:
``groups/<case>.<model>.mlir`` is what ``costfuse-opt <case>.mlir --fusion
groups --cost-model <model> --explain`` prints, its ``--explain`` lines
first as ``//`` comments (each merge, keep, store and skip with its reason
and estimates, each kernel with its launch), then the outlined module (the
kernel functions with ``costfuse.launch``, the caller's ``func.call``s).
So a change in a decision, a config or an estimate reads as a diff.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
import costfuse  # noqa: E402,F401  (first: once tests/ is on the path, tests/costfuse/ would shadow the package)

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


GROUPS = HERE / "groups"
GROUP_MODELS = ("always", "analytical", "learned")   # learned: the shipped group heads


def groups_text(text: str, model: str, name: str) -> str:
    """What ``costfuse-opt NAME.mlir --fusion groups --cost-model MODEL --explain`` prints: the
    ``--explain`` lines as ``//`` comments, then the outlined module."""
    import io
    import tempfile
    from contextlib import redirect_stderr

    from costfuse.cli import opt_main

    with tempfile.TemporaryDirectory(prefix="costfuse-golden-") as tmp:
        src, out = Path(tmp) / f"{name}.mlir", Path(tmp) / "out.mlir"
        src.write_text(text)
        err = io.StringIO()
        with redirect_stderr(err):
            code = opt_main([str(src), "--fusion", "groups", "--cost-model", model, "--explain", "-o", str(out)])
        assert code == 0, err.getvalue()
        explain = [f"// {line}".rstrip() for line in err.getvalue().splitlines()]
        command = f"// costfuse-opt {name}.mlir --fusion groups --cost-model {model} --explain"
        return "\n".join([command, *explain]) + "\n" + out.read_text()


def main() -> None:
    GROUPS.mkdir(exist_ok=True)
    for name, text in inputs().items():
        (HERE / f"{name}.mlir").write_text(text)
        for model in MODELS:
            (HERE / f"{name}.{model}.mlir").write_text(fused_text(text, model, name))
        for model in GROUP_MODELS:
            (GROUPS / f"{name}.{model}.mlir").write_text(groups_text(text, model, name))


if __name__ == "__main__":
    main()
