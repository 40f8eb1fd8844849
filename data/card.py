"""Write a dataset's card (``DATASET.md``) from the rows themselves.

    python -m costfuse.data.card data/sm90_v1 data/sm90_v2 > data/DATASET.md

Every figure on the card is computed from the Parquet shards: counts, spill
rates, label sources and versions, the command recorded in the rows, and the
wall time between the first and the last row written.  What was done to the
rows after they were generated (the commands, and why) cannot be read from
them, so it is kept beside them in ``DIR/_CHANGES.md`` and copied onto the card.
Likewise the GPU runs whose latencies were merged into the rows
(``DIR/_latency_provenance.json``, ``data/merge_latency.py``) are listed
under the label sources.

The schema version of the shards (``data/store.py``) picks the card: v1 rows
are fused generics (families, ``data/families.py``); v2 rows are kernel
groups at launch configs (kinds, ``data/group_job.py``), whose card adds the
spill rate by row length, num_warps, mode, config source and dtype; v3 rows are
Inductor's own kernels at configs (``data/inductor_job.py``).  Given
several directories, the cards follow one another, each exactly what its
directory alone gives, so regenerating one dataset's card leaves the other's
text as it was.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import pandas as pd

from costfuse.data import families
from costfuse.data.dedupe import program_hashes
from costfuse.data.stats import (NOT_DRAWN, default_plots_dir, group_plots, histograms, program_dtypes, summarize,
                                 summarize_groups)
from costfuse.data.store import SCHEMA_VERSION, SchemaError, read_dataset, shard_version, shards

PROG = "python -m costfuse.data.card"

LABEL_SOURCES = """## Label sources
Registers, spill bytes and stack frame come from Triton's own `ptxas -v` log of the cubin
`triton.compile` builds for the target on a CPU-only machine (`data/compile.py`, docs/design.md §3, §5).
No GPU was used: `latency_us` and `gpu_name` are empty until `costfuse-data profile` runs on one."""


def _label_sources(directory: Path, df: pd.DataFrame) -> str:
    """:data:`LABEL_SOURCES`, and once GPU latency has been merged, the profiling runs it came from
    (``_latency_provenance.json``, written by ``costfuse-data merge-latency``)."""
    from costfuse.data.merge_latency import PROVENANCE

    path = directory / PROVENANCE
    if not path.is_file():
        return LABEL_SOURCES
    runs = json.loads(path.read_text())["runs"]
    lines = [LABEL_SOURCES.rsplit("\n", 1)[0],
             f"Latency (`latency_us`, `gpu_name`, {int(df.latency_us.notna().sum())} rows) was measured on a GPU "
             "by `costfuse-data profile` (`data/profile.py`) and merged by `costfuse-data merge-latency`; "
             f"the runs, from `{PROVENANCE}`:", "",
             "| command | GPU | timing | torch | triton | CUDA | kernels | first row | last row |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| `{r['command']}` | {r['gpu_name']} | {r['bench']} | {r['torch_version']} | {r['triton_version']} "
              f"| {r['cuda_version']} | {r['kernels']} | {r['first_created_at']} | {r['last_created_at']} |"
              for r in runs]
    return "\n".join(lines)


def _cell(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return str(int(v)) if v.is_integer() and abs(v) < 1e9 else f"{v:.3g}"
    return str(v)


def _table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join([""] + [str(c) for c in cols]) + " |", "|" + "---|" * (len(cols) + 1)]
    for idx, row in df.iterrows():
        cells = [_cell(v) for v in row]
        lines.append("| " + " | ".join([str(idx)] + cells) + " |")
    return "\n".join(lines)


def spill_kind_table(df: pd.DataFrame) -> pd.DataFrame:
    """Compiled configs per spill kind (``data/spill_kind.py``) with their share and median registers, spill
    bytes (stored + loaded) and stack frame, and the share whose registers sit at an occupancy step."""
    from costfuse.data.spill_kind import SPILL_KINDS, at_occupancy_step, spill_kinds_of

    ok = df[(df.status == "ok") & df.regs.notna()]
    kinds = pd.Series(spill_kinds_of(ok), index=ok.index)
    spill = ok.spill_store_bytes.fillna(0) + ok.spill_load_bytes.fillna(0)
    step = at_occupancy_step(ok.regs.to_numpy(), ok.num_warps.to_numpy(int))
    g = ok.assign(_kind=kinds, _spill=spill, _step=step).groupby("_kind")
    out = pd.DataFrame({"configs": g.size(), "share": (g.size() / len(ok)).round(3), "regs_median": g.regs.median(),
                        "spill_bytes_median": g._spill.median(), "stack_bytes_median": g.stack_bytes.median(),
                        "at_occupancy_step": g._step.mean().round(3)})
    out = out.reindex([k for k in SPILL_KINDS if k in out.index])
    out.index.name = None
    return out


SPILL_KINDS_DOC = """## Spill kinds (`data/spill_kind.py`)
Every compiled config's spill, read from ptxas's registers, spill bytes and stack frame against the
register cap of its warps (sm_90: min(255, 65,536 / threads)): `pressure`, at the cap (within one
register); `collapse`, below the cap with a stack frame at least the whole register file a thread may
use (4 bytes x the cap: a tile placed in local memory); `tiny`, any other spill (below the cap, a
small stack frame); `none`, no spill byte.  `at_occupancy_step`: the share whose registers are the most
that keep that many blocks of their warps resident on an SM (one more allocation unit of 8 registers per
thread would leave a block fewer: `at_occupancy_step` in `data/spill_kind.py`)."""


def _spill_kinds(df: pd.DataFrame) -> str:
    return f"{SPILL_KINDS_DOC}\n\n{_table(spill_kind_table(df))}"


def _versions(df: pd.DataFrame) -> str:
    versions = df.groupby(["arch", "triton_version", "ptxas_version"]).size().rename("kernels").reset_index()
    return _table(versions.set_index("arch"))


PAUSE_S = 1800
"""A gap longer than this between consecutive rows is a pause between runs (a job resumed in a later session),
not compile time: one program takes seconds to minutes."""


def _wall_hours(df: pd.DataFrame) -> tuple[float, float]:
    """(hours the job ran: the gaps between consecutive rows, pauses over :data:`PAUSE_S` left out;
    hours from the first row to the last)."""
    created = pd.to_datetime(df.created_at).sort_values()
    gaps = created.diff().dt.total_seconds().dropna()
    return float(gaps[gaps <= PAUSE_S].sum()) / 3600, (created.max() - created.min()).total_seconds() / 3600


def _wall_line(df: pd.DataFrame) -> str:
    ran, span = _wall_hours(df)
    return (f"Wall time: {ran:.2f} h running (gaps over {PAUSE_S // 60} min between rows are pauses between runs "
            f"and left out), {span:.2f} h from the first row to the last")


def _size_mb(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.glob("*.parquet")) / 2**20


def _changes(directory: Path) -> str:
    changes_md = directory / "_CHANGES.md"
    return (f"\n## Changes after generation (`_CHANGES.md`)\n{changes_md.read_text().strip()}\n"
            if changes_md.exists() else "")


def _linked(directory: Path, path: Path) -> Path:
    """``path`` as the card links it: relative to the folder that holds the dataset (and ``DATASET.md``)."""
    return path.resolve().relative_to(directory.resolve().parent)


def _doc_body(module) -> str:
    """A module's docstring without its summary line: what the card quotes about how rows were made."""
    return module.__doc__.split("\n\n", 1)[1].strip()


