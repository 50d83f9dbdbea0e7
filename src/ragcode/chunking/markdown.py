"""Markdown and reStructuredText: sections by heading path, code fences never split.

The document is parsed into a tree of sections (ATX ``#`` headings and setext ``===``/``---``
underlines for Markdown; underlined, optionally overlined titles for rst, levels in order of
first appearance). Lines inside fenced code blocks (found by markdown-it, so in list items and
block quotes too) are never headings. Then, top down:

1. a section whose whole subtree fits in ``markdown.soft_chars`` is one chunk;
2. otherwise its own text (heading + text before the first subsection) is split at paragraph
   boundaries under ``soft_chars`` (a code fence, or a paragraph ending in ``:``, may run on to
   ``hard_chars`` so a command stays with the sentence that introduces it; a fence larger than
   ``hard_chars`` is kept whole as its own chunk), and each subsection is handled the same way;
3. pieces under ``markdown.min_chars`` are merged: a heading with little text into what follows
   it, any other small piece into its preceding neighbour (else the following one), as long as
   the result stays under ``hard_chars``.

``symbol`` is the heading path (``"Install > From source"``) common to everything in the chunk;
line ranges are exact, 1-based, inclusive, with surrounding blank lines trimmed.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from ragcode.chunking.walk import file_kind
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_SETEXT_TITLE = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+>|]|\d+[.)])(?:\s|$))")
_RST_ADORN = re.compile(r"^([=\-~`:'\"^_*+#<>.!$%&,/;?@\\|])\1{2,}\s*$")


@dataclass
class Section:
    level: int
    title: str
    path: tuple[str, ...]
    start: int  # 0-based index of the first heading line
    body_end: int = 0  # exclusive end of the section's own text
    end: int = 0  # exclusive end of the subtree
    children: list[Section] = field(default_factory=list)


@dataclass
class _Piece:
    start: int
    end: int  # exclusive
    paths: list[tuple[str, ...]]
    intro: bool = False


def fence_spans(lines: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` (0-based, end exclusive) of every fenced code block, fence lines included.

    Read by markdown-it (CommonMark), so fences inside list items and block quotes count (an
    indented ```` ``` ```` under ``- step:`` or after ``> ``). An unclosed fence runs to the
    end of its container (the document, at top level), as in CommonMark.
    """
    if not any("```" in line or "~~~" in line for line in lines):
        return []
    tokens = _md().parse("\n".join(lines))
    return sorted((t.map[0], min(t.map[1], len(lines))) for t in tokens
                  if t.type == "fence" and t.map)


@functools.lru_cache(maxsize=1)
def _md() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").disable("html_block")  # a fence inside <details> counts


def rst_literal_spans(lines: list[str]) -> list[tuple[int, int]]:
    """rst literal blocks: a line ending in ``::`` (``.. code:: python`` too) and the indented
    lines after it (inner blank lines included), as ``(start, end)`` spans like fences."""
    spans: list[tuple[int, int]] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i].rstrip()
        if not line.endswith("::"):
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        j = i + 1
        last = i
        while j < n:
            cur = lines[j]
            if cur.strip():
                if len(cur) - len(cur.lstrip()) <= indent:
                    break
                last = j
            j += 1
        if last > i:
            spans.append((i, last + 1))
        i = last + 1 if last > i else i + 1
    return spans


def fence_mask(lines: list[str]) -> list[bool]:
    """True for every line that belongs to a fenced code block (fence lines included)."""
    mask = [False] * len(lines)
    for a, b in fence_spans(lines):
        for i in range(a, b):
            mask[i] = True
    return mask


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].strip() == "---":
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


