"""``costfuse-data stats DIR``: what a dataset holds, as tables and PNG histograms.

Counts per family and status, the spill rate (kernels with spill stores > 0)
per family and per config source, and the distributions of registers and
spill bytes.  The same numbers fill ``DATASET.md``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from costfuse.data.store import read_dataset


def summarize(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables keyed by name; every figure is computed from the rows."""
    ok = df[df.status == "ok"].copy()
    ok["spills"] = ok.spill_store_bytes > 0
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


def family_panels(ok: pd.DataFrame, col: str, title: str, positive_only: bool):
    """A figure with one histogram panel per family: its own y-scale, its count in the title.

    Why panels: overlaid on one axis (log y, 30 bins per family) a family with
    five spilling kernels disappeared under one with a thousand.  Bins are
    shared across panels so the x positions compare (log-spaced for spill
    bytes, which span 8 B to tens of KB); a family with nothing to show gets a
    panel saying so rather than no panel.  ``ok``: compiled rows only.
    """
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    families = sorted(ok.family.unique())
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
        part = ok.loc[ok.family == fam, col].dropna()
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


def report(directory: str | Path, plots_dir: str | Path | None = None) -> str:
    """The stats of ``directory`` as printable text; writes histograms to ``plots_dir`` (default: DIR/plots)."""
    df = read_dataset(directory)
    if df.empty:
        return f"{directory}: no rows"
    tables = summarize(df)
    paths = histograms(df, plots_dir or Path(directory) / "plots")
    parts = [f"## {name}\n{table.to_string(float_format=lambda v: f'{v:.3g}')}" for name, table in tables.items()]
    parts.append("plots: " + ", ".join(str(p) for p in paths))
    return "\n\n".join(parts)
