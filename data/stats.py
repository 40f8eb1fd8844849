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


def histograms(df: pd.DataFrame, out_dir: str | Path) -> list[Path]:
    """``regs.png`` and ``spill_bytes.png`` per family; returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = df[df.status == "ok"]
    paths = []
    for col, title, log in [("regs", "registers per thread (ptxas)", False),
                            ("spill_store_bytes", "spill store bytes per thread (ptxas, > 0 only)", True)]:
        fig, ax = plt.subplots(figsize=(7, 4))
        for fam, part in ok.groupby("family"):
            values = part[col][part[col] > 0] if log else part[col]
            if len(values):
                ax.hist(values, bins=30, alpha=0.5, label=f"{fam} ({len(values)})", log=log)
        ax.set_title(title)
        ax.set_xlabel(col)
        ax.set_ylabel("kernels")
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = out_dir / f"{'spill_bytes' if log else col}.png"
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
