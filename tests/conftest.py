"""Shared pytest fixtures.  One section per topic; keep each fixture's docstring
saying what it returns, and make anything expensive session-scoped."""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
# `examples.torch_blocks` imports under plain `pytest` too; the shared helpers import as `helpers.x`
# (tests/helpers/), since with --import-mode=importlib no test folder is put on the path and a test
# module never imports another.
for _path in (REPO_ROOT, TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


# ---------------------------------------------------------------------------
# Torch-exported blocks (examples/torch_blocks.py -> costfuse.torch_import)


@dataclass(frozen=True)
class ExportedBlock:
    """A torch block exported to Linalg, with PyTorch's own answer on one input.

    ``mlir`` is exactly what ``costfuse import-torch examples.torch_blocks:NAME``
    writes (seed 0); ``@main`` takes ``inputs`` and PyTorch returns ``expected``.
    """

    name: str
    dtype: str
    mlir: str
    inputs: list[np.ndarray]
    expected: list[np.ndarray]


def _export_block(name: str, dtype: str = "f32", seed: int = 0) -> ExportedBlock:
    import torch

    from costfuse.reference import NUMPY_DTYPES
    from costfuse.torch_import import build_module, example_inputs, import_module
    from examples import torch_blocks

    module = build_module(getattr(torch_blocks, name), seed, dtype)
    inputs = example_inputs(torch_blocks.EXAMPLE_SHAPES[name], dtype, seed)
    mlir = import_module(module, inputs)
    with torch.no_grad():
        out = module(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)

    def to_numpy(t):  # via f32 for bf16, which torch cannot hand to numpy directly
        return t.float().numpy().astype(NUMPY_DTYPES[dtype]) if t.dtype == torch.bfloat16 else t.numpy()

    return ExportedBlock(name, dtype, mlir, [to_numpy(x) for x in inputs], [to_numpy(o) for o in outs])


@pytest.fixture(scope="session")
def exported_block():
    """``exported_block(name, dtype="f32") -> ExportedBlock`` for any factory in
    ``examples/torch_blocks.py``, exported once per session (about 0.2-2 s each)."""
    return functools.cache(_export_block)


@pytest.fixture(scope="session")
def encoder_layer(exported_block) -> ExportedBlock:
    """``nn.TransformerEncoderLayer`` (d_model 32, 4 heads, ff 64, pre-norm, GELU)
    on a 2x16x32 input: 42 ``linalg.generic`` plus matmuls, transposes and fills."""
    return exported_block("transformer_encoder_layer")


@pytest.fixture(scope="session")
def encoder_layer_mlir(encoder_layer) -> str:
    """Just the MLIR text of :func:`encoder_layer` (``@main``, one 2x16x32 f32 input)."""
    return encoder_layer.mlir


# ---------------------------------------------------------------------------
# Kernel groups (dataset v2, group heads): tests/helpers/group_data.py


@dataclass(frozen=True)
class GroupRun:
    """``costfuse-train`` on :func:`group_v2_dir`: its exit status, report (stdout), stderr and bundle folder."""

    code: int
    report: str
    err: str
    bundle: Path


@pytest.fixture(scope="session")
def group_v2_dir(tmp_path_factory) -> Path:
    """A schema-v2 dataset of 8 programs (softmax, RMSNorm and LayerNorm forward, SwiGLU): real groups
    and launches, synthetic labels (``tests/helpers/group_data.py`` says why); about 10 s.  Its folder is named
    ``groups_v2``, not ``sm90_v2``: nothing may depend on the directory's name."""
    from helpers.group_data import write_synthetic_v2

    d = tmp_path_factory.mktemp("group_data") / "groups_v2"
    write_synthetic_v2(d)
    return d


@pytest.fixture(scope="session")
def group_run(group_v2_dir, tmp_path_factory) -> GroupRun:
    """``costfuse-train --data group_v2_dir --no-tracking --no-holdout --n-estimators 20 --export OUT -q``."""
    from helpers.group_data import train_cli

    out = tmp_path_factory.mktemp("group_model") / "bundle"
    return GroupRun(*train_cli([group_v2_dir], out), out)