def markdown_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(line index, level, title)`` for every Markdown heading outside code fences."""
    in_fence = fence_mask(lines)
    out: list[tuple[int, int, str]] = []
    first = _front_matter_end(lines)
    heading_lines: set[int] = set()
    for i in range(first, len(lines)):
        if in_fence[i]:
            continue
        line = lines[i]
        m = _ATX.match(line)
        if m:
            title = (m.group(2) or "").strip()
            if title:
                out.append((i, len(m.group(1)), title))
                heading_lines.add(i)
            continue
        m = _SETEXT.match(line)
        if m and i > first:
            prev = lines[i - 1]
            if (prev.strip() and not in_fence[i - 1] and (i - 1) not in heading_lines
                    and not _NOT_SETEXT_TITLE.match(prev) and not _SETEXT.match(prev)
                    and not prev.lstrip().startswith("<")):
                out.append((i - 1, 1 if m.group(1)[0] == "=" else 2, prev.strip()))
                heading_lines.update((i - 1, i))
    return out


def rst_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(first line index, level, title)`` for rst section titles (levels by first use)."""
    styles: list[tuple[str, bool]] = []
    out: list[tuple[int, int, str]] = []
    used: set[int] = set()
    for i in range(1, len(lines)):
        m = _RST_ADORN.match(lines[i])
        if not m or i - 1 in used:
            continue
        title = lines[i - 1]
        if not title.strip() or title[0].isspace() or _RST_ADORN.match(title):
            continue
        if len(lines[i].rstrip()) < min(len(title.rstrip()), 3):
            continue
        char = m.group(1)
        over = i >= 2 and lines[i - 2].rstrip() == lines[i].rstrip()
        style = (char, over)
        if style not in styles:
            styles.append(style)
        start = i - 2 if over else i - 1
        out.append((start, styles.index(style) + 1, title.strip()))
        used.update(range(start, i + 1))
    return out


def section_tree(lines: list[str], rst: bool = False) -> Section:
    """The document as a tree; the root (level 0) holds the text before the first heading."""
    heads = rst_headings(lines) if rst else markdown_headings(lines)
    root = Section(level=0, title="", path=(), start=0, end=len(lines))
    stack = [root]
    flat = [root]
    for start, level, title in heads:
        while stack[-1].level >= level:
            stack.pop()
        parent = stack[-1]
        sec = Section(level=level, title=title, path=parent.path + (title,), start=start)
        parent.children.append(sec)
        stack.append(sec)
        flat.append(sec)
    for a, b in zip(flat, flat[1:] + [None]):
        a.body_end = b.start if b is not None else len(lines)
    _set_ends(root, len(lines))
    return root


def _set_ends(sec: Section, end: int) -> None:
    sec.end = end
    for a, b in zip(sec.children, sec.children[1:] + [None]):
        _set_ends(a, b.start if b is not None else end)


