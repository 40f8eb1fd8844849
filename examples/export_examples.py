"""Regenerate the checked-in torch examples: ``python examples/export_examples.py``.

Runs ``costfuse import-torch`` (in-process, via :func:`costfuse.torch_import.cli`)
for each factory in ``torch_blocks.CHECKED_IN`` with the shapes from
``torch_blocks.EXAMPLE_SHAPES``, writing ``examples/<factory>.mlir``.  The
output is deterministic (seed 0), so ``tests/costfuse/test_torch_import.py`` can check
that the files are up to date.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent
sys.path.insert(0, str(EXAMPLES.parent))

from costfuse.torch_import import cli  # noqa: E402
from examples.torch_blocks import CHECKED_IN, EXAMPLE_SHAPES  # noqa: E402


def command(name: str, out: Path) -> list[str]:
    """The ``costfuse import-torch`` arguments that export factory ``name`` to ``out``."""
    shapes = [arg for shape in EXAMPLE_SHAPES[name] for arg in ("--shape", "x".join(map(str, shape)))]
    return [f"examples.torch_blocks:{name}", *shapes, "-o", str(out)]


def main() -> int:
    os.chdir(EXAMPLES.parent)  # so that "examples.torch_blocks" imports
    for name in CHECKED_IN:
        out = EXAMPLES / f"{name}.mlir"
        argv = command(name, out)
        print("costfuse import-torch", " ".join(argv), flush=True)
        if (rc := cli(argv)) != 0:
            return rc
        text = out.read_text()
        print(f"  {out.stat().st_size / 1024:.1f} KiB, {text.count('linalg.generic')} linalg.generic")
    return 0


if __name__ == "__main__":
    sys.exit(main())
