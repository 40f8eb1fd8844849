"""The pass's group heads on dataset ``sm90_inductor_v1``: spill AUC, recall and precision on Inductor's own kernels.

    python experiments/inductor_dataset_heads.py [DATA_DIR]      # default data/sm90_inductor_v1

The pass's group heads (``costfuse/models/groups``, trained on CostFuse's own
lowering, datasets v1 and v2), which the handler used before it had heads of
its own, have never seen an Inductor kernel: this is the figure the handler's
heads (``costfuse/models/inductor``, issue #25 part 6; scored on held-out
programs by ``costfuse-train`` and ``experiments/inductor_decisions.py``) have
to beat.  Every compiled row with a kernel description is
featurized as the handler featurizes kernels
(:meth:`costfuse.inductor.decide.Decider.predict`); the verdict is the
handler's (its spill cut).  Nothing is trained or held out here: every row is
unseen by these heads.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def scores(y: np.ndarray, p: np.ndarray, verdict: np.ndarray) -> dict:
    from sklearn.metrics import roc_auc_score

    auc = roc_auc_score(y, p) if 0 < y.sum() < len(y) else float("nan")
    tp = int((verdict & y).sum())
    return {"rows": len(y), "spilling": int(y.sum()), "auc": round(float(auc), 3),
            "recall": round(tp / max(1, int(y.sum())), 3), "precision": round(tp / max(1, int(verdict.sum())), 3)}


def main(argv: list[str] | None = None) -> int:
    from costfuse.data.store import read_dataset
    from costfuse.featurize.inductor_kernel import kernel_from_dict
    from costfuse.inductor.decide import HANDLER_SPILL_CUT, Decider
    from costfuse.launch import KernelLaunch

    directory = Path((argv or sys.argv[1:] or [REPO / "data" / "sm90_inductor_v1"])[0])
    df = read_dataset(directory, 3)
    df = df[(df.status == "ok") & df.kernel_desc.notna()].reset_index(drop=True)
    from costfuse.cost_models.learned_groups import SHIPPED_GROUP_MODEL_DIR

    decider = Decider(str(SHIPPED_GROUP_MODEL_DIR), "sm_90", HANDLER_SPILL_CUT)
    p = np.full(len(df), np.nan)
    verdict = np.zeros(len(df), bool)
    for _, idx in df.groupby("source_hash").indices.items():
        sub = df.iloc[idx]
        kernel = kernel_from_dict(json.loads(sub.kernel_desc.iloc[0]))
        modes = np.where(sub.heuristic == "pointwise", "pointwise", np.where(sub.persistent, "persistent", "looped"))
        launches = [KernelLaunch(m, int(x), int(r), int(w))
                    for m, x, r, w in zip(modes, sub.xblock, sub.rblock, sub.num_warps)]
        out = decider.predict(kernel, launches)
        p[idx], verdict[idx] = out["p_spill"], out["spills"]
    y = (df.spill_store_bytes > 0).to_numpy()
    rows = {"all": scores(y, p, verdict)}
    for family, idx in sorted(df.groupby("family").indices.items()):
        rows[family] = scores(y[idx], p[idx], verdict[idx])
    print(f"{directory}: {len(df)} compiled rows with a kernel description, {df.source_hash.nunique()} kernels; "
          f"the pass's group heads (costfuse/models/groups), spill cut {HANDLER_SPILL_CUT!r}")
    from costfuse.data.card import _table

    print(_table(pd.DataFrame(rows).T))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
