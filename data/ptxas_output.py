"""What ptxas reports about a compiled kernel: its ``-v`` log, and the cubin's own resource attributes.

The compile labels (registers, spill bytes, stack frame, static shared
memory) are read from the ``ptxas -v`` log Triton itself produced
(docs/design.md §3, §5); the cubin's ``.nv.info`` section records registers
and stack frame again, which the tests use to check that the log describes the
binary that would run.  Reading them is pure text and byte parsing, apart from
the worker pool that produces them (``data/compile.py``), so it can be read,
tested and reused without starting a compiler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ---------------------------------------------------------------------------
# The ptxas -v log


_RE_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_RE_PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_RE_REGS = re.compile(r"Used (\d+) registers")
_RE_SMEM = re.compile(r"(\d+) bytes smem")


@dataclass(frozen=True)
class PtxasStats:
    """The labels one ``ptxas -v`` log gives: per thread (registers, bytes) except ``smem_bytes`` (per block)."""

    regs: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    smem_bytes: int
    gpu_name: str


def parse_ptxas_log(log: str) -> PtxasStats:
    """Registers, stack frame, spills and static shared memory from a
    ``ptxas -v`` log of a single-entry module (what Triton compiles).

    Raises ``ValueError`` if the log lacks the ``Used N registers`` line or the
    ``... bytes stack frame`` line, or holds more than one entry function.
    """
    entries = _RE_ENTRY.findall(log)
    if len(entries) > 1:
        raise ValueError(f"ptxas log has {len(entries)} entry functions; expected one")
    props, regs = _RE_PROPS.search(log), _RE_REGS.search(log)
    if not props or not regs:
        raise ValueError("ptxas log has no 'Used N registers' / 'bytes stack frame' lines:\n" + log[-2000:])
    smem = _RE_SMEM.search(log)
    return PtxasStats(
        regs=int(regs.group(1)),
        stack_bytes=int(props.group(1)),
        spill_store_bytes=int(props.group(2)),
        spill_load_bytes=int(props.group(3)),
        smem_bytes=int(smem.group(1)) if smem else 0,
        gpu_name=entries[0][1] if entries else "",
    )


# ---------------------------------------------------------------------------
# The cubin's own resource attributes (the cross-check of the ptxas log)

EIATTR_FRAME_SIZE = 0x11  # per-function stack frame, bytes per thread ("N bytes stack frame")
EIATTR_REGCOUNT = 0x2F    # per-function registers per thread ("Used N registers")
_EIFMT_SVAL = 4           # an attribute with a u16 size and that many bytes of payload; others are 4 bytes


@dataclass(frozen=True)
class CubinUsage:
    """Registers per thread and stack frame bytes per thread of one function, as the cubin records them."""

    regs: int
    stack_bytes: int


def cubin_resource_usage(cubin: bytes) -> dict[str, CubinUsage]:
    """Per-function registers and stack frame, read from the cubin's ELF ``.nv.info`` section.

    This is what ``cuobjdump --dump-resource-usage`` prints as REG and STACK,
    read with the standard library alone, so the labels parsed from the ptxas
    log can be checked against the binary that would run on any machine
    (spill bytes are not in the cubin; only the log has them).  Each
    ``EIATTR_REGCOUNT`` / ``EIATTR_FRAME_SIZE`` entry holds a ``.symtab``
    index and a value.  Raises ``ValueError`` for bytes that are not a
    little-endian ELF64 cubin with those attributes.
    """
    import struct

    if cubin[:6] != b"\x7fELF\x02\x01":
        raise ValueError("not a cubin: expected a little-endian ELF64 file")
    # Every read below can run off the bytes (struct.error, IndexError), miss a section (KeyError), find no
    # NUL (ValueError) or take an offset past 2**63 (OverflowError): all of it is a malformed cubin.
    malformed = (struct.error, KeyError, IndexError, ValueError, OverflowError)
    try:
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]

        def data(sec) -> bytes:
            return cubin[sec[4]:sec[4] + sec[5]]

        def name(table: bytes, offset: int) -> str:
            return table[offset:table.index(b"\0", offset)].decode()

        by_name = {name(data(sections[shstrndx]), s[0]): s for s in sections}
        symtab = by_name[".symtab"]
        strtab, syms = data(sections[symtab[6]]), data(symtab)
        info = data(by_name[".nv.info"])
        values: dict[int, dict[str, int]] = {}
        i = 0
        while i + 4 <= len(info):
            fmt, attr, size = struct.unpack_from("<BBH", info, i)
            if fmt == _EIFMT_SVAL and attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) and size == 8:
                sym, value = struct.unpack_from("<II", info, i + 4)
                values.setdefault(sym, {})["regs" if attr == EIATTR_REGCOUNT else "stack_bytes"] = value
            i += 4 + (size if fmt == _EIFMT_SVAL else 0)
    except malformed as err:
        raise ValueError(f"malformed cubin: {type(err).__name__}: {err}") from None
    out = {}
    for sym, v in values.items():
        if set(v) != {"regs", "stack_bytes"}:
            raise ValueError(f"cubin .nv.info gives symbol {sym} only {', '.join(v)}")
        try:
            symbol = name(strtab, struct.unpack_from("<I", syms, sym * symtab[9])[0])
        except malformed as err:
            raise ValueError(f"malformed cubin: symbol {sym}: {type(err).__name__}: {err}") from None
        out[symbol] = CubinUsage(**v)
    if not out:
        raise ValueError("cubin .nv.info has no EIATTR_REGCOUNT entry")
    return out
