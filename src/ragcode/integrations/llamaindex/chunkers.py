"""LlamaIndex's own chunkers behind ragcode's chunker interface, as ablation baselines.

- ``llamaindex-markdown``: ``MarkdownNodeParser`` (one node per heading section; it has no size
  limits, so ``chunking.markdown.*`` sizes do not apply).
- ``llamaindex-code``: ``CodeSplitter`` with an offline tree-sitter parser built from the
  installed grammar package (``tree_sitter_python``); ``max_chars`` is ``chunking.code.max_chars``
  (LlamaIndex counts all characters; ragcode's own chunker counts non-whitespace ones).

Select them per file kind in config, e.g. ``chunking.chunkers.markdown: llamaindex-markdown``
and ``chunking.chunkers.python: llamaindex-code``. Nodes come back as ``Chunk``s whose line
ranges are computed from the nodes' character offsets. Both chunkers keep LlamaIndex's
behaviour; the embedding ``header`` is what LlamaIndex itself embeds by default as node metadata
(``file_path``, plus ``header_path`` for markdown), written in ragcode's header format
(``path :: heading path``), so the comparison isolates where chunks are cut.
This module imports llama_index; ``ragcode.chunking``'s registry names it by path and imports it
only when one of these names is used (chunking itself never imports the integrations).
"""

from __future__ import annotations

import importlib
import logging
import threading
from pathlib import PurePosixPath
from typing import Any

from ragcode.config import ChunkingConfig
from ragcode.errors import RagcodeError
from ragcode.integrations._extras import require_llamaindex
from ragcode.types import Chunk, SourceFile

require_llamaindex()

from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import CodeSplitter, MarkdownNodeParser  # noqa: E402

from ragcode.integrations.llamaindex.nodes import LineIndex  # noqa: E402

log = logging.getLogger(__name__)

# file suffix -> (CodeSplitter language name, tree-sitter grammar module)
CODE_LANGUAGES: dict[str, tuple[str, str]] = {
    ".py": ("python", "tree_sitter_python"),
    ".pyi": ("python", "tree_sitter_python"),
}

_local = threading.local()  # tree-sitter parsers are not thread-safe: one per thread


def _nodes_to_chunks(file: SourceFile, nodes: list[Any], kind: str, language: str,
                     symbols: list[str] | None = None, header: bool = True) -> list[Chunk]:
    lines = LineIndex(file.text)
    chunks: list[Chunk] = []
    cursor = 0
    for i, node in enumerate(nodes):
        text = node.get_content()
        if not text.strip():
            continue
        start = node.start_char_idx
        if start is None or file.text[start:start + len(text)] != text:
            start = file.text.find(text, cursor)
            if start == -1:
                start = file.text.find(text)
        if start == -1:
            log.warning("%s: LlamaIndex node %d not found in the file text; skipped", file.path, i)
            continue
        end = start + len(text)
        cursor = start + 1
        first, last = lines.lines_of_span(start, end)
        symbol = symbols[i] if symbols else ""
        head = (f"{file.path} :: {symbol}" if symbol else file.path) if header else ""
        chunks.append(Chunk(
            path=file.path, kind=kind, text=text, start_line=first, end_line=last,
            symbol=symbol, header=head, language=language,
            metadata={"chunker": f"llamaindex-{kind}"},
        ))
    return chunks


def _heading_path(node: Any) -> str:
    """``"A > B > C"``: LlamaIndex's ``header_path`` (the ancestors) plus the node's own heading."""
    parts = [p for p in str(node.metadata.get("header_path", "")).split("/") if p]
    first = node.get_content().lstrip().split("\n", 1)[0]
    if first.startswith("#"):
        heading = first.lstrip("#").strip()
        if heading:
            parts.append(heading)
    return " > ".join(parts)


class LlamaIndexMarkdownChunker:
    """``MarkdownNodeParser`` sections as ragcode ``markdown`` chunks."""

    name = "llamaindex-markdown"

    def __init__(self) -> None:
        self._parser = MarkdownNodeParser(include_metadata=True, include_prev_next_rel=False)

    def chunk(self, file: SourceFile, cfg: ChunkingConfig | None = None) -> list[Chunk]:
        cfg = cfg or ChunkingConfig()
        if not file.text.strip():
            return []
        nodes = self._parser.get_nodes_from_documents([Document(text=file.text)])
        return _nodes_to_chunks(file, nodes, "markdown", "markdown",
                                [_heading_path(n) for n in nodes],
                                header=getattr(cfg.markdown, "header", True))


def tree_sitter_parser(grammar_module: str) -> Any:
    """A tree-sitter ``Parser`` for an installed grammar package (no download, one per thread)."""
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    if grammar_module not in cache:
        import tree_sitter

        try:
            grammar = importlib.import_module(grammar_module)
        except ImportError as exc:
            raise RagcodeError(
                f"llamaindex-code needs the tree-sitter grammar {grammar_module!r}, which is not "
                f"installed: pip install {grammar_module.replace('_', '-')}"
            ) from exc
        cache[grammar_module] = tree_sitter.Parser(tree_sitter.Language(grammar.language()))
    return cache[grammar_module]


class LlamaIndexCodeChunker:
    """``CodeSplitter`` pieces as ragcode ``code`` chunks; unparsable files fall back to lines."""

    name = "llamaindex-code"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig | None = None) -> list[Chunk]:
        cfg = cfg or ChunkingConfig()
        if not file.text.strip():
            return []
        suffix = PurePosixPath(file.path).suffix.lower()
        if suffix not in CODE_LANGUAGES:
            raise RagcodeError(
                f"llamaindex-code cannot split {file.path}: no tree-sitter grammar for "
                f"{suffix or 'files without a suffix'!r} (known: {', '.join(CODE_LANGUAGES)}). "
                "Map this file kind to another chunker in chunking.chunkers."
            )
        language, grammar = CODE_LANGUAGES[suffix]
        splitter = CodeSplitter(
            language=language, parser=tree_sitter_parser(grammar), max_chars=cfg.code.max_chars,
            include_metadata=False, include_prev_next_rel=False,
        )
        try:
            nodes = splitter.get_nodes_from_documents([Document(text=file.text)])
        except ValueError as exc:  # CodeSplitter: "Could not parse code with language ..."
            log.info("%s: CodeSplitter could not parse it (%s); one chunk per %d lines",
                     file.path, exc, cfg.text.window_lines)
            return self._fallback(file, language, cfg.text.window_lines)
        return _nodes_to_chunks(file, nodes, "code", language,
                                header=getattr(cfg.code, "header", True))

    @staticmethod
    def _fallback(file: SourceFile, language: str, window: int) -> list[Chunk]:
        lines = file.text.split("\n")
        out = []
        for start in range(0, len(lines), max(window, 1)):
            text = "\n".join(lines[start:start + window])
            if text.strip():
                out.append(Chunk(path=file.path, kind="code", text=text, start_line=start + 1,
                                 end_line=min(start + window, len(lines)), header=file.path,
                                 language=language, metadata={"chunker": "llamaindex-code"}))
        return out
