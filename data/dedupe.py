"""One program per content, one row per kernel: the dataset's uniqueness rules.

Why: different seeds can draw the same program (``act-322`` and ``act-340``
are one GELU at one shape), and different programs can contain the same
kernel (one fused generic at one launch config has one ``kernel_id``).
Stored twice, a kernel counts twice in training and can sit on both sides
of the train/test split, so the test score would include kernels the model
was trained on.

The rules, which the job applies as it goes (``data/job.py``):

- programs: of the programs with one content hash
  (:func:`costfuse.data.families.program_hash`), only the lowest program
  index of the job -- its lowest ``generator_seed`` -- is generated;
- kernels: a ``kernel_id`` is stored once, under the first program (in
  that order) that contains it.  Its labels are the same in any program.

The training split groups rows by the same content hash, and further joins
programs that compile the same kernel body (:func:`split_groups`).
A dataset written before these rules is brought in line with

    python -m costfuse.data.dedupe DIR [--dry-run]

which drops the repeated rows, says why for each, and rewrites only the
shards that lose rows, atomically, with the store's own writer.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from costfuse.data.families import FAMILIES, generate
from costfuse.data.store import SCHEMA, params_json, read_shard, shards, write_shard


def program_hashes(rows: pd.DataFrame) -> np.ndarray:
    """The content hash of each row's program (shape (n,), str).

    Rows keep the program's parameters, not its text, so the text is
    regenerated from ``(family, generator_seed)``.  Where ``program_params``
    is stored it must equal the regenerated parameters: otherwise the
    generator changed since the rows were written and the hash would name
    another program (``ValueError`` naming the program).  A family the
    generator does not know is not deduplicated: its hash is its program_id.
    """
    cols = ["program_id", "family", "generator_seed", "program_params"]
    hashes = {pid: _program_hash(pid, family, seed, params)
              for pid, family, seed, params in rows[cols].drop_duplicates("program_id").itertuples(index=False)}
    return rows["program_id"].map(hashes).to_numpy(dtype=object)


def kernel_body(triton_src: str) -> str:
    """A kernel's source without its leading comment (which quotes the op with
    program-dependent SSA numbers): two programs that compile the same code
    share this even when their ``kernel_id`` differs."""
    lines = triton_src.splitlines()
    i = 0
    while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
        i += 1
    return "\n".join(lines[i:])


def split_groups(rows: pd.DataFrame) -> np.ndarray:
    """What the train/test split groups rows by (shape (n,), str): programs joined
    when they share content (:func:`program_hashes`) or compile the same kernel
    body at the same config (:func:`kernel_body`), so no kernel is on both sides.

    Each group is named by its smallest program content hash.
    """
    cols = ["triton_src", "xblock", "rblock", "num_warps", "arch"]
    keys = rows[cols].itertuples(index=False) if set(cols) <= set(rows.columns) else [None] * len(rows)
    # A row with no source (a compile that never got one) shares nothing.
    return join_sharing(program_hashes(rows), [(kernel_body(k[0]), *map(str, k[1:]))
                                               if k is not None and isinstance(k[0], str) and k[0] else None
                                               for k in keys])


def join_sharing(groups, keys) -> np.ndarray:
    """``groups`` (one name per row) with every two groups that share a key joined: rows of one
    joined group get the smallest name among them.  ``keys`` holds one hashable per row; ``None``
    or ``""`` shares nothing.  Why: a kernel two programs both compile must not be on both sides
    of a split, so the programs go to one side together."""
    groups = [str(g) for g in groups]
    parent: dict[str, str] = {g: g for g in groups}

    def find(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    first_owner: dict = {}
    for g, key in zip(groups, keys):
        if key is None or key == "":
            continue
        a, b = find(g), find(first_owner.setdefault(key, g))
        if a != b:
            parent[max(a, b)] = min(a, b)
    return np.array([find(g) for g in groups], dtype=object)


def _program_hash(program_id: str, family: str, seed, params) -> str:
    if family not in FAMILIES:
        return program_id
    prog = generate(family, int(seed))
    if prog.program_id != program_id or (isinstance(params, str) and params_json(prog.params) != params):
        raise ValueError(f"program {program_id}: ({family}, seed {int(seed)}) no longer regenerates it "
                         f"(the generator changed since the rows were written)")
    return prog.content_hash


def keep_new_kernels(rows: list[dict], seen: set[str]) -> list[dict]:
    """``rows`` without those whose ``kernel_id`` is in ``seen`` or repeats an earlier row; updates ``seen``.

    Pass rows in program order, so a kernel is kept under its first program.
    """
    kept = []
    for row in rows:
        if row["kernel_id"] not in seen:
            seen.add(row["kernel_id"])
            kept.append(row)
    return kept


def dedupe_dataset(directory: str | os.PathLike, dry_run: bool = False) -> list[str]:
    """Apply the rules to the dataset in ``directory``; return one line per drop (with its reason) and a total.

    Only shards that lose rows are rewritten (a shard left empty is removed);
    nothing is written when ``dry_run``.  Running it twice changes nothing.
    """
    per_shard = {path: read_shard(path).to_pylist() for path in shards(directory)}
    flat = [row for rows in per_shard.values() for row in rows]
    if not flat:
        return ["0 rows dropped"]
    try:
        hashes = program_hashes(pd.DataFrame(flat, columns=SCHEMA.names))
    except ValueError as err:
        raise ValueError(f"{directory}: {err}") from None
    first: dict[str, str] = {}
    repeats: dict[str, str] = {}
    for (_, pid), h in sorted({(r["generator_seed"], r["program_id"]): h for r, h in zip(flat, hashes)}.items()):
        if first.setdefault(h, pid) != pid:
            repeats[pid] = first[h]
    lines = [f"{pid}: same program as {kept}, {sum(r['program_id'] == pid for r in flat)} rows dropped"
             for pid, kept in repeats.items()]
    ordered = sorted((r for r in flat if r["program_id"] not in repeats),
                     key=lambda r: (r["generator_seed"], r["program_id"]))  # stable: stored order within a program
    kept_rows = keep_new_kernels(ordered, set())
    owner = {r["kernel_id"]: r["program_id"] for r in kept_rows}
    kept_ids = {id(r) for r in kept_rows}
    lines += [f"{r['program_id']} {r['group']}: kernel {r['kernel_id']} is already stored under "
              f"{owner[r['kernel_id']]}, row dropped" for r in ordered if id(r) not in kept_ids]
    rewritten = 0
    for path, rows in per_shard.items():
        keep = [r for r in rows if id(r) in kept_ids]
        if len(keep) == len(rows):
            continue
        rewritten += 1
        if dry_run:
            continue
        if keep:
            write_shard(path.parent, path.stem, keep)
        else:
            path.unlink()
    verb = "would rewrite" if dry_run else "rewrote"
    return lines + [f"{len(flat) - len(kept_rows)} rows dropped ({len(repeats)} repeated programs, "
                    f"{len(ordered) - len(kept_rows)} repeated kernels); {verb} {rewritten} of {len(per_shard)} shards"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m costfuse.data.dedupe", description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="dataset directory (Parquet shards)")
    ap.add_argument("--dry-run", action="store_true", help="say what would be dropped; write nothing")
    args = ap.parse_args(argv)
    try:
        lines = dedupe_dataset(args.dir, args.dry_run)
    except (ValueError, OSError) as err:
        print(f"dedupe: error: {err}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
