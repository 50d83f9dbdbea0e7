"""The retrieval stage's seams: Retriever.retrieve_many (default and overridden), ranking then
assembly from one ranking, and pack's settings read from ContextConfig."""

from __future__ import annotations

import dataclasses
import sys
import types

from retrieval_helpers import ListCorpus

from ragcode.config import ContextConfig, load_config
from ragcode.retrieval.base import Filters, Retriever, load_retriever
from ragcode.retrieval.packing import PackSettings
from ragcode.retrieval.search import Searcher
from ragcode.types import Chunk, Hit

DOCS = [Chunk(path=f"doc{i}.md", kind="markdown", text=f"alpha beta word{i} " * (i + 1),
              start_line=1, end_line=1) for i in range(4)]


class PlainRetriever:
    """A user's retriever: only ``retrieve``, no base class, found by its dotted path."""

    name = "plain"
    calls: list[str] = []

    def __init__(self, corpus, config):  # noqa: ANN001
        self.chunks = list(corpus.chunks())

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        PlainRetriever.calls.append(query)
        chosen = [c for c in self.chunks if filters.accepts(c)][:k]
        return [Hit(chunk=c, score=1.0 / (i + 1), rank=i) for i, c in enumerate(chosen)]


def _plain_module(monkeypatch) -> str:  # noqa: ANN001
    mod = types.ModuleType("plain_retriever_mod")
    mod.PlainRetriever = PlainRetriever
    monkeypatch.setitem(sys.modules, "plain_retriever_mod", mod)
    PlainRetriever.calls = []
    return "plain_retriever_mod:PlainRetriever"


def test_a_retriever_without_retrieve_many_gets_the_default(monkeypatch):
    target = _plain_module(monkeypatch)
    cfg = load_config(None, ["embedder.enabled=false"])
    r = load_retriever(target, ListCorpus(DOCS), cfg)
    assert isinstance(r, Retriever) and r.name == "plain"
    lists = r.retrieve_many(["a", "b"], 2)
    assert PlainRetriever.calls == ["a", "b"] and [len(x) for x in lists] == [2, 2]


def test_bm25_inherits_the_default_and_dense_overrides_it():
    from ragcode.retrieval.bm25 import BM25Retriever
    from ragcode.retrieval.dense import DenseRetriever

    assert BM25Retriever.retrieve_many is Retriever.retrieve_many
    assert DenseRetriever.retrieve_many is not Retriever.retrieve_many
    cfg = load_config(None, ["embedder.enabled=false"])
    bm25 = load_retriever("bm25", ListCorpus(DOCS), cfg)
    assert type(bm25) is BM25Retriever  # no wrapper for a retriever that has it
    assert [h.chunk.path for h in bm25.retrieve_many(["word2"], 1)[0]] == ["doc2.md"]


class Counting(Retriever):
    def __init__(self, inner: Retriever):
        self.inner, self.name, self.queries = inner, inner.name, []

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        self.queries.append(query)
        return self.inner.retrieve(query, k, filters)


def test_retrieve_ranks_once_for_both_hits_and_context():
    """The ablation records the hits and the context of one ranking (it used to rank twice)."""
    cfg = load_config(None, ["embedder.enabled=false", "retrieval.mode=bm25"])
    s = Searcher(ListCorpus(DOCS), cfg)
    s.ranker.retriever = spy = Counting(s.ranker.retriever)
    hits, ctx = s.retrieve("alpha word1 `beta`")
    once = list(spy.queries)
    assert once and [h.chunk.id for h in hits] == [
        h.chunk.id for h in s.search("alpha word1 `beta`", cfg.retrieval.k)]
    assert spy.queries == once * 2  # search ranked the same queries again, nothing more
    assert ctx == s.context("alpha word1 `beta`") and ctx.chunk_ids


def test_pack_settings_are_the_packing_fields_of_context_config():
    ccfg = ContextConfig()
    st = PackSettings.from_config(ccfg)
    for f in dataclasses.fields(st):
        assert getattr(st, f.name) == getattr(ccfg, "strip_markup" if f.name == "strip" else f.name)
