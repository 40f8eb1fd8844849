"""``costfuse-data compile``: table and JSON output over a whole module."""

from __future__ import annotations

import json

import pytest
from helpers.lowering_cases import elementwise, row_reduction

from costfuse.data.cli import main, parser
from costfuse.data.cli_compile import ROW_FIELDS

TWO_KERNELS_AND_ONE_UNSUPPORTED = (
    elementwise((64, 32), "f32", ["%e = math.exp %a0 : f32", "yield %e"])
    + row_reduction((16, 128), "f16", "arith.maximumf").replace("@main", "@red")
    + elementwise((8,), "f32", ["%y = math.atan %a0 : f32", "yield %y"]).replace("@main", "@odd")
)


@pytest.fixture
def module_file(tmp_path, monkeypatch):
    monkeypatch.setenv("COSTFUSE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "in.mlir"
    path.write_text(TWO_KERNELS_AND_ONE_UNSUPPORTED)
    return path


def test_compile_json(module_file, capsys):
    assert main(["compile", str(module_file), "--arch", "sm_90", "--jobs", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["unit"], r["index"]) for r in rows] == [("generic", 0), ("generic", 1), ("generic", 2)]
    assert all(list(r) == list(ROW_FIELDS) for r in rows), "one schema: the same keys on every row"
    assert (rows[2]["config"], rows[2]["regs"], rows[2]["kernel"], rows[2]["arch"]) == (None, None, None, "sm_90")
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 2 and all(r["regs"] > 0 and r["spill_store_bytes"] == 0 for r in ok)
    assert all(r["arch"] == "sm_90" and r["kernel_id"] and r["ptxas_version"] for r in ok)
    assert ok[1]["config"]["RBLOCK"] == 128
    # one pass: the input read and the output written (64x32 f32); the f16 reduction also reads its init
    assert [(r["mode"], r["issued_bytes"]) for r in ok] == [("pointwise", 2 * 64 * 32 * 4),
                                                            ("persistent", 16 * 128 * 2 + 2 * 16 * 2)]
    assert all(r["dram_bytes"] is None for r in rows), "a bare generic is no row kernel: no L2 model"
    assert rows[2]["status"] == "unsupported" and "math.atan" in rows[2]["error"]


def test_compile_table_then_cache(module_file, capsys):
    assert main(["compile", str(module_file), "--arch", "sm_80", "--timeout", "60"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[:3] == ["#", "kernel", "config"] and "regs" in header and "status" in header
    assert "X1024 R1 w4" in out and "unsupported: math.atan" in out
    assert out.strip().splitlines()[-1] == "sm_80: 2 ok, 1 unsupported"
    assert main(["compile", str(module_file), "--arch", "sm_80"]) == 0
    assert capsys.readouterr().out.count("ok (cached)") == 2


def test_explicit_config(module_file, capsys):
    text = row_reduction((16, 128), "f32", "arith.addf")
    module_file.write_text(text)
    assert main(["compile", str(module_file), "--config", "4,32,2", "--json", "--no-cache"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["config"] == {"XBLOCK": 4, "RBLOCK": 32, "num_warps": 2, "num_stages": 1}
    assert row["status"] == "ok"


def test_bad_input_exits_1(tmp_path, capsys):
    """costfuse-data's convention (costfuse.cli_common): bad input is exit 1 and one line."""
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {")
    assert main(["compile", str(bad)]) == 1
    assert "bad.mlir:1" in capsys.readouterr().err
    assert main(["compile", str(tmp_path / "missing.mlir")]) == 1
    assert main(["compile", str(bad), "--arch", "volta"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("costfuse-data compile: error: ") for line in err)


@pytest.mark.parametrize("argv, message", [
    # issue #27, bug 6: sm_42 printed LLVM errors, exit 0, with "memory cap exceeded" as every kernel's label
    (["--arch", "sm_42"], "argument --arch: unknown arch 'sm_42'; known: sm_80, sm_90, sm_100"),
    (["--arch", "volta"], "argument --arch: unknown arch 'volta'"),
    # issue #27, bug 7: -1 s gave exit 0 and "exceeded -1 s" on every row
    (["--timeout", "-1"], "argument --timeout: must be a finite number > 0, got -1"),
    (["--timeout", "0"], "argument --timeout: must be a finite number > 0, got 0"),
    (["--timeout", "nan"], "argument --timeout: must be a finite number > 0, got nan"),
    (["--timeout", "soon"], "argument --timeout: expected a number, got 'soon'"),
    (["--mem-limit-gb", "-2"], "argument --mem-limit-gb: must be a finite number >= 0, got -2"),
    (["--mem-limit-gb", "inf"], "argument --mem-limit-gb: must be a finite number >= 0, got inf"),
    (["--jobs", "0"], "argument --jobs/-j: must be >= 1, got 0"),
    (["--config", "3,32,2"], "LaunchConfig.XBLOCK must be a positive power of two, got 3"),
])
def test_options_it_cannot_honour_are_one_usage_line(module_file, capsys, argv, message):
    """Refused while parsing, before any worker starts: exit 1 and one line, as costfuse-opt refuses them."""
    assert main(["compile", str(module_file), *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


@pytest.mark.parametrize("command", ["generate", "generate-groups"])
@pytest.mark.parametrize("argv", [["--arch", "sm_42"], ["--timeout", "-1"], ["--mem-limit-gb", "-1"]])
def test_the_dataset_jobs_share_the_compile_checks(command, argv, capsys, tmp_path):
    assert main([command, "--out", str(tmp_path / "ds"), "--programs", "1", *argv]) == 1
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "ds").exists()


def test_arch_spellings_that_name_a_known_target_are_accepted():
    p = parser()
    assert [p.parse_args(["compile", "x.mlir", "--arch", a]).arch for a in ("90", "sm_90a", "SM_100")] == [
        "sm_90", "sm_90", "sm_100"]
    assert p.parse_args(["compile", "x.mlir", "--mem-limit-gb", "0", "--timeout", "0.5"]).timeout == 0.5


def test_json_schema_has_one_key_per_label_and_is_documented(capsys):
    """Issue #27, bug 8: rows once keyed kernel functions by `index` and generics by `generic`, documented nowhere."""
    from pathlib import Path

    from costfuse.data.compile import CompileResult

    labels = set(CompileResult.__dataclass_fields__) - {"ptxas_log", "cubin"}
    assert labels <= set(ROW_FIELDS), f"compile labels missing from the --json schema: {labels - set(ROW_FIELDS)}"
    assert main(["compile", "--help"]) == 0
    help_text = capsys.readouterr().out
    doc = (Path(__file__).parents[2] / "docs" / "lowering.md").read_text()
    for name in ROW_FIELDS:
        assert f"  {name} " in help_text, f"--help does not list {name}"
        assert f"| `{name}` |" in doc, f"docs/lowering.md does not list {name}"
    # --help says what an outlined module is and what a row of it is
    assert "costfuse-opt --fusion groups" in help_text and "costfuse.kernel" in help_text
    assert "one row per kernel function" in help_text and "one row per linalg.generic" in help_text


def test_compile_is_a_subcommand_of_costfuse_data():
    p = parser()
    args = p.parse_args(["compile", "x.mlir", "-j", "3"])
    assert (args.command, args.jobs, args.arch) == ("compile", 3, "sm_90")
    with pytest.raises(SystemExit):
        p.parse_args([])


def test_docs_state_the_exit_status_the_command_gives(tmp_path, capsys):
    """docs/lowering.md once said 2 for unreadable input, while the command exits 1 (issue #27, bug 14)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "lowering.md").read_text()
    stated = re.search(r"exit status is (\d+)\s+(?:only\s+)?for input that can't be read", doc)
    assert stated, "docs/lowering.md no longer states the exit status of `costfuse-data compile`"
    assert main(["compile", str(tmp_path / "missing.mlir")]) == int(stated.group(1))
