"""Dataset ``sm90_inductor_v1``: Inductor's own Triton kernels for sm_90, each compiled at many configs (issue #25 part 5).

Unit of work and of resume: one *program* ``(kind, seed)``
(:mod:`costfuse.data.inductor_programs`: a workload block, or a random
composition of them, at random rows, row length and dtype).  Its kernels come
from Inductor itself, on the faked sm_90 of the CPU harness
(:func:`costfuse.data.inductor_codegen.inductor_code`, docs/inductor.md), in
up to four codegens (``variant``: the first that made the kernel):

* ``inductor``: as Inductor generates them, with its default candidate lists;
* ``max_autotune``: the same with ``max_autotune_pointwise``, Inductor's
  larger reduction candidate lists (the same kernels, so only more candidates);
* ``persistent``: every row (INNER) reduction forced persistent (a row up to
  Inductor's largest block, 65,536), the report's probe
  (:func:`costfuse.data.inductor_report.persistent_probe`);
* ``looped``: every reduction forced looped;

the last two only when the first has a reduction.  Every distinct kernel
(by the file the compile pool compiles: Inductor's source less its runtime
decorator) is compiled with Triton's ptxas for sm_90 at

* every candidate config Inductor lists for it in any of those codegens
  (``config_source``: ``inductor``, ``max_autotune``, or ``forced`` for
  the lists of the forced codegens; a config in several lists names each);
* ``sample_configs`` launches of its own mode (persistent or looped;
  pointwise kernels a third as many) drawn from CostFuse's config space
  (:func:`costfuse.launch.config_space`, within Inductor's largest block)
  by dataset v2's sampler (:func:`costfuse.data.config_sampling.sample_launches`:
  stratified by the analytical register estimate, from ``low_regs`` to
  ``bound_regs``).  A kernel with no description gets Inductor's
  candidates only: the estimate needs one.  A kernel the handler leaves to
  Inductor (:class:`costfuse.inductor.describe.NotCovered`: a reduction hint
  other than INNER, say) keeps the reason in ``features_error``, and its
  nodes' description where they have one.

One row per (kernel, config) (schema v3, :data:`costfuse.data.store.SCHEMA_V3`):
ptxas registers, spill and stack bytes, whether Inductor's own spill filter
would drop the config (:func:`costfuse.data.inductor_report.dropped_by_inductor`),
the kernel's description (:class:`costfuse.featurize.inductor_kernel.InductorKernel`,
as JSON) and its config-independent features, and provenance (torch, Triton
and ptxas versions, arch, date, command, the source's sha256).  The row id is
the compile pool's ``kernel_id`` (source, config, arch, versions), stored once
(``data/dedupe.py``).  A program whose codegen fails becomes one ``error`` row,
so a rerun does not retry it.

The job machinery (batches, atomic shards, resume, local or Ray executors,
tqdm progress) is v1's (``data/job.py``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import random
import shlex
import sys
from dataclasses import dataclass, field

from costfuse.data.compile import arch_name, parse_arch, ptxas_version, triton_version
from costfuse.data.inductor_programs import INDUCTOR_KINDS, draw_params
from costfuse.data.job import Candidate, DrawnPrograms, _now
from costfuse.data.store import params_json

VARIANTS = ("inductor", "max_autotune", "persistent", "looped")
FORCED = ("persistent", "looped")
CONFIG_SOURCE = {"inductor": "inductor", "max_autotune": "max_autotune", "persistent": "forced", "looped": "forced"}
DEFAULT_SAMPLE_CONFIGS = 8
DEFAULT_LOW_REGS = 128
DEFAULT_BOUND_REGS = 768    # a 3-program pilot at 1024: 44% spilling, sampled compiles up to 90 s (16 KB spills)
POINTWISE_SAMPLE_SHARE = 3
BLOCK_KEYS = {"XBLOCK", "R0_BLOCK"}   # a kernel tiled by other blocks (YBLOCK, R1_BLOCK) is not a row kernel


@dataclass(frozen=True)
class InductorJobSpec(DrawnPrograms):
    """What to generate; ``costfuse-data generate-inductor --help`` documents each field."""

    kinds: tuple[str, ...] = INDUCTOR_KINDS
    programs: int = 20
    seed: int = 0
    arch: str = "sm_90"
    sample_configs: int = DEFAULT_SAMPLE_CONFIGS
    low_regs: int = DEFAULT_LOW_REGS
    bound_regs: int = DEFAULT_BOUND_REGS
    timeout_s: float = 120.0
    mem_limit_gb: float = 8.0
    command: str = field(default_factory=lambda: shlex.join(["costfuse-data", *sys.argv[1:]]))
    schema_version = 3

    def draw_key(self, kind: str, seed: int) -> str:
        return params_json(draw_params(kind, seed))

    def candidates(self, kind: str, seed: int) -> list[Candidate]:
        return program_candidates(kind, seed, self)

    def finish_row(self, row: dict) -> dict:
        """A labelled row (``data.job.labelled_row``) with what the labels decide: Inductor's spill filter."""
        from costfuse.data.inductor_report import dropped_by_inductor

        return {**row, "dropped_by_inductor": dropped_by_inductor(row["stack_bytes"])}


