"""``costfuse-data stats`` and the dataset card compute their figures from the rows."""

import subprocess
import sys

import pandas as pd
from helpers.rows import row

from costfuse.data.card import card
from costfuse.data.stats import summarize
from costfuse.data.store import read_dataset
from helpers.rows import make


def test_summary_figures(tmp_path):
    t = summarize(read_dataset(make(tmp_path)))
    fam = t["families"]
    assert fam.loc["chain", "spill_rate"] == 0.5 and fam.loc["tree", "compiled"] == 2
    assert fam.loc["all", "kernels"] == 5 and fam.loc["all", "compiled"] == 4
    assert t["status"].loc["tree", "timeout"] == 1
    assert t["spill_rate_by_config"].loc["tree", "sampled"] == 1.0


def test_cli_and_card(tmp_path):
    d = make(tmp_path / "ds")
    out = subprocess.run([sys.executable, "-m", "costfuse.data.cli", "stats", str(d)], capture_output=True, text=True, check=True)
    assert "spill_rate" in out.stdout and (tmp_path / "ds_plots" / "regs.png").stat().st_size > 1000
    # issue #27, bug 10: plots once went to DIR/plots, and pd.read_parquet(DIR) then failed on the PNGs
    assert sorted(p.name for p in d.iterdir()) == ["s.parquet"] and len(pd.read_parquet(d)) == 5
    text = card(d)
    assert "Histograms: `ds_plots/regs.png`, `ds_plots/spill_bytes.png`" in text
    assert "**5 kernels** (4 compiled by ptxas)" in text
    assert "Overall spill rate (kernels with spill stores > 0): **50.0%**" in text
    assert "| sm_90 | 3.6.0 | 12.8.93 | 4 |" in text


def test_stats_writes_its_plots_where_it_is_told(tmp_path, capsys):
    from costfuse.data.cli import main

    d = make(tmp_path / "ds")
    assert main(["stats", str(d), "--plots", str(tmp_path / "figs")]) == 0
    assert f"plots: {tmp_path / 'figs' / 'regs.png'}" in capsys.readouterr().out
    assert not (tmp_path / "ds_plots").exists() and not (d / "plots").exists()


def test_default_plots_dir_is_beside_the_dataset(tmp_path, monkeypatch):
    from pathlib import Path

    from costfuse.data.stats import default_plots_dir

    assert default_plots_dir("data/sm90_v2/") == Path("data/sm90_v2_plots")
    monkeypatch.chdir(tmp_path)
    assert default_plots_dir(".") == tmp_path.parent / f"{tmp_path.name}_plots"


def test_spill_histogram_shows_every_family_in_its_own_panel(tmp_path):
    """A family with a handful of spilling kernels gets a panel of its own, scaled to it, next to
    families with hundreds; one with none says so.  (Overlaid on one log axis, 5 kernels vanished.)"""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from costfuse.data.stats import PLOTS, family_panels, histograms

    spills = {"chain": [64 * (1 + i % 50) for i in range(400)], "tree": [8 * (1 + i % 300) for i in range(300)],
              "reduce": [8, 8, 16, 24, 40], "act": []}
    rows = [row(kernel_id=f"{fam}{i}", program_id=f"{fam}-{i}", family=fam, spill_store_bytes=b, regs=255)
            for fam, values in spills.items() for i, b in enumerate(values)]
    rows += [row(kernel_id=f"{fam}-clean{i}", program_id=f"{fam}-c{i}", family=fam) for fam in spills for i in range(3)]
    df = pd.DataFrame(rows)
    col, title, positive_only = PLOTS["spill_bytes"]
    fig = family_panels(df, col, title, positive_only)
    panels = {ax.get_title().split(":")[0]: ax for ax in fig.axes if ax.get_visible()}
    assert set(panels) == set(spills)
    for fam, values in spills.items():
        ax = panels[fam]
        assert ax.get_title() == f"{fam}: {len(values)} of {len(values) + 3} kernels"
        bars = [p for p in ax.patches if p.get_height() > 0]
        assert sum(p.get_height() for p in bars) == len(values)
        if values:  # every bar inside the panel's limits, the tallest filling most of its own y-range
            lo, hi = ax.get_xlim()
            assert all(lo <= p.get_x() and p.get_x() + p.get_width() <= hi for p in bars)
            assert max(p.get_height() for p in bars) >= 0.7 * ax.get_ylim()[1]
        else:
            assert [t.get_text() for t in ax.texts] == ["none"]
    plt.close(fig)
    paths = histograms(df, tmp_path / "plots")
    assert [p.name for p in paths] == ["regs.png", "spill_bytes.png"] and all(p.stat().st_size > 1000 for p in paths)


def test_the_committed_datasets_keep_their_plots_beside_them():
    """What `stats` and the card draw lives in data/NAME_plots/, not in the dataset folder (issue #27, bug 10)."""
    from pathlib import Path

    from costfuse.data.stats import default_plots_dir

    data = Path(__file__).parents[2] / "data"
    for d in (data / "sm90_v1", data / "sm90_v2"):
        assert not [p for p in d.iterdir() if p.is_dir()], f"{d}: a folder inside the dataset"
        assert sorted(p.name for p in default_plots_dir(d).glob("*.png")), f"{d}: no plots beside it"
