"""Hybrid retrieval: BM25 and dense hit lists fused by reciprocal rank or weighted scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragcode.retrieval.base import Corpus, Filters, Retriever
from ragcode.retrieval.fusion import rrf, weighted
from ragcode.types import Hit


class HybridRetriever(Retriever):
    name = "hybrid"

    def __init__(self, corpus: Corpus, config: Any, bm25: Any = None, dense: Any = None):
        from ragcode.retrieval.bm25 import BM25Retriever
        from ragcode.retrieval.dense import DenseRetriever

        self.cfg = config.retrieval
        self.bm25 = bm25 if bm25 is not None else BM25Retriever(corpus, config)
        self.dense = dense if dense is not None else DenseRetriever(corpus, config)

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        return self.retrieve_many([query], k, filters)[0]

    def retrieve_many(self, queries: Sequence[str], k: int,
                      filters: Filters = Filters()) -> list[list[Hit]]:
        n = max(k, self.cfg.candidates)
        dense = self.dense.retrieve_many(queries, n, filters)
        return [self._fuse([self.bm25.retrieve(q, n, filters), d], k)
                for q, d in zip(queries, dense)]

    def _fuse(self, lists: list[list[Hit]], k: int) -> list[Hit]:
        w_dense = self.cfg.dense_weight
        if self.cfg.fusion == "weighted":
            return weighted(lists, [1.0 - w_dense, w_dense], limit=k)
        # rrf weights scaled so equal weights (0.5) give plain RRF
        return rrf(lists, k=self.cfg.rrf_k, weights=[2 * (1.0 - w_dense), 2 * w_dense], limit=k)