def dataset_version(directory: Path) -> int:
    """The schema version of ``directory``'s shards (its first shard's; reading the rows refuses a mix)."""
    paths = shards(directory)
    if not paths:
        raise SchemaError(f"{directory}: no Parquet shards, nothing to write a card of")
    return shard_version(paths[0])


def card(directory: str | Path) -> str:
    """The card of one dataset directory, v1, v2 or v3 by its shards' schema version."""
    directory = Path(directory)
    return {1: card_v1, 2: card_v2, 3: card_v3}[dataset_version(directory)](directory)


def card_v1(directory: Path) -> str:
    df = read_dataset(directory)
    tables = summarize(df)
    plots = histograms(df, default_plots_dir(directory))
    family_doc = families.__doc__.split("Families and their parameters")[1].split("\n\n", 1)[1]
    try:
        contents = f"{len(set(program_hashes(df)))} program contents among {df.program_id.nunique()} programs"
    except ValueError as err:  # rows the generator does not make (hand-written ones, an older generator)
        contents = f"program contents not checked ({err})"
    return f"""# Dataset `{directory.name}`

Generated by `{PROG} {directory}`; every figure below is computed from the rows.

- **{tables['families'].loc['all', 'kernels']} kernels** ({tables['families'].loc['all', 'compiled']} compiled by ptxas)
  from **{df.program_id.nunique()} programs**, schema v{SCHEMA_VERSION}, {len(list(directory.glob('*.parquet')))} Parquet shards, {_size_mb(directory):.1f} MB.
- Distinct: {contents}, {int(df.kernel_id.duplicated().sum())} repeated kernel ids
  (the job stores each program and each kernel once: `data/dedupe.py`).
- Overall spill rate (kernels with spill stores > 0): **{tables['families'].loc['all', 'spill_rate']:.1%}**.
- Command (recorded in every row): `{df.command.iloc[0]}`
- {_wall_line(df)}; on 2 CPU cores (2 compile workers), with other work sharing the machine.

{_label_sources(directory, df)}

{_versions(df)}

## Per family
{_table(tables['families'])}

Status counts:

{_table(tables['status'])}

Spill rate by config source (the heuristic config, or one sampled around it):

{_table(tables['spill_rate_by_config'])}

{_spill_kinds(df)}

Histograms: {', '.join(f'`{_linked(directory, p)}`' for p in plots)}

## Families and parameters (`data/families.py`)
{family_doc.strip()}

## How the parameters were chosen
Spill rate is driven by live values per element times elements per thread
(docs/design.md §5). The heuristic launch config keeps 8 elements per thread, where
almost nothing spills, so each fused group is also compiled at configs sampled
around it, stratified by that pressure (`data/config_sampling.py`, whose
docstring records the pilot measurements). Singletons are labelled at the
heuristic config only: they keep every program partitionable for the oracle DP.
Groups per program are capped as `data/edge_groups.py` describes.
{_changes(directory)}"""


