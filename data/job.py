"""The dataset-generation job: programs → fusion groups → Triton kernels → ptxas labels → Parquet.

Unit of work and of resume: one *program* ``(family, seed)``.  A batch of
programs is generated, every fusion group is fused (with the pass's own
rewrite), lowered (heuristic launch config, plus ``sample_configs`` seeded
neighbours), compiled in parallel on ``jobs`` workers, and written as one
shard, atomically.  A restarted job skips the programs whose rows it finds,
so it finishes with no duplicate and no lost rows.  A kernel whose lowering
or compile fails becomes a row with that status and the job carries on.

Each program and each kernel is stored once (``data/dedupe.py``): a program
whose content an earlier program index already has is skipped, and a kernel
already stored under an earlier program is not stored again.  Shards are
written in program order (by both executors) so "earlier" is the program
index.  Rows depend only on ``(family, seed)``, the options and the earlier
programs, never on ``jobs``, the executor or the batch size: labels are
deterministic (the timing column ``compile_s`` and ``created_at`` aside).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import shlex
import sys
from dataclasses import dataclass, field

from costfuse.data.compile import CompilePool, CompileResult, CompileTask, arch_name, parse_arch, ptxas_version, triton_version
from costfuse.data.dedupe import keep_new_kernels
from costfuse.data.families import FAMILIES, generate
from costfuse.data.config_sampling import DEFAULT_BOUND_WORDS, sample_configs
from costfuse.data.edge_groups import enumerate_groups, fuse_group
from costfuse.launch import LaunchConfig
from costfuse.data.lowering.generic import lower_generic
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.data.lowering.unsupported import UnsupportedOp
from costfuse.data.store import done_programs, params_json, stored_kernels, write_shard

from costfuse.ir import parse_module
from costfuse.featurize.liveness import body_of, pressure


class DrawnPrograms:
    """What a dataset job spec draws: ``programs`` programs, kinds round-robin, seeds ``seed, seed+1, ...``,
    less the ones whose draw an earlier one already has (:meth:`draw_key` says when two draws are one).
    Shared by the kernel-group and the Inductor jobs; a spec supplies ``kinds``, ``programs``, ``seed``."""

    def draw_key(self, kind: str, seed: int) -> str:
        raise NotImplementedError

    def program_list(self) -> list[tuple[str, int]]:
        """``(kind, seed)`` of every program: kinds round-robin, seeds ``seed, seed+1, ...``, less repeats."""
        skip = self.repeats()
        return [(k, s) for k, s in self._drawn() if f"{k}-{s}" not in skip]

    def repeats(self) -> dict[str, str]:
        """``{program_id: earlier program_id}`` for programs whose draw an earlier one has."""
        first: dict[str, str] = {}
        repeats = {}
        for kind, seed in self._drawn():
            pid, key = f"{kind}-{seed}", self.draw_key(kind, seed)
            if first.setdefault(key, pid) != pid:
                repeats[pid] = first[key]
        return repeats

    def _drawn(self) -> list[tuple[str, int]]:
        return [(self.kinds[i % len(self.kinds)], self.seed + i) for i in range(self.programs)]


@dataclass(frozen=True)
class JobSpec(DrawnPrograms):
    """What to generate; the CLI's options (see ``costfuse-data generate --help``)."""

    families: tuple[str, ...] = FAMILIES
    programs: int = 20
    seed: int = 0
    arch: str = "sm_90"
    max_groups: int = 4
    sample_configs: int = 3
    bound_words: int = DEFAULT_BOUND_WORDS
    timeout_s: float = 120.0
    mem_limit_gb: float = 8.0
    command: str = field(default_factory=lambda: shlex.join(["costfuse-data", *sys.argv[1:]]))

    @property
    def kinds(self) -> tuple[str, ...]:
        """The families, under the name :class:`DrawnPrograms` draws from."""
        return self.families

    def draw_key(self, family: str, seed: int) -> str:
        """A drawn program's content: seeds can draw the same program, which is stored once."""
        return generate(family, seed).content_hash

    schema_version = 1   # the rows' schema (data/store.py); dataset v2's spec is data/group_job.py

    def candidates(self, family: str, seed: int) -> list["Candidate"]:
        return program_candidates(family, seed, self)


