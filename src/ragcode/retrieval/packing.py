"""Context packing: ranked hits -> one budgeted ``Context`` a prompt receives verbatim.

Steps: walk the hits best first; skip a chunk whose lines are already covered; right after a
README command chunk add the CLI table chunk(s) of the script it calls (``metadata["cli_links"]``)
and vice versa; merge overlapping or adjacent chunks of one file into one piece; head every
piece with ``### path:start-end``; optionally strip markup from documentation pieces
(``ragcode.retrieval.markup``) and compact them (``Compactor``); order pieces by best rank (or
by path). Budgets are counted on the rendered text, so what stripping and compaction save is
room for more passages. The rendered text is
never longer than the budget: a piece that does not fit whole is cut at a line boundary, or left
out when too little room is left.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from ragcode.asked import asked_kind
from ragcode.chunking.markdown import fence_mask
from ragcode.config import ContextConfig
from ragcode.retrieval.markup import strip_markup
from ragcode.shell import starts_like_command
from ragcode.textfit import fitting_line_count
from ragcode.types import Chunk, Context, Hit

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
MIN_PARTIAL = 200  # do not add a cut piece smaller than this many units
MARKUP_KINDS = ("markdown",)  # chunk kinds whose images, link addresses and HTML may be stripped


def count_chars(text: str) -> int:
    return len(text)


def count_tokens(text: str) -> int:
    """A model-free token estimate: words and single punctuation marks."""
    return len(_TOKEN_RE.findall(text))


COUNTERS: dict[str, Callable[[str], int]] = {"chars": count_chars, "tokens": count_tokens}


@dataclass
class _Piece:
    path: str
    start: int
    end: int
    lines: dict[int, str]
    best_rank: int
    symbol: str
    chunk_ids: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)  # texts whose lines could not be placed
    markdown: bool = False  # a documentation piece: its markup may be stripped

    def render(self, style: Style, compactor: Compactor | None = None,
               memo: _Memo | None = None) -> str:
        head = f"### {self.path}:{self.start}-{self.end}"
        symbol = self.symbol
        if style.heading_levels > 0 and " > " in symbol:  # the innermost headings only
            symbol = " > ".join(symbol.split(" > ")[-style.heading_levels:])
        if symbol:
            head += f" ({symbol})"
        body_lines = [self.lines[i] for i in range(self.start, self.end + 1) if i in self.lines]
        body_lines = "\n".join(body_lines + self.raw).strip("\n").split("\n")
        memo = memo or _Memo()
        if style.strip and self.markdown:
            body_lines = memo.stripped(body_lines)
        if compactor is not None:
            body_lines = compactor.filter(body_lines, code=not self.markdown, memo=memo)
        return head + "\n" + "\n".join(body_lines)


# a piece's lines recur across candidates and across queries (the same README sections): the
# markdown-it parse behind a fence mask and the markup stripping are kept process-wide
@functools.lru_cache(maxsize=4096)
def _mask(lines: tuple[str, ...]) -> list[bool]:
    return fence_mask(list(lines))


@functools.lru_cache(maxsize=4096)
def _stripped(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(strip_markup(list(lines)))


class _Memo:
    """What rendering a piece computes from its lines alone, kept for one ``pack`` call (each
    line's normalised form and words) or process-wide (fence masks, markup stripped): the
    context is rendered again for every candidate piece, mostly from the same lines."""

    def __init__(self) -> None:
        self._lines: dict[str, tuple[str, str, frozenset[str]]] = {}

    def stripped(self, lines: list[str]) -> list[str]:
        return list(_stripped(tuple(lines)))

    def mask(self, lines: list[str]) -> list[bool]:
        return _mask(tuple(lines))

    def line(self, raw: str) -> tuple[str, str, frozenset[str]]:
        """(the line with blanks normalised, its stripped key, its lower-cased words)."""
        got = self._lines.get(raw)
        if got is None:
            line = _INNER_SPACE.sub(" ", raw.rstrip())
            key = line.strip()
            got = self._lines[raw] = (line, key, frozenset(w.lower() for w in _WORDS.findall(key)))
        return got


_WORDS = re.compile(r"[A-Za-z0-9_\-\.]+")
_INNER_SPACE = re.compile(r"(?<=\S)[ \t]{2,}")
COMPACT_LEVELS = ("none", "whitespace", "lines", "words")


_IMPORT = re.compile(r"^(?:import\s+\S|from\s+\S+\s+import\s)")
CODE_POLICIES = ("keep", "imports", "commands", "compact")


class Compactor:
    """Drops what adds nothing to a context, at one of ``COMPACT_LEVELS``:

    - ``whitespace``: trailing blanks, runs of inner spaces (table padding) and blank lines go;
      indentation stays;
    - ``lines``: also a line repeated verbatim from earlier in the context;
    - ``words``: also a line all of whose words already appear earlier in the context.

    Code (lines inside a fence, and every line of a piece that is not documentation) is treated
    by ``code``: ``keep`` leaves every code line in place (only whitespace is normalised), so an
    example still reads as the program it is; ``imports`` also drops an import line repeated
    verbatim (the same ``import torch`` in every example); ``compact`` treats code like prose,
    which saves the most room but can cut an argument line or a closing bracket out of a call
    (``model = TransformerWrapper(`` goes when its words came earlier, and a model copying the
    example writes the arguments under an import); ``commands`` compacts code like prose but for
    a shell command line, which goes only when repeated verbatim (``python train.py`` stays although
    the prose said "the train.py script"). The setting ``auto`` is decided per instruction by
    ``pack``: ``imports`` when it asks for Python in so many words, else ``compact``.
    Fence lines are always kept so markdown structure survives.
    """

    def __init__(self, level: str, code: str = "compact"):
        if level not in COMPACT_LEVELS:
            raise ValueError(f"context.compact must be one of {COMPACT_LEVELS}, not {level!r}")
        if code not in CODE_POLICIES:
            raise ValueError(f"context.compact_code must be one of {CODE_POLICIES}, not {code!r}")
        self.level = COMPACT_LEVELS.index(level)
        self.code = code
        self.seen_lines: set[str] = set()
        self.seen_words: set[str] = set()

    def _drop(self, key: str, words: frozenset[str], is_code: bool) -> bool:
        repeated = self.level >= 2 and key in self.seen_lines
        covered = self.level >= 3 and bool(words) and words <= self.seen_words
        if not is_code or self.code == "compact":
            return repeated or covered
        if self.code == "commands":
            return repeated or covered and not starts_like_command(key)
        return self.code == "imports" and repeated and bool(_IMPORT.match(key))

    def filter(self, lines: list[str], code: bool = False, memo: _Memo | None = None) -> list[str]:
        """``lines`` of one piece, compacted; ``code`` = the piece is code throughout."""
        if self.level == 0:
            return lines
        memo = memo or _Memo()
        out = []
        for raw, in_fence in zip(lines, memo.mask(lines)):
            line, key, words = memo.line(raw)
            if not key:
                continue
            if key.startswith(("```", "~~~")):
                out.append(line)
                continue
            if self._drop(key, words, code or in_fence):
                continue
            self.seen_lines.add(key)
            self.seen_words |= words
            out.append(line)
        return out


def _chunk_lines(chunk: Chunk) -> dict[int, str] | None:
    lines = chunk.text.split("\n")
    if chunk.kind == "api" or len(lines) != chunk.end_line - chunk.start_line + 1:
        return None
    return {chunk.start_line + i: line for i, line in enumerate(lines)}


def _place(chunk: Chunk) -> str:
    """Where a chunk's lines live for merging: its file, or apart for an api listing (its
    lines span the module's definitions but its text is a table, not those lines)."""
    return f"{chunk.path}\0api" if chunk.kind == "api" else chunk.path


def _covered(selected: Sequence[Chunk], chunk: Chunk) -> bool:
    for s in selected:
        if _place(s) == _place(chunk) and s.start_line <= chunk.start_line \
                and chunk.end_line <= s.end_line:
            return True
    return False


def _pieces(chosen: Sequence[tuple[Chunk, int]], merge_adjacent: bool) -> list[_Piece]:
    by_path: dict[str, list[tuple[Chunk, int]]] = {}
    for chunk, rank in chosen:
        by_path.setdefault(_place(chunk), []).append((chunk, rank))
    pieces: list[_Piece] = []
    for place, items in by_path.items():
        path = place.split("\0")[0]
        items.sort(key=lambda cr: (cr[0].start_line, cr[0].end_line))
        current: _Piece | None = None
        for chunk, rank in items:
            lines = _chunk_lines(chunk)
            gap = 1 if merge_adjacent else 0
            if current is not None and chunk.start_line <= current.end + gap and (
                    lines is not None or not current.raw):
                current.end = max(current.end, chunk.end_line)
                current.best_rank = min(current.best_rank, rank)
                current.chunk_ids.append(chunk.id)
                if lines is not None:
                    for ln, text in lines.items():
                        current.lines.setdefault(ln, text)
                else:
                    current.raw.append(chunk.text)
                continue
            current = _Piece(path=path, start=chunk.start_line, end=chunk.end_line,
                             lines=dict(lines or {}), best_rank=rank, symbol=chunk.symbol,
                             chunk_ids=[chunk.id], raw=[] if lines is not None else [chunk.text],
                             markdown=chunk.kind in MARKUP_KINDS)
            pieces.append(current)
    return pieces


@dataclass(frozen=True)
class Style:
    """How pieces are rendered: their order, the heading levels in a piece header, markup
    stripping and compaction (see ``pack``)."""

    order: str = "score"
    compact: str = "none"
    compact_code: str = "compact"
    heading_levels: int = 0
    strip: bool = False

    def compactor(self) -> Compactor | None:
        """A fresh compactor (it remembers what a context already holds), or None."""
        return Compactor(self.compact, self.compact_code) if self.compact != "none" else None


def _render(pieces: Sequence[_Piece], style: Style, memo: _Memo | None = None) -> str:
    order = style.order
    if order == "path":
        ordered = sorted(pieces, key=lambda p: (p.path, p.start))
    else:
        ordered = sorted(pieces, key=lambda p: (p.best_rank, p.path, p.start))
    compactor = style.compactor()
    memo = memo or _Memo()
    return "\n\n".join(p.render(style, compactor, memo) for p in ordered)


def _cut(chunk: Chunk, keep_units: int, count: Callable[[str], int]) -> Chunk | None:
    """The longest prefix of ``chunk`` (whole lines) whose text counts <= ``keep_units``."""
    lines = chunk.text.split("\n")
    lo = fitting_line_count(lines, keep_units, count)
    if lo == 0:
        return None
    text = "\n".join(lines[:lo])
    exact = _chunk_lines(chunk) is not None
    end = chunk.start_line + lo - 1 if exact else chunk.end_line
    return Chunk(path=chunk.path, kind=chunk.kind, text=text, start_line=chunk.start_line,
                 end_line=end, symbol=chunk.symbol, header=chunk.header,
                 language=chunk.language, metadata=chunk.metadata)


@dataclass(frozen=True)
class PackSettings:
    """What ``pack`` does: the budget (``unit``: chars or tokens), merging of adjacent chunks,
    CLI-table pairing (for the top ``pair_top`` hits; a table over ``pair_chars`` cut to its first
    flags, 0 = whole) and the ``Style`` fields. ``from_config`` reads them from ``context.*``."""

    budget: int
    unit: str = "chars"
    merge_adjacent: bool = True
    pair_cli_tables: bool = True
    pair_top: int = 1_000_000
    pair_chars: int = 0
    order: str = "score"
    compact: str = "none"
    compact_code: str = "compact"
    heading_levels: int = 0  # > 0: only that many innermost levels of a piece's heading path
    strip: bool = False  # remove images, web-link addresses and HTML from documentation pieces

    @classmethod
    def from_config(cls, ccfg: ContextConfig) -> PackSettings:
        return cls(budget=ccfg.budget, unit=ccfg.unit, merge_adjacent=ccfg.merge_adjacent,
                   pair_cli_tables=ccfg.pair_cli_tables, pair_top=ccfg.pair_top,
                   pair_chars=ccfg.pair_chars, order=ccfg.order, compact=ccfg.compact,
                   compact_code=ccfg.compact_code, heading_levels=ccfg.heading_levels,
                   strip=ccfg.strip_markup)

    @property
    def style(self) -> Style:
        return Style(order=self.order, compact=self.compact, compact_code=self.compact_code,
                     heading_levels=self.heading_levels, strip=self.strip)


def _resolved(style: Style, query: str) -> Style:
    """``style`` with ``compact_code="auto"`` decided for ``query``: code kept whole but for
    repeated imports (``imports``) when it asks for a Python answer in so many words, whose
    examples the model copies as programs; ``compact`` otherwise."""
    if style.compact_code != "auto":
        return style
    return dataclasses.replace(style, compact_code="imports" if asked_kind(query) == "python" else "compact")


def pack(
    hits: Sequence[Hit],
    settings: PackSettings,
    lookup: Callable[[Iterable[str]], Sequence[Chunk]] | None = None,
    query: str = "",
) -> Context:
    """Pack ranked hits into at most ``settings.budget`` units of text. ``lookup`` finds the
    chunks a hit's ``cli_links`` name (no pairing without it); ``query`` is recorded on the
    ``Context`` and decides ``compact_code="auto"``."""
    budget, unit, merge_adjacent = settings.budget, settings.unit, settings.merge_adjacent
    pair_top, pair_chars = settings.pair_top, settings.pair_chars
    count = COUNTERS[unit]
    style = _resolved(settings.style, query)
    Compactor(style.compact, style.compact_code)  # validate the settings up front
    memo = _Memo()
    chosen: list[tuple[Chunk, int]] = []
    seen: set[str] = set()
    used: list[str] = []  # ids of the original chunks in the context (also when cut)
    text = ""

    def take(piece: Chunk, original: Chunk, rank: int) -> int:
        """Add ``piece`` (``original`` or a cut of it) if the rendered context still fits the
        budget; return by how much it would overflow (0 when it was added)."""
        nonlocal text
        candidate = _render(_pieces(chosen + [(piece, rank)], merge_adjacent), style, memo)
        overflow = count(candidate) - budget
        if overflow > 0:
            return overflow
        chosen.append((piece, rank))
        seen.add(original.id)
        used.append(original.id)
        text = candidate
        return 0

    def try_add(chunk: Chunk, rank: int) -> bool:
        if chunk.id in seen or _covered([c for c, _ in chosen], chunk):
            seen.add(chunk.id)
            return True
        if take(chunk, chunk, rank) == 0:
            return True
        room = budget - count(text)
        if room < MIN_PARTIAL:
            return False
        # cut the chunk to what fits; shrink until the rendered whole fits
        keep = room
        while keep >= MIN_PARTIAL // 2:
            part = _cut(chunk, keep, count)
            if part is None:
                return False
            overflow = take(part, chunk, rank)
            if overflow == 0:
                return False
            keep -= max(overflow, 20)
        return False

    for rank, hit in enumerate(hits):
        if count(text) >= budget - MIN_PARTIAL // 4:
            break
        try_add(hit.chunk, rank)
        links = hit.chunk.metadata.get("cli_links") \
            if settings.pair_cli_tables and rank < pair_top else None
        if links and lookup is not None:
            for linked in lookup([link for link in links if link not in seen]):
                if pair_chars and len(linked.text) > pair_chars:  # the first flags only
                    cut = _cut(linked, pair_chars, count_chars)
                    if cut is None:
                        continue
                    seen.add(linked.id)
                    used_id = linked.id
                    if try_add(cut, rank) and cut.id in seen and used and used[-1] == cut.id:
                        used[-1] = used_id
                    continue
                try_add(linked, rank)
    return Context(text=text, chunk_ids=tuple(used), budget=budget, unit=unit, query=query)
