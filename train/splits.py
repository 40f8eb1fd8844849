"""Train/test splits that never leak a program across the boundary.

Rows of one program share IR (its groups overlap, and each group is compiled
under several launch configs), so a row-level split would test on near
copies of training rows.  Every split here keeps whole programs together,
and a program is named by its *content*, not its id: two seeds can draw the
same program (``act-322`` and ``act-340``), and those twins must land on the
same side.  Callers pass ``TrainingTable.groups`` (or
``costfuse.data.dedupe.split_groups`` of raw rows): the program's content
hash per row.  The held-out-family split goes further and tests on a family
never seen in training, which is what "generalizes to new code" means for
the pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold, GroupShuffleSplit


@dataclass(frozen=True)
class Split:
    """Boolean masks over the rows (shape (n,)); ``name`` labels it in reports."""

    name: str
    train: np.ndarray
    test: np.ndarray


def grouped_split(groups: np.ndarray, test_size: float = 0.25, seed: int = 0) -> Split:
    """A random split of whole programs: about ``test_size`` of the groups (program content hashes) are test."""
    if len(np.unique(groups)) < 2:
        raise ValueError("a grouped split needs at least 2 programs")
    gss = GroupShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    train_idx, test_idx = next(gss.split(np.zeros(len(groups)), groups=groups))
    return Split("grouped", _mask(train_idx, len(groups)), _mask(test_idx, len(groups)))


def family_holdouts(families: np.ndarray) -> Iterator[Split]:
    """One split per family: train on every other family, test on it (needs >= 2 families)."""
    names = sorted(np.unique(families))
    if len(names) < 2:
        return
    for family in names:
        test = families == family
        yield Split(f"holdout:{family}", ~test, test)


def group_folds(groups: np.ndarray, n_splits: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """Index pairs of a grouped K-fold over programs (``groups``: content hashes; fewer folds if few)."""
    k = min(n_splits, len(np.unique(groups)))
    if k < 2:
        return []
    return list(GroupKFold(n_splits=k).split(np.zeros(len(groups)), groups=groups))


def _mask(idx: np.ndarray, n: int) -> np.ndarray:
    m = np.zeros(n, bool)
    m[idx] = True
    return m
