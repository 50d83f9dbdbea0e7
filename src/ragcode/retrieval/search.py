"""Search and context building: the retrieval stage's entry points.

- ``search(index, query, k, config)`` -> ranked ``Hit``s (``ragcode.search`` and ``ragcode search``)
- ``retrieve_context(index, instruction, config)`` -> the budgeted ``Context`` a prompt gets.
  It accepts only the task's instruction and the repository's index: no other task field
  (oracle, arguments, output, path) can reach retrieval.
"""

from __future__ import annotations

import fnmatch
import logging
import re
import weakref
from typing import Any, Sequence

from ragcode.config import Config
from ragcode.retrieval.base import RERANKERS, RETRIEVERS, Filters, Query, chunk_table
from ragcode.retrieval.fusion import rrf
from ragcode.retrieval.packing import pack
from ragcode.retrieval.query import build_query, identifiers, strip_filler
from ragcode.types import Chunk, Context, Hit

log = logging.getLogger(__name__)


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
    """Multiply each hit's score by ``1 + boost`` per code-like name of the query that its text
    contains verbatim (case-insensitive), and re-rank. A name found in more than ``max_share``
    of the hits (at least two) is too common to point anywhere and counts for nothing."""
    if boost <= 0 or not names or not hits:
        return list(hits)
    texts = [h.chunk.text.lower() for h in hits]
    limit = max(2, int(max_share * len(hits)))
    telling = [n for n in names if sum(n in t for t in texts) <= limit]
    if not telling:
        return list(hits)
    scored = [(h.score * (1.0 + boost * sum(n in t for n in telling)), i, h)
              for i, (h, t) in enumerate(zip(hits, texts))]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [Hit(chunk=h.chunk, score=s, rank=r, source=h.source)
            for r, (s, _, h) in enumerate(scored)]


_MARKUP_STARTS = ("<", "![", "[![", "**[", "[<img", "|")


