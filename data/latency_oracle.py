"""The latency oracle of a v1 program: its fastest partition into labelled groups (docs/design.md §2).

Once GPU latency has been merged into a dataset (``costfuse-data
merge-latency``, :mod:`costfuse.data.merge_latency`), each of a program's
fusion groups (``data/edge_groups.py``: a member set such as ``g3+g4+g5`` fused into
one kernel) has a latency at each config it was profiled at.  A group's
latency is the *minimum* over its labelled configs: the oracle may pick the
launch config too.  The oracle is the partition of the program's generics
into labelled groups with the least summed latency, the physical bar the
cost models are judged against (``experiments/compare_cost_models.py``).

Why an exact-cover search and not the chain/tree recursion of §2: the
dataset keeps only *some* groups (``--max-groups`` caps them), so the
partitions that exist are the exact covers of the program's member set by
the groups that have a latency, whatever the program's shape.  The search
memoizes the uncovered set and always branches on its lowest member: any
cover holds exactly one group containing that member, and as every lower
member is already covered, that group's lowest member is it.  Programs hold
at most a few dozen generics and a handful of groups each, so this is
instant.  The result is exact over the labelled groups; it is the true
optimum whenever the group cap cut nothing.

Ties (totals within ``REL_TOL``) go to fewer kernels, then to the first
cover found (groups in ascending member order), so the answer is the same on
every run.  A program some generic of which no labelled group can cover has
no oracle: :class:`Oracle` then carries ``None`` and the reason.

Rows are plain mappings (``program_id``, ``group``, ``status``,
``latency_us``, and for :meth:`LatencyTable.kernel` the config columns), so
tests and experiments can pass a DataFrame's records or hand-made dicts.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

REL_TOL = 1e-9   # totals this close are a tie (float sums taken in different orders)
_MEMBER = re.compile(r"^g(\d+)$")


def members_of(label: str) -> frozenset[int]:
    """``"g3+g4+g5"`` -> ``{3, 4, 5}``: the member ordinals of a group label (``data/edge_groups.py``)."""
    out = set()
    for part in label.split("+"):
        m = _MEMBER.match(part)
        if m is None:
            raise ValueError(f"group label {label!r}: {part!r} is not g<ordinal>")
        out.add(int(m.group(1)))
    return frozenset(out)


def label_of(members: Iterable[int]) -> str:
    return "+".join(f"g{m}" for m in sorted(members))


def _labelled(row: Mapping) -> bool:
    lat = row.get("latency_us")
    return row.get("status") == "ok" and lat is not None and not math.isnan(lat)


@dataclass(frozen=True)
class Oracle:
    """The best partition of one program (``partition`` and ``total_us``), or ``None`` and the ``reason``."""

    partition: tuple[frozenset[int], ...] | None
    total_us: float | None
    reason: str = ""

    @property
    def kernels(self) -> int | None:
        return None if self.partition is None else len(self.partition)

    @property
    def labels(self) -> tuple[str, ...]:
        return () if self.partition is None else tuple(label_of(g) for g in self.partition)


def _better(a: tuple[float, int], b: tuple[float, int]) -> bool:
    """Is (total, kernels) ``a`` strictly better than ``b``: less time, or a tie and fewer kernels."""
    if math.isclose(a[0], b[0], rel_tol=REL_TOL, abs_tol=0.0):
        return a[1] < b[1]
    return a[0] < b[0]


def best_partition(members: Iterable[int], latency: Mapping[frozenset[int], float]) -> Oracle:
    """The minimum-latency exact cover of ``members`` by the groups in ``latency`` (group -> µs).

    Groups not inside ``members`` are ignored.  Returns :class:`Oracle`, its
    partition ordered by lowest member, or ``partition=None`` with the reason
    when no cover exists.
    """
    universe = frozenset(members)
    if not universe:
        return Oracle(None, None, "the program has no generics")
    by_lowest: dict[int, list[frozenset[int]]] = defaultdict(list)
    for g in sorted((g for g in latency if g and g <= universe), key=sorted):
        by_lowest[min(g)].append(g)
    memo: dict[frozenset[int], tuple[float, int, tuple] | None] = {}

    def solve(uncovered: frozenset[int]):
        if not uncovered:
            return 0.0, 0, ()
        if uncovered in memo:
            return memo[uncovered]
        best = None
        for g in by_lowest.get(min(uncovered), ()):
            if g <= uncovered and (rest := solve(uncovered - g)) is not None:
                cand = (latency[g] + rest[0], rest[1] + 1, (g, *rest[2]))
                if best is None or _better(cand[:2], best[:2]):
                    best = cand
        memo[uncovered] = best
        return best

    found = solve(universe)
    if found is not None:
        return Oracle(found[2], found[0])
    covered = set().union(*(g for gs in by_lowest.values() for g in gs))
    lacking = sorted(universe - covered)
    if lacking:
        return Oracle(None, None, f"g{lacking[0]} is in no group with a latency")
    unlabelled = sorted(m for m in universe if frozenset([m]) not in latency)
    return Oracle(None, None, f"the labelled groups do not partition g1..g{max(universe)} "
                              f"(no latency for singleton g{unlabelled[0]})")


class LatencyTable:
    """A v1 dataset's latency labels, indexed by program: the oracle of each, and each kernel's latency.

    ``rows``: dataset rows (mappings with ``program_id``, ``group``,
    ``status``, ``latency_us``, ``xblock``, ``rblock``, ``num_warps``).  A
    program's generics are the members of all its rows, labelled or not (the
    dataset keeps every singleton, so none is missed).
    """

    def __init__(self, rows: Iterable[Mapping]):
        self.generics: dict[str, set[int]] = defaultdict(set)
        self.groups: dict[str, dict[frozenset[int], float]] = defaultdict(dict)
        self.configs: dict[tuple, float] = {}
        for row in rows:
            pid, g = row["program_id"], members_of(row["group"])
            self.generics[pid] |= g
            if not _labelled(row):
                continue
            lat = float(row["latency_us"])
            self.groups[pid][g] = min(lat, self.groups[pid].get(g, math.inf))
            key = (pid, g, *_config(row["xblock"], row["rblock"], row["num_warps"]))
            self.configs[key] = min(lat, self.configs.get(key, math.inf))

    @classmethod
    def from_frame(cls, df) -> "LatencyTable":
        cols = ["program_id", "group", "status", "latency_us", "xblock", "rblock", "num_warps"]
        return cls(df[cols].to_dict("records"))

    def __bool__(self) -> bool:
        return bool(self.configs)

    def oracle(self, program_id: str) -> Oracle:
        if program_id not in self.generics:
            return Oracle(None, None, f"no rows for program {program_id}")
        return best_partition(self.generics[program_id], self.groups.get(program_id, {}))

    def kernel(self, program_id: str, members: Iterable[int], xblock, rblock, num_warps) -> float | None:
        """The latency of group ``members`` of the program at that launch config, or ``None`` if unlabelled."""
        return self.configs.get((program_id, frozenset(members), *_config(xblock, rblock, num_warps)))


def _config(xblock, rblock, num_warps) -> tuple[int, int, int]:
    """A launch config as a key: a pointwise kernel's missing RBLOCK is 1, as the lowering's."""
    missing = lambda v: v is None or (isinstance(v, float) and math.isnan(v))  # noqa: E731
    return int(xblock), 1 if missing(rblock) else int(rblock), int(num_warps)
