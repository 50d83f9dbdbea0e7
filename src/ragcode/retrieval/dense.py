"""Dense retrieval: the index's FAISS vectors, queried with the embedder that made them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from ragcode.retrieval.base import Corpus, Filters, Retriever, chunk_table
from ragcode.types import Hit

_QUERY_CACHE = 64  # query texts whose vectors are kept


class DenseRetriever(Retriever):
    name = "dense"

    def __init__(self, corpus: Corpus, config: Any = None):
        self.corpus: Any = corpus  # a Corpus with vectors: search_vectors and embedder (an Index)
        ids, chunks = chunk_table(corpus)
        if ids is None:
            ids = list(range(len(chunks)))
        self._by_int = dict(zip(ids, chunks))
        self._has_vectors = getattr(corpus, "vector_count", 1) > 0
        # one task's queries come several times (its sub-queries, then the documentation-only
        # pass repeats the instruction): each text is embedded once
        self._vectors: OrderedDict[str, Any] = OrderedDict()
        self._allowed: dict[Filters, list[int]] = {}
        self._lock = threading.Lock()

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        return self.retrieve_many([query], k, filters)[0]

    def query_vectors(self, queries: list[str]) -> list[Any]:
        """The query embeddings, one embedding call for the texts not seen lately."""
        with self._lock:
            found = {q: self._vectors[q] for q in queries if q in self._vectors}
        todo = list(dict.fromkeys(q for q in queries if q not in found))
        if todo:
            found.update(zip(todo, self.corpus.embedder.embed_query(todo)))
        with self._lock:
            for q in dict.fromkeys(queries):
                self._vectors[q] = found[q]
                self._vectors.move_to_end(q)
            while len(self._vectors) > _QUERY_CACHE:
                self._vectors.popitem(last=False)
        return [found[q] for q in queries]

    def retrieve_many(self, queries: Sequence[str], k: int,
                      filters: Filters = Filters()) -> list[list[Hit]]:
        """One embedding call for several queries (sub-queries of one task)."""
        if not self._has_vectors:
            return [[] for _ in queries]
        vecs = self.query_vectors(list(queries))
        allowed = None
        if filters.active:
            allowed = self._allowed.get(filters)
            if allowed is None:
                allowed = [i for i, c in self._by_int.items() if filters.accepts(c)]
                self._allowed[filters] = allowed
        return [self._hits(vec, k, allowed) for vec in vecs]

    def _hits(self, vec, k: int, allowed) -> list[Hit]:  # noqa: ANN001
        pairs = self.corpus.search_vectors(vec, k, allowed)
        hits: list[Hit] = []
        for cid, score in pairs:
            chunk = self._by_int.get(cid)
            if chunk is not None:
                hits.append(Hit(chunk=chunk, score=float(score), rank=len(hits), source=self.name))
        return hits
