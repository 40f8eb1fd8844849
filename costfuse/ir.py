"""Load, verify and print MLIR modules on the upstream bindings shipped by IREE.

Every way the bindings report a problem (parse errors, verifier failures) is
turned into one exception type, :class:`IRError`, whose message carries MLIR's
own diagnostics as ``file:line:col: message``.  Callers (the CLI, the dataset
job) catch ``IRError`` and report it on one line; nothing here can abort the
process, because we only call the parser and verifier, which report through
diagnostics rather than ``LLVM ERROR``.

Keep a module alive while you use its ops: an op handle does not keep its
module from being freed, and ``generics_in(parse_module(text))[0]`` used after
the module is collected segfaults.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from iree.compiler import ir

# The parser names an in-memory buffer "-"; we substitute the real file name.
_BUFFER_NAME = re.compile(r'"-":(\d+):(\d+)')


class IRError(Exception):
    """Malformed, unverifiable or unsupported IR.

    ``diagnostics`` holds one ``file:line:col: message`` string per MLIR error.
    """

    def __init__(self, message: str, diagnostics: list[str] | None = None):
        self.diagnostics = list(diagnostics or [])
        full = message if not self.diagnostics else f"{message}: " + "; ".join(self.diagnostics)
        super().__init__(full)


@dataclass(frozen=True)
class Diagnostic:
    """One MLIR diagnostic with the location resolved to the user's file."""

    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def new_context() -> ir.Context:
    """A context with every dialect the IREE build registers (linalg, arith, math, ...)."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    return ctx


def _location_text(loc: ir.Location, filename: str) -> str:
    text = str(loc)  # e.g. loc("-":2:19)
    m = _BUFFER_NAME.search(text)
    if m:
        return f"{filename}:{m.group(1)}:{m.group(2)}"
    inner = text[4:-1] if text.startswith("loc(") else text
    return inner.replace('"', "") or filename


def diagnostics_of(err: ir.MLIRError, filename: str) -> list[Diagnostic]:
    """MLIR's error diagnostics (and their notes) with locations in ``filename``."""
    out = []
    for d in err.error_diagnostics:
        out.append(Diagnostic(_location_text(d.location, filename), d.message))
    if not out:  # some errors carry only the message text
        for line in str(err).splitlines()[1:]:
            line = line.strip()
            if line.startswith("error:"):
                out.append(Diagnostic(filename, _BUFFER_NAME.sub(lambda m: f"{filename}:{m.group(1)}:{m.group(2)}", line[6:].strip())))
    return out


def parse_module(text: str, filename: str = "<string>", context: ir.Context | None = None) -> ir.Module:
    """Parse and verify ``text``; raise :class:`IRError` naming ``filename:line:col``."""
    ctx = context or new_context()
    try:
        module = ir.Module.parse(text, ctx)
    except ir.MLIRError as err:
        diags = diagnostics_of(err, filename)
        raise IRError(f"{filename}: invalid MLIR", [str(d) for d in diags]) from None
    verify(module, filename)
    return module


def load_module(path: str | os.PathLike, context: ir.Context | None = None) -> ir.Module:
    """Read a ``.mlir`` file (``-`` for stdin) and parse it with :func:`parse_module`."""
    if str(path) == "-":
        import sys

        return parse_module(sys.stdin.read(), "<stdin>", context)
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as err:
        raise IRError(f"{p}: cannot read: {err.strerror}") from None
    return parse_module(text, str(p), context)


def verify(module: ir.Module | ir.Operation, filename: str = "<module>") -> None:
    """Run MLIR's verifier; raise :class:`IRError` with its diagnostics on failure."""
    op = module.operation if isinstance(module, ir.Module) else module
    try:
        op.verify()
    except ir.MLIRError as err:
        diags = diagnostics_of(err, filename)
        raise IRError(f"{filename}: IR does not verify", [str(d) for d in diags]) from None


def print_module(module: ir.Module) -> str:
    """The module as MLIR text, ending in a newline."""
    text = str(module)
    return text if text.endswith("\n") else text + "\n"
