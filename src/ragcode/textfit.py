"""Cutting text to a budget at line boundaries, shared by context packing and prompt building."""

from __future__ import annotations

from typing import Callable, Sequence


def fitting_line_count(lines: Sequence[str], budget: int, count: Callable[[str], int],
                       sep: str = "\n") -> int:
    """The largest ``k`` such that ``count(sep.join(lines[:k])) <= budget`` (binary search;
    ``count`` must grow with the number of lines)."""
    lo, hi = 0, len(lines)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(sep.join(lines[:mid])) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo
