"""The ``--fusion groups`` pass: form kernel groups, choose their configs, outline them.

First, generics whose results are never read are dropped, unit-dim
reshapes are folded into their readers
(:mod:`costfuse.unit_reshapes`) and expanding producers (masks, biases
computed from indices, casts of broadcast weights) are recomputed in their
consumers (:mod:`costfuse.expanding_producers`).  Then, for every function
of the module (kernel functions it made excepted): form
kernels with the cost model (:mod:`costfuse.groups`), and outline each kernel
into a private function carrying its launch config (:mod:`costfuse.outline`).
A generic the lowering refuses (``refuses``, injected: the core does not
import the lowering) stays in the caller, so every kernel it outlines lowers.
Like :class:`costfuse.fusion_pass.FusionPass` it is a dataclass usable
directly or inside a ``PassManager``, deterministic, and it keeps every
decision for ``--explain``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from iree.compiler import ir
from iree.compiler.passmanager import PassManager

from costfuse.cost_models.always import Always
from costfuse.expanding_producers import recompute_expanding_producers
from costfuse.fusion_pass import DecisionRecord, run_with_cleanup
from costfuse.groups import GroupDecision, Kernel, Refusal, form_groups
from costfuse.launch import KERNEL_ATTR
from costfuse.outline import outline
from costfuse.policy import GroupPolicy
from costfuse.unit_reshapes import fold_unit_reshapes

if TYPE_CHECKING:   # loaded only with --verify-picks
    from costfuse.verify_picks import PickVerifier


@dataclass(frozen=True)
class KernelRecord:
    """One outlined kernel: its function name, the caller, and what formed it."""

    caller: str
    name: str
    kernel: Kernel
    weighed: tuple | None = None   # the configs the policy weighed (``weigh_configs=True``); None: not asked

    def line(self) -> str:
        return f"kernel @{self.name} = {self.kernel.label}: {self.kernel.estimate.line()}" + (
            f" ({self.kernel.estimate.reason})" if self.kernel.estimate.reason else "")


@dataclass
class GroupFusionPass:
    """Form, price and outline kernel groups as ``cost_model`` decides."""

    NAME: ClassVar[str] = "costfuse-groups"
    cost_model: GroupPolicy = field(default_factory=Always)
    weigh_configs: bool = False    # keep, per kernel, every config the policy weighed (``--explain=configs``)
    refuses: Refusal | None = None  # why the lowering refuses a generic: it then stays in the caller
    verifier: PickVerifier | None = None   # --verify-picks: each config confirmed by ptxas (costfuse.verify_picks)
    decisions: list[GroupDecision] = field(default_factory=list, init=False)
    kernels: list[KernelRecord] = field(default_factory=list, init=False)
    recomputed: list[DecisionRecord] = field(default_factory=list, init=False)

    def run(self, module: ir.Module | ir.Operation) -> list[KernelRecord]:
        """Outline in place; return the kernels of this run."""
        top = module.operation if isinstance(module, ir.Module) else module
        start = len(self.kernels)
        with top.context:
            funcs, recomputed = prepare_for_forming(top)
            self.recomputed += recomputed
            for fn in funcs:
                block = fn.regions[0].blocks[0]
                kernels, decisions = form_groups(block, self.cost_model, self.refuses)
                if self.verifier is not None:
                    kernels = self.verifier.verify_all(kernels, self.cost_model)
                self.decisions += decisions
                caller = ir.StringAttr(fn.attributes["sym_name"]).value
                weighed = [self._weigh(k) for k in kernels]   # before outlining moves the members
                names = outline(fn, kernels)
                records = [KernelRecord(caller, n, k, w) for n, k, w in zip(names, kernels, weighed)]
                self.kernels += sorted(records, key=lambda r: int(r.name.rsplit("_k", 1)[1]))
        return self.kernels[start:]

    def _weigh(self, kernel: Kernel) -> tuple | None:
        """The configs the policy weighed for ``kernel`` (empty for one that is no row kernel, or whose
        policy weighs none), when ``weigh_configs``."""
        if not self.weigh_configs or kernel.shape is None:
            return None if not self.weigh_configs else ()
        return tuple(self.cost_model.weigh_configs(kernel.shape) or ())

    def __call__(self, op: ir.Operation, pass_=None) -> None:
        self.run(op)

    def add_to(self, pm: PassManager) -> PassManager:
        pm.add(self, name=self.NAME, argument=self.NAME)
        return pm

    def summary(self, records: list[KernelRecord] | None = None) -> str:
        """``# analytical groups: 3 kernels, 3 outlined functions, issued 1.234 MB, DRAM 1.000 MB (estimated)``."""
        records = self.kernels if records is None else records
        issued = sum(r.kernel.estimate.issued_bytes for r in records)
        dram = [r.kernel.estimate.dram_bytes for r in records]
        dram_text = "?" if None in dram else f"{sum(dram) / 1e6:.3f}"
        return (f"# {self.cost_model.name} groups: {len(records)} kernels, {len(records)} outlined functions, "
                f"issued {issued / 1e6:.3f} MB, DRAM {dram_text} MB (estimated)")


def prepare_for_forming(top: ir.Operation) -> tuple[list[ir.Operation], list[DecisionRecord]]:
    """Rewrite ``top`` (a module op) as every policy sees it before forming, in place; return the
    functions to form kernels in (not kernel functions an earlier run made) and the expanding
    producers recomputed.

    One home for the rewrites before forming, so that a search over groups outside the pass
    (``experiments/optimum_groups.py``) prices exactly the generics the pass's policies group."""
    funcs = [op.operation for op in top.regions[0].blocks[0].operations
             if op.operation.name == "func.func" and len(op.regions[0].blocks) > 0
             and KERNEL_ATTR not in op.operation.attributes]
    for fn in funcs:
        _erase_dead_generics(fn.regions[0].blocks[0])
        fold_unit_reshapes(fn.regions[0].blocks[0])
    return funcs, recompute_expanding_producers(top)


def _erase_dead_generics(block: ir.Block) -> None:
    """Drop generics whose results nobody reads (exports keep some): they would be kernels with no output.

    A generic with no results at all writes buffers (``memref`` operands): that write is its effect,
    so it stays (and, its shapes not being tensors, stays in the caller: docs/groups.md)."""
    for op in reversed([o.operation for o in block.operations if o.operation.name == "linalg.generic"]):
        if len(op.results) and not any(True for r in op.results for _ in r.uses):
            op.erase()


def run_group_pipeline(module: ir.Module, fusion: GroupFusionPass, cleanup: bool = True) -> list[KernelRecord]:
    """Run the pass through a real ``PassManager``, then ``canonicalize,cse``; the kernels of this run."""
    return run_with_cleanup(module, fusion, fusion.kernels, cleanup)
