"""``costfuse-data stats DIR``: what a dataset holds, as tables and PNG plots.

Counts per family and status, the spill rate (kernels with spill stores > 0)
per family and per config source, and the distributions of registers and
spill bytes.  A v2 directory (kernel groups, ``data/group_job.py``) adds the
spill rate by row length N, by num_warps, by mode, by config source (each
policy apart) and by dtype, with bar plots of the first ones.  The same
numbers fill ``DATASET.md`` (``data/card.py``).  Plots go beside the dataset
(``DIR_plots/``, :func:`default_plots_dir`), not inside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from costfuse.data.store import read_dataset


def compiled(df: pd.DataFrame) -> pd.DataFrame:
    """The rows ptxas compiled (status ok), with ``spills``: spill stores > 0, what every spill rate counts."""
    ok = df[df.status == "ok"].copy()
    ok["spills"] = ok.spill_store_bytes > 0
    return ok


def summarize(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables keyed by name; every figure is computed from the rows."""
    ok = compiled(df)
    per_family = df.groupby("family").agg(programs=("program_id", "nunique"), kernels=("kernel_id", "size"))
    per_family = per_family.join(ok.groupby("family").agg(
        compiled=("spills", "size"), spill_rate=("spills", "mean"), regs_median=("regs", "median"),
        regs_max=("regs", "max"), spill_bytes_max=("spill_store_bytes", "max"),
        compile_s_median=("compile_s", "median")))
    total = pd.DataFrame({
        "programs": [df.program_id.nunique()], "kernels": [len(df)], "compiled": [len(ok)],
        "spill_rate": [ok.spills.mean() if len(ok) else float("nan")],
        "regs_median": [ok.regs.median()], "regs_max": [ok.regs.max()],
        "spill_bytes_max": [ok.spill_store_bytes.max()], "compile_s_median": [ok.compile_s.median()],
    }, index=["all"])
    status = df.groupby(["family", "status"]).size().unstack(fill_value=0)
    by_config = ok.groupby(["family", "config_source"]).spills.mean().unstack()
    return {"families": pd.concat([per_family, total]), "status": status, "spill_rate_by_config": by_config}


PLOTS = {  # file stem -> (column, title, spilling kernels only)
    "regs": ("regs", "registers per thread (ptxas)", False),
    "spill_bytes": ("spill_store_bytes", "spill store bytes per thread (ptxas, spilling kernels only)", True),
}


def family_panels(ok: pd.DataFrame, col: str, title: str, positive_only: bool, by: str = "family"):
    """A figure with one histogram panel per family (or value of ``by``): its own y-scale, its count in the title.

    Why panels: overlaid on one axis (log y, 30 bins per family) a family with
    five spilling kernels disappeared under one with a thousand.  Bins are
    shared across panels so the x positions compare (log-spaced for spill
    bytes, which span 8 B to tens of KB); a family with nothing to show gets a
    panel saying so rather than no panel.  ``ok``: compiled rows only.
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    families = sorted(ok[by].unique())
    ncols = min(3, max(1, len(families)))
    nrows = -(-max(1, len(families)) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.5 * nrows), squeeze=False)
    shown = ok[col].dropna()
    shown = shown[shown > 0] if positive_only else shown
    lo, hi = (float(shown.min()), float(shown.max())) if len(shown) else (1.0, 2.0)
    if positive_only:
        bins = np.geomspace(lo, hi, 25) if hi > lo else np.array([lo / 1.5, lo * 1.5])
    else:
        bins = np.histogram_bin_edges(shown, bins=30) if hi > lo else np.array([lo - 0.5, lo + 0.5])
    for i, (ax, fam) in enumerate(zip(axes.flat, families)):
        part = ok.loc[ok[by] == fam, col].dropna()
        values = part[part > 0] if positive_only else part
        count = f"{len(values)} of {len(part)}" if positive_only else f"{len(values)}"
        ax.set_title(f"{fam}: {count} kernels", fontsize=9)
        if len(values):
            ax.hist(values, bins=bins, color=f"C{i % 10}")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        else:
            ax.text(0.5, 0.5, "none", ha="center", va="center", transform=ax.transAxes)
        if positive_only:
            ax.set_xscale("log")
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(families):]:
        fig.delaxes(ax)
    fig.suptitle(title, fontsize=10)
    fig.supxlabel(col, fontsize=9)
    fig.supylabel("kernels", fontsize=9)
    fig.tight_layout()
    return fig


def histograms(df: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """``regs.png`` and ``spill_bytes.png``, one panel per family (:func:`family_panels`); returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    paths = []
    for stem, (col, title, positive_only) in PLOTS.items():
        fig = family_panels(ok, col, title, positive_only)
        path = out_dir / f"{stem}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


