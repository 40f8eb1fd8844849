"""Each lowered kernel's Triton source as a file named after its kernel (``--emit-triton DIR``).

The kernel a user wants to read is the Triton the lowering wrote for it, at
the launch it was given: ``costfuse-opt --emit-triton DIR`` and
``costfuse-data compile --emit-triton DIR`` both write it here, one file per
kernel, ``DIR/<kernel function>.py`` (``DIR/generic_<index>.py`` for a bare
generic of a module that has no kernel functions).  The file is the one
``costfuse-data compile`` compiles: self-contained (it imports only
``triton``), with its IR, signature, config and a ``launch(*tensors)``
(``data/lowering/``), so it runs as it is on a GPU machine.
"""

from __future__ import annotations

from pathlib import Path

from costfuse.atomic import write_text


def source_name(index: int, names: list[str] | None) -> str:
    """The file stem of unit ``index``: its kernel function's name, else ``generic_<index>``."""
    return names[index] if names else f"generic_{index}"


def write_sources(report, names: list[str] | None, directory: str | Path) -> dict[int, Path]:
    """Write every kernel of ``report`` (a ``data.lowering.report.LoweringReport``) to ``directory`` (created if
    missing), atomically; return each unit index's file.  Unsupported units get no file.

    Raises ``ValueError`` naming the path when it cannot be written (the user's ``--emit-triton``)."""
    directory = Path(directory)
    written = {}
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for index, kernel in report.kernels:
            written[index] = write_text(directory / f"{source_name(index, names)}.py", kernel.source)
    except OSError as err:
        where = err.filename or directory
        raise ValueError(f"--emit-triton: cannot write {where}: {err.strerror or err}") from None
    return written
