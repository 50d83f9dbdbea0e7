"""Conversion between ragcode ``Chunk``s and LlamaIndex ``TextNode``s.

A node carries the chunk's text and flat metadata (so any vector store accepts it): ``path``,
``start_line``/``end_line`` (1-based, inclusive), ``kind``, ``symbol`` (heading path or code
ancestor path), ``language``, ``chunk_id``, ``header``, and every entry of ``Chunk.metadata``
(non-scalar values, such as ``cli_links``, as JSON strings). Only ``path`` and ``symbol`` are
shown to the embedding model and ``path``, ``symbol``, ``start_line``, ``end_line`` to the LLM.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from typing import Any

from ragcode.integrations._extras import require_llamaindex
from ragcode.types import Chunk

require_llamaindex()

from llama_index.core.schema import TextNode  # noqa: E402

CORE_KEYS = ("path", "start_line", "end_line", "kind", "symbol", "language", "chunk_id", "header")
EMBED_KEYS = ("path", "symbol")
LLM_KEYS = ("path", "symbol", "start_line", "end_line")


def _flat(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def chunk_metadata(chunk: Chunk) -> dict[str, Any]:
    """The flat node metadata for ``chunk`` (see the module docstring)."""
    meta: dict[str, Any] = {f"ragcode_{k}" if k in CORE_KEYS else k: _flat(v)
                            for k, v in chunk.metadata.items()}
    meta.update(
        path=chunk.path, start_line=chunk.start_line, end_line=chunk.end_line, kind=chunk.kind,
        symbol=chunk.symbol, language=chunk.language, chunk_id=chunk.id, header=chunk.header,
    )
    return meta


def chunk_to_node(chunk: Chunk, *, node_id: str | None = None,
                  char_span: tuple[int, int] | None = None) -> TextNode:
    """A ``TextNode`` holding ``chunk`` (id = ``chunk.id`` unless ``node_id`` is given)."""
    meta = chunk_metadata(chunk)
    return TextNode(
        id_=node_id or chunk.id,
        text=chunk.text,
        metadata=meta,
        excluded_embed_metadata_keys=[k for k in meta if k not in EMBED_KEYS],
        excluded_llm_metadata_keys=[k for k in meta if k not in LLM_KEYS],
        start_char_idx=char_span[0] if char_span else None,
        end_char_idx=char_span[1] if char_span else None,
    )


def node_to_chunk(node: Any) -> Chunk:
    """The ``Chunk`` a node made by :func:`chunk_to_node` holds (metadata round-trips flat)."""
    meta = dict(node.metadata)
    core = {k: meta.pop(k) for k in CORE_KEYS if k in meta}
    core.pop("chunk_id", None)
    extra = {k.removeprefix("ragcode_") if k.removeprefix("ragcode_") in CORE_KEYS else k: v
             for k, v in meta.items()}
    return Chunk(
        path=str(core.get("path", "")), kind=str(core.get("kind", "text")), text=node.text,
        start_line=int(core.get("start_line", 1)), end_line=int(core.get("end_line", 1)),
        symbol=str(core.get("symbol", "")), header=str(core.get("header", "")),
        language=str(core.get("language", "")), metadata=extra,
    )


class LineIndex:
    """Maps between character offsets and 1-based line numbers of one text."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        pos = text.find("\n")
        while pos != -1:
            self.starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def line_of(self, offset: int) -> int:
        """1-based line holding character ``offset``."""
        return bisect.bisect_right(self.starts, max(offset, 0))

    def lines_of_span(self, start: int, end: int) -> tuple[int, int]:
        """Inclusive 1-based line range of characters ``[start, end)``."""
        return self.line_of(start), self.line_of(max(end - 1, start))

    def span_of_lines(self, start_line: int, end_line: int) -> tuple[int, int]:
        """Character span ``[start, end)`` of lines ``start_line..end_line`` (no final newline)."""
        n = len(self.starts)
        start_line = min(max(start_line, 1), n)
        end_line = min(max(end_line, start_line), n)
        start = self.starts[start_line - 1]
        end = self.starts[end_line] - 1 if end_line < n else len(self.text)
        return start, max(start, end)


def chunk_char_span(lines: LineIndex, chunk: Chunk) -> tuple[int, int]:
    """Character span of ``chunk`` in its file: exact when its text is found in its lines."""
    start, end = lines.span_of_lines(chunk.start_line, chunk.end_line)
    if chunk.text:
        pos = lines.text.find(chunk.text, start, end + 1)
        if pos != -1:
            return pos, pos + len(chunk.text)
    return start, end


def sort_key(chunk: Chunk) -> tuple[int, int, str]:
    return chunk.start_line, chunk.end_line, chunk.kind


def ordered(chunks: Sequence[Chunk]) -> list[Chunk]:
    return sorted(chunks, key=sort_key)
