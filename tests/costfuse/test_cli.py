"""``costfuse-opt`` end to end, as a user runs it: files, stdin/stdout, exit codes."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "softmax_gelu.mlir"


def opt(*args, stdin=None):
    # These tests pin v1's behaviour (--fusion elementwise); tests/costfuse/test_groups_pass.py covers groups.
    cmd = [sys.executable, "-c", "import sys; from costfuse.cli import opt_main; sys.exit(opt_main())",
           "--fusion", "elementwise", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)


def test_file_to_file_with_explain(tmp_path):
    out = tmp_path / "out.mlir"
    r = opt(str(EXAMPLE), "-o", str(out), "--cost-model", "threshold",
            "--max-chain-length", "3", "--max-body-ops", "16", "--explain")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert "fuse g7+g8 -> g9: chain length 3 <= 3, body ops 8 <= 16 [chain_length=3 body_ops=8]" in lines
    assert "keep g7+g8+g9 -> g10: chain length 4 > 3 [chain_length=4 body_ops=13]" in lines
    assert lines[-1] == "# threshold: 3 fused, 14 not fused, 7 generics left"
    assert out.read_text().count("linalg.generic") == 7


def test_stdin_to_stdout():
    r = opt("-", "--cost-model", "always", stdin=EXAMPLE.read_text())
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("linalg.generic") == 5
    assert r.stderr == ""


@pytest.mark.parametrize("text, message", [
    ("func.func @x() {\n  %0 = arith.addf %a, %b : f32\n}", "bad.mlir:2:19: use of undeclared SSA value name"),
    ("this is not mlir", "bad.mlir:1:1:"),
])
def test_bad_input_is_one_line_and_nonzero(tmp_path, text, message):
    bad = tmp_path / "bad.mlir"
    bad.write_text(text)
    r = opt(str(bad))
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1
    assert message in r.stderr.replace(str(tmp_path) + "/", "")
    assert "Traceback" not in r.stderr


def test_missing_file_and_stray_option():
    r = opt("/nonexistent.mlir")
    assert r.returncode == 1 and "cannot read" in r.stderr
    r = opt(str(EXAMPLE), "--cost-model", "always", "--max-chain-length", "2")
    assert r.returncode == 1
    assert "--max-chain-length does not apply to --cost-model always" in r.stderr


def test_unwritable_output_is_one_line_naming_the_path(tmp_path):
    r = opt(str(EXAMPLE), "--cost-model", "threshold", "-o", str(tmp_path / "missing_dir" / "x.mlir"))
    assert r.returncode == 1
    assert r.stderr == f"costfuse-opt: error: cannot write {tmp_path}/missing_dir/x.mlir: No such file or directory\n"


def test_console_scripts_are_installed():
    bindir = Path(sys.executable).parent
    r = subprocess.run([str(bindir / "costfuse-opt"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--cost-model" in r.stdout


@pytest.mark.parametrize("fusion, summary", [
    ([], "# learned groups: "),                               # the default fusion mode
    (["--fusion", "groups"], "# learned groups: "),
    (["--fusion", "elementwise"], "# learned: "),
])
def test_the_default_cost_model_is_learned_with_the_shipped_models(fusion, summary, capsys):
    """``costfuse-opt x.mlir`` runs the model the project exists for (issue #27, item 2)."""
    from costfuse.cli import opt_main

    assert opt_main([str(EXAMPLE), *fusion, "--explain", "-o", "/dev/null"]) == 0
    err = capsys.readouterr().err
    assert any(line.startswith(summary) for line in err.splitlines()), err
