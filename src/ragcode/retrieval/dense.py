"""Dense retrieval: the index's FAISS vectors, queried with the embedder that made them."""

from __future__ import annotations

from typing import Any

from ragcode.retrieval.base import Corpus, Filters, Retriever, chunk_table
from ragcode.types import Hit


class DenseRetriever(Retriever):
    name = "dense"

    def __init__(self, corpus: Corpus, config: Any = None):
        self.corpus = corpus
        ids, chunks = chunk_table(corpus)
        if ids is None:
            ids = list(range(len(chunks)))
        self._by_int = dict(zip(ids, chunks))
        self._has_vectors = getattr(corpus, "vector_count", 1) > 0

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        return self.retrieve_many([query], k, filters)[0]

    def retrieve_many(self, queries: list[str], k: int,
                      filters: Filters = Filters()) -> list[list[Hit]]:
        """One embedding call for several queries (sub-queries of one task)."""
        if not self._has_vectors:
            return [[] for _ in queries]
        vecs = self.corpus.embedder.embed_query(list(queries))
        allowed = None
        if filters.active:
            allowed = [i for i, c in self._by_int.items() if filters.accepts(c)]
        return [self._hits(vec, k, allowed) for vec in vecs]

    def _hits(self, vec, k: int, allowed) -> list[Hit]:  # noqa: ANN001
        pairs = self.corpus.search_vectors(vec, k, allowed)
        hits = []
        for cid, score in pairs:
            chunk = self._by_int.get(cid)
            if chunk is not None:
                hits.append(Hit(chunk=chunk, score=float(score), rank=len(hits), source=self.name))
        return hits
