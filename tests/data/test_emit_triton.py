"""The Triton a user wants to see (issue #27, item 3): ``--emit-triton DIR`` in ``costfuse-opt`` and
``costfuse-data compile`` writes each kernel's source named after its kernel function, ``--explain`` says
where each went, and ``compile --config`` recompiles one kernel of an outlined module at a launch given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costfuse.cli import opt_main
from costfuse.data.cli import main as data_main

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def outlined(tmp_path, monkeypatch) -> Path:
    """softmax_gelu outlined by the analytical policy: one kernel function, @softmax_gelu_k0 (a row of 1024)."""
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out.mlir"
    assert opt_main([str(EXAMPLES / "softmax_gelu.mlir"), "--cost-model", "analytical", "-o", str(out)]) == 0
    return out


@pytest.fixture
def outlined_many(tmp_path) -> Path:
    out = tmp_path / "many.mlir"
    assert opt_main([str(EXAMPLES / "transformer_encoder_layer.mlir"), "--cost-model", "analytical",
                     "-o", str(out)]) == 0
    return out


def test_opt_writes_each_kernel_named_after_its_function_and_explain_says_where(tmp_path, capsys):
    out, tri = tmp_path / "o.mlir", tmp_path / "tri"
    assert opt_main([str(EXAMPLES / "transformer_encoder_layer.mlir"), "--cost-model", "analytical",
                     "--explain", "--emit-triton", str(tri), "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    names = sorted(line.split("@")[1].split(" ")[0] for line in err if line.startswith("kernel @"))
    assert names and sorted(p.stem for p in tri.glob("*.py")) == names
    for name in names:
        assert f"triton @{name} -> {tri / name}.py" in err
        source = (tri / f"{name}.py").read_text()
        assert f"func.func private @{name}" in source and "def launch(" in source


def test_opt_emits_bare_generics_of_elementwise_fusion_by_index(tmp_path, capsys):
    tri = tmp_path / "tri"
    assert opt_main([str(EXAMPLES / "softmax_gelu.mlir"), "--fusion", "elementwise", "--cost-model", "always",
                     "--explain", "--emit-triton", str(tri), "-o", str(tmp_path / "o.mlir")]) == 0
    err = capsys.readouterr().err
    files = sorted(p.name for p in tri.glob("*.py"))
    assert files == [f"generic_{i}.py" for i in range(len(files))] and files
    assert f"triton generic 0 -> {tri / 'generic_0.py'}" in err


def test_an_unwritable_emit_dir_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert opt_main([str(EXAMPLES / "softmax_gelu.mlir"), "--emit-triton", str(blocker / "sub"),
                     "-o", str(tmp_path / "o.mlir")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--emit-triton: cannot write {blocker / 'sub'}" in err


def test_compile_emits_the_source_it_compiles(outlined, tmp_path, capsys):
    tri = tmp_path / "tri"
    assert data_main(["compile", str(outlined), "--emit-triton", str(tri), "--json", "--no-cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["kernel"] == "softmax_gelu_k0" and row["status"] == "ok"
    assert [p.name for p in tri.iterdir()] == ["softmax_gelu_k0.py"]
    assert "RBLOCK" in (tri / "softmax_gelu_k0.py").read_text()


@pytest.mark.parametrize("config, mode, rblock", [
    ("looped,1,256,4", "looped", 256),
    ("1,256,4", "looped", 256),          # RBLOCK short of the row of 1024: looped
    ("2,1024,8", "persistent", 1024),    # RBLOCK holds the row: persistent
])
def test_compile_config_recompiles_one_kernel_of_an_outlined_module(outlined, capsys, config, mode, rblock):
    assert data_main(["compile", str(outlined), "--config", config, "--json", "--no-cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["kernel"], row["mode"], row["config"]["RBLOCK"], row["status"]) == (
        "softmax_gelu_k0", mode, rblock, "ok")


def test_compile_kernel_keeps_one_kernel_function(outlined_many, capsys):
    assert data_main(["compile", str(outlined_many), "--kernel", "main_k3", "--json", "--no-cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["kernel"], row["index"]) == ("main_k3", 3)


@pytest.mark.parametrize("argv, message", [
    (["--config", "1,256,4"], "--config recompiles one kernel function at the launch given; name it with --kernel "
                              "(one of main_k0, main_k1,"),
    (["--kernel", "nope"], "--kernel nope: no kernel function of that name (the module has main_k0,"),
    (["--kernel", "main_k0", "--config", "bogus,1,256,4"], "--config 'bogus,1,256,4': expected [MODE,]XBLOCK,"),
])
def test_compile_refuses_what_it_cannot_honour_in_one_line(outlined_many, capsys, argv, message):
    assert data_main(["compile", str(outlined_many), *argv]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_persistent_launch_that_cannot_hold_the_row_is_one_line(outlined, capsys):
    assert data_main(["compile", str(outlined), "--config", "persistent,1,256,4"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot hold a row of 1024" in err, err