@dataclass
class Candidate:
    """One kernel to label: a fused group at one launch config (or why it can't be lowered)."""

    row: dict
    source: str | None = None
    config: LaunchConfig | None = None


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _configs(op, kernel, spec: JobSpec, rng: random.Random, fused: bool) -> list[tuple[LaunchConfig, str]]:
    """The heuristic config; for fused groups also ``sample_configs - 1`` sampled ones.

    Singletons (unfused ops, rarely spilling) get the heuristic config only:
    they are there so every program can be partitioned (the oracle DP), and
    labelling them at several configs would drown the fused kernels.
    """
    if not fused:
        return [(kernel.config, "heuristic")]
    live_words = pressure(body_of(op)).max_live_words
    extra = sample_configs(kernel.xnumel, kernel.rnumel, live_words, spec.sample_configs - 1, rng,
                           exclude=kernel.config, bound=spec.bound_words)
    return [(kernel.config, "heuristic")] + [(c, "sampled") for c in extra]


def program_candidates(family: str, seed: int, spec: JobSpec) -> list[Candidate]:
    """Every kernel of one program, lowered and ready to compile (pure: no compile here)."""
    prog = generate(family, seed)
    base = {"program_id": prog.program_id, "family": family, "generator_seed": seed,
            "program_params": params_json(prog.params), "arch": arch_name(spec.arch), "command": spec.command}
    rng = random.Random(f"configs:{prog.program_id}")
    out = []
    for group in enumerate_groups(parse_module(prog.text, prog.program_id), spec.max_groups, seed):
        module = parse_module(prog.text, prog.program_id)  # keep alive: ``op`` lives inside it
        op = fuse_group(module, group)
        row = {**base, "group": group.label, "group_size": len(group.members), "root": group.root,
               "ir": generic_as_function(op, "kernel")}
        try:
            kernel = lower_generic(op)
        except (UnsupportedOp, ValueError) as err:
            out.append(Candidate(_unlabelled(row, "unsupported", str(err))))
            continue
        for config, source in _configs(op, kernel, spec, rng, len(group.members) > 1):
            k = lower_generic(op, config) if config != kernel.config else kernel
            out.append(Candidate({**row, "triton_src": k.source, "kernel_name": k.name, "xblock": config.XBLOCK,
                                  "rblock": config.RBLOCK, "num_warps": config.num_warps, "config_source": source},
                                 k.source, config))
    return out


_LABELS = ("regs", "spill_store_bytes", "spill_load_bytes", "stack_bytes", "shared_mem_bytes")


def _unlabelled(row: dict, status: str, error: str) -> dict:
    """A row for a group that never reached ptxas (lowering refused it)."""
    kid = hashlib.sha256(f"{row['ir']}|{row['arch']}|{triton_version()}".encode()).hexdigest()[:24]
    return {**row, "kernel_id": kid, "triton_src": None, "kernel_name": None, "xblock": None, "rblock": None,
            "num_warps": None, "config_source": None, **{k: None for k in _LABELS}, "compile_s": 0.0,
            "status": status, "error": error, "triton_version": triton_version(),
            "ptxas_version": ptxas_version(parse_arch(row["arch"])), "latency_us": None, "gpu_name": None,
            "created_at": _now()}


def labelled_row(cand: Candidate, res: CompileResult) -> dict:
    """The candidate's row completed with its compile labels."""
    return {**cand.row, "kernel_id": res.kernel_id, "regs": res.regs, "spill_store_bytes": res.spill_store_bytes,
            "spill_load_bytes": res.spill_load_bytes, "stack_bytes": res.stack_bytes,
            "shared_mem_bytes": res.shared_bytes, "compile_s": float(res.compile_s), "status": res.status,
            "error": res.error, "triton_version": res.triton_version, "ptxas_version": res.ptxas_version,
            "latency_us": None, "gpu_name": None, "created_at": _now()}