# ---------------------------------------------------------------------------
# Dataset v2: kernel groups at launch configs (data/group_job.py)

NOT_DRAWN = "(not drawn)"      # the dtype of a program whose params have none (``row_random``)


def spill_rates(ok: pd.DataFrame, by) -> pd.DataFrame:
    """Compiled kernels, spilling ones, the spill rate and the median registers per value of ``by``.

    ``ok``: rows of :func:`compiled`; ``by``: what ``DataFrame.groupby`` takes.
    """
    g = ok.groupby(by)
    return pd.DataFrame({"kernels": g.size(), "spilling": g.spills.sum(), "spill_rate": g.spills.mean(),
                         "regs_median": g.regs.median()})


def row_lengths(df: pd.DataFrame) -> pd.Series:
    """The row length ``n`` of each row's kernel (docs/groups.md), read from its kernel function.

    Why not ``program_params["n"]``: a program's kernels need not run over the
    N it drew (a norm's weight gradient reduces over the rows, a per-row
    kernel has n = 1, a pointwise one over a vector has n = its length), and
    ``row_random`` programs draw no N at all.  The kernel's own ``(rows, n)``
    is what the lowering tiled, so it is what a thread held.  One parse per
    group candidate (``group_id`` names its kernel function), ~5 ms each.
    """
    from costfuse.data.lowering.kernel_function import kernel_members
    from costfuse.data.lowering.unsupported import UnsupportedOp
    from costfuse.ir import IRError, new_context, parse_module
    from costfuse.kernel import NotAKernel, analyze_kernel

    ctx = new_context()
    n: dict[str, int] = {}
    for gid, text, pid in zip(df.group_id, df.ir, df.program_id):
        if gid in n:
            continue
        try:
            module = parse_module(text, f"{pid}/{gid}", ctx)   # kept alive while its ops are used
            n[gid] = analyze_kernel(kernel_members(module.body.operations[0].operation)).n
        except (IRError, UnsupportedOp, NotAKernel, IndexError) as err:
            raise ValueError(f"program {pid}, group {gid}: no row length from its kernel function: {err}") from None
    return df.group_id.map(n)


def n_bucket(n: int) -> int:
    """The power of 4 bounding ``n`` from above: bucket ``b`` holds ``b/4 < n <= b`` (``1`` holds n = 1)."""
    b = 1
    while b < n:
        b *= 4
    return b


def _short(v: int) -> str:
    for unit, size in (("M", 2**20), ("K", 2**10)):
        if v >= size and v % size == 0:
            return f"{v // size}{unit}"
    return str(v)


def bucket_label(b: int) -> str:
    return "1" if b == 1 else f"({_short(b // 4)}, {_short(b)}]"


def program_dtypes(df: pd.DataFrame) -> pd.Series:
    """Each row's program dtype, from ``program_params`` (:data:`NOT_DRAWN` where the params have none)."""
    return df.program_params.map(lambda s: json.loads(s).get("dtype", NOT_DRAWN) if s else NOT_DRAWN)


def _ordered(table: pd.DataFrame, order) -> pd.DataFrame:
    """``table`` with the index values of ``order`` first, in that order, then any others sorted."""
    order = list(order)
    return table.reindex([v for v in order if v in table.index] + sorted(v for v in table.index if v not in order))


