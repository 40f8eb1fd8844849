"""``costfuse inductor-report``: every reduction decision beside Inductor's candidates, with ptxas labels.

For one block (a ``MODULE:FACTORY``, as ``costfuse import-torch`` takes it)
at given shapes, :func:`report_block` generates Inductor's sm_90 kernels on
the CPU three times (:mod:`costfuse.data.inductor_codegen`):

1. as Inductor would (its candidate configs per kernel);
2. under CostFuse's handler in ``--mode`` (``pin``: one fixed config per
   kernel; ``prune``: Inductor's candidates minus those predicted to spill,
   plus CostFuse's pick);
3. with every row reduction forced persistent (a probe), to learn whether
   *some* persistent config (one row per program, 1 to 32 warps) compiles
   spill-free: the yardstick for the persistent-or-looped decision.  A row
   longer than Inductor's largest block (65,536) has no persistent kernel in
   Inductor, so none is spill-free.

Then it compiles every config of interest with Triton's ptxas through the
compile pool and its cache (:mod:`costfuse.data.compile`) and reports, per
Triton kernel (:class:`KernelReport`): Inductor's candidates with registers,
spill bytes and whether Inductor's own spill filter would drop them
(``config.triton.spill_threshold`` = 16, compared with the local memory
bytes / 4 that Triton's driver reports as ``n_spills``; Inductor applies it
only while timing several candidates); CostFuse's config with its predicted
and compiled registers and spills; whether a spill-free persistent config
exists; and the bytes the kernel issues at either config, and the DRAM bytes
the L2 model of :mod:`costfuse.estimates` estimates there ("Issued and DRAM bytes").  Persistent probes of a thread holding more than
:data:`MAX_PROBE_ELEMS` row elements are not compiled (they cannot fit 255
registers; ptxas would spend minutes proving it) and count as spilling.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field

from costfuse.cli_common import ArgumentParser, run_command
from costfuse.inductor.configs import MAX_R0_BLOCK, config_dict
from costfuse.launch import ALLOWED_WARPS, KernelLaunch, next_pow2

SPILL_THRESHOLD = 16          # torch._inductor.config.triton.spill_threshold (CUDA)
MAX_PROBE_ELEMS = 255         # row elements one thread may hold in a persistent probe worth compiling
MODES = ("pin", "prune")
INDUCTOR_KEYS = ("config", "regs", "spill_bytes", "dropped")
COSTFUSE_KEYS = ("config", "predicted_regs", "regs", "spill_bytes")
MAX_AUTOTUNE = {"max_autotune_pointwise": True}
"""Inductor's larger reduction candidate lists (``_reduction_configs`` reads ``max_autotune`` or
``max_autotune_pointwise``); the latter does not time matmul templates, which would need a GPU."""


def dropped_by_inductor(stack_bytes: int | None) -> bool | None:
    """Whether Inductor's spill filter drops a config: ``n_spills`` = local memory bytes / 4 above
    :data:`SPILL_THRESHOLD` (``triton_heuristics.CachingAutotuner.bench``; Triton's driver divides
    ``CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`` by 4).  ``None`` when the compile failed."""
    return None if stack_bytes is None else stack_bytes / 4 > SPILL_THRESHOLD


@dataclass
class KernelReport:
    """One Triton kernel of a block (see the module docstring); :meth:`to_json` is the ``--json`` line."""

    kernel: str
    xnumel: int | None
    rnumel: int
    inductor: list[dict] = field(default_factory=list)
    costfuse: dict | None = None
    fallback: str | None = None
    persistent_spill_free: bool | None = None
    issued_bytes: dict = field(default_factory=dict)
    dram_bytes: dict = field(default_factory=dict)
    decision_s: float | None = None   # its median over the block's codegen runs
    features_s: float | None = None

    def to_json(self) -> dict:
        """Exactly the keys issue #25 lists (and ``dram_bytes``): ``inductor`` entries carry ``config``,
        ``regs``, ``spill_bytes``, ``dropped``; ``costfuse`` (null on a fallback) ``config``,
        ``predicted_regs``, ``regs``, ``spill_bytes``; the byte figures (null on a fallback) are
        ``{"inductor": ..., "costfuse": ...}``.  :meth:`record` has everything else."""
        return {"kernel": self.kernel, "rnumel": self.rnumel, "xnumel": self.xnumel,
                "inductor": [{k: e.get(k) for k in INDUCTOR_KEYS} for e in self.inductor],
                "costfuse": None if self.costfuse is None else {k: self.costfuse.get(k) for k in COSTFUSE_KEYS},
                "persistent_spill_free": self.persistent_spill_free,
                "issued_bytes": self.issued_bytes or None, "dram_bytes": self.dram_bytes or None}

    def record(self) -> dict:
        """:meth:`to_json` with the details behind it: every entry's predicted spill and registers, compile
        seconds and status, the fallback's reason and the decision's seconds (the experiment's rows)."""
        return {**self.to_json(), "inductor": self.inductor, "costfuse": self.costfuse, "fallback": self.fallback,
                "decision_s": self.decision_s, "features_s": self.features_s}


@dataclass
class BlockReport:
    """A block's kernels, and the codegen seconds of Inductor alone and under the handler (medians), and of
    the latter the seconds spent in the handler's hooks (deciding kernels and fusions): what the handler
    adds, measured without the shared machine's noise between two codegen runs."""

    kernels: list[KernelReport]
    codegen_s: float
    handler_codegen_s: float
    handler_stats: dict
    hook_s: float = 0.0   # of handler_codegen_s, the seconds inside the handler's hooks (median)


def persistent_probe():
    """A choices handler forcing every row (INNER) reduction persistent, at Inductor's own configs (a row
    longer than Inductor's largest block, :data:`costfuse.inductor.configs.MAX_R0_BLOCK`, stays looped)."""
    from torch._inductor.choices import InductorChoices

    class PersistentProbe(InductorChoices):
        def uuid(self):
            return "costfuse-persistent-probe"

        def should_use_persistent_reduction(self, features, cooperative_reduction):
            if features.is_reduction() and str(features.get_reduction_hint()).endswith("INNER") \
                    and _static_row(features) is not None and next_pow2(_static_row(features)) <= MAX_R0_BLOCK:
                return True
            return InductorChoices.should_use_persistent_reduction(features, cooperative_reduction)

    return PersistentProbe()


def _static_row(features) -> int | None:
    try:
        return int(features.reduction_numel)
    except (TypeError, ValueError):
        return None


def _match(kernels: list, rows: int | None, n: int, used: set) -> int | None:
    """Index of the first kernel of ``kernels`` over ``rows`` x ``n`` not yet in ``used``."""
    for i, k in enumerate(kernels):
        if i not in used and k.xnumel == rows and k.rnumel == n:
            used.add(i)
            return i
    return None


def report_block(fn, inputs, mode: str = "pin", options: dict | None = None, jobs: int = 2,
                 timeout_s: float = 120.0, repeats: int = 1, probe: bool = True, pool=None,
                 group_model: str = "", spill_cut: str | None = None, persistent_first: bool = True,
                 prune_cut: str | None = None) -> BlockReport:
    """The :class:`BlockReport` of ``fn`` at ``inputs`` ((shape, torch dtype) pairs); ``options``:
    ``torch._inductor.config`` settings for every codegen (:data:`MAX_AUTOTUNE`: its larger candidate
    lists); ``repeats``: codegen runs timed per side; ``pool``: a compile pool to share between blocks;
    ``persistent_first``: the decision rule (:attr:`costfuse.inductor.decide.Decider.persistent_first`);
    ``prune_cut``: the cut ``prune`` drops candidates at, and the candidates' predicted verdicts are read at
    (:attr:`costfuse.inductor.decide.Decider.prune_cut`)."""
    from costfuse.data.compile import CompilePool, CompileTask
    from costfuse.data.inductor_codegen import inductor_code, kernels_of
    from costfuse.inductor.choices import CostFuseChoices
    from costfuse.inductor.prune import patched

    handler = CostFuseChoices(mode, group_model, spill_cut=spill_cut, prune_cut=prune_cut)
    handler.decider.persistent_first = persistent_first
    inductor_code(fn, inputs, options=options)   # untimed: the first codegen of a process pays for imports
    times: dict[str, list[float]] = {"inductor": [], "handler": [], "hooks": []}
    decision_s: list[list[float]] = []   # per run, each decision's seconds
    for _ in range(max(1, repeats)):   # alternated, so the shared machine's load falls on both sides alike
        t0 = time.perf_counter()
        default_code = inductor_code(fn, inputs, options=options)
        times["inductor"].append(time.perf_counter() - t0)
        handler.reset()
        t0 = time.perf_counter()
        handler_code = inductor_code(fn, inputs, choices=handler, options=options)
        times["handler"].append(time.perf_counter() - t0)
        times["hooks"].append(handler.hook_s)
        decision_s.append([d.seconds for d in handler.decisions])
    codegen_s, handler_s, hook_s = (statistics.median(times[k]) for k in ("inductor", "handler", "hooks"))
    default = kernels_of(default_code)
    if mode == "prune":
        with patched(handler.registry):
            mine = kernels_of(handler_code)
    else:
        mine = kernels_of(handler_code)
    probes = kernels_of(inductor_code(fn, inputs, choices=persistent_probe(), options=options)) if probe else []

    tasks, slots = [], []   # slots[i] = (report index, where, detail)

    def compile_at(source_kernel, launch: KernelLaunch, report: int, where: str, detail=None):
        tasks.append(CompileTask(source_kernel.compile_source(), source_kernel.compile_config(launch), 90))
        slots.append((report, where, detail))

    reports: list[KernelReport] = []
    used_mine, used_probe, used_decision, probed = set(), set(), set(), set()
    decisions = [d for d in handler.decisions]
    # A decision's seconds: its median over the runs (each run makes the same decisions in the same order),
    # as the codegen seconds are, so one run's stall on the shared machine does not stand for the handler.
    runs = [s for s in decision_s if len(s) == len(decisions)]
    seconds = [statistics.median(s) for s in zip(*runs)] if runs else [d.seconds for d in decisions]
    for k in default:
        r = KernelReport(k.name, k.xnumel, k.rnumel)
        i = len(reports)
        reports.append(r)
        for c in k.candidates:
            launch = k.launch(c) if k.reduction else KernelLaunch("pointwise", dict(c.kwargs).get("XBLOCK", 1), 1,
                                                                  c.num_warps)
            r.inductor.append({"config": config_dict(launch), "num_stages": c.num_stages})
            compile_at(k, launch, i, "inductor", len(r.inductor) - 1)
        if not k.reduction:
            r.fallback = "pointwise: Inductor's"
            continue
        d_index = next((j for j, d in enumerate(decisions)
                        if j not in used_decision and d.rows == k.xnumel and d.n == k.rnumel), None)
        j = _match(mine, k.xnumel, k.rnumel, used_mine)
        if d_index is None or j is None:
            r.fallback = "no handler decision for this kernel (its fusion changed)"
            continue
        used_decision.add(d_index)
        decision = decisions[d_index]
        r.decision_s = seconds[d_index]
        if decision.pick is None:
            r.fallback = decision.reason
        else:
            launch = decision.pick.launch
            r.costfuse = {"config": config_dict(launch), "predicted_regs": round(decision.pick.predicted_regs, 1),
                          "p_spill": round(decision.pick.p_spill, 3)}
            compile_at(mine[j], launch, i, "costfuse")
            kernel = decision.kernel
            inductor_modes = {e["config"]["persistent"] for e in r.inductor}
            theirs = k.launch(k.candidates[0]) if k.candidates else launch   # the first: what runs untimed
            r.issued_bytes = {"costfuse": kernel.issued_bytes(launch.mode),
                              "inductor": kernel.issued_bytes("persistent" if inductor_modes == {True} else "looped")}
            r.dram_bytes = {"costfuse": kernel.dram_bytes_at(launch, handler.decider.target),
                            "inductor": kernel.dram_bytes_at(theirs, handler.decider.target)}
            r.features_s = features_seconds(handler.decider, kernel)
            # what prune would drop: the heads' verdicts at prune's cut, and P(spill) for any other cut
            predicted = handler.decider.predict(kernel, [k.launch(c) for c in k.candidates], handler.decider.prune_cut)
            for e, s, p, regs in zip(r.inductor, predicted["spills"], predicted["p_spill"], predicted["regs"]):
                e.update(predicted_spill=bool(s), p_spill=round(float(p), 4), predicted_regs=round(float(regs), 1))
            if mode == "prune":
                r.costfuse["kept"] = len(mine[j].candidates)
        p = _match(probes, k.xnumel, k.rnumel, used_probe) if probe else None
        if probe and next_pow2(k.rnumel) > MAX_R0_BLOCK:
            probed.add(i)   # no persistent kernel exists in Inductor at this row: none is spill-free
        elif p is not None and probes[p].persistent:
            probed.add(i)
            rfull = next_pow2(k.rnumel)
            for w in ALLOWED_WARPS:
                if rfull / (32 * w) <= MAX_PROBE_ELEMS:
                    compile_at(probes[p], KernelLaunch("persistent", 1, rfull, w), i, "probe", w)
    if pool is None:
        with CompilePool(jobs, timeout_s) as own:
            results = own.run(tasks)
    else:
        results = pool.run(tasks)
    probe_ok: dict[int, list] = {}
    for (i, where, detail), res in zip(slots, results):
        labels = _labels(res)
        if where == "inductor":
            reports[i].inductor[detail].update(labels, dropped=dropped_by_inductor(res.stack_bytes))
        elif where == "costfuse":
            reports[i].costfuse.update(labels)
        else:
            probe_ok.setdefault(i, []).append(res.status == "ok" and res.spill_bytes == 0)
    for i in probed:   # a kernel whose probe configs all hold too many elements has none spill-free
        reports[i].persistent_spill_free = any(probe_ok.get(i, []))
    return BlockReport(reports, codegen_s, handler_s, dict(handler.stats), hook_s)


def features_seconds(decider, kernel, repeats: int = 5) -> float:
    """Median seconds to featurize ``kernel`` at every config of its space (issue #25 part 2: <= 1 ms),
    from a fresh copy each time, so its cached config-independent columns are computed again too."""
    import dataclasses

    from costfuse.launch import config_space

    times = []
    for _ in range(repeats):
        fresh = dataclasses.replace(kernel)
        t0 = time.perf_counter()
        decider.features(fresh, config_space(fresh))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _labels(res) -> dict:
    """The ptxas figures of a compile: registers, spill bytes (stored + loaded), seconds, status."""
    out = {"regs": res.regs, "spill_bytes": res.spill_bytes, "compile_s": round(res.compile_s, 2)}
    if res.status != "ok":
        out["status"] = res.status
    return out


# ---------------------------------------------------------------------------
# CLI


def _parser() -> argparse.ArgumentParser:
    from costfuse.cost_models.learned_groups import SPILL_CUTS
    from costfuse.torch_import import DTYPES, parse_input

    p = ArgumentParser(prog="costfuse inductor-report",
                       description="Inductor's sm_90 reduction kernels for a block, each decision of CostFuse's "
                                   "handler beside Inductor's candidates, with ptxas registers and spills "
                                   "(no GPU: docs/inductor.md).")
    p.add_argument("target", metavar="MODULE:FACTORY",
                   help="the block, as costfuse import-torch takes it, e.g. experiments/workloads/blocks.py:Softmax")
    p.add_argument("--shape", action="append", type=parse_input, required=True,
                   help="one per input, e.g. 4096x8192; an input with its own dtype adds it, e.g. 2048:i64")
    p.add_argument("--dtype", choices=DTYPES, default="f32", help="dtype of the block and its inputs")
    p.add_argument("--mode", choices=MODES, default="pin", help="the handler's mode")
    p.add_argument("--group-model", default="", metavar="DIR",
                   help="the handler's heads (a costfuse-train --export bundle; default: the shipped "
                        "costfuse/models/inductor)")
    p.add_argument("--spill-cut", choices=SPILL_CUTS, default=None,
                   help="the spill head's cut (default recall, the handler's): f1 = its F1-best P(spill), recall = the one that kept 95%% of the "
                        "training programs' spilling kernels out (fewer spilling picks, less persistence), precision = "
                        "the lowest whose precision is still 0.8 (bundles that record it)")
    p.add_argument("--prune-cut", choices=SPILL_CUTS, default=None,
                   help="the cut mode prune drops Inductor's candidates at, and the 'CostFuse predicts spill' verdicts "
                        "read (default f1): recall drops more of the spilling candidates and more of the spill-free ones")
    p.add_argument("--max-autotune", action="store_true",
                   help="Inductor's max-autotune candidate lists for reductions (max_autotune_pointwise: the same "
                        "lists, without timing matmul templates, which needs a GPU)")
    p.add_argument("--jobs", type=int, default=2, help="compile processes")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per compile")
    p.add_argument("--json", action="store_true", help="one JSON object per Triton kernel, one per line")
    return p


def _inputs(specs, dtype: str) -> list:
    from costfuse.torch_import import torch_dtype

    return [(tuple(s.dims), torch_dtype(s.dtype or dtype)) for s in specs]


def _config_text(c: dict) -> str:
    mode = "persistent" if c["persistent"] else ("looped" if c["rblock"] > 1 else "pointwise")
    return f"{mode} x{c['xblock']} r{c['rblock']} w{c['num_warps']}"


def _entry_text(e: dict) -> str:
    spill = "?" if e.get("spill_bytes") is None else f"{e['spill_bytes']} B"
    extra = " DROPPED" if e.get("dropped") else ""
    status = f" [{e['status']}]" if e.get("status") else ""
    return f"{_config_text(e['config'])}: {e.get('regs')} regs, spill {spill}{extra}{status}"


def table(reports: list[KernelReport]) -> str:
    """The readable form of the report: per kernel, Inductor's candidates, then CostFuse's decision."""
    lines = []
    for r in reports:
        lines.append(f"{r.kernel}: {r.xnumel} rows x {r.rnumel}")
        for e in r.inductor:
            pred = "" if "predicted_spill" not in e else f" (CostFuse predicts {'spill' if e['predicted_spill'] else 'no spill'})"
            lines.append(f"  inductor  {_entry_text(e)}{pred}")
        if r.costfuse:
            c = r.costfuse
            lines.append(f"  costfuse  {_entry_text(c)} (predicted {c['predicted_regs']} regs)")
        else:
            lines.append(f"  costfuse  Inductor's ({r.fallback})")
        if r.persistent_spill_free is not None:
            lines.append(f"  a persistent config compiles spill-free: {'yes' if r.persistent_spill_free else 'no'}")
        if r.issued_bytes:
            lines.append(f"  issued bytes: Inductor {r.issued_bytes['inductor']:,}, CostFuse {r.issued_bytes['costfuse']:,}; "
                         f"DRAM (estimated): Inductor {r.dram_bytes['inductor']:,}, CostFuse {r.dram_bytes['costfuse']:,}")
    return "\n".join(lines) + "\n"


def cli(argv=None) -> int:
    """``costfuse inductor-report``; exit 0, 1 on bad input (one line), 2 on a bug."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

    def body() -> int:
        from costfuse.torch_import import _quiet_stderr, build_module, load_factory

        with _quiet_stderr():
            module = build_module(load_factory(args.target), 0, args.dtype)
        options = MAX_AUTOTUNE if args.max_autotune else None
        report = report_block(module, _inputs(args.shape, args.dtype), args.mode, options, args.jobs, args.timeout,
                              group_model=args.group_model, spill_cut=args.spill_cut, prune_cut=args.prune_cut)
        if args.json:
            for r in report.kernels:
                print(json.dumps(r.to_json()))
        else:
            sys.stdout.write(table(report.kernels))
        return 0

    from costfuse.torch_import import TorchImportError

    return run_command("costfuse inductor-report", body, bad_input=(TorchImportError, ValueError))
