"""Dataset rows for the store, stats, card and latency tests: one valid row with every column, overridable."""

from __future__ import annotations

from costfuse.data.store import SCHEMA, write_shard


def row(**kw):
    """One ok v1 row (every schema column, the required ones filled), with ``kw`` overriding any of them."""
    r = {name: None for name in SCHEMA.names}
    r.update(kernel_id="k1", program_id="chain-0", family="chain", generator_seed=0, group="g1", group_size=1,
             root=1, ir="module {}", arch="sm_90", triton_version="3.6.0", compile_s=0.5, status="ok",
             created_at="2026-12-02T00:00:00+00:00", command="test", regs=32, spill_store_bytes=0)
    r.update(kw)
    return r


def make(tmp_path):
    """A v1 dataset in ``tmp_path``: 4 ok rows (chain and tree, heuristic and sampled, 2 spilling) and a timeout."""
    rows = [row(kernel_id=f"k{i}", program_id=f"{fam}-{i}", family=fam, config_source=src,
                regs=regs, spill_store_bytes=spill, ptxas_version="12.8.93")
            for i, (fam, src, regs, spill) in enumerate([
                ("chain", "heuristic", 30, 0), ("chain", "sampled", 255, 400),
                ("tree", "heuristic", 40, 0), ("tree", "sampled", 255, 80)])]
    rows.append(row(kernel_id="k9", program_id="tree-9", family="tree", status="timeout", regs=None,
                    spill_store_bytes=None, error="compile exceeded 120 s"))
    write_shard(tmp_path, "s", rows)
    return tmp_path
