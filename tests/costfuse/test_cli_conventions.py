"""The conventions every CostFuse command line shares (``costfuse.cli_common``):
exit 0 / 1 (bad input or usage) / 2 (a bug), one-line errors, ``COSTFUSE_DEBUG=1``
tracebacks, and help that documents every option.  In-process, so it stays fast;
the end-to-end runs of each CLI live in their own test files.
"""

from __future__ import annotations

import argparse
import sys

import pytest

from costfuse.cli_common import (
    EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, HelpFormatter, UsageError, run_command, says_something,
)


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of the four CLIs, subcommands included, by prog."""
    from costfuse import cli, torch_import
    from costfuse.data.cli import parser as data_parser
    from costfuse.train.cli import parser as train_parser

    roots = [cli._opt_parser(), cli._main_parser(), torch_import._parser(), data_parser(), train_parser()]
    found: dict[str, argparse.ArgumentParser] = {}
    while roots:
        p = roots.pop()
        found[p.prog] = p
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                roots.extend(action.choices.values())
    return found


def _options():
    for prog, p in _parsers().items():
        for action in p._actions:
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                yield pytest.param(p, action, id=f"{prog}:{action.option_strings[-1:] or action.dest}")


def test_every_cli_and_subcommand_is_walked():
    assert {"costfuse-opt", "costfuse", "costfuse import-torch", "costfuse-train", "costfuse-data",
            "costfuse-data generate", "costfuse-data generate-inductor", "costfuse-data stats", "costfuse-data profile",
            "costfuse-data compile", "costfuse-data merge-latency"} <= set(_parsers())


@pytest.mark.parametrize("parser, action", list(_options()))
def test_every_option_has_help_its_default_and_its_choices(parser, action):
    assert action.help and action.help != argparse.SUPPRESS, "no help text"
    text = parser._get_formatter()._format_action(action)
    for choice in action.choices or ():
        assert str(choice) in text, f"choice {choice!r} not listed"
    if action.option_strings and not action.required and says_something(action.default):
        assert "default" in text, "default not shown"
    assert "(default )" not in text and "default None" not in text


def test_every_cost_model_field_has_its_own_help_line():
    from costfuse.cli import FIELD_HELP, _model_fields

    assert set(_model_fields()) <= set(FIELD_HELP)


def test_help_formatter_adds_a_default_only_where_it_says_something():
    p = argparse.ArgumentParser(formatter_class=HelpFormatter)
    p.add_argument("--seed", type=int, default=0, help="the seed")
    p.add_argument("--flag", action="store_true", help="a flag")
    p.add_argument("--said", default=2, help="already says (default 2)")
    text = p.format_help()
    assert "the seed (default 0)" in text and "a flag\n" in text and "(default 2) (default" not in text


# --- costfuse -------------------------------------------------------------------------

def test_costfuse_help_lists_its_commands(capsys):
    from costfuse.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "opt " in out and "import-torch " in out and "run the fusion pass" in out


@pytest.mark.parametrize("argv, message", [
    (["bogus"], "invalid choice: 'bogus'"),
    ([], "required: command"),
    (["opt", "--no-such-option", "x.mlir"], "unrecognized arguments: --no-such-option"),
    (["opt", "x.mlir", "--tile-policy", "narrow"], "invalid choice: 'narrow'"),
    (["import-torch", "m:f", "--shape", "2xfoo"], "bad shape '2xfoo'"),
])
def test_costfuse_usage_errors_exit_1_in_one_line(capsys, argv, message):
    from costfuse.cli import main

    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == EXIT_BAD_INPUT
    assert message in err and err.count("\n") == 1, err


# --- costfuse-data --------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["stats", "/nonexistent"], "costfuse-data stats: error: /nonexistent: no such dataset directory"),
    (["generate", "--programs", "-1", "--out", "x"], "argument --programs: must be >= 1, got -1"),
    (["compile", "missing.mlir", "-j", "0"], "argument --jobs/-j: must be >= 1, got 0"),
    (["bogus"], "invalid choice: 'bogus'"),
])
def test_costfuse_data_bad_input_exits_1_in_one_line(capsys, argv, message):
    from costfuse.data.cli import main

    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc == EXIT_BAD_INPUT
    assert message in err and err.count("\n") == 1, err


def test_costfuse_data_does_not_hide_a_subcommand_that_fails_to_import(monkeypatch):
    from costfuse.data.cli import parser

    monkeypatch.setitem(sys.modules, "costfuse.data.cli_compile", None)  # `import` of it now raises ImportError
    with pytest.raises(ImportError):
        parser()


# --- costfuse-train -------------------------------------------------------------------

def test_costfuse_train_usage_errors_exit_1(tmp_path, capsys):
    from costfuse.train.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--data", str(tmp_path), "--n-estimators", "0"])
    assert exc.value.code == EXIT_BAD_INPUT
    assert main(["--data", str(tmp_path), "--test-size", "1.5", "--no-tracking"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.splitlines()[-1] == "costfuse-train: error: --test-size must be in (0, 1), got 1.5"


# --- run_command ----------------------------------------------------------------------

def _raise(err: BaseException):
    def body() -> int:
        raise err
    return body


@pytest.mark.parametrize("err, line", [
    (UsageError("bad thing"), "prog: error: bad thing"),
    (FileNotFoundError(2, "No such file or directory", "in.mlir"), "prog: error: in.mlir: No such file or directory"),
    (ValueError("listed as bad input"), "prog: error: listed as bad input"),
])
def test_bad_input_is_exit_1_and_one_line(capsys, monkeypatch, err, line):
    monkeypatch.delenv("COSTFUSE_DEBUG", raising=False)
    assert run_command("prog", _raise(err), bad_input=(ValueError,)) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == line + "\n"


def test_a_bug_is_exit_2_one_line_and_says_how_to_see_the_traceback(capsys, monkeypatch):
    monkeypatch.delenv("COSTFUSE_DEBUG", raising=False)
    assert run_command("prog", _raise(KeyError("k"))) == EXIT_INTERNAL
    assert capsys.readouterr().err == "prog: internal error: KeyError: 'k' (run with COSTFUSE_DEBUG=1 for the traceback)\n"


def test_costfuse_debug_prints_the_traceback(capsys, monkeypatch):
    monkeypatch.setenv("COSTFUSE_DEBUG", "1")
    assert run_command("prog", _raise(KeyError("k"))) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "in body" in err
    assert err.splitlines()[-1] == "prog: internal error: KeyError: 'k'"


def test_interrupt_is_130_with_the_hint(capsys):
    assert run_command("prog", _raise(KeyboardInterrupt()), interrupted="; rerun to resume") == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "prog: interrupted; rerun to resume\n"
