"""Public states from what the players know: the steps shared by the adapters that derive
factored observations from information sets (Gambit ``.efg``, OpenSpiel)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence


def linked_groups(keys: Sequence[Iterable[Hashable]]) -> list[list[int]]:
    """Indices ``0 .. len(keys) - 1`` grouped so that two with a key in common share a group.

    Union-find with paths halved; the groups come in the order of their first index, each
    ascending, so the grouping does not depend on which member represents a group.
    """
    link = list(range(len(keys)))
    holders: dict[Hashable, int] = {}
    for j, own in enumerate(keys):
        for key in own:
            r = holders.setdefault(key, j)
            if r != j:
                link[_find(link, j)] = _find(link, r)
    members: dict[int, list[int]] = {}
    for j in range(len(keys)):
        members.setdefault(_find(link, j), []).append(j)
    return list(members.values())


def unique_name(base: str, used: set[str]) -> str:
    """``base``, else the first of ``base#2``, ``base#3``, ... not in ``used``; the name is added to ``used``."""
    name, k = base, 1
    while name in used:
        k += 1
        name = f"{base}#{k}"
    used.add(name)
    return name


def _find(link: list[int], x: int) -> int:
    """The representative of ``x`` in the union-find forest ``link`` (paths halved on the way)."""
    while link[x] != x:
        link[x] = link[link[x]]
        x = link[x]
    return x