# ---------------------------------------------------------------------------
# Codegen: Inductor's kernels, each with its description


def forced(persistent: bool):
    """A choices handler forcing every row reduction persistent (``True``; a row up to Inductor's largest
    block) or every reduction looped (``False``)."""
    from torch._inductor.choices import InductorChoices

    from costfuse.data.inductor_report import persistent_probe

    if persistent:
        return persistent_probe()

    class LoopedProbe(InductorChoices):
        def uuid(self):
            return "costfuse-looped-probe"

        def should_use_persistent_reduction(self, features, cooperative_reduction):
            return False

    return LoopedProbe()


@contextlib.contextmanager
def describing(into: dict):
    """Inside the block, each Triton kernel Inductor defines is described (``into[name]``: its
    :class:`InductorKernel`, or the one-line reason it is not covered), from the kernel's own
    ``SIMDKernelFeatures`` as the handler reads them (:func:`costfuse.inductor.describe.describe_features`).
    ``TritonScheduling.define_kernel`` is where torch 2.11 and 2.13 both hand over each kernel."""
    from torch._inductor.codegen.triton import TritonScheduling
    from torch._inductor.virtualized import V

    original = TritonScheduling.define_kernel

    def define_kernel(self, src_code, node_schedule, kernel):
        name = original(self, src_code, node_schedule, kernel)
        name = V.graph.wrapper_code.src_to_kernel.get(src_code, name)
        if name not in into:
            into[name] = _describe(kernel)
        return name

    TritonScheduling.define_kernel = define_kernel
    try:
        yield
    finally:
        TritonScheduling.define_kernel = original


def _describe(kernel) -> tuple:
    """``(description or None, reason or None)`` of a Triton kernel Inductor is defining: the handler's
    description; for a kernel the handler leaves to Inductor (the reason), its nodes' description over the
    kernel's rows x row all the same where it has one (a reduction hint other than INNER, say)."""
    from costfuse.inductor.describe import NotCovered, describe_features, describe_nodes, static_int

    features = kernel.features
    try:
        return describe_features(features, dict(kernel.numels)), None
    except NotCovered as err:
        reason = str(err)
    except Exception as err:   # an Inductor object the description does not know
        return None, f"not described: {_one_line(err)}"
    try:
        rows, n = static_int(features.numel, "numel"), static_int(features.reduction_numel, "reduction_numel")
        return describe_nodes(list(features.scheduler_nodes()), rows, n), reason
    except Exception:   # NotCovered or an Inductor object it does not know: no description
        return None, reason


def generate_kernels(fn, inputs, variant: str) -> list[tuple[object, object]]:
    """``(InductorKernelSource, (description or None, reason or None))`` of every Triton kernel of one codegen."""
    from costfuse.data.inductor_codegen import inductor_code, kernels_of

    from costfuse.data.inductor_report import MAX_AUTOTUNE

    choices = forced(variant == "persistent") if variant in FORCED else None
    described: dict = {}
    with describing(described):
        code = inductor_code(fn, inputs, choices=choices, options=MAX_AUTOTUNE if variant == "max_autotune" else None)
    return [(k, described.get(k.name, (None, "not described: no kernel features seen"))) for k in kernels_of(code)]


# ---------------------------------------------------------------------------
# Candidates: each kernel at its configs


def kernel_launches(k, desc, candidates: list[tuple], spec: InductorJobSpec, rng: random.Random) -> list[tuple]:
    """``(launch, num_stages, sources)`` per config to compile ``k`` at: Inductor's ``candidates``
    (``(Candidate, source)`` pairs, from every codegen that made ``k``), then sampled launches of the
    kernel's own mode (none without a description ``desc``)."""
    from costfuse.data.config_sampling import sample_launches
    from costfuse.inductor.configs import NUM_STAGES, inductor_can_launch
    from costfuse.launch import KernelLaunch, config_space, next_pow2

    out: dict = {}
    for c, source in candidates:
        kw = dict(c.kwargs)
        launch = k.launch(c) if k.reduction else KernelLaunch("pointwise", kw.get("XBLOCK", 1), 1, c.num_warps)
        stages, sources = out.setdefault(launch, (c.num_stages, []))
        if source not in sources:
            sources.append(source)
    if desc is not None:
        mode = "pointwise" if not k.reduction else ("persistent" if k.persistent else "looped")
        space = [c for c in config_space(desc) if c.mode == mode and inductor_can_launch(c)
                 and (mode != "persistent" or c.rblock == next_pow2(k.rnumel))]
        wanted = spec.sample_configs // POINTWISE_SAMPLE_SHARE if mode == "pointwise" else spec.sample_configs
        for launch in sample_launches(desc, space, out, wanted, spec.low_regs, spec.bound_regs, spec.arch, rng):
            out[launch] = (NUM_STAGES, ["sampled"])
    return [(launch, st, ",".join(src)) for launch, (st, src) in out.items()]


