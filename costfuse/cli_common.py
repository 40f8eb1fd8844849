"""What the four command lines share: one exit-code convention, one error format.

``costfuse-opt``, ``costfuse``, ``costfuse-data`` and ``costfuse-train`` all
exit 0 on success, 1 on bad input or bad usage (argparse's own errors
included; argparse alone would exit 2), and 2 on an internal error, i.e. a
bug in CostFuse.  Every error is one line on stderr, ``PROG: error: ...``,
so scripts can tell "fix your input" from "report a bug" by the code alone.
An internal error's traceback is printed too when ``COSTFUSE_DEBUG=1``, so a
bug report can carry it without anyone re-running under a debugger.

Kept here, not in each CLI, so the four cannot drift apart again.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 130
DEBUG_ENV = "COSTFUSE_DEBUG"


class UsageError(Exception):
    """Bad input or usage that the message fully explains (exit 1)."""


def says_something(default) -> bool:
    """Whether a default is worth printing: not None, a flag's False, "" or SUPPRESS (but 0 is)."""
    return not (default is None or default is False or default is argparse.SUPPRESS or default == "")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, adding ``(default X)`` to an option's help unless it already names its default.

    Defaults that say nothing (None, False for a flag) are left out.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text.lower() or not says_something(action.default)
                or action.required or not action.option_strings):
            return text
        return f"{text} (default %(default)s)"


class RawEpilogFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """:class:`HelpFormatter` that keeps the description's and epilog's line breaks (for a table of commands)."""


class ArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors follow the convention: one line, exit 1.

    Subparsers made by :meth:`add_subparsers` are of this class too.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def int_at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``>= low`` (so ``--programs -1`` is a usage error, not an empty run)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    parse.__name__ = f"int >= {low}"
    return parse


def float_at_least(low: float, *, strict: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number ``>= low`` (``> low`` when ``strict``).

    So ``--timeout -1`` is a usage error, not a run whose every kernel
    "exceeded -1 s", and ``nan``/``inf`` never reach a deadline or a memory cap.
    """
    sign = ">" if strict else ">="

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"must be a finite number {sign} {low:g}, got {text}")
        return value

    parse.__name__ = f"number {sign} {low:g}"
    return parse


def known_arch(text: str) -> str:
    """An argparse ``type``: a GPU arch that :mod:`costfuse.targets` knows (its :func:`get_target` is the one
    check), normalised to ``sm_NN``; anything else is a usage error naming the known ones."""
    from costfuse.targets import get_target

    try:
        return get_target(text).arch
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def write_output(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout); a path that cannot be written is the user's error."""
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text)
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from err


def debug_enabled() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def describe(err: BaseException) -> str:
    """The one-line message of ``err``: ``PATH: reason`` for file errors, else its text."""
    if isinstance(err, OSError) and err.filename is not None:
        return f"{err.filename}: {err.strerror or err}"
    text = str(err).strip()
    return text or type(err).__name__


def run_command(prog: str, body: Callable[[], int], *, bad_input: tuple[type[BaseException], ...] = (),
                interrupted: str = "") -> int:
    """``body()``'s exit status, with its exceptions mapped to the convention.

    :class:`UsageError`, ``OSError`` and the ``bad_input`` types exit 1;
    anything else is a bug and exits 2.  With ``COSTFUSE_DEBUG=1`` either
    prints its traceback before the line.  ``interrupted`` is appended to the
    line printed on Ctrl-C (exit 130), e.g. how to resume.
    """
    try:
        return body()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted{interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (UsageError, OSError, *bad_input) as err:
        if debug_enabled():
            traceback.print_exc()
        print(f"{prog}: error: {describe(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as err:  # a bug in CostFuse: still one line, but a distinct code
        if debug_enabled():
            traceback.print_exc()
            hint = ""
        else:
            hint = f" (run with {DEBUG_ENV}=1 for the traceback)"
        print(f"{prog}: internal error: {type(err).__name__}: {describe(err).splitlines()[0]}{hint}",
              file=sys.stderr)
        return EXIT_INTERNAL
