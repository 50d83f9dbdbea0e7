"""Dense retrieval: the index's FAISS vectors, queried with the embedder that made them."""

from __future__ import annotations

from typing import Any

from ragcode.retrieval.base import Corpus, Filters, chunk_table
from ragcode.types import Hit


class DenseRetriever:
    name = "dense"

    def __init__(self, corpus: Corpus, config: Any = None):
        self.corpus = corpus
        ids, chunks = chunk_table(corpus)
        if ids is None:
            ids = list(range(len(chunks)))
        self._by_int = dict(zip(ids, chunks))
        self._has_vectors = getattr(corpus, "vector_count", 1) > 0

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        if not self._has_vectors or not query.strip():
            return []
        vec = self.corpus.embedder.embed_query([query])[0]
        allowed = None
        if filters.active:
            allowed = [i for i, c in self._by_int.items() if filters.accepts(c)]
        pairs = self.corpus.search_vectors(vec, k, allowed)
        hits = []
        for cid, score in pairs:
            chunk = self._by_int.get(cid)
            if chunk is not None:
                hits.append(Hit(chunk=chunk, score=float(score), rank=len(hits), source=self.name))
        return hits
