"""``costfuse-data stats`` and the dataset card compute their figures from the rows."""

import subprocess
import sys

from test_store import row

from costfuse.data.card import card
from costfuse.data.stats import summarize
from costfuse.data.store import read_dataset, write_shard


def make(tmp_path):
    rows = [row(kernel_id=f"k{i}", program_id=f"{fam}-{i}", family=fam, config_source=src,
                regs=regs, spill_store_bytes=spill, ptxas_version="12.8.93")
            for i, (fam, src, regs, spill) in enumerate([
                ("chain", "heuristic", 30, 0), ("chain", "sampled", 255, 400),
                ("tree", "heuristic", 40, 0), ("tree", "sampled", 255, 80)])]
    rows.append(row(kernel_id="k9", program_id="tree-9", family="tree", status="timeout", regs=None,
                    spill_store_bytes=None, error="compile exceeded 120 s"))
    write_shard(tmp_path, "s", rows)
    return tmp_path


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
    assert "spill_rate" in out.stdout and (d / "plots" / "regs.png").stat().st_size > 1000
    text = card(d)
    assert "**5 kernels** (4 compiled by ptxas)" in text
    assert "Overall spill rate (kernels with spill stores > 0): **50.0%**" in text
    assert "| sm_90 | 3.6.0 | 12.8.93 | 4 |" in text
