"""Source code via tree-sitter: functions, classes, methods and module-level blocks.

One splitter for every language in ``ragcode.chunking.languages`` (Python, C, C++, CUDA,
JavaScript, TypeScript, shell), driven by that module's per-language node-type table.

Split then merge (the cAST idea): every top-level definition (with its decorators, ``export``
or ``template`` line, and the comment lines directly above it) is a unit, and consecutive other
statements (imports, constants, ``if __name__ == "__main__":``) form one unit per contiguous
run. Sizes count non-whitespace characters. A unit over ``code.max_chars`` is split at its
children: a class, function or namespace into its header (signature, plus the docstring in
Python) and its body statements, recursively; a run of statements into packs under the limit; a
single oversized statement at the lines where its inner statements start. Then siblings under
``code.min_chars`` are merged into a neighbour while the result stays under ``max_chars`` (a
header goes with what follows it). Transparent blocks (``#ifdef`` ... ``#endif``,
``extern "C" {}``) are split like definitions but add nothing to the symbol path.

Each chunk: ``symbol`` is the ancestor path (``Trainer.fit``, ``nn::Net::forward``; empty for
module-level code), ``header`` (when ``code.header``) is ``# {path} :: {enclosing signature}``
(``# {path}`` at module level; ``//`` for C-like languages), ``metadata["unit"]`` is
``function``/``class``/``method``/``namespace``/``module``/``body``/``mixed``. Files that do
not parse (error nodes over half the lines) become line windows with
``metadata["fallback"] = "syntax_error"``; so do files whose grammar package is missing
(``"no_grammar"``, logged), files with no known language (``"unknown_language"``) and, except
Python, files with a line over ``text.max_chars`` (``"long_lines"``: minified code).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from ragcode.chunking.languages import (
    PYTHON, Definition, Language, definition, is_unit, language_for, parser_for)
from ragcode.chunking.lines import chunk_lines
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)


def python_parser() -> Any:
    """A tree-sitter parser for Python (grammar from the tree-sitter-python wheel)."""
    parser = parser_for(PYTHON)
    if parser is None:
        raise ImportError("tree-sitter-python is not installed")
    return parser


def parse_python(text: str) -> Any:
    return python_parser().parse(text.encode("utf-8", "surrogatepass"))


def error_line_share(root: Any, n_lines: int) -> float:
    """Share of the file's lines covered by ERROR / missing nodes."""
    if not root.has_error or n_lines == 0:
        return 0.0
    rows: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            rows.update(range(node.start_point[0], node.end_point[0] + 1))
        elif node.has_error:
            stack.extend(node.children)
    return len(rows) / n_lines


