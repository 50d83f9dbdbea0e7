"""The retrieval stage's interfaces and its registries of implementations by name.

A ``Retriever`` turns a query into ranked ``Hit``s over one corpus (an ``Index`` or anything
with ``chunks()``); a ``Reranker`` rescores a short list of hits for a query. Both are chosen by
name from config through the registries below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Protocol, Sequence, runtime_checkable

from ragcode.registry import Registry
from ragcode.types import Chunk, Hit


@runtime_checkable
class Corpus(Protocol):
    """What a retriever needs from an index: its chunks, a list or a dict by int id (an
    ``Index``). Dense retrieval also needs ``search_vectors`` and ``embedder``."""

    def chunks(self) -> Sequence[Chunk] | Mapping[int, Chunk]: ...


def chunk_table(corpus: Corpus) -> tuple[list[int] | None, list[Chunk]]:
    """The corpus's chunks in a fixed order, with their int ids when it has them."""
    chunks = corpus.chunks()
    if isinstance(chunks, Mapping):
        return list(chunks.keys()), list(chunks.values())
    return None, list(chunks)


@dataclass(frozen=True)
class Filters:
    """Restrict retrieval to some chunk kinds and/or a path prefix (empty = no restriction)."""

    kinds: tuple[str, ...] = ()
    path_prefix: str = ""

    def accepts(self, chunk: Chunk) -> bool:
        if self.kinds and chunk.kind not in self.kinds:
            return False
        if self.path_prefix and not chunk.path.startswith(self.path_prefix.lstrip("./")):
            return False
        return True

    @property
    def active(self) -> bool:
        return bool(self.kinds or self.path_prefix)

    def allowed(self, chunks: Iterable[Chunk]) -> set[str] | None:
        """Ids of accepted chunks, or ``None`` when nothing is filtered."""
        if not self.active:
            return None
        return {c.id for c in chunks if self.accepts(c)}


@dataclass(frozen=True)
class Query:
    """One retrieval query: the main text plus optional sub-queries fused with it."""

    text: str
    sub_queries: tuple[str, ...] = field(default_factory=tuple)

    @property
    def all(self) -> tuple[str, ...]:
        return (self.text, *self.sub_queries)


class Retriever(Protocol):
    name: str

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]: ...


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]: ...


RETRIEVERS = Registry("retriever", {
    "bm25": "ragcode.retrieval.bm25:BM25Retriever",
    "dense": "ragcode.retrieval.dense:DenseRetriever",
    "hybrid": "ragcode.retrieval.hybrid:HybridRetriever",
})

RERANKERS = Registry("reranker", {
    "bi-encoder": "ragcode.retrieval.rerank:BiEncoderReranker",
    "cross-encoder": "ragcode.retrieval.rerank:CrossEncoderReranker",
})