def summarize_groups(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables of a v2 dataset (``family`` is the group kind); every figure is computed from the rows.

    ``kinds`` and ``status`` are :func:`summarize`'s, with the group candidates
    per kind; the others are :func:`spill_rates` of the compiled kernels by
    row-length bucket (plus the spill rate of each mode in it), num_warps,
    mode, config source and dtype.  A kernel whose ``config_source`` lists
    several sources (the heuristic launch that a policy also chose) counts
    for each of them.
    """
    from costfuse.data.group_job import POLICIES
    from costfuse.launch import MODES

    base = summarize(df)
    kinds = base["families"]
    groups = df.groupby("family").group_id.nunique()
    groups["all"] = df.group_id.nunique()
    kinds.insert(1, "groups", groups)

    ok = compiled(df)
    ok["n_bucket"] = row_lengths(ok).map(n_bucket)
    ok["num_warps"] = ok.num_warps.astype(int)
    per_mode = ok.groupby(["n_bucket", "mode"]).spills.mean().unstack()
    by_n = spill_rates(ok, "n_bucket").join(per_mode[[m for m in MODES if m in per_mode.columns]])
    by_n = by_n.sort_index().rename(index=bucket_label)
    sources = ok.assign(source=ok.config_source.str.split(",")).explode("source")
    dtypes = df.assign(dtype=program_dtypes(df))
    per_dtype = dtypes.groupby("dtype").agg(programs=("program_id", "nunique"), kernels=("kernel_id", "size"))
    per_dtype = per_dtype.join(spill_rates(ok.assign(dtype=program_dtypes(ok)), "dtype")[["spill_rate"]])
    return {"kinds": kinds, "status": base["status"], "spill_rate_by_n": by_n,
            "spill_rate_by_warps": spill_rates(ok, "num_warps").sort_index(),
            "spill_rate_by_mode": _ordered(spill_rates(ok, "mode"), MODES),
            "spill_rate_by_source": _ordered(spill_rates(sources, "source"), ("heuristic", *POLICIES, "sampled")),
            "dtypes": _ordered(per_dtype, ("f32", "bf16", "f16"))}


def rate_bars(table: pd.DataFrame, title: str, xlabel: str, marks: pd.DataFrame | None = None):
    """One bar per row of a :func:`spill_rates` table, its compiled-kernel count in its label.

    ``marks``: more rates on the same rows (a column each: the modes within a
    row-length bucket), drawn as markers on lines so the bars stay readable.
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import PercentFormatter

    labels = [f"{v} ({int(k)})" for v, k in zip(table.index, table.kernels)]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.45 * len(labels) + 2.0), 3.6))
    x = np.arange(len(labels))
    ax.bar(x, table.spill_rate, color="C0", label="all" if marks is not None else None)
    rates = table[["spill_rate"]]
    if marks is not None:
        for i, col in enumerate(marks.columns):
            ax.plot(x, marks[col], marker="o", color=f"C{i + 1}", label=col)
        ax.legend(fontsize=7)
        rates = rates.join(marks)
    long = max((len(s) for s in labels), default=0) > 8
    ax.set_xticks(x, labels, rotation=60 if long else 0, ha="right" if long else "center", fontsize=7)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    top = rates.max().max()
    ax.set_ylim(0, 1.15 * max(0.05, 0.0 if pd.isna(top) else float(top)))
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel("spill rate", fontsize=9)
    ax.set_title(f"{title} (in brackets: compiled kernels)", fontsize=9)
    fig.tight_layout()
    return fig


def group_plots(df: pd.DataFrame, tables: dict[str, pd.DataFrame], out_dir: str | Path) -> list[Path]:
    """The v2 plots from :func:`summarize_groups`'s ``tables``: spill rate by kind, by N bucket, by num_warps
    (bars) and registers by mode (:func:`family_panels`); returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from costfuse.launch import MODES

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_n, kinds = tables["spill_rate_by_n"], tables["kinds"].drop(index="all")
    figures = {
        "spill_by_kind": rate_bars(kinds[["compiled", "spill_rate"]].fillna(0).rename(columns={"compiled": "kernels"}),
                                   "spill rate by kind", "kind"),
        "spill_by_n": rate_bars(by_n, "spill rate by row length N", "N (kernel row length)",
                                marks=by_n[[m for m in MODES if m in by_n.columns]]),
        "spill_by_warps": rate_bars(tables["spill_rate_by_warps"], "spill rate by num_warps", "num_warps"),
        "regs_by_mode": family_panels(compiled(df), "regs", "registers per thread (ptxas), by mode", False, by="mode"),
    }
    paths = []
    for stem, fig in figures.items():
        path = out_dir / f"{stem}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def default_plots_dir(directory: str | Path) -> Path:
    """Where a dataset's plots go unless told otherwise: ``DIR_plots`` beside ``DIR``, never inside it.

    What is drawn from a dataset does not belong among its shards: PNGs under ``DIR/plots`` made
    ``pd.read_parquet(DIR)``, which takes every file under ``DIR`` for Parquet, fail on a dataset
    the job had just written.  ``stats`` and the card (``data/card.py``) both draw here.
    """
    directory = Path(directory).resolve() if Path(directory).name in ("", ".", "..") else Path(directory)
    return directory.with_name(f"{directory.name}_plots")


def report(directory: str | Path, plots_dir: str | Path | None = None) -> str:
    """The stats of ``directory`` (schema v1 or v2) as printable text; plots go to ``plots_dir``
    (default :func:`default_plots_dir`, beside the dataset)."""
    df = read_dataset(directory, None)
    if df.empty:
        return f"{directory}: no rows"
    out_dir = plots_dir or default_plots_dir(directory)
    if "group_id" in df.columns:
        tables = summarize_groups(df)
        paths = group_plots(df, tables, out_dir)
    else:
        tables = summarize(df)
        paths = histograms(df, out_dir)
    parts = [f"## {name}\n{table.to_string(float_format=lambda v: f'{v:.3g}')}" for name, table in tables.items()]
    parts.append("plots: " + ", ".join(str(p) for p in paths))
    return "\n\n".join(parts)
