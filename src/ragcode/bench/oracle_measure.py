"""The oracle measure of issue 3: how much of a task's annotated oracle a context holds.

Defined exactly so numbers compare across runs and settings:

- ``tokens(text)`` is the set of lower-cased matches of ``[A-Za-z0-9_\\-\\.]+``;
- ``coverage(ctx) = |O & tokens(ctx)| / |O|`` with ``O = tokens(task.oracle)``;
- annotators edited oracles, so ``attainable`` is the largest coverage any single repository
  file reaches, and ``normalized = min(1, coverage / attainable)``;
- a task is *found* when ``normalized >= 0.9``.

The oracle is only ever scored against here; it never reaches a retriever or a prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

_TOKEN = re.compile(r"[A-Za-z0-9_\-\.]+")
FOUND_THRESHOLD = 0.9


def tokens(text: str) -> frozenset[str]:
    """The set of lower-cased ``[A-Za-z0-9_\\-\\.]+`` matches in ``text``."""
    return frozenset(m.lower() for m in _TOKEN.findall(text or ""))


def coverage(oracle_tokens: frozenset[str], text_or_tokens: str | frozenset[str]) -> float:
    """Share of the oracle's tokens present in a text (1.0 when the oracle has none)."""
    if not oracle_tokens:
        return 1.0
    other = tokens(text_or_tokens) if isinstance(text_or_tokens, str) else text_or_tokens
    return len(oracle_tokens & other) / len(oracle_tokens)


def attainable(oracle_tokens: frozenset[str], file_texts: Iterable[str]) -> float:
    """The best coverage any single file reaches (0.0 when no file shares a token)."""
    best = 0.0
    for text in file_texts:
        best = max(best, coverage(oracle_tokens, text))
        if best >= 1.0:
            break
    return best


def normalized(cov: float, attain: float) -> float:
    """``min(1, coverage / attainable)``; an oracle no file covers counts as found (1.0)."""
    if attain <= 0.0:
        return 1.0
    return min(1.0, cov / attain)


@dataclass(frozen=True)
class OracleScore:
    coverage: float
    attainable: float
    normalized: float

    @property
    def found(self) -> bool:
        return self.normalized >= FOUND_THRESHOLD


def score_context(oracle: str, context: str, attain: float) -> OracleScore:
    """Score one context against one oracle, given the repository's attainable coverage."""
    o = tokens(oracle)
    cov = coverage(o, context)
    return OracleScore(coverage=cov, attainable=attain, normalized=normalized(cov, attain))


class RepoOracle:
    """Attainable coverage over one repository's files, with the file token sets kept once."""

    def __init__(self, file_texts: Iterable[str]):
        self._file_tokens = [tokens(t) for t in file_texts]

    def attainable(self, oracle: str) -> float:
        o = tokens(oracle)
        if not o:
            return 1.0
        return max((len(o & ft) / len(o) for ft in self._file_tokens), default=0.0)

    def score(self, oracle: str, context: str) -> OracleScore:
        return score_context(oracle, context, self.attainable(oracle))


@dataclass(frozen=True)
class Summary:
    n: int
    found_rate: float
    mean_normalized: float
    mean_coverage: float


def summarize(scores: Iterable[OracleScore]) -> Summary:
    scores = list(scores)
    n = len(scores)
    if n == 0:
        return Summary(0, 0.0, 0.0, 0.0)
    return Summary(
        n=n,
        found_rate=sum(s.found for s in scores) / n,
        mean_normalized=sum(s.normalized for s in scores) / n,
        mean_coverage=sum(s.coverage for s in scores) / n,
    )