def _torch_version() -> str:
    import torch

    return torch.__version__


def program_candidates(kind: str, seed: int, spec: InductorJobSpec) -> list[Candidate]:
    """Every kernel of one program at each of its configs (no compile here)."""
    from costfuse.data.inductor_programs import build_program

    params = draw_params(kind, seed)
    pid = f"{kind}-{seed}"
    base = {"program_id": pid, "family": kind, "generator_seed": seed, "program_params": params_json(params),
            "arch": arch_name(spec.arch), "command": spec.command, "torch_version": _torch_version(),
            "latency_us": None, "gpu_name": None}
    rng = random.Random(f"inductor-configs:{pid}")
    kernels: dict[str, tuple] = {}   # compile source -> (kernel, description, variant, [(candidate, source)])
    stage = "build"
    try:
        fn, inputs = build_program(params)
        for stage in VARIANTS:
            if stage in FORCED and not any(k.reduction for k, _, _, _ in kernels.values()):
                break
            for k, desc in generate_kernels(fn, inputs, stage):
                entry = kernels.setdefault(k.compile_source(), (k, desc, stage, []))
                entry[3].extend((c, CONFIG_SOURCE[stage]) for c in k.candidates)
    except Exception as err:   # Inductor refused the block at these sizes: one row says why
        return [Candidate(_failed_row(base, f"{stage} codegen: {_one_line(err)}"))]
    out = []
    for source, (k, (desc, reason), variant, candidates) in kernels.items():
        described = desc is not None
        row = {**base, "kernel_name": k.name, "source_hash": hashlib.sha256(k.source.encode()).hexdigest(),
               "triton_src": k.source, "heuristic": k.heuristic, "variant": variant, "xnumel": k.xnumel,
               "rnumel": k.rnumel, "kernel_desc": json.dumps(dataclasses.asdict(desc)) if described else None,
               "kernel_features": json.dumps(desc.group_columns) if described else None,
               "features_error": reason}
        extra = {key for c in k.candidates for key, _ in c.kwargs} - BLOCK_KEYS
        if extra:
            out.append(Candidate(_unlabelled(row, "unsupported", f"tiled by {', '.join(sorted(extra))}: not a row kernel")))
            continue
        for launch, stages, source_label in kernel_launches(k, desc, candidates, spec, rng):
            cfg = {**row, "persistent": launch.mode == "persistent", "xblock": launch.xblock, "rblock": launch.rblock,
                   "num_warps": launch.num_warps, "num_stages": stages, "config_source": source_label}
            try:
                config = dataclasses.replace(k.compile_config(launch), num_stages=stages)
            except ValueError as err:   # a tile the compile pool refuses
                out.append(Candidate(_unlabelled(cfg, "unsupported", _one_line(err))))
                continue
            out.append(Candidate(cfg, source, config))
    return out


_CONFIG_COLUMNS = ("persistent", "xblock", "rblock", "num_warps", "num_stages", "config_source")
_LABEL_COLUMNS = ("regs", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "shared_mem_bytes",
                  "dropped_by_inductor")


def _unlabelled(row: dict, status: str, error: str) -> dict:
    """A row that never reached ptxas; its id hashes the program, kernel, config and the reason."""
    full = {**dict.fromkeys(_CONFIG_COLUMNS), **row}
    key = json.dumps([full.get("program_id"), full.get("source_hash"), [full[c] for c in _CONFIG_COLUMNS], error,
                      full["arch"], triton_version()], default=str)
    return {**full, "kernel_id": hashlib.sha256(key.encode()).hexdigest()[:24], **dict.fromkeys(_LABEL_COLUMNS),
            "compile_s": 0.0, "status": status, "error": error, "triton_version": triton_version(),
            "ptxas_version": ptxas_version(parse_arch(full["arch"])), "created_at": _now()}


def _failed_row(base: dict, error: str) -> dict:
    row = {**base, "kernel_name": None, "source_hash": None, "triton_src": None, "heuristic": None, "variant": None,
           "xnumel": None, "rnumel": None, "kernel_desc": None, "kernel_features": None, "features_error": None}
    return _unlabelled(row, "error", error)


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:300]
