"""Dataset v2: kernel groups × launch configs → Triton kernels → ptxas labels (issue #13).

Unit of work and of resume: one *group program* ``(kind, seed)``
(``data/group_programs.py``).  Each program goes through the group pass
under every group policy (``always``, ``analytical``, ``inductor``, ``xla``);
every distinct kernel function they outline is a *group candidate*, named by
``group_id`` (a hash of the kernel function without its launch).  Each
candidate is lowered (``data/lowering/kernel.py``) and compiled at:

* the heuristic launch (``costfuse.launch.heuristic_launch``);
* the launch each policy chose for it, and the one each of ``analytical``,
  ``inductor`` and ``xla`` would choose for it (``best_config``), even when
  that policy formed other groups;
* ``sample_configs`` launches drawn from its config space
  (``costfuse.launch.config_space``), stratified by the analytical register
  estimate (``cost_models/group_time.py``): each draw targets a pressure
  log-uniform in [``low_regs``, ``bound_regs``] and takes the unused config
  nearest to it (``stratified_draws`` of ``data/config_sampling.py``, v1's
  sampler), so the labels cover "clearly safe" to "clearly spilling".
  The bound keeps ptxas off the configs that spill kilobytes (minutes per
  compile, docs/design.md §5).  A pilot (18 programs, 751 kernels, targets
  48..2048) spilled on 16% of sampled configs and 2.6% of pointwise ones,
  so targets started at 96 and ended at 3072, and pointwise groups get a
  third of the samples.  The first 648 kernels of ``data/sm90_v2`` then
  showed, by estimated registers: 18% spilling at 256-512, 60% at 512-1024
  (1.3 s per compile), 86% above 1024 but 4-10 s per compile (the kernels
  spilling > 4 KB took two thirds of all compile time); so targets now run
  from 192 to 1536, where the answer turns and ptxas stays fast.

The job machinery (batches, atomic shards, resume, one kernel stored once,
local or Ray executors) is v1's (``data/job.py``); only the candidates and
the row schema (v2, ``data/store.py``) differ.

``data/sm90_v2`` was generated before the looped lowering computed
softmax-like sums online (issue #26, ``costfuse/online_softmax.py``): its
looped softmax, log-softmax and cross-entropy kernels are the three-pass
ones, and their ``hbm_bytes``, sources and ``kernel_id`` say so.  This job
now lowers those kernels in two passes (one for a loss that stores only
per-row values), so a rerun would label other kernels for those groups; the
dataset is kept as generated, not regenerated.  Likewise its looped f32 layer
norms were lowered before the variance became a Welford sum in its mean's pass
(``costfuse/welford.py``): they make three passes where the job now makes two.
"""

from __future__ import annotations

import hashlib
import random
import shlex
import sys
from dataclasses import dataclass, field

from costfuse.data.compile import arch_name
from costfuse.data.group_programs import GROUP_KINDS, draw_params, generate_group_program
from costfuse.data.job import Candidate, DrawnPrograms, _unlabelled
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.store import params_json

POLICIES = ("always", "analytical", "inductor", "xla")
PRICED_BY = ("analytical", "inductor", "xla")     # their best_config is added for every candidate
# The cost model each name runs: v2 was built when ``xla`` was XLA's Triton tiling, which issue #26
# renamed ``xla-triton`` (``xla`` is now XLA's default pipeline); the rows keep v2's name, so the job
# still writes the dataset it wrote.
MODEL_OF = {"always": "always", "analytical": "analytical", "inductor": "inductor", "xla": "xla-triton"}
DEFAULT_LOW_REGS = 192
DEFAULT_BOUND_REGS = 1536
POINTWISE_SAMPLE_SHARE = 3     # pointwise groups get 1/3 of the samples: a pilot found them 10x less likely to spill


@dataclass(frozen=True)
class GroupJobSpec(DrawnPrograms):
    """What to generate; ``costfuse-data generate-groups --help`` documents each field."""

    kinds: tuple[str, ...] = GROUP_KINDS
    programs: int = 20
    seed: int = 0
    arch: str = "sm_90"
    sample_configs: int = 12
    low_regs: int = DEFAULT_LOW_REGS
    bound_regs: int = DEFAULT_BOUND_REGS
    timeout_s: float = 120.0
    mem_limit_gb: float = 8.0
    command: str = field(default_factory=lambda: shlex.join(["costfuse-data", *sys.argv[1:]]))
    schema_version = 2

    def draw_key(self, kind: str, seed: int) -> str:
        """Same params, same text: a drawn content's seed does not make it another program."""
        params = draw_params(kind, seed)
        return kind + params_json({k: v for k, v in params.items() if k != "seed" or "content" not in params})

    def candidates(self, kind: str, seed: int) -> list[Candidate]:
        return program_candidates(kind, seed, self)