def label_programs(programs: list[tuple[str, int]], spec, pool: CompilePool, on_kernel=None) -> list[dict]:
    """Rows for ``programs``: lower all their kernels (``spec.candidates``), compile the lowered ones on ``pool``.

    ``spec`` is a :class:`JobSpec` (v1), a ``data.group_job.GroupJobSpec`` (v2) or a
    ``data.inductor_job.InductorJobSpec`` (v3, whose ``finish_row`` completes each labelled row).
    """
    cands = [c for fam, seed in programs for c in spec.candidates(fam, seed)]
    todo = [i for i, c in enumerate(cands) if c.source is not None]
    arch = parse_arch(spec.arch)
    tasks = [CompileTask(cands[i].source, cands[i].config, arch) for i in todo]
    results = dict(zip(todo, pool.run(tasks, on_result=(lambda i, r: on_kernel(r)) if on_kernel else None)))
    finish = getattr(spec, "finish_row", None)   # a spec whose schema derives columns from the labels (v3)
    return [(finish or (lambda r: r))(labelled_row(c, results[i])) if i in results else c.row
            for i, c in enumerate(cands)]  # program order


def batches(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def shard_name(batch: list[tuple[str, int]]) -> str:
    """``shard-seeds-LO-HI-DIGEST``: the seeds of the programs the shard holds, of whatever families.

    A program id is ``FAMILY-SEED`` and a job gives every program its own seed, families in turn, so
    one batch holds several families: the name says which seeds, not a family.  (It used to start
    with the first program's family, and ``shard-chain-0-...`` read as "chain programs only" while it
    held every family; the committed datasets keep those names, ``data/sm90_v1/_CHANGES.md``.)
    Deterministic per batch content, so a rerun of the same batch replaces, never duplicates.
    """
    digest = hashlib.sha256(repr(batch).encode()).hexdigest()[:12]
    seeds = [seed for _, seed in batch]
    return f"shard-seeds-{min(seeds)}-{max(seeds)}-{digest}"


def pending_programs(spec: JobSpec, out_dir) -> list[tuple[str, int]]:
    done = done_programs(out_dir)
    return [(f, s) for f, s in spec.program_list() if f"{f}-{s}" not in done]


def run_local(spec: JobSpec, out_dir, jobs: int = 1, batch_programs: int = 4, progress: bool = True) -> int:
    """Label every pending program on this machine with ``jobs`` compile workers; return rows written."""
    from tqdm import tqdm

    todo = pending_programs(spec, out_dir)
    seen = stored_kernels(out_dir)
    written = 0
    with CompilePool(jobs, spec.timeout_s, spec.mem_limit_gb) as pool, \
            tqdm(total=len(todo), unit="program", disable=not progress, dynamic_ncols=True) as bar:
        stats = {"kernels": 0, "spilling": 0}

        def tick(res: CompileResult) -> None:
            stats["kernels"] += 1
            stats["spilling"] += bool(res.spill_store_bytes)
            bar.set_postfix(kernels=stats["kernels"], spilling=stats["spilling"], refresh=False)

        for batch in batches(todo, batch_programs):
            written += _write_batch(out_dir, batch, label_programs(batch, spec, pool, tick), seen, spec.schema_version)
            bar.update(len(batch))
    return written


def _write_batch(out_dir, batch: list[tuple[str, int]], rows: list[dict], seen: set[str], version: int = 1) -> int:
    """Store the batch's rows less the kernels already stored (``seen``, updated); return rows written."""
    rows = keep_new_kernels(rows, seen)
    if rows:
        write_shard(out_dir, shard_name(batch), rows, version)
    return len(rows)


def run_ray(spec: JobSpec, out_dir, batch_programs: int = 4, progress: bool = True) -> int:
    """The same job as Ray tasks (one per batch), e.g. on a cluster named by ``RAY_ADDRESS``."""
    import ray
    from tqdm import tqdm

    ray.init(ignore_reinit_error=True, log_to_driver=False)

    @ray.remote
    def label_batch(batch):
        with CompilePool(1, spec.timeout_s, spec.mem_limit_gb) as pool:
            return batch, label_programs(batch, spec, pool)

    todo = pending_programs(spec, out_dir)
    seen = stored_kernels(out_dir)
    futures = [label_batch.remote(b) for b in batches(todo, batch_programs)]
    written = 0
    with tqdm(total=len(todo), unit="program", disable=not progress, dynamic_ncols=True) as bar:
        for future in futures:  # in batch order, so a shared kernel is kept under its first program
            batch, rows = ray.get(future)
            written += _write_batch(out_dir, batch, rows, seen, spec.schema_version)
            bar.update(len(batch))
    return written
