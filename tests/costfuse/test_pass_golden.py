"""The pass's printed IR against golden files (regenerate with tests/golden/regenerate.py)."""

from pathlib import Path

import pytest

from costfuse.cost_models.always import Always
from costfuse.fusion_pass import FusionPass, run_pipeline
from costfuse.ir import parse_module, print_module

GOLDEN = Path(__file__).parents[1] / "golden"
CASES = sorted(p for p in GOLDEN.glob("*.*.mlir"))


def _run(name: str, model: str) -> str:
    import sys

    sys.path.insert(0, str(GOLDEN))
    from regenerate import fused_text

    return fused_text((GOLDEN / f"{name}.mlir").read_text(), model, name)


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_golden(path):
    name, model, _ = path.name.split(".")
    assert _run(name, model) == path.read_text()


GROUP_CASES = sorted((GOLDEN / "groups").glob("*.*.mlir"))


@pytest.mark.parametrize("path", GROUP_CASES, ids=lambda p: f"groups/{p.name}")
def test_groups_golden(path):
    """``--fusion groups``: the ``--explain`` lines and the outlined module, as ``costfuse-opt`` prints them."""
    import sys

    sys.path.insert(0, str(GOLDEN))
    from regenerate import groups_text

    name, model, _ = path.name.split(".")
    assert groups_text((GOLDEN / f"{name}.mlir").read_text(), model, name) == path.read_text()


def test_every_group_golden_is_there():
    import sys

    sys.path.insert(0, str(GOLDEN))
    from regenerate import GROUP_MODELS, inputs

    assert {p.name for p in GROUP_CASES} == {f"{n}.{m}.mlir" for n in inputs() for m in GROUP_MODELS}


def test_golden_inputs_are_current():
    """The committed inputs still match the corpus they were generated from."""
    import sys

    sys.path.insert(0, str(GOLDEN))
    from regenerate import inputs

    for name, text in inputs().items():
        assert (GOLDEN / f"{name}.mlir").read_text() == text, name


def test_pass_is_idempotent_and_deterministic():
    text = (GOLDEN / "softmax_gelu.mlir").read_text()
    a, b = parse_module(text), parse_module(text)
    da = run_pipeline(a, FusionPass(Always()))
    db = run_pipeline(b, FusionPass(Always()))
    assert print_module(a) == print_module(b)
    assert [d.line() for d in da] == [d.line() for d in db]
    again = run_pipeline(a, FusionPass(Always()))
    assert not any(d.fuse for d in again)


def test_chain_length_provenance():
    module = parse_module((GOLDEN / "softmax_gelu.mlir").read_text())
    run_pipeline(module, FusionPass(Always()))
    text = print_module(module)
    assert "costfuse.chain_length = 5 : i64" in text  # div + the 4 GELU generics
    assert "costfuse.chain_length = 2 : i64" in text  # sub + exp
    assert "costfuse.label" not in text  # the pass's own bookkeeping never leaks


def test_cf_assert_in_a_body_is_carried_along():
    """torch exports put ``cf.assert`` in generic bodies; fusion keeps it (docs/design.md §5)."""
    module = parse_module((GOLDEN / "cf_assert.input").read_text(), "cf_assert.input")
    decisions = run_pipeline(module, FusionPass(Always()), cleanup=False)
    text = print_module(module)
    assert [d.fuse for d in decisions] == [True]
    assert text.count("linalg.generic") == 1
    assert text.index('cf.assert %true, "always true"') < text.index("math.exp") < text.index("math.tanh")