def _last_row(node: Any) -> int:
    """The last row a node covers (``#include <x>\n`` ends at column 0 of the next row)."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


@dataclass
class _Piece:
    start: int  # 0-based row, inclusive
    end: int  # 0-based row, inclusive
    path: tuple[str, ...]
    sig: str  # signature of the enclosing definition ("" at module level)
    unit: str
    header: bool = False
    names: tuple[tuple[str, ...], ...] = ()  # paths of the definitions inside (merged pieces)

    def __post_init__(self) -> None:
        if not self.names and self.path:
            self.names = (self.path,)


class _CodeSplitter:
    def __init__(self, src: bytes, lines: list[str], cfg: ChunkingConfig, lang: Language):
        self.src = src
        self.lang = lang
        self.max = cfg.code.max_chars
        self.min = cfg.code.min_chars
        self.cum = [0]
        for line in lines:
            self.cum.append(self.cum[-1] + len(line) - sum(ch.isspace() for ch in line))

    def size(self, start: int, end: int) -> int:
        return self.cum[min(end + 1, len(self.cum) - 1)] - self.cum[start]

    # -- grouping ------------------------------------------------------------------------
    def groups(self, nodes: list[Any]) -> list[tuple[Definition | None, list[Any]]]:
        """Definitions alone (with comments right above them); other statements in runs."""
        out: list[tuple[Definition | None, list[Any]]] = []
        run: list[Any] = []
        for node in nodes:
            found = definition(node, self.lang)
            if found is not None:
                lead: list[Any] = []
                row = node.start_point[0]
                while run and run[-1].type == "comment" and _last_row(run[-1]) == row - 1:
                    lead.insert(0, run.pop())
                    row = lead[0].start_point[0]
                if run:
                    out.append((None, run))
                    run = []
                out.append((found, lead + [node]))
            elif run and node.start_point[0] == _last_row(run[-1]):
                run.append(node)  # same line as the previous statement
            elif out and out[-1][0] is not None \
                    and node.start_point[0] == _last_row(out[-1][1][-1]):
                out[-1][1].append(node)
            else:
                run.append(node)
        if run:
            out.append((None, run))
        return out

    def units(self, nodes: list[Any], path: tuple[str, ...], sig: str, in_class: bool
              ) -> list[_Piece]:
        pieces: list[_Piece] = []
        for found, group in self.groups(nodes):
            start, end = group[0].start_point[0], _last_row(group[-1])
            if found is not None:
                pieces.extend(self.split_def(found, group, path, sig, in_class))
            elif self.size(start, end) <= self.max:
                pieces.append(_Piece(start, end, path, sig, "module" if not path else "body"))
            else:
                pieces.extend(self.split_run(group, path, sig))
        return self.merge_small(pieces)

    def split_def(self, found: Definition, group: list[Any], path: tuple[str, ...], sig: str,
                  in_class: bool) -> list[_Piece]:
        """One unit, or (over ``max_chars``) its header then its body's units. A ``block``
        (``#ifdef``, ``extern "C"``) adds nothing to the path and keeps the enclosing
        signature; whatever closes the unit (``}``, ``#endif``) stays with its last piece."""
        node, defn = group[-1], found.defn
        unit = "method" if found.unit == "function" and in_class else found.unit
        block = unit == "block"
        new_path = path if block else path + (found.name or "?",)
        start, end = group[0].start_point[0], _last_row(node)
        stmts = found.body_nodes(self.lang)
        if self.size(start, end) <= self.max:
            if not block:
                return [_Piece(start, end, new_path, sig, unit)]
            inner = [d.name for d in map(self._def, stmts) if d is not None and d.name]
            return [_Piece(start, end, path, sig, "body" if path else "module",
                          names=tuple(path + (n,) for n in inner) or (path,))]
        if not stmts or stmts[0].start_point[0] <= defn.start_point[0]:
            return self.split_lines(start, end, new_path, sig, "body" if block else unit, [])
        first = stmts[0]
        if self.lang.docstrings and first.type == "expression_statement" \
                and first.named_children and first.named_children[0].type == "string":
            header_end = _last_row(first)
            stmts = stmts[1:]
        else:
            header_end = first.start_point[0] - 1
        own_sig = sig if block else found.signature(self.src, self.lang)
        head_unit = ("body" if path else "module") if block else unit
        if self.size(start, header_end) > self.max:  # an enormous docstring: cut by lines
            pieces = self.split_lines(start, header_end, new_path, sig, head_unit, [])
        else:
            pieces = [_Piece(start, header_end, new_path, sig, head_unit)]
        pieces[-1].header = True
        if stmts:
            pieces.extend(self.units(stmts, new_path, own_sig,
                                     in_class if block else unit == "class"))
        pieces[-1].end = max(pieces[-1].end, end)
        return self.merge_small(pieces)

    def _def(self, node: Any) -> Definition | None:
        return definition(node, self.lang)

    def split_run(self, group: list[Any], path: tuple[str, ...], sig: str) -> list[_Piece]:
        unit = "module" if not path else "body"
        pieces: list[_Piece] = []
        cur: list[int] | None = None
        for node in group:
            s, e = node.start_point[0], _last_row(node)
            if cur is not None and s == cur[1]:
                cur[1] = max(cur[1], e)
                continue
            if self.size(s, e) > self.max:
                if cur is not None:
                    pieces.append(_Piece(cur[0], cur[1], path, sig, unit))
                    cur = None
                pieces.extend(self.split_lines(s, e, path, sig, unit, self.break_rows(node)))
                continue
            if cur is not None and self.size(cur[0], e) <= self.max:
                cur[1] = e
            else:
                if cur is not None:
                    pieces.append(_Piece(cur[0], cur[1], path, sig, unit))
                cur = [s, e]
        if cur is not None:
            pieces.append(_Piece(cur[0], cur[1], path, sig, unit))
        return pieces

    def break_rows(self, node: Any) -> list[int]:
        """Rows where a statement nested in ``node`` starts: the preferred cut points."""
        rows: set[int] = set()
        stack = list(node.named_children)
        while stack:
            n = stack.pop()
            if n.type in self.lang.blocks or n.type.endswith("_clause"):
                for c in n.named_children:
                    rows.add(c.start_point[0])
                    stack.append(c)
            elif n.type.endswith("_statement") or is_unit(n, self.lang):
                stack.extend(n.named_children)
        return sorted(rows)

    def split_lines(self, start: int, end: int, path: tuple[str, ...], sig: str, unit: str,
                    breaks: list[int]) -> list[_Piece]:
        """Pack rows start..end under ``max_chars``, cutting at ``breaks`` when possible."""
        cuts = sorted({r for r in breaks if start < r <= end})
        segments: list[tuple[int, int]] = []
        prev = start
        for r in cuts:
            segments.append((prev, r - 1))
            prev = r
        segments.append((prev, end))
        fine: list[tuple[int, int]] = []
        for a, b in segments:  # a segment alone too big: single rows
            if self.size(a, b) > self.max:
                fine.extend((r, r) for r in range(a, b + 1))
            else:
                fine.append((a, b))
        pieces: list[_Piece] = []
        cur: tuple[int, int] | None = None
        for a, b in fine:
            if cur is not None and self.size(cur[0], b) <= self.max:
                cur = (cur[0], b)
            else:
                if cur is not None:
                    pieces.append(_Piece(cur[0], cur[1], path, sig, unit))
                cur = (a, b)
        if cur is not None:
            pieces.append(_Piece(cur[0], cur[1], path, sig, unit))
        return pieces

    # -- merging -------------------------------------------------------------------------
    def merge(self, a: _Piece, b: _Piece) -> _Piece:
        return _merge(a, b, self.size(a.start, a.end), self.size(b.start, b.end))

    def merge_small(self, pieces: list[_Piece]) -> list[_Piece]:
        out: list[_Piece] = []
        pending: _Piece | None = None
        for p in pieces:
            if pending is not None:
                if self.size(pending.start, p.end) <= self.max:
                    p = self.merge(pending, p)
                else:
                    out.append(pending)
                pending = None
            small = self.size(p.start, p.end) < self.min
            if small and (p.header or not out):
                pending = p
                continue
            if out and (small or self.size(out[-1].start, out[-1].end) < self.min) \
                    and self.size(out[-1].start, p.end) <= self.max:
                out[-1] = self.merge(out[-1], p)
                continue
            out.append(p)
        if pending is not None:
            if out and self.size(out[-1].start, pending.end) <= self.max:
                out[-1] = self.merge(out[-1], pending)
            else:
                out.append(pending)
        return out


def _merge(a: _Piece, b: _Piece, size_a: int, size_b: int) -> _Piece:
    """One piece covering ``a`` then ``b``. Same place: kept. Otherwise the symbol and the
    enclosing signature of the larger part win (a header gives way to its body)."""
    names = tuple(dict.fromkeys(a.names + b.names)) or ((),)
    if a.path == b.path:
        unit = a.unit if a.unit == b.unit else "mixed"
        return _Piece(a.start, max(a.end, b.end), a.path, a.sig, unit, names=names)
    if a.header and b.path[:len(a.path)] == a.path:  # a definition's header + its first part
        return _Piece(a.start, max(a.end, b.end), a.path, a.sig, a.unit, names=names)
    main = a if size_a >= size_b else b
    return _Piece(a.start, max(a.end, b.end), main.path, main.sig, "mixed",
                  names=names)


def chunk_code(file: SourceFile, cfg: ChunkingConfig, lang: Language | None = None
               ) -> list[Chunk]:
    """Code units of ``file`` in ``lang`` (default: by its extension); see the module doc."""
    lang = lang or language_for(file.path)
    if lang is None:
        return _fallback(file, cfg, "unknown_language", None)
    lines = file.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not any(line.strip() for line in lines):
        return []
    parser = parser_for(lang)
    if parser is None:
        return _fallback(file, cfg, "no_grammar", lang)
    if lang is not PYTHON and max(map(len, lines)) > cfg.text.max_chars:
        return _fallback(file, cfg, "long_lines", lang)
    src = file.text.encode("utf-8", "surrogatepass")
    try:
        tree = parser.parse(src)
    except Exception as exc:  # noqa: BLE001 - a parser crash must not stop indexing
        log.warning("tree-sitter failed on %s (%s); using line windows", file.path, exc)
        return _fallback(file, cfg, "parse_failure", lang)
    root = tree.root_node
    if error_line_share(root, len(lines)) > 0.5:
        return _fallback(file, cfg, "syntax_error", lang)
    splitter = _CodeSplitter(src, lines, cfg, lang)
    pieces = splitter.units(list(root.named_children), (), "", False)
    chunks = []
    for p in pieces:
        a, b = p.start, min(p.end, len(lines) - 1)
        while a < b and not lines[a].strip():
            a += 1
        while b > a and not lines[b].strip():
            b -= 1
        text = "\n".join(lines[a:b + 1])
        if not text.strip():
            continue
        header = ""
        if cfg.code.header:
            where = f"{lang.comment} {file.path}"
            header = f"{where} :: {p.sig}" if p.sig else where
        chunks.append(Chunk(
            path=file.path, kind=lang.chunk_kind, text=text, start_line=a + 1,
            end_line=b + 1, symbol=lang.sep.join(p.path), header=header, language=lang.name,
            metadata={"unit": "module" if p.unit == "body" and not p.path else p.unit,
                      "symbols": [lang.sep.join(n) for n in p.names if n]},
        ))
    return chunks


def chunk_python(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
    return chunk_code(file, cfg, PYTHON)


def _fallback(file: SourceFile, cfg: ChunkingConfig, reason: str, lang: Language | None
              ) -> list[Chunk]:
    comment = lang.comment if lang is not None else "#"
    header = f"{comment} {file.path}" if cfg.code.header else ""
    kind = lang.chunk_kind if lang is not None else "code"
    return [
        replace(c, header=header, metadata={"fallback": reason})
        for c in chunk_lines(file, cfg, kind=kind, language=lang.name if lang else "")
    ]


class PythonChunker:
    name = "python"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_python(file, cfg)


class CodeChunker:
    """Any language of ``ragcode.chunking.languages``, chosen by the file's extension."""

    name = "code"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_code(file, cfg)
