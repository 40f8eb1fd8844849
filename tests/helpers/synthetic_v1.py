"""A v1 dataset with synthetic labels, for the trainer's, the group trainer's and the MLflow server's tests.

Fake labels belong in tests only: a model trained on them means nothing.
"""

from __future__ import annotations

import random
from pathlib import Path

from costfuse.data.edge_groups import enumerate_groups, fuse_group
from costfuse.data.families import FAMILIES, generate
from costfuse.launch import LaunchConfig, heuristic_config
from costfuse.data.lowering.reference_functions import generic_as_function
from costfuse.data.store import SCHEMA, write_shard
from costfuse.featurize.features import analyze_generic, features

from costfuse.ir import parse_module

SEEDS_PER_FAMILY = 2


def synthetic_labels(f: dict[str, float], rng: random.Random) -> tuple[int, int]:
    """``(regs, spill bytes)``: demand = 40 + 3.5 x live words x elements per thread
    (+3 per transcendental); registers cap at 255 (128 at 16 warps); what is
    above the cap spills, 8 bytes per excess register, with 10 % noise.
    About 40 % of the rows spill, in every family."""
    demand = 40 + 3.5 * f["live_regs_est"] + 3 * f["n_transcendental"]
    cap = 128 if f["num_warps"] >= 16 else 255
    regs = int(min(cap, demand + rng.uniform(-4, 4)))
    spill = max(0.0, demand - cap) * 8 * rng.uniform(0.9, 1.1)
    return regs, int(spill)


def _configs(static: dict[str, float]) -> list[LaunchConfig]:
    """The heuristic config and up to two neighbours (4x the rows; a quarter of the warps), so a group has
    several labelled rows, as the dataset job samples them."""
    base = heuristic_config(int(static["xnumel"]), int(static["rnumel"]))
    out = [base]
    for x, w in ((base.XBLOCK * 4, base.num_warps), (base.XBLOCK, max(1, base.num_warps // 4))):
        try:
            cfg = LaunchConfig(XBLOCK=x, RBLOCK=base.RBLOCK, num_warps=w)
        except ValueError:
            continue
        if cfg not in out:
            out.append(cfg)
    return out


def write_synthetic_dataset(directory: Path, seeds: int = SEEDS_PER_FAMILY, families=FAMILIES,
                            with_latency: bool = False) -> int:
    """Write one shard per family of synthetic-label rows into ``directory``; return the row count."""
    total = 0
    for family in families:
        rows = []
        for seed in range(seeds):
            program = generate(family, seed)
            rng = random.Random(f"{family}:{seed}")
            for group in enumerate_groups(parse_module(program.text), 8, seed):
                module = parse_module(program.text)
                op = fuse_group(module, group)
                with module.context:
                    text = generic_as_function(op, "kernel")
                    static = analyze_generic(op).values
                    for cfg in _configs(static):
                        f = features(op, cfg)
                        regs, spill = synthetic_labels(f, rng)
                        row = {c: None for c in SCHEMA.names}
                        row.update(
                            kernel_id=f"{program.program_id}-{group.label}-{cfg.short()}",
                            program_id=program.program_id, family=family, generator_seed=seed,
                            group=group.label, group_size=len(group.members), root=group.root, ir=text,
                            xblock=cfg.XBLOCK, rblock=cfg.RBLOCK, num_warps=cfg.num_warps, arch="sm_90",
                            triton_version="test", regs=regs, spill_store_bytes=spill // 2,
                            spill_load_bytes=spill - spill // 2, compile_s=0.0, status="ok",
                            created_at="2025-01-01T00:00:00+00:00", command="synthetic")
                        if with_latency:
                            row["latency_us"] = 2.0 + f["bytes_total"] / 3e6 * rng.uniform(0.9, 1.1)
                        rows.append(row)
        write_shard(directory, family, rows)
        total += len(rows)
    return total
