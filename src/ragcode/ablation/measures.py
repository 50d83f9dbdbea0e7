"""Retrieval metrics for ablation cells.

Task-level (the oracle measure of the retrieval issue, computed on the packed context):
``found_rate`` (share of tasks whose normalized coverage >= 0.9) and ``mean_coverage``.

Chunk-level, on the retriever's ranked list (before packing):
a chunk *carries the oracle* when its own normalized coverage, ``min(1, coverage(chunk) /
attainable)``, is at least ``CARRIES_THRESHOLD`` (0.5), where ``coverage(x) = |O & tokens(x)| /
|O|`` for the oracle token set ``O`` and ``attainable`` is the best coverage of any single file of
the repository. The relevant set ``R`` of a task is every chunk of the repository's index that
carries the oracle. Then ``recall@k = |R & top_k| / |R|``, ``precision@k = |R & top_k| / k``,
``hit@k`` = 1 if any of ``R`` is in the top k, ``MRR`` = 1 / rank of the first relevant chunk (0 if
none is retrieved) and ``nDCG@k`` with binary gains and the ideal list ``min(|R|, k)`` relevant
chunks. Tasks with an empty ``R`` (no single chunk holds half the oracle) are left out of the
chunk-level means and counted in ``n_no_relevant``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ragcode.bench.oracle_measure import FOUND_THRESHOLD, coverage, normalized, tokens

CARRIES_THRESHOLD = 0.5


def carries_oracle(oracle: frozenset[str], chunk_tokens: frozenset[str], attainable: float) -> bool:
    """A chunk carries the oracle when its own normalized coverage is >= ``CARRIES_THRESHOLD``.

    When no file of the repository shares a token with the oracle (attainable 0), no chunk does.
    """
    if not oracle or attainable <= 0.0:
        return False
    return normalized(coverage(oracle, chunk_tokens), attainable) >= CARRIES_THRESHOLD


@dataclass(frozen=True)
class TaskRetrievalScore:
    """Metrics of one task in one cell."""

    task_key: str
    normalized_coverage: float
    found: bool
    n_relevant: int
    ranks: tuple[int, ...]  # 1-based ranks of relevant chunks in the ranked list
    context_chars: int = 0

    def recall(self, k: int) -> float:
        return sum(1 for r in self.ranks if r <= k) / self.n_relevant if self.n_relevant else 0.0

    def precision(self, k: int) -> float:
        return sum(1 for r in self.ranks if r <= k) / k

    def hit(self, k: int) -> float:
        return 1.0 if any(r <= k for r in self.ranks) else 0.0

    def rr(self) -> float:
        return 1.0 / min(self.ranks) if self.ranks else 0.0

    def ndcg(self, k: int) -> float:
        dcg = sum(1.0 / math.log2(r + 1) for r in self.ranks if r <= k)
        ideal = sum(1.0 / math.log2(i + 2) for i in range(min(self.n_relevant, k)))
        return dcg / ideal if ideal else 0.0


def score_task(
    task_key: str,
    oracle_text: str,
    context_text: str,
    ranked_ids: Sequence[str],
    repo_chunks: Iterable[tuple[str, str, frozenset[str]]],
    attainable: float | None = None,
    normalized_coverage: float | None = None,
) -> TaskRetrievalScore:
    """Score one task.

    ``ranked_ids``: chunk ids in retrieval order. ``repo_chunks``: ``(chunk_id,
    path, tokens)`` for every chunk of the repository's index (the pool that defines ``R``).
    ``attainable`` and ``normalized_coverage`` come from the retrieval stage's oracle measure when
    it provides them; otherwise ``attainable`` is the best coverage of one file, taking a file's
    tokens as the union of its chunks' tokens, and the coverage of the context is computed here.
    """
    oracle = tokens(oracle_text)
    pool = list(repo_chunks)
    if attainable is None:
        by_file: dict[str, set[str]] = {}
        for _cid, path, toks in pool:
            by_file.setdefault(path, set()).update(toks & oracle)
        attainable = max((len(t) / len(oracle) for t in by_file.values()), default=0.0) if oracle else 0.0
    if normalized_coverage is None:
        normalized_coverage = normalized(coverage(oracle, context_text), attainable)
    relevant = {cid for cid, _p, toks in pool if carries_oracle(oracle, toks, attainable)}
    ranks = tuple(i + 1 for i, cid in enumerate(ranked_ids) if cid in relevant)
    return TaskRetrievalScore(
        task_key=task_key,
        normalized_coverage=normalized_coverage,
        found=normalized_coverage >= FOUND_THRESHOLD,
        n_relevant=len(relevant),
        ranks=ranks,
        context_chars=len(context_text),
    )


@dataclass
class RetrievalSummary:
    n_tasks: int
    found_rate: float
    mean_coverage: float
    mrr: float
    n_no_relevant: int
    at_k: dict[str, float] = field(default_factory=dict)  # "recall@5" -> value
    mean_context_chars: float = 0.0

    def as_row(self) -> dict[str, float | int]:
        return {
            "n_tasks": self.n_tasks,
            "found_rate": round(self.found_rate, 4),
            "mean_coverage": round(self.mean_coverage, 4),
            "mrr": round(self.mrr, 4),
            **{k: round(v, 4) for k, v in self.at_k.items()},
            "n_no_relevant": self.n_no_relevant,
            "mean_context_chars": round(self.mean_context_chars, 1),
        }


def summarize(scores: Sequence[TaskRetrievalScore], ks: Sequence[int]) -> RetrievalSummary:
    n = len(scores)
    ranked = [s for s in scores if s.n_relevant]
    m = len(ranked)

    def mean(values: Iterable[float], count: int) -> float:
        return sum(values) / count if count else 0.0

    at_k: dict[str, float] = {}
    for k in ks:
        at_k[f"recall@{k}"] = mean((s.recall(k) for s in ranked), m)
        at_k[f"precision@{k}"] = mean((s.precision(k) for s in ranked), m)
        at_k[f"hit@{k}"] = mean((s.hit(k) for s in ranked), m)
        at_k[f"ndcg@{k}"] = mean((s.ndcg(k) for s in ranked), m)
    return RetrievalSummary(
        n_tasks=n,
        found_rate=mean((1.0 for s in scores if s.found), n),
        mean_coverage=mean((s.normalized_coverage for s in scores), n),
        mrr=mean((s.rr() for s in ranked), m),
        n_no_relevant=n - m,
        at_k=at_k,
        mean_context_chars=mean((s.context_chars for s in scores), n),
    )
