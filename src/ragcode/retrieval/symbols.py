"""Exact-name lookup in the symbol index, for ranking: a query that names a definition
(``get_lr``, ``DefaultPredictor``, ``GPT.from_pretrained``, ``whisper.load_model``) gets the
chunk holding that definition first.

``SymbolTable(chunks)`` reads the definitions a module's first code chunk carries
(``metadata["definitions"]``, the same records the index stores in its ``symbols`` table) and
finds, for each, the code chunk holding its ``def`` / ``class`` line (the narrowest one).
``named_symbols(query)`` are the query's words that name a definition: a word with ``_``, a
dot or an inner capital, or a query that is a single word; a dotted word matches a qualified
name by its trailing parts. ``definition_hits(query)`` are their chunks, best match first.
``explained(hits, query)`` puts, before an ``api`` hit, the definition of the line in it that
shares the most words with the query (a docstring query lands on the listing's line first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragcode.types import Chunk, Hit

_WORD = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_PLAIN = re.compile(r"[a-z0-9]+")
_CODE_KINDS = ("code",)
STOP = frozenset("a an the of to in for and or is are be by with on from this that it its as at "
                 "into if else not all any each we you i me my can do does how what which "
                 "use using".split())
SYMBOL_QUERY_WORDS = 12  # a longer query is an instruction: the names in it route nothing
DOC_SHARE = 0.6  # share of the query's words a definition's name + docstring line must hold
DOC_MIN_WORDS = 3


def words(text: str) -> set[str]:
    """Lower-cased content words (identifiers split at ``_``), stopwords out."""
    return {w for w in _PLAIN.findall(text.lower().replace("_", " ")) if w not in STOP}


def _is_code_like(word: str) -> bool:
    return "_" in word or "." in word or any(c.isupper() for c in word[1:])


class SymbolTable:
    """Definitions by name, each with the chunk holding it."""

    def __init__(self, chunks: Sequence[Chunk]):
        self.keys: dict[str, list[tuple[dict[str, Any], Chunk]]] = {}
        code: dict[str, list[Chunk]] = {}
        for c in chunks:
            if c.kind in _CODE_KINDS:
                code.setdefault(c.path, []).append(c)
        self.by_qualname: dict[str, tuple[dict[str, Any], Chunk]] = {}
        self.api_of: dict[str, Chunk] = {}  # qualified name -> the api chunk listing it
        self.docs: list[tuple[set[str], tuple[dict[str, Any], Chunk]]] = []
        self.postings: dict[str, list[int]] = {}  # word -> positions in ``docs``
        self._described: Any = None  # a DefinitionIndex, built on first use
        for c in chunks:
            if c.kind == "api":
                for qual in c.metadata.get("listed", []):
                    self.api_of.setdefault(str(qual), c)
        for c in chunks:
            for sym in c.metadata.get("definitions", []) if c.kind == "code" else []:
                holder = self._holder(code.get(sym.get("path", ""), []), sym)
                if holder is None:
                    continue
                entry = (sym, holder)
                if sym.get("doc"):
                    doc_words = words(f"{sym.get('name', '')} {sym.get('doc', '')}")
                    self.docs.append((doc_words, entry))
                    for w in doc_words:
                        self.postings.setdefault(w, []).append(len(self.docs) - 1)
                qual = str(sym.get("qualname", ""))
                self.by_qualname[qual] = entry
                parts = qual.split(".")
                for i in range(len(parts)):
                    self.keys.setdefault(".".join(parts[i:]), []).append(entry)

    @staticmethod
    def _holder(chunks: list[Chunk], sym: dict[str, Any]) -> Chunk | None:
        """The narrowest code chunk holding the definition's first line (its decorators'
        or ``def``'s)."""
        line = int(sym.get("line", 0))
        inside = [c for c in chunks if c.start_line <= line <= c.end_line]
        if not inside:  # a chunk that starts at the def after comment lines above it
            inside = [c for c in chunks if line <= c.start_line <= int(sym.get("end_line", line))]
        return min(inside, key=lambda c: (c.end_line - c.start_line, c.start_line)) \
            if inside else None

    def __bool__(self) -> bool:
        return bool(self.keys)

    def named_symbols(self, query: str) -> list[str]:
        """The query's words that name a definition (see the module doc), in query order."""
        words = [w.rstrip(".") for w in _WORD.findall(query)]
        single = len(words) == 1
        return list(dict.fromkeys(w for w in words if (single or _is_code_like(w))
                                  and w in self.keys))

    def definition_hits(self, query: str, limit: int = 5) -> list[Hit]:
        """Chunks holding the definitions the query names: for each name, public definitions
        before private ones, then classes and functions before methods, then shorter paths."""
        out: dict[str, Hit] = {}
        for name in self.named_symbols(query):
            entries = sorted(self.keys[name], key=_preference)
            for sym, chunk in entries:
                if chunk.id not in out and len(out) < limit:
                    out[chunk.id] = Hit(chunk=chunk, score=1.0, rank=len(out), source="symbol")
        return list(out.values())

    def described_hits(self, query: str, limit: int = 3) -> list[Hit]:
        """Chunks holding the definitions whose name and docstring line hold at least
        ``DOC_SHARE`` of the query's words (and ``DOC_MIN_WORDS``): a query that reads as a
        definition's description. Long requests (an instruction) rarely qualify."""
        want = words(query)
        if len(want) < DOC_MIN_WORDS:
            return []
        counts: dict[int, int] = {}
        for w in want:
            for i in self.postings.get(w, ()):
                counts[i] = counts.get(i, 0) + 1
        need = max(DOC_MIN_WORDS, DOC_SHARE * len(want))
        best = sorted((i for i, n in counts.items() if n >= need),
                      key=lambda i: (-counts[i], len(self.docs[i][0])))
        out: dict[str, Hit] = {}
        for i in best:
            chunk = self.docs[i][1][1]
            if chunk.id not in out and len(out) < limit:
                out[chunk.id] = Hit(chunk=chunk, score=1.0, rank=len(out), source="symbol-doc")
        return list(out.values())

    def described_api(self, query: str, limit: int = 1) -> tuple[list[Chunk], set[str]]:
        """The api chunks listing the definitions ``query`` describes best in plain words
        (``definitions.DefinitionIndex``), at most ``limit``, and those definitions' names."""
        if self._described is None:
            from ragcode.retrieval.definitions import DefinitionIndex

            self._described = DefinitionIndex([sym for sym, _ in self.by_qualname.values()])
        chunks: dict[str, Chunk] = {}
        names: set[str] = set()
        for sym in self._described.best(query, limit=3 * limit):
            api = self.api_of.get(str(sym.get("qualname", "")))
            if api is None or (api.id not in chunks and len(chunks) >= limit):
                continue
            chunks.setdefault(api.id, api)
            names.add(str(sym.get("parent") if sym.get("name") == "__init__" else sym.get("name")))
        return list(chunks.values()), names

    def named_api(self, query: str, limit: int = 3) -> list[Chunk]:
        """The api chunks listing the definitions the query names."""
        out: dict[str, Chunk] = {}
        for name in self.named_symbols(query):
            for sym, _chunk in sorted(self.keys[name], key=_preference):
                api = self.api_of.get(str(sym.get("qualname", "")))
                if api is not None and len(out) < limit:
                    out.setdefault(api.id, api)
        return list(out.values())

    def explained(self, hits: Sequence[Hit], query: str, top: int) -> list[Hit]:
        """``hits`` with, right before each ``api`` hit among the first ``top``, the definition
        of its listed line that shares the most (and at least two) words with the query."""
        want = {w for w in _PLAIN.findall(query.lower()) if w not in STOP}
        if not want:
            return list(hits)
        out: list[Hit] = []
        seen = {h.chunk.id for h in hits[:top] if h.chunk.kind != "api"}
        for i, hit in enumerate(hits):
            if i < top and hit.chunk.kind == "api":
                best = self._best_line(hit.chunk, want)
                if best is not None and best.id not in seen:
                    seen.add(best.id)
                    out.append(Hit(chunk=best, score=hit.score, rank=hit.rank, source="symbol"))
            if hit.chunk.id in seen and hit.chunk.kind != "api" and i >= top:
                continue
            out.append(hit)
        return [Hit(chunk=h.chunk, score=h.score, rank=r, source=h.source)
                for r, h in enumerate(out)]

    def _best_line(self, api: Chunk, want: set[str]) -> Chunk | None:
        best, best_n = None, 1
        for qual in api.metadata.get("listed", []):
            entry = self.by_qualname.get(str(qual))
            if entry is None:
                continue
            sym, chunk = entry
            words = set(_PLAIN.findall(f"{sym.get('name', '')} {sym.get('doc', '')}".lower()
                                       .replace("_", " ")))
            n = len(words & want)
            if n > best_n:
                best, best_n = chunk, n
        return best


def _preference(entry: tuple[dict[str, Any], Chunk]) -> tuple[int, int, int, str]:
    sym, chunk = entry
    name = str(sym.get("name", ""))
    private = name.startswith("_") and name != "__init__"
    return (int(private), int(sym.get("kind") == "method"), chunk.path.count("/"), chunk.path)