class Searcher:
    """A retriever (+ optional reranker) bound to one index and one config; reuse it."""

    def __init__(self, index: Any, config: Config):
        self.index = index
        self.config = config
        self.retriever = RETRIEVERS.get(config.retrieval.mode)(index, config)
        self.reranker = None
        if config.rerank.enabled:
            self.reranker = RERANKERS.get(config.rerank.backend)(config)
        self.filters = Filters(kinds=tuple(config.retrieval.kinds),
                               path_prefix=config.retrieval.path_prefix)
        self._by_id: dict[str, Chunk] | None = None
        self._by_file: dict[str, list[Chunk]] | None = None

    def lookup(self, ids: Sequence[str]) -> list[Chunk]:
        if self._by_id is None:
            self._by_id = {c.id: c for c in chunk_table(self.index)[1]}
        return [self._by_id[i] for i in ids if i in self._by_id]

    def overview(self) -> list[Hit]:
        """The first chunk of the top-level README, cut to ``context.overview_chars``."""
        limit = self.config.context.overview_chars
        if limit <= 0:
            return []
        readmes = sorted(p for p in self._file_order() if "/" not in p and
                         p.lower().startswith("readme"))
        if not readmes:
            return []
        first = self._file_order()[readmes[0]][0]
        # prose only: badges, images, HTML and link rows say little and cost a lot
        lines = [ln for ln in first.text.split("\n")
                 if ln.strip() and not ln.lstrip().startswith(_MARKUP_STARTS)]
        text = ""
        for ln in lines:
            if len(text) + len(ln) + 1 > limit:
                break
            text += ln + "\n"
        if not text.strip():
            return []
        first = Chunk(path=first.path, kind=first.kind, text=text.rstrip("\n"),
                      start_line=first.start_line, end_line=first.end_line, symbol=first.symbol,
                      header=first.header, language=first.language, metadata={})
        return [Hit(chunk=first, score=0.0, rank=0, source="overview")]

    def _file_order(self) -> dict[str, list[Chunk]]:
        if self._by_file is None:
            by_file: dict[str, list[Chunk]] = {}
            for c in chunk_table(self.index)[1]:
                by_file.setdefault(c.path, []).append(c)
            for chunks in by_file.values():
                chunks.sort(key=lambda c: (c.start_line, c.end_line))
            self._by_file = by_file
        return self._by_file

    def section_of(self, chunk: Chunk, depth: int) -> list[Chunk]:
        """The contiguous chunks of ``chunk``'s file that share its heading path down to
        ``depth`` levels (its section with all subsections), in file order."""
        parts = [p.strip() for p in chunk.symbol.split(">")] if chunk.symbol else []
        if not parts:
            return [chunk]
        prefix = parts[:max(1, min(depth, len(parts)))]
        siblings = [c for c in self._file_order().get(chunk.path, []) if c.kind == chunk.kind]
        pos = next((j for j, c in enumerate(siblings) if c.id == chunk.id), None)
        if pos is None:
            return [chunk]

        def inside(c: Chunk) -> bool:
            return [p.strip() for p in c.symbol.split(">")][:len(prefix)] == prefix

        lo = pos
        while lo > 0 and inside(siblings[lo - 1]):
            lo -= 1
        hi = pos + 1
        while hi < len(siblings) and inside(siblings[hi]):
            hi += 1
        return siblings[lo:hi]

    def whole_sections(self, hits: Sequence[Hit]) -> list[Hit]:
        """Right after each of the top ``section_top`` documentation hits, its whole section
        (heading path cut to ``section_depth`` levels) when that is at most ``section_chars``:
        a README's usage section reads as one piece, not as scattered chunks."""
        ccfg = self.config.context
        if ccfg.section_top <= 0:
            return list(hits)
        out: list[Hit] = []
        for i, hit in enumerate(hits):
            out.append(hit)
            if i >= ccfg.section_top or hit.chunk.kind not in ccfg.expand_kinds:
                continue
            section = self.section_of(hit.chunk, ccfg.section_depth)
            if len(section) < 2 or sum(len(c.text) for c in section) > ccfg.section_chars:
                continue
            out.extend(Hit(chunk=c, score=hit.score, rank=hit.rank, source="section")
                       for c in section if c.id != hit.chunk.id)
        return out

    def expand(self, hits: Sequence[Hit]) -> list[Hit]:
        """The first ``expand_after`` hits, then the neighbours of the top ``expand_top`` in
        their files (same kind), then the rest."""
        ccfg = self.config.context
        top = list(hits[:ccfg.expand_top])
        if not top or (ccfg.expand_next <= 0 and ccfg.expand_prev <= 0):
            return list(hits)
        near: list[Hit] = []
        for hit in top:
            if hit.chunk.kind not in ccfg.expand_kinds:
                continue
            siblings = [c for c in self._file_order().get(hit.chunk.path, [])
                        if c.kind == hit.chunk.kind]
            pos = next((j for j, c in enumerate(siblings) if c.id == hit.chunk.id), None)
            if pos is None:
                continue
            chosen = siblings[pos + 1:pos + 1 + ccfg.expand_next] + \
                siblings[max(0, pos - ccfg.expand_prev):pos]
            near.extend(Hit(chunk=c, score=hit.score, rank=hit.rank, source="neighbour")
                        for c in chosen)
        after = max(ccfg.expand_after, len(top))
        return list(hits[:after]) + near + list(hits[after:])

    def search_query(self, query: Query, k: int) -> list[Hit]:
        cfg = self.config.retrieval
        n = max(k, cfg.candidates)
        if cfg.filler_phrases:
            query = Query(text=strip_filler(query.text, cfg.filler_phrases),
                          sub_queries=query.sub_queries)
        texts = query.all if cfg.multi_query else (query.text,)
        if hasattr(self.retriever, "retrieve_many"):
            lists = self.retriever.retrieve_many(list(texts), n, self.filters)
        else:
            lists = [self.retriever.retrieve(t, n, self.filters) for t in texts]
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
        if self.reranker is not None and hits:
            rcfg = self.config.rerank
            head = hits[:rcfg.top_n]
            # rescoring drops the priors; they hold for the rescored hits too
            rescored = self._priors(self.reranker.rerank(query.text, head, rcfg.top_n), query)
            if rcfg.fusion == "rrf":  # keep the first stage's order as one vote
                rescored = rrf([head, rescored], k=cfg.rrf_k, weights=[1.0, rcfg.weight])
            hits = rescored + list(hits[rcfg.top_n:])
        return [Hit(chunk=h.chunk, score=h.score, rank=i, source=h.source)
                for i, h in enumerate(hits[:k])]

    def _priors(self, hits: Sequence[Hit], query: Query) -> list[Hit]:
        """Kind, file and heading priors, then the boost for code-like names of the query."""
        cfg = self.config.retrieval
        if cfg.kind_weights or cfg.path_weights or cfg.heading_weights:
            hits = apply_priors(hits, cfg.kind_weights, cfg.path_weights, cfg.root_weight,
                                cfg.heading_weights)
        return boost_identifiers(hits, identifiers(query.text), cfg.identifier_boost,
                                 cfg.identifier_max_share)

    def search(self, text: str, k: int) -> list[Hit]:
        return self.search_query(build_query(text, multi=self.config.retrieval.multi_query), k)

    def context(self, instruction: str) -> Context:
        ccfg = self.config.context
        query = build_query(instruction, multi=self.config.retrieval.multi_query)
        hits = self.search_query(query, self.config.retrieval.k)
        hits = self.overview() + self.whole_sections(self.expand(hits))
        return pack(hits, budget=ccfg.budget, unit=ccfg.unit, merge_adjacent=ccfg.merge_adjacent,
                    pair_cli_tables=ccfg.pair_cli_tables, order=ccfg.order,
                    compact=ccfg.compact, pair_top=ccfg.pair_top,
                    pair_chars=ccfg.pair_chars, lookup=self.lookup,
                    query=query.text, heading_levels=ccfg.heading_levels,
                    strip=ccfg.strip_markup, compact_code=ccfg.compact_code)


_SEARCHERS: "weakref.WeakKeyDictionary[Any, dict[str, Searcher]]" = weakref.WeakKeyDictionary()


def _resolve(index: Any, config: Config | None) -> tuple[Any, Config]:
    if config is None:
        from ragcode.config import load_config

        config = load_config()
    if isinstance(index, (str, bytes)) or hasattr(index, "__fspath__"):
        from ragcode.index.store import load_index

        index = load_index(index, config)
    return index, config


def searcher_for(index: Any, config: Config | None = None) -> Searcher:
    """A cached ``Searcher`` for this index object and the retrieval-relevant config."""
    index, config = _resolve(index, config)
    key = config.section_hash("retrieval", "rerank", "context", "embedder")
    try:
        per_index = _SEARCHERS.setdefault(index, {})
    except TypeError:  # not weak-referenceable: no caching
        return Searcher(index, config)
    if key not in per_index:
        per_index[key] = Searcher(index, config)
    return per_index[key]


def search(index: Any, query: str, k: int = 10, config: Config | None = None) -> list[Hit]:
    """Ranked hits for ``query`` from ``index`` (an ``Index``, or a name or path to load)."""
    return searcher_for(index, config).search(query, k)


def retrieve_context(index: Any, instruction: str, config: Config | None = None) -> Context:
    """The packed context for one task instruction. Takes nothing else from the task."""
    return searcher_for(index, config).context(instruction)