def card_v2(directory: Path) -> str:
    """The card of a v2 directory: one row per group candidate at one launch (``data/group_job.py``)."""
    from costfuse.data import group_job, group_programs

    df = read_dataset(directory, None)
    tables = summarize_groups(df)
    plots = {p.stem: _linked(directory, p) for p in group_plots(df, tables, default_plots_dir(directory))}
    kinds = tables["kinds"]
    repeated = int(df.kernel_id.duplicated().sum())
    commands = df.command.value_counts()
    command = (f"Command (recorded in every row): `{commands.index[0]}`" if len(commands) == 1 else
               "Commands recorded in the rows: " + "; ".join(f"`{c}` ({k} rows)" for c, k in commands.items()))
    repeated_note = "" if repeated == 0 else ": **must be 0**, run `python -m costfuse.data.dedupe` on the directory"
    not_drawn = sorted(df.family[program_dtypes(df) == NOT_DRAWN].unique())
    dtype_note = f"; {', '.join(f'`{k}`' for k in not_drawn)} programs draw none" if not_drawn else ""
    return f"""# Dataset `{directory.name}`

Generated by `{PROG} {directory}`; every figure below is computed from the rows.
Kernel groups (docs/design.md §10, docs/groups.md): a row is one group candidate, an outlined
kernel function, lowered to one Triton kernel at one launch config and compiled by ptxas.
Column `hbm_bytes` counts *issued* bytes (every load and store the kernel issues, a looped
kernel's re-reads of its row included), not DRAM bytes; the name is kept as shipped (docs/dataset.md).

- **{len(df)} rows**, **{kinds.loc['all', 'compiled']} kernels compiled** by ptxas (status ok),
  from **{df.group_id.nunique()} group candidates** (distinct `group_id`) of **{df.program_id.nunique()} programs**
  in {df.family.nunique()} kinds; schema v2, {len(shards(directory))} Parquet shards, {_size_mb(directory):.1f} MB.
- {repeated} repeated kernel ids (the job stores each kernel once: `data/dedupe.py`){repeated_note}.
- Overall spill rate (compiled kernels with spill stores > 0): **{kinds.loc['all', 'spill_rate']:.1%}**.
- {command}
- {_wall_line(df)}; on 2 CPU cores (2 compile workers), with other work sharing the machine.

{_label_sources(directory, df)}

{_versions(df)}

## Per kind
`family` holds the group kind (`data/group_programs.py`); `groups`: distinct group candidates.

{_table(kinds)}

![spill rate by kind]({plots['spill_by_kind']})

Status counts:

{_table(tables['status'])}

## Spill rate by row length N
N is the row length of the kernel itself (`costfuse.kernel.analyze_kernel` on the row's kernel
function), not the N its program drew: a weight gradient reduces over the rows, a per-row kernel has
N = 1. Bucket (a, b] holds a < N <= b. The last columns split the bucket's spill rate by mode
(–: no kernel of that mode).

{_table(tables['spill_rate_by_n'])}

![spill rate by row length]({plots['spill_by_n']})

## Spill rate by num_warps

{_table(tables['spill_rate_by_warps'])}

![spill rate by num_warps]({plots['spill_by_warps']})

## Spill rate by mode

{_table(tables['spill_rate_by_mode'])}

![registers by mode]({plots['regs_by_mode']})

{_spill_kinds(df)}

## Spill rate by config source
The heuristic launch, the launch each policy chose or would choose, or one sampled from the config space.
A kernel whose source lists several (the heuristic launch a policy also chose) counts for each,
so the kernels here add up to more than those compiled.

{_table(tables['spill_rate_by_source'])}

## Dtypes
The dtype each program drew (`program_params`){dtype_note}.

{_table(tables['dtypes'])}

## Kinds and sizes (`data/group_programs.py`)
{_doc_body(group_programs)}

## Configs per group candidate (`data/group_job.py`)
{_doc_body(group_job)}
{_changes(directory)}"""


