"""Context assembly: ranked ``Hit``s -> the budgeted ``Context`` a prompt receives (the second
half of the retrieval stage, after ``ragcode.retrieval.ranking``).

The ``context.*`` settings decide it: the start of the top-level README leads; the top hits
bring their neighbours in their files and their whole documentation section; an instruction
expecting Python gets the signatures of the repository API it and those hits refer to
(``ragcode.retrieval.api_context``) after the first hits; then ``pack``
(``ragcode.retrieval.packing``) fits all that, with the CLI tables linked to README commands,
into the budget.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ragcode.config import ContextConfig
from ragcode.retrieval.api_context import ApiPicker, expects_python
from ragcode.retrieval.base import chunk_table
from ragcode.retrieval.packing import PackSettings, pack
from ragcode.retrieval.symbols import SymbolTable
from ragcode.types import Chunk, Context, Hit

_MARKUP_STARTS = ("<", "![", "[![", "**[", "[<img", "|")


class ContextAssembler:
    """Builds contexts from ranked hits over one corpus with one ``ContextConfig``; reuse it
    (the chunks by id and by file are tabled once)."""

    def __init__(self, corpus: Any, ccfg: ContextConfig):
        self.corpus = corpus
        self.ccfg = ccfg
        self.settings = PackSettings.from_config(ccfg)
        self._by_id: dict[str, Chunk] | None = None
        self._by_file: dict[str, list[Chunk]] | None = None
        self._symbols: SymbolTable | None = None

    def assemble(self, hits: Sequence[Hit], query: str = "") -> Context:
        """The README overview, ``hits`` with their neighbours and sections, packed."""
        lead, ranked = self.overview(), self.whole_sections(self.expand(hits))
        at = self.ccfg.api_after  # the API signatures go right after the first hits
        offered = lead + ranked[:at] + self.api_signatures(hits, query) + ranked[at:]
        return pack(offered, self.settings, lookup=self.lookup, query=query)

    def api_signatures(self, hits: Sequence[Hit], query: str) -> list[Hit]:
        """For an instruction expecting Python or naming a definition: the focused api chunks
        of what it and the top hits refer to (``api_context.ApiPicker``)."""
        if self.ccfg.api_top <= 0 or not query:
            return []
        if self._symbols is None:
            self._symbols = SymbolTable(chunk_table(self.corpus)[1])
        named = self._symbols.named_api(query) if self._symbols else []
        described: tuple[list[Chunk], set[str]] = ([], set())
        if self._symbols and self.ccfg.api_described > 0 and expects_python(query):
            described = self._symbols.described_api(query, self.ccfg.api_described)
        return ApiPicker(self.ccfg, self.lookup).pick(hits, query, named, described)

    def lookup(self, ids: Iterable[str]) -> list[Chunk]:
        if self._by_id is None:
            self._by_id = {c.id: c for c in chunk_table(self.corpus)[1]}
        return [self._by_id[i] for i in ids if i in self._by_id]

    def overview(self) -> list[Hit]:
        """The first chunk of the top-level README, cut to ``context.overview_chars``."""
        limit = self.ccfg.overview_chars
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
            for c in chunk_table(self.corpus)[1]:
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
        ccfg = self.ccfg
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
        ccfg = self.ccfg
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
