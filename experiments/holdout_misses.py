"""Which kernels cost the worst held-out kind its spill AUC, and what they spill.

Issue #13 asks for a spill AUC >= 0.93 on every dataset-v2 kind held out of
training.  The shipped group heads miss it on one kind; this report says
whether the miss is the head's or the label's.  It refits the spill head the
way ``costfuse-train`` does for that held-out split (every other family's
rows, the shipped booster settings), scores the held-out kind, lists the
spilling kernels it ranks lowest with their registers, spill bytes and
launch, and gives the kind's AUC without its spills of at most
``--tiny`` bytes (a spill of a word or two at a register count far below the
cap is not register pressure) and without its spills of kind ``tiny``
(``data/spill_kind.py``).  It also counts such tiny spills, and every spill
kind, over all of dataset v2, so the exclusion is seen at its true size.
The features are this code's (``train/group_dataset.py``), whatever schema
the bundle was trained on: the bundle gives only the booster settings (and,
without ``--kind``, its worst held-out kind).  One booster is fit, as the
trainer's held-out head is but without its out-of-fold cuts, which the AUC
does not read.

    python experiments/holdout_misses.py [--kind KIND]

writes ``experiments/results/holdout_misses.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_report import add_report_arg, command_line, conditions, emit  # noqa: E402


def worst_kind(meta: dict, kinds: set[str], where: str) -> str:
    """The kind of ``kinds`` with the lowest held-out spill AUC in the bundle's metadata ``meta`` (read from ``where``)."""
    metrics = meta["heads"]["spill"]["metrics"]
    scores = {k: metrics[f"spill.holdout.{k}.auc"] for k in kinds if f"spill.holdout.{k}.auc" in metrics}
    if not scores:
        raise SystemExit(f"{where}: no held-out spill AUC for any of {sorted(kinds)}")
    return min(scores, key=scores.get)


def main(argv: list[str] | None = None) -> int:
    from sklearn.metrics import roc_auc_score

    from costfuse.data.spill_kind import TINY, kind_counts
    from costfuse.train.fit import GROUP_HEADS, XGBHead, XGBParams
    from costfuse.train.group_dataset import load_group_table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", help="the held-out v2 kind (default: the shipped heads' worst)")
    ap.add_argument("--model", default=str(REPO / "costfuse/models/groups"), help="group bundle (default shipped)")
    ap.add_argument("--tiny", type=int, default=8, help="spill bytes counted as tiny (default 8)")
    ap.add_argument("--rows", type=int, default=8, help="lowest-ranked spilling kernels to list (default 8)")
    ap.add_argument("--jobs", type=int, default=2, help="XGBoost threads (default 2)")
    add_report_arg(ap, "holdout_misses")
    args = ap.parse_args(argv)
    model = Path(args.model)
    meta = json.loads((model / "metadata.json").read_text())
    table = load_group_table([REPO / "data/sm90_v2", REPO / "data/sm90_v1"])
    fam = np.asarray(table.families)
    v2 = (table.rows["dataset_version"] == 2).to_numpy()
    kind = args.kind or worst_kind(meta, set(fam[v2]), f"{model}/metadata.json")
    held = fam == kind
    if not (held & v2).any():
        raise SystemExit(f"--kind {kind}: no dataset-v2 rows of that kind")
    p = meta["params"]
    params = XGBParams(n_estimators=p["n_estimators"], max_depth=p["max_depth"], learning_rate=p["learning_rate"],
                       n_jobs=args.jobs)
    head = XGBHead(GROUP_HEADS["spill"], params).fit(table.X[~held], table.spills[~held])   # no groups: no OOF cuts
    score = head.score(table.X[held])
    spill_b = table.rows["spill_store_bytes"].to_numpy()
    y = spill_b[held] > 0
    tiny = y & (spill_b[held] <= args.tiny)
    kinds = table.rows["spill_kind"].to_numpy(object)
    tiny_kind = kinds[held] == TINY
    rows = table.rows[held].assign(p_spill=score, elems_per_thread=table.X[held]["elems_per_thread"].to_numpy(),
                                   regs_available=table.X[held]["regs_available"].to_numpy())
    lowest = rows[y].sort_values("p_spill").head(args.rows)
    cols = ["program_id", "mode", "xblock", "rblock", "num_warps", "elems_per_thread", "regs", "regs_available",
            "spill_store_bytes", "spill_load_bytes", "stack_bytes", "spill_kind", "p_spill"]
    all_spill = spill_b[v2] > 0
    all_tiny = all_spill & (spill_b[v2] <= args.tiny)
    lines = [
        f"# Held-out kind `{kind}`: the spilling kernels its held-out spill head ranks lowest",
        "",
        f"Command: `{command_line('holdout_misses.py', argv)}`  ",
        f"Conditions: {conditions()}",
        "",
        f"Spill head refit on every family but `{kind}` ({int((~held).sum())} rows of sm90_v2 + sm90_v1), "
        f"booster settings of `{model.relative_to(REPO) if model.is_relative_to(REPO) else model}` "
        f"({p['n_estimators']} trees, depth {p['max_depth']}, learning rate {p['learning_rate']}), as "
        f"`costfuse-train`'s held-out split does, on this code's features (group schema "
        f"v{table.schema[0]}).",
        "",
        f"- `{kind}`: {int(held.sum())} kernels, {int(y.sum())} spilling; **held-out spill AUC "
        f"{roc_auc_score(y, score):.3f}** (issue #29's goal: >= 0.95)",
        f"- without its {int(tiny.sum())} spills of <= {args.tiny} bytes: AUC {roc_auc_score(y[~tiny], score[~tiny]):.3f}"
        if y[~tiny].any() and (~y).any() else f"- it has no spill of <= {args.tiny} bytes",
        f"- without its {int(tiny_kind.sum())} spills of kind `tiny` (below the register cap, a stack frame "
        f"smaller than the register file; `data/spill_kind.py`): AUC "
        f"{roc_auc_score(y[~tiny_kind], score[~tiny_kind]):.3f}" if tiny_kind.any() and y[~tiny_kind].any()
        else "- it has no spill of kind `tiny`",
        "- its spill kinds: " + ", ".join(f"{k} {n}" for k, n in kind_counts(kinds[held]).items()),
        f"- highest P(spill) of its non-spilling kernels: {score[~y].max():.3f}",
        f"- over all of dataset v2: {int(all_tiny.sum())} of {int(all_spill.sum())} spilling kernels spill "
        f"<= {args.tiny} bytes, {int((all_tiny & (np.asarray(table.regs)[v2] < 128)).sum())} of them at fewer "
        "than 128 registers",
        "",
        f"The {len(lowest)} spilling kernels ranked lowest:",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
        *("| " + " | ".join(f"{v:.4f}" if isinstance(v, float) and c == "p_spill" else
                            f"{v:g}" if isinstance(v, float) else str(v) for c, v in zip(cols, r)) + " |"
          for r in lowest[cols].itertuples(index=False)),
    ]
    emit("\n".join(lines) + "\n", args.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