def _spill_table(ok: pd.DataFrame, by: pd.Series) -> pd.DataFrame:
    """Compiled configs, kernels (distinct sources) and spill rate per value of ``by`` (rows of ``ok``)."""
    g = ok.assign(_by=by.values).groupby("_by")
    out = pd.DataFrame({"configs": g.size(), "kernels": g.source_hash.nunique(),
                        "spilling": g.spill_store_bytes.apply(lambda s: int((s > 0).sum()))})
    out["spill_rate"] = (out.spilling / out.configs).round(3)
    out.index.name = None
    return out


def card_v3(directory: Path) -> str:
    """The card of a v3 directory: one row per kernel Inductor generated at one config (``data/inductor_job.py``)."""
    from costfuse.data import inductor_job, inductor_programs

    df = read_dataset(directory, 3)
    ok = df[df.status == "ok"]
    spill = ok.spill_store_bytes > 0
    repeated = int(df.kernel_id.duplicated().sum())
    commands = df.command.value_counts()
    command = (f"Command (recorded in every row): `{commands.index[0]}`" if len(commands) == 1 else
               "Commands recorded in the rows: " + "; ".join(f"`{c}` ({k} rows)" for c, k in commands.items()))
    params = df.program_params.map(json.loads)
    mode = ok.persistent.map({True: "persistent", False: "looped"}).where(ok.heuristic != "pointwise", "pointwise")
    sources = ok.config_source.str.split(",")
    by_source = pd.concat([_spill_table(ok[sources.map(lambda v, s=s: s in v)], pd.Series("x", index=ok.index)
                                        [sources.map(lambda v, s=s: s in v)]).rename(index={"x": s})
                           for s in sorted({s for v in sources for s in v})])
    theirs = ok[sources.map(lambda v: "inductor" in v or "max_autotune" in v)]
    dtypes = params.loc[ok.index].map(lambda p: p["dtype"])
    warps = ok.num_warps.astype(int)
    status = df.status.value_counts().rename("rows").to_frame()
    errors = df[df.status != "ok"].error.fillna("").str.split(":").str[0].value_counts().rename("rows").to_frame()
    covered = ok.drop_duplicates("source_hash")
    versions = df.groupby(["arch", "torch_version", "triton_version", "ptxas_version"]).size().rename("rows")
    return f"""# Dataset `{directory.name}`

Generated by `{PROG} {directory}`; every figure below is computed from the rows.
Inductor's own Triton kernels (issue #25 part 5, docs/inductor.md): a row is one kernel that Inductor
generated for sm_90 on a CPU (the faked device), compiled by ptxas at one config.

- **{len(df)} rows**, **{len(ok)} configs compiled** by ptxas (status ok), of **{ok.source_hash.nunique()} kernels**
  (distinct sources) from **{df.program_id.nunique()} programs** in {df.family.nunique()} kinds; schema v3,
  {len(shards(directory))} Parquet shards, {_size_mb(directory):.1f} MB.
- {repeated} repeated row ids (`kernel_id`: source, config, arch, versions; the job stores each once).
- Spill rate (compiled configs with spill stores > 0): **{spill.mean():.1%}** ({int(spill.sum())} configs).
- Inductor's own candidates (default and max-autotune lists): {len(theirs)} compiled, {int((theirs.spill_store_bytes > 0).sum())}
  spilling, {int(theirs.dropped_by_inductor.sum())} that Inductor's spill filter would drop (local memory / 4 > 16).
- Kernels with a description (`kernel_desc`, `kernel_features`): {int(covered.kernel_desc.notna().sum())} of {len(covered)};
  {int(covered.features_error.notna().sum())} of them are kernels the handler leaves to Inductor (`features_error`).
- {command}
- {_wall_line(df)}; on 2 CPU cores (2 compile workers), with other work sharing the machine.

{LABEL_SOURCES}

{_table(versions.reset_index().set_index("arch"))}

## Per kind
`family` is the workload block of `experiments/workloads/blocks.py` (by its dataset-v2 name), or `compose`.

{_table(_spill_table(ok, ok.family))}

Status counts, and the first word of the errors:

{_table(status)}

{_table(errors) if len(errors) else "(no errors)"}

## Spill rate by mode

{_table(_spill_table(ok, mode))}

## Spill rate by num_warps

{_table(_spill_table(ok, warps))}

## Spill rate by config source
`inductor`: Inductor's default candidate list for the kernel; `max_autotune`: its max-autotune list;
`forced`: its list in a codegen forcing reductions persistent or looped; `sampled`: drawn from the config
space. A config in several lists counts in each.

{_table(by_source)}

## Dtypes

{_table(_spill_table(ok, dtypes))}

## Programs (`data/inductor_programs.py`)
{_doc_body(inductor_programs)}

## Kernels and configs (`data/inductor_job.py`)
{_doc_body(inductor_job)}
{_changes(directory)}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path, help="dataset directories (Parquet shards), one card each")
    args = ap.parse_args(argv)
    try:
        cards = [card(d) for d in args.dirs]
    except (ValueError, OSError) as err:
        print(f"card: error: {err}", file=sys.stderr)
        return 1
    if len(cards) > 1:
        print(f"Cards of {len(cards)} datasets, generated together by `{PROG} {' '.join(map(str, args.dirs))}`;\n"
              f"each card is what the command prints for its directory alone.\n")
    for text in cards:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
