"""IREE's own dispatch formation, measured: the kernel-group peer we run rather than re-implement.

``iree-compile IN.mlir --iree-hal-target-backends=llvm-cpu --compile-to=flow``
stops after IREE forms its dispatch regions (each becomes one GPU kernel on
a GPU backend; formation is target-independent up to this phase).  We count
the ``flow.dispatch`` ops of the public functions and price each one as
docs/groups.md prices a kernel: every operand tensor read once, every result
written once.  IREE has no register model when it forms these, which is the
point of comparing with it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from costfuse.estimates import elem_bits, memory_bytes

_DISPATCH = re.compile(r"flow\.dispatch @(?P<name>[\w$.:@-]+)\((?P<args>[^)]*)\)\s*:\s*\((?P<ins>[^)]*)\)\s*->\s*"
                       r"(?P<outs>\([^)]*\)|[^{\n]+)")
_TENSOR = re.compile(r"tensor<([^>]*)>")


class IreeFlowError(Exception):
    """iree-compile failed or printed something we cannot read; the message says which."""


@dataclass(frozen=True)
class Dispatch:
    name: str
    read_bytes: int
    write_bytes: int

    @property
    def hbm_bytes(self) -> int:
        return self.read_bytes + self.write_bytes


def tensor_bytes(spec: str) -> int:
    """Bytes of ``4096x8192xbf16`` (the text inside ``tensor<...>``); dynamic dims are an error."""
    *dims, elem = spec.split("x")
    try:
        size = memory_bytes(elem_bits(elem))
    except ValueError:
        raise IreeFlowError(f"tensor<{spec}>: unknown element type {elem}") from None
    n = 1
    for d in dims:
        if not d.isdigit():
            raise IreeFlowError(f"tensor<{spec}>: dynamic or unreadable dim {d!r}")
        n *= int(d)
    return n * size


def _sum(types: str) -> int:
    return sum(tensor_bytes(t) for t in _TENSOR.findall(types))


def parse_dispatches(flow_text: str) -> list[Dispatch]:
    """The ``flow.dispatch`` ops of ``flow_text`` in order, with their bytes."""
    return [Dispatch(m["name"], _sum(m["ins"]), _sum(m["outs"])) for m in _DISPATCH.finditer(flow_text)]


def iree_compile_flow(path: str | Path, timeout_s: float = 600) -> str:
    """The flow-level IR of ``path`` as IREE forms it for llvm-cpu."""
    exe = Path(sys.executable).with_name("iree-compile")
    cmd = [str(exe) if exe.exists() else "iree-compile", str(path), "--iree-hal-target-backends=llvm-cpu",
           "--compile-to=flow"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise IreeFlowError(f"{path}: iree-compile --compile-to=flow timed out after {timeout_s:g} s") from None
    if r.returncode != 0:
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:300])
        raise IreeFlowError(f"{path}: iree-compile --compile-to=flow failed: {first}")
    return r.stdout


def iree_dispatches(path: str | Path) -> list[Dispatch]:
    """IREE's dispatches for the module at ``path``."""
    return parse_dispatches(iree_compile_flow(path))
