"""Ranking: a query -> ranked ``Hit``s over one corpus (the first half of the retrieval stage).

The configured retriever (``retrieval.mode``) gives candidate lists for the query, its
sub-queries and a documentation-only pass, fused by reciprocal rank; then priors (chunk kind,
file name, heading), the boost for code-like names of the query, near-duplicate demotion and
the optional reranker. ``ragcode.retrieval.assembly`` turns the ranked hits into a context.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any, Sequence

from ragcode.config import Config
from ragcode.retrieval.api_context import expects_python
from ragcode.retrieval.base import RERANKERS, Filters, Query, chunk_table, load_retriever
from ragcode.retrieval.fusion import rrf
from ragcode.retrieval.query import identifiers, strip_filler
from ragcode.retrieval.symbols import SYMBOL_QUERY_WORDS, SymbolTable
from ragcode.types import CHUNK_KINDS, Chunk, Hit


def path_weight(path: str, weights: dict[str, float]) -> float:
    name = path.rsplit("/", 1)[-1]
    for pattern, weight in weights.items():
        if fnmatch.fnmatchcase(path if "/" in pattern else name, pattern):
            return weight
    return 1.0


_DOC_KINDS = ("markdown", "notebook", "text")


def heading_weight(chunk: Chunk, weights: dict[str, float]) -> float:
    """The largest weight of a phrase in the innermost heading of a documentation chunk
    ("Usage", "Quick Start", "Example"): sections that say how to run things."""
    if not weights or chunk.kind not in _DOC_KINDS or not chunk.symbol:
        return 1.0
    heading = " " + " ".join(re.findall(r"[a-z0-9]+", chunk.symbol.rsplit(">", 1)[-1].lower())) + " "
    found = [w for phrase, w in weights.items() if f" {phrase.lower()} " in heading]
    return max(found) if found else 1.0


def apply_priors(hits: Sequence[Hit], kind_weights: dict[str, float],
                 path_weights: dict[str, float], root_weight: float = 1.0,
                 heading_weights: dict[str, float] | None = None) -> list[Hit]:
    """Multiply each hit's score by its kind's, its file's and its heading's prior; re-rank."""
    def prior(c: Chunk) -> float:
        w = kind_weights.get(c.kind, 1.0) * path_weight(c.path, path_weights)
        w *= heading_weight(c, heading_weights or {})
        return w * root_weight if "/" not in c.path else w

    scored = [(h.score * prior(h.chunk), h) for h in hits]
    scored.sort(key=lambda sh: -sh[0])
    return [Hit(chunk=h.chunk, score=s, rank=i, source=h.source) for i, (s, h) in enumerate(scored)]


_WORD_RE = re.compile(r"[A-Za-z0-9_]+")


def demote_near_duplicates(hits: Sequence[Hit], threshold: float, penalty: float) -> list[Hit]:
    """Multiply by ``penalty`` the score of a hit whose word set overlaps an earlier kept
    hit's by at least ``threshold`` (Jaccard), and re-rank: many near-identical files (one
    script per model, one config per dataset) should not fill the context with one idea."""
    if threshold <= 0 or penalty >= 1:
        return list(hits)
    kept: list[set[str]] = []
    scored: list[tuple[float, int, Hit]] = []
    for i, h in enumerate(hits):
        words = {w.lower() for w in _WORD_RE.findall(h.chunk.text)}
        dup = any(len(words & k) >= threshold * len(words | k) for k in kept if words | k)
        if not dup:
            kept.append(words)
        scored.append((h.score * penalty if dup else h.score, i, h))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [Hit(chunk=h.chunk, score=s, rank=r, source=h.source)
            for r, (s, _, h) in enumerate(scored)]


def boost_identifiers(hits: Sequence[Hit], names: Sequence[str], boost: float,
                      max_share: float) -> list[Hit]:
    """Multiply each hit's score by ``1 + boost`` per code-like name of the query that its path
    or text contains verbatim (case-insensitive), and re-rank. A name found in the hits of more
    than ``max_share`` of ``len(hits)`` folders (at least two) is too common to point anywhere
    and counts for nothing; many chunks of one folder do not make it common."""
    if boost <= 0 or not names or not hits:
        return list(hits)
    texts = [f"{h.chunk.path}\n{h.chunk.text}".lower() for h in hits]
    folders = [h.chunk.path.rsplit("/", 1)[0] if "/" in h.chunk.path else "" for h in hits]
    limit = max(2, int(max_share * len(hits)))
    telling = [n for n in names if len({f for f, t in zip(folders, texts) if n in t}) <= limit]
    if not telling:
        return list(hits)
    scored = [(h.score * (1.0 + boost * sum(n in t for n in telling)), i, h)
              for i, (h, t) in enumerate(zip(hits, texts))]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [Hit(chunk=h.chunk, score=s, rank=r, source=h.source)
            for r, (s, _, h) in enumerate(scored)]


class Ranker:
    """A retriever (+ optional reranker) bound to one corpus and the ``retrieval`` and
    ``rerank`` settings; reuse it (the retriever builds its tables once)."""

    def __init__(self, corpus: Any, config: Config):
        self.cfg = config.retrieval
        self.rcfg = config.rerank
        self.retriever = load_retriever(config.retrieval.mode, corpus, config)
        self.reranker = None
        if config.rerank.enabled:
            self.reranker = RERANKERS.get(config.rerank.backend)(config)
        self.filters = Filters(kinds=tuple(config.retrieval.kinds),
                               path_prefix=config.retrieval.path_prefix)
        self.corpus = corpus
        self._symbols: SymbolTable | None = None
        kinds = tuple(k for k in (self.filters.kinds or CHUNK_KINDS) if k != "api")
        self._without_api = Filters(kinds=kinds, path_prefix=self.filters.path_prefix)

    @property
    def symbols(self) -> SymbolTable:
        """The symbol index of the corpus (built on first use from its api chunks)."""
        if self._symbols is None:
            self._symbols = SymbolTable(chunk_table(self.corpus)[1])
        return self._symbols

    def rank(self, query: Query, k: int) -> list[Hit]:
        """The top ``k`` hits for ``query``, ranked 0..k-1."""
        cfg = self.cfg
        n = max(k, cfg.candidates)
        if cfg.filler_phrases:
            query = Query(text=strip_filler(query.text, cfg.filler_phrases),
                          sub_queries=query.sub_queries)
        texts = query.all if cfg.multi_query else (query.text,)
        # an instruction for a command ranks without API listings, as if they did not exist
        filters = self.filters if self._wants_api(query.text) else self._without_api
        lists = self.retriever.retrieve_many(list(texts), n, filters)
        weights = [1.0] + [cfg.sub_query_weight] * (len(lists) - 1)
        if cfg.docs_query_weight > 0 and not self.filters.kinds:
            # the instruction again, over documentation only: a README section that says how
            # to run things must reach the candidates even when many scripts match better
            docs = Filters(kinds=tuple(cfg.docs_kinds), path_prefix=self.filters.path_prefix)
            lists.append(self.retriever.retrieve(query.text, n, docs))
            weights.append(cfg.docs_query_weight)
        if len(lists) == 1:
            hits = lists[0]
        else:
            hits = rrf(lists, k=cfg.rrf_k, weights=weights, limit=n)
        hits = self._priors(hits, query)
        hits = demote_near_duplicates(hits, cfg.duplicate_threshold, cfg.duplicate_penalty)
        hits = self._definitions(hits, query.text, n)
        if self.reranker is not None and hits:
            rcfg = self.rcfg
            head = hits[:rcfg.top_n]
            # rescoring drops the priors; they hold for the rescored hits too
            rescored = self._priors(self.reranker.rerank(query.text, head, rcfg.top_n), query)
            if rcfg.fusion == "rrf":  # keep the first stage's order as one vote
                rescored = rrf([head, rescored], k=cfg.rrf_k, weights=[1.0, rcfg.weight])
            hits = rescored + list(hits[rcfg.top_n:])
        return [Hit(chunk=h.chunk, score=h.score, rank=i, source=h.source)
                for i, h in enumerate(hits[:k])]

    def _wants_api(self, text: str) -> bool:
        """Whether api listings compete in the ranking: for a search-sized query, one that
        expects Python, or a kind filter naming them. A long instruction for a command ranks as
        it would without them (their words would shift the ranks of the passages it needs)."""
        return len(text.split()) <= SYMBOL_QUERY_WORDS or expects_python(text) or \
            "api" in self.filters.kinds

    def _definitions(self, hits: list[Hit], text: str, n: int) -> list[Hit]:
        """The definitions the query describes (most of its words in one definition's name and
        docstring sentence) and, for a search-sized query (at most ``SYMBOL_QUERY_WORDS``
        words), those it names, first (fused by RRF); for such a query also the definition
        behind a matching line of an api hit, before that hit. A longer instruction that
        mentions a class (``train APPNP on citeseer``) asks how to run something, not where it
        is defined: names in it do not reorder the ranking."""
        cfg = self.cfg
        table = self.symbols if cfg.symbol_weight > 0 or cfg.api_explain_top > 0 else None
        if not table:
            return hits
        short = len(text.split()) <= SYMBOL_QUERY_WORDS
        if cfg.symbol_weight > 0:
            named = table.definition_hits(text) if short else []
            # a name is exact; a description may match a sibling's docstring too
            found = {h.chunk.id: h for h in named + table.described_hits(text)}
            defs = [h for h in found.values() if self.filters.accepts(h.chunk)]
            if defs:
                hits = rrf([defs, hits], k=cfg.rrf_k, weights=[cfg.symbol_weight, 1.0], limit=n)
        if cfg.api_explain_top > 0 and short:
            hits = [h for h in table.explained(hits, text, cfg.api_explain_top)
                    if self.filters.accepts(h.chunk)]
        return hits

    def _priors(self, hits: Sequence[Hit], query: Query) -> list[Hit]:
        """Kind, file and heading priors, then the boost for code-like names of the query."""
        cfg = self.cfg
        if cfg.kind_weights or cfg.path_weights or cfg.heading_weights:
            hits = apply_priors(hits, cfg.kind_weights, cfg.path_weights, cfg.root_weight,
                                cfg.heading_weights)
        return boost_identifiers(hits, identifiers(query.text), cfg.identifier_boost,
                                 cfg.identifier_max_share)
