"""Fusion groups of a program: the sets of generics that can become one kernel.

A *group* is a connected set of a function's generics with one *root* (the
only member whose result is used outside the group) such that every other
member is an all-parallel producer whose uses all lie inside the group.  For
a chain these are the contiguous segments; for a tree, the connected
subtrees.  Fusing the members into the root, latest member first, needs only
single-use fusions (each member's users are already inside the root by then),
so every group kernel is built with the very rewrite the pass uses.

Groups are what the oracle DP of docs/design.md §2 partitions a program into:
``best[S] = min over groups G rooted at the sink of S ...``; so each group
records its member ordinals (1-based, program order, as the pass labels
them).

Cap: a program with many generics has exponentially many subtrees (a chain
of 24 ops has 276 multi-op segments).  We always keep every singleton, so
the unfused program is always expressible, and at most ``max_groups``
multi-op groups: first the maximal groups (those no other group contains:
what ``always`` builds, and the likeliest to spill), then round-robin over sizes 2, 3, ...
with a seeded shuffle inside each size, so small and large fusions are both
covered.  The oracle DP over the kept groups is exact when nothing was cut.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from iree.compiler import ir

from costfuse.data.latency_oracle import label_of
from costfuse.graph import edges_into, function_blocks, generics_in, iterator_kinds, legality
from costfuse.rewrite import build_fused, commit

DEFAULT_MAX_GROUPS = 12


@dataclass(frozen=True)
class Group:
    """Member ordinals (1-based, program order) and the root they fuse into."""

    members: tuple[int, ...]
    root: int

    @property
    def label(self) -> str:
        return label_of(self.members)


def _users(op: ir.Operation) -> list[ir.Operation]:
    return [u.owner for r in op.results for u in r.uses]


def _dag(block: ir.Block):
    """Generic ordinals, legal producer edges (ignoring use counts) and users per node."""
    gens = generics_in(block)
    index = lambda op: next(i for i, g in enumerate(gens, 1) if g == op)  # noqa: E731
    producers: dict[int, list[int]] = {i: [] for i in range(1, len(gens) + 1)}
    users: dict[int, set[int | None]] = {}
    for i, g in enumerate(gens, 1):
        for e in edges_into(g):
            if legality(e, allow_multi_use=True):
                producers[i].append(index(e.producer))
        users[i] = {index(u.operation) if u.operation.name == "linalg.generic" else None for u in _users(g)}
    return gens, producers, users


def enumerate_groups(module: ir.Module, max_groups: int = DEFAULT_MAX_GROUPS, seed: int = 0) -> list[Group]:
    """The fusable groups of the module's first function, capped as the module docstring says."""
    with module.context:
        block = function_blocks(module)[0]
        gens, producers, users = _dag(block)
    found: set[tuple[int, ...]] = set()

    def grow(members: frozenset[int], excluded: frozenset[int], root: int) -> None:
        found.add(tuple(sorted(members)))
        if len(found) > 50 * max(max_groups, 1) + 200:  # plenty to choose from; bounds the walk
            return
        cands = sorted({p for m in members for p in producers[m]} - members - excluded)
        cands = [p for p in cands if users[p] <= members]
        for k, p in enumerate(cands):
            grow(members | {p}, excluded | set(cands[:k]), root)

    def closure(r: int) -> tuple[int, ...]:
        """The largest group rooted at ``r``: add eligible producers until none is left."""
        members = {r}
        while True:
            more = {p for m in members for p in producers[m] if p not in members and users[p] <= members}
            if not more:
                return tuple(sorted(members))
            members |= more

    roots = {}
    for r in range(1, len(gens) + 1):
        before = set(found)
        grow(frozenset({r}), frozenset(), r)
        found.add(closure(r))  # the walk above may stop early on wide DAGs
        for g in found - before:
            roots[g] = r
    singles = sorted(g for g in found if len(g) == 1)
    multi = _select(sorted(g for g in found if len(g) > 1), roots, max_groups, seed)
    return [Group(g, roots[g]) for g in singles + multi]


def _select(multi: list[tuple[int, ...]], roots: dict, cap: int, seed: int) -> list[tuple[int, ...]]:
    """The maximal groups, then round-robin over sizes; sorted by (size, members)."""
    if len(multi) <= cap:
        return multi
    sets = [set(g) for g in multi]
    maximal = [g for g, s in zip(multi, sets) if not any(s < t for t in sets)]
    chosen = sorted(maximal, key=lambda g: (-len(g), g))[:cap]
    rng = random.Random(seed)
    by_size: dict[int, list[tuple[int, ...]]] = {}
    for g in multi:
        if g not in chosen:
            by_size.setdefault(len(g), []).append(g)
    for bucket in by_size.values():
        rng.shuffle(bucket)
    while len(chosen) < cap and any(by_size.values()):
        for size in sorted(by_size):
            if by_size[size] and len(chosen) < cap:
                chosen.append(by_size[size].pop())
    return sorted(chosen, key=lambda g: (len(g), g))


def fuse_group(module: ir.Module, group: Group) -> ir.Operation:
    """Fuse ``group``'s members into its root, in place; return the fused generic.

    ``module`` is modified: parse a fresh copy per group.
    """
    with module.context:
        gens = generics_in(function_blocks(module)[0])
        root = gens[group.root - 1]
        for m in sorted(set(group.members) - {group.root}, reverse=True):
            producer = gens[m - 1]
            edge = next(e for e in edges_into(root) if e.producer == producer)
            ok = legality(edge)
            if not ok:
                raise ValueError(f"group {group.label}: g{m} -> root: {ok.reason}")
            root = commit(edge, build_fused(edge))
        return root


def is_reduction(op: ir.Operation) -> bool:
    return "reduction" in iterator_kinds(op)
