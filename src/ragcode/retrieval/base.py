"""The retrieval stage's interfaces and its registries of implementations by name.

A ``Retriever`` turns a query into ranked ``Hit``s over one corpus (an ``Index`` or anything
with ``chunks()``); a ``Reranker`` rescores a short list of hits for a query. Both are chosen by
name from config through the registries below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from ragcode.errors import ConfigError
from ragcode.registry import Registry
from ragcode.types import CHUNK_KINDS, Chunk, Hit


@runtime_checkable
class Corpus(Protocol):
    """What a retriever needs from an index: its chunks, a list or a dict by int id (an
    ``Index``). Dense retrieval also needs ``search_vectors`` and ``embedder``."""

    def chunks(self) -> Sequence[Chunk] | Mapping[int, Chunk]: ...


# what a hit is, for people: documentation, a script's command line, a module's API, code
KIND_GROUPS: dict[str, tuple[str, ...]] = {
    "doc": ("markdown", "notebook", "text"),
    "cli": ("cli",),
    "api": ("api",),
    "code": ("code", "shell"),
    "config": ("config",),
}


def kind_group(kind: str) -> str:
    """``doc``, ``cli``, ``api``, ``code`` or ``config`` for a chunk kind (itself if unknown)."""
    return next((g for g, kinds in KIND_GROUPS.items() if kind in kinds), kind)


def expand_kinds(names: Sequence[str]) -> list[str]:
    """Chunk kinds for group names and/or chunk kinds (``doc`` -> markdown, notebook, text);
    ``ConfigError`` naming the known ones for anything else."""
    out: list[str] = []
    for name in names:
        if name in KIND_GROUPS:
            out.extend(KIND_GROUPS[name])
        elif name in CHUNK_KINDS:
            out.append(name)
        else:
            raise ConfigError(
                f"unknown kind {name!r}; use one of {', '.join(KIND_GROUPS)} or a chunk kind "
                f"({', '.join(CHUNK_KINDS)})")
    return list(dict.fromkeys(out))


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


@runtime_checkable
class Retriever(Protocol):
    """Ranked hits for a query over one corpus, built as ``cls(corpus, config)``.

    ``retrieve_many`` has a default, one ``retrieve`` per query: a class that subclasses
    ``Retriever`` inherits it and may override it to batch (dense: one embedding call). A class
    that does neither still works: ``load_retriever`` gives it the default."""

    name: str

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]: ...

    def retrieve_many(self, queries: Sequence[str], k: int,
                      filters: Filters = Filters()) -> list[list[Hit]]:
        return [self.retrieve(q, k, filters) for q in queries]


class _OneByOne(Retriever):
    """A retriever without ``retrieve_many``, given the default one."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        return self.inner.retrieve(query, k, filters)


def load_retriever(name: str, corpus: Corpus, config: Any) -> Retriever:
    """The retriever registered as ``name`` (or a ``module:Class`` path) over ``corpus``."""
    retriever = RETRIEVERS.get(name)(corpus, config)
    return retriever if isinstance(retriever, Retriever) else _OneByOne(retriever)


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
