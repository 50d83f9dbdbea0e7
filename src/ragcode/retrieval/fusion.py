"""Fusing ranked hit lists: reciprocal rank fusion and weighted score fusion."""

from __future__ import annotations

from typing import Sequence

from ragcode.types import Chunk, Hit


def rrf(lists: Sequence[Sequence[Hit]], k: int = 60, weights: Sequence[float] | None = None,
        limit: int | None = None) -> list[Hit]:
    """Reciprocal rank fusion: ``score(d) = sum_i w_i / (k + rank_i(d) + 1)`` (ranks 0-based)."""
    weights = list(weights) if weights is not None else [1.0] * len(lists)
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for w, hits in zip(weights, lists):
        for rank, hit in enumerate(hits):
            cid = hit.chunk.id
            chunks.setdefault(cid, hit.chunk)
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank + 1)
    return _ranked(scores, chunks, "rrf", limit)


def _minmax(hits: Sequence[Hit]) -> dict[str, float]:
    if not hits:
        return {}
    vals = [h.score for h in hits]
    lo, hi = min(vals), max(vals)
    span = hi - lo
    return {h.chunk.id: ((h.score - lo) / span if span > 0 else 1.0) for h in hits}


def weighted(lists: Sequence[Sequence[Hit]], weights: Sequence[float],
             limit: int | None = None) -> list[Hit]:
    """Weighted sum of min-max normalised scores; a list that misses a chunk adds 0."""
    if len(weights) != len(lists):
        raise ValueError(f"weighted fusion got {len(lists)} lists but {len(weights)} weights")
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for w, hits in zip(weights, lists):
        for cid, s in _minmax(hits).items():
            scores[cid] = scores.get(cid, 0.0) + w * s
        for hit in hits:
            chunks.setdefault(hit.chunk.id, hit.chunk)
    return _ranked(scores, chunks, "weighted", limit)


def _ranked(scores: dict[str, float], chunks: dict, source: str, limit: int | None) -> list[Hit]:
    order = sorted(scores, key=lambda cid: (-scores[cid], cid))
    if limit is not None:
        order = order[:limit]
    return [Hit(chunk=chunks[cid], score=scores[cid], rank=i, source=source)
            for i, cid in enumerate(order)]