class _Splitter:
    def __init__(self, lines: list[str], cfg: ChunkingConfig, rst: bool = False):
        self.lines = lines
        self.soft = cfg.markdown.soft_chars
        self.hard = max(cfg.markdown.hard_chars, self.soft)
        self.min = cfg.markdown.min_chars
        spans = rst_literal_spans(lines) if rst else fence_spans(lines)
        self.fence_end = dict(spans)
        self.fenced = [False] * len(lines)
        for a, b in spans:
            self.fenced[a:b] = [True] * (b - a)
        self.cum = [0]
        for line in lines:
            self.cum.append(self.cum[-1] + len(line) + 1)

    def size(self, start: int, end: int) -> int:
        return self.cum[end] - self.cum[start]

    def blank(self, start: int, end: int) -> bool:
        return all(not self.lines[i].strip() for i in range(start, end))

    def emit(self, sec: Section) -> list[_Piece]:
        if self.size(sec.start, sec.end) <= self.soft:
            paths = self._contributors(sec)
            return [_Piece(sec.start, sec.end, paths)] if paths else []
        pieces = self.split_own(sec)
        for child in sec.children:
            pieces.extend(self.emit(child))
        return self.merge_small(pieces)

    def _contributors(self, sec: Section) -> list[tuple[str, ...]]:
        out = [] if sec.level == 0 and self.blank(sec.start, sec.body_end) else [sec.path]
        for child in sec.children:
            out.extend(self._contributors(child))
        return out

    def split_own(self, sec: Section) -> list[_Piece]:
        start, end = sec.start, sec.body_end
        if self.blank(start, end):
            return []
        intro = sec.level > 0
        if self.size(start, end) <= self.soft:
            return [_Piece(start, end, [sec.path], intro=intro)]
        pieces: list[_Piece] = []
        cur: tuple[int, int] | None = None
        prev_colon = False
        for b_start, b_end, is_fence in self.blocks(start, end):
            if cur is None:
                cur = (b_start, b_end)
            else:
                limit = self.hard if (is_fence or prev_colon) else self.soft
                if self.size(cur[0], b_end) <= limit:
                    cur = (cur[0], b_end)
                else:
                    pieces.append(_Piece(cur[0], cur[1], [sec.path]))
                    cur = (b_start, b_end)
            text = self.lines[self._last_nonblank(b_start, b_end)].rstrip()
            prev_colon = text.endswith(":")
            if not is_fence and self.size(*cur) > self.hard:  # one huge paragraph
                for a, b in self.line_pack(cur[0], cur[1]):
                    pieces.append(_Piece(a, b, [sec.path]))
                cur = None
        if cur is not None:
            pieces.append(_Piece(cur[0], cur[1], [sec.path]))
        if pieces and intro:
            pieces[0].intro = self.size(pieces[0].start, pieces[0].end) < self.min
        return pieces

    def _last_nonblank(self, start: int, end: int) -> int:
        for i in range(end - 1, start - 1, -1):
            if self.lines[i].strip():
                return i
        return start

    def blocks(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """Paragraphs and fences of lines[start:end]; trailing blank lines join the block."""
        out: list[tuple[int, int, bool]] = []
        i = start
        while i < end:
            if i in self.fence_end:
                j, is_fence = min(self.fence_end[i], end), True
            else:
                j, is_fence = i + 1, False
                while j < end and self.lines[j].strip() and j not in self.fence_end:
                    j += 1
            while j < end and not self.lines[j].strip() and not self.fenced[j]:
                j += 1
            out.append((i, j, is_fence))
            i = j
        return out

    def line_pack(self, start: int, end: int) -> list[tuple[int, int]]:
        out = []
        a = start
        for i in range(start, end):
            if i > a and self.size(a, i + 1) > self.soft:
                out.append((a, i))
                a = i
        out.append((a, end))
        return out

    def merge_small(self, pieces: list[_Piece]) -> list[_Piece]:
        out: list[_Piece] = []
        pending: _Piece | None = None
        for p in pieces:
            if pending is not None:
                if self.size(pending.start, p.end) <= self.hard:
                    # a heading merged into what follows it: the rest names the place better
                    paths = p.paths if (pending.intro and p.paths) else pending.paths + p.paths
                    p = _Piece(pending.start, p.end, paths, intro=False)
                else:
                    out.append(pending)
                pending = None
            small = self.size(p.start, p.end) < self.min
            if small and (p.intro or not out):
                pending = p
                continue
            if small and self.size(out[-1].start, p.end) <= self.hard:
                out[-1] = _Piece(out[-1].start, p.end, out[-1].paths + p.paths)
                continue
            out.append(p)
        if pending is not None:
            if out and self.size(out[-1].start, pending.end) <= self.hard:
                out[-1] = _Piece(out[-1].start, pending.end, out[-1].paths + pending.paths)
            else:
                out.append(pending)
        return out


def _common_prefix(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    if not paths:
        return ()
    first = paths[0]
    n = len(first)
    for p in paths[1:]:
        n = min(n, len(p))
        for k in range(n):
            if p[k] != first[k]:
                n = k
                break
    return first[:n]


def chunk_markdown_text(
    path: str, text: str, cfg: ChunkingConfig, *, rst: bool = False, kind: str = "markdown",
    language: str = "markdown",
) -> list[Chunk]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    splitter = _Splitter(lines, cfg, rst=rst)
    tree = section_tree(lines, rst=rst)
    chunks = []
    for piece in splitter.emit(tree):
        a, b = piece.start, piece.end
        while a < b and not lines[a].strip():
            a += 1
        while b > a and not lines[b - 1].strip():
            b -= 1
        if a >= b:
            continue
        common = _common_prefix(piece.paths) or (piece.paths[0] if piece.paths else ())
        symbol = " > ".join(common)
        header = ""
        if cfg.markdown.header:
            header = f"{path} :: {symbol}" if symbol else path
        chunks.append(Chunk(
            path=path, kind=kind, text="\n".join(lines[a:b]), start_line=a + 1, end_line=b,
            symbol=symbol, header=header, language=language,
            metadata={"sections": list(dict.fromkeys(" > ".join(p) for p in piece.paths if p))},
        ))
    return chunks


def chunk_markdown(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
    rst = file_kind(file.path) == "rst"
    return chunk_markdown_text(file.path, file.text, cfg, rst=rst,
                               language="rst" if rst else "markdown")


class MarkdownChunker:
    name = "markdown"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_markdown(file, cfg)
