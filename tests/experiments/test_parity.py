"""Parity with upstream ``linalg-fuse-elementwise-ops`` + canonicalize + cse.

On the synthetic corpus (generics only, plus one matmul) ``--cost-model
always`` reaches exactly upstream's generic count.  On real PyTorch exports
the counts differ for two reasons, both by design, and the test checks that
they account for every difference:

1. Upstream fuses elementwise producers into *named* ops (``linalg.matmul``,
   ``linalg.batch_matmul``), turning the contraction into a generic.  CostFuse
   keeps a matmul a matmul (tensor cores), so its producers stay separate
   kernels (docs/design.md §5).
2. Upstream also propagates reshapes (``tensor.expand_shape`` /
   ``collapse_shape``) through generics to fuse across them.  CostFuse leaves
   ``tensor.*`` ops alone.

So every generic CostFuse keeps beyond upstream's count (net of contractions
upstream converted) must feed a named op or touch a reshape, and no legal
generic→generic edge may be left unfused.

The counts come from ``experiments/parity.py``, whose report
(``experiments/results/parity.md``) is the table docs/usage.md quotes; the last
test keeps the three equal.
"""

from pathlib import Path

import pytest
from helpers.corpus import CORPUS
from iree.compiler import ir

from costfuse.graph import edges_into, function_blocks, generics_in, legality
from costfuse.upstream import count_generics
from experiments.parity import EXAMPLES, HEADER, both, converted_contractions, op_names, parity_row

REPO = Path(__file__).resolve().parents[2]
OUT_OF_SCOPE = ("linalg.matmul", "linalg.batch_matmul", "linalg.transpose", "linalg.fill",
                "tensor.collapse_shape", "tensor.expand_shape")


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_corpus_parity(case):
    up, ours = both(CORPUS[case]())
    assert count_generics(ours) == count_generics(up)


def test_named_matmul_is_kept():
    up, ours = both(CORPUS["named_matmul"]())
    assert op_names(ours).count("linalg.matmul") == op_names(up).count("linalg.matmul") == 1


def _touches_out_of_scope(op: ir.Operation) -> bool:
    users = [u.owner.name for r in op.results for u in r.uses]
    producers = [v.owner.name for v in op.operands if not isinstance(v.owner, ir.Block)]
    return any(n in OUT_OF_SCOPE for n in users + producers)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_parity_differences_are_explained(path):
    up, ours = both(path.read_text())
    extra = count_generics(ours) - (count_generics(up) - converted_contractions(up, ours))
    with ours.context:
        block = function_blocks(ours)[0]
        generics = generics_in(block)
        explained = sum(_touches_out_of_scope(g) for g in generics)
        leftover = [e for g in generics for e in edges_into(g) if legality(e)]
    assert not leftover, "always must reach a fixpoint: no legal edge left"
    assert 0 <= extra <= explained


def _table_rows(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.startswith("| `") and line.count("|") == 6}


def test_parity_report_and_readme_match_the_script():
    """The committed report and docs/usage.md's table are what ``experiments/parity.py`` prints today."""
    rows = {parity_row(p).markdown() for p in EXAMPLES}
    report = (REPO / "experiments/results/parity.md").read_text()
    assert HEADER in report
    assert _table_rows(report) == rows, "rerun: python experiments/parity.py"
    readme = REPO / "docs/usage.md"
    readme_rows = {r for r in _table_rows(readme.read_text()) if r.split("|")[1].strip(" `") in
                   {p.name for p in EXAMPLES}}
    assert readme_rows == rows, f"{readme}: the parity table differs from experiments/results/parity.md"