def group_id(kernel_ir: str) -> str:
    return hashlib.sha256(kernel_ir.encode()).hexdigest()[:16]


@dataclass
class _Group:
    """One distinct kernel function of a program, and which launch each policy gave it."""

    ir: str
    label: str
    picks: dict = field(default_factory=dict)     # KernelLaunch -> [sources]


def _formed_groups(text: str, program_id: str) -> dict[str, _Group]:
    """Every distinct kernel function the group policies outline for the program."""
    from costfuse.data.lowering.kernel_function import function_name, kernel_functions, kernel_launch
    from costfuse.data.lowering.reference_functions import kernel_as_function

    from costfuse.cost_models import policy_class
    from costfuse.group_pass import GroupFusionPass, run_group_pipeline
    from costfuse.ir import parse_module

    groups: dict[str, _Group] = {}
    for policy in POLICIES:
        module = parse_module(text, program_id)
        records = run_group_pipeline(module, GroupFusionPass(policy_class(MODEL_OF[policy], "groups")()))
        labels = {r.name: r.kernel.label for r in records}
        for f in kernel_functions(module):
            ir_text = kernel_as_function(f)
            g = groups.setdefault(group_id(ir_text), _Group(ir_text, labels.get(function_name(f), "")))
            g.picks.setdefault(kernel_launch(f), []).append(policy)
    return groups


_MODELS: dict = {}


def _model(name: str):
    from costfuse.cost_models import policy_class

    return _MODELS.setdefault(name, policy_class(MODEL_OF[name], "groups")())


def group_configs(shape, picks: dict, spec: GroupJobSpec, rng: random.Random) -> list[tuple[object, str]]:
    """``(launch, source)`` per config to compile: heuristic, policies' picks, peers' choices, sampled."""
    from costfuse.data.config_sampling import sample_launches
    from costfuse.launch import config_space, heuristic_launch

    sources: dict = {}
    sources.setdefault(heuristic_launch(shape), []).append("heuristic")
    for launch, policies in picks.items():
        sources.setdefault(launch, []).extend(policies)
    for name in PRICED_BY:
        est = _model(name).best_config(shape)
        if est is not None and name not in sources.get(est.launch, []):
            sources.setdefault(est.launch, []).append(name)
    wanted = spec.sample_configs // POINTWISE_SAMPLE_SHARE if shape.pointwise else spec.sample_configs
    for c in sample_launches(shape, config_space(shape), sources, wanted, spec.low_regs, spec.bound_regs, spec.arch,
                             rng):
        sources[c] = ["sampled"]
    return [(c, ",".join(dict.fromkeys(s))) for c, s in sources.items()]


def program_candidates(kind: str, seed: int, spec: GroupJobSpec) -> list[Candidate]:
    """Every group candidate of one program at each of its configs, lowered (no compile here)."""
    from costfuse.data.lowering.kernel import lower_kernel
    from costfuse.data.lowering.kernel_function import kernel_members

    from costfuse.ir import parse_module
    from costfuse.kernel import NotAKernel, analyze_kernel

    prog = generate_group_program(kind, seed)
    base = {"program_id": prog.program_id, "family": kind, "generator_seed": seed,
            "program_params": params_json(prog.params), "arch": arch_name(spec.arch), "command": spec.command,
            "root": None}
    rng = random.Random(f"group-configs:{prog.program_id}")
    out = []
    for gid, g in _formed_groups(prog.text, prog.program_id).items():
        module = parse_module(g.ir, f"{prog.program_id}/{gid}")
        func = module.body.operations[0].operation
        members = kernel_members(func)
        row = {**base, "group": g.label, "group_size": len(members), "group_id": gid, "ir": g.ir}
        try:
            shape = analyze_kernel(members)
        except NotAKernel:   # a lone transpose or broadcast: v1's domain (data/sm90_v1), not a row group
            continue
        for launch, source in group_configs(shape, g.picks, spec, rng):
            try:
                k = lower_kernel(func, launch)
            except (UnsupportedOp, ValueError) as err:
                out.append(Candidate(_v2_unlabelled({**row, "mode": launch.mode}, str(err))))
                continue
            out.append(Candidate({**row, "triton_src": k.source, "kernel_name": k.name, "xblock": launch.xblock,
                                  "rblock": launch.rblock, "num_warps": launch.num_warps, "config_source": source,
                                  "mode": launch.mode, "hbm_bytes": k.hbm_bytes, "n_ops": k.body_ops},
                                 k.source, launch.as_config()))
    return out


def _v2_unlabelled(row: dict, error: str) -> dict:
    return _unlabelled({"mode": None, "hbm_bytes": None, "n_ops": None, **row}, "unsupported", error)
