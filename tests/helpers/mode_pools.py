"""A compile pool that compiles nothing, shared by the tests of the two searches that price kernels by ptxas
(the greedy, compile-checked policy and the exact optimum's pricing)."""

from __future__ import annotations

from costfuse.data.compile import CompileResult


class ModePool:
    """Answers compiles from the kernel's embedded ``costfuse.launch``: configs whose mode is in ``spilling``
    spill (8 B stored), the others compile clean at 40 registers, each in ``compile_s``; ``modes`` records
    the modes it was asked for, in order."""

    jobs = 2

    def __init__(self, spilling=(), compile_s: float = 0.25):
        self.spilling, self.compile_s = set(spilling), compile_s
        self.modes: list[str] = []

    def run(self, tasks):
        out = []
        for t in tasks:
            mode = next(m for m in ("pointwise", "persistent", "looped") if f'mode = "{m}"' in t.source)
            self.modes.append(mode)
            out.append(CompileResult("k", "sm_90", "ok", regs=40, spill_store_bytes=8 if mode in self.spilling else 0,
                                     spill_load_bytes=0, compile_s=self.compile_s))
        return out
