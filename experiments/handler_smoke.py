"""The Inductor handler decides with only the GPU machine's packages (torch, Triton, NumPy, pandas, pyarrow).

The GPU machine has no xgboost, iree, mlflow or scikit-learn, and CostFuse is not installed there: the device
scripts import it from the checkout (``experiments/gpu_inductor.py``'s ``use_checkout``).  This script does
the same, generates Inductor's sm_90 kernels on the faked device (``data/inductor_device.py``) for a causal
attention epilogue and an RMSNorm backward under the handler in ``pin`` mode, and prints each decision.  It
exits 1 if a block's reduction is not pinned, or if any of those packages was imported on the way.

    python experiments/handler_smoke.py    # run by experiments/torch_compat.sh in such an environment
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

ABSENT = ("xgboost", "iree", "mlflow", "sklearn")   # not on the GPU machine (docs/design.md §10)


def main() -> int:
    from experiments.gpu_inductor import use_checkout

    use_checkout()
    import torch

    from costfuse.data.inductor_codegen import inductor_code, kernels_of
    from costfuse.inductor.choices import CostFuseChoices
    from experiments.workloads import blocks

    bf16 = torch.bfloat16
    cases = {"AttentionCausal 1x32x2048x2048": (blocks.AttentionCausal(), [((1, 32, 2048, 2048), bf16)]),
             "RMSNormBackward 4096x16384": (blocks.RMSNormBackward(),
                                            [((4096, 16384), bf16), ((16384,), bf16), ((4096, 16384), bf16)])}
    ok = True
    for name, (block, specs) in cases.items():
        handler = CostFuseChoices("pin")
        kernels = kernels_of(inductor_code(block, specs, choices=handler))
        picks = [str(d.pick.launch) for d in handler.decisions if d.pick is not None]
        pinned = sum(k.heuristic == "fixed_config" for k in kernels)
        print(f"{name}: {dict(handler.stats)}; picks {picks}; kernels pinned {pinned} of {len(kernels)}")
        ok &= bool(picks) and pinned == len(picks)
    imported = [m for m in ABSENT if m in sys.modules]
    print(f"torch {torch.__version__}; imported of {', '.join(ABSENT)}: {', '.join(imported) or 'none'}")
    return 0 if ok and not imported else 1


if __name__ == "__main__":
    sys.exit(main())
