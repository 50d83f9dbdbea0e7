"""Jupyter notebooks: markdown and code cells (outputs dropped), chunked like Markdown.

The notebook is rendered as one Markdown document: markdown cells as they are, code cells as
```` ```python ```` fences (raw cells as plain fences), separated by blank lines. That document
goes through the Markdown chunker, so a code cell is never split and headings in markdown cells
give the ``symbol``. In notebook chunks ``start_line``/``end_line`` are **cell numbers**
(1-based, inclusive, counting every cell of the notebook, outputs excluded), not text lines;
``metadata["cells"]`` repeats them. A notebook that is not valid JSON becomes line windows.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace

from ragcode.chunking.lines import chunk_lines
from ragcode.chunking.markdown import chunk_markdown_text
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def render_notebook(text: str) -> tuple[list[str], list[int]]:
    """``(lines, cell_of_line)``: the notebook as Markdown and the 1-based cell of each line."""
    nb = json.loads(text)
    cells = nb.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    lang = (nb.get("metadata", {}).get("kernelspec", {}) or {}).get("language", "python")
    lines: list[str] = []
    cell_of: list[int] = []
    for n, cell in enumerate(cells, start=1):
        src = _source(cell).rstrip("\n")
        if not src.strip():
            continue
        body = src.split("\n")
        if cell.get("cell_type") == "code":
            ticks = "`" * max(3, 1 + max((len(t) for t in _runs_of_ticks(src)), default=0))
            body = [f"{ticks}{lang}", *body, ticks]
        elif cell.get("cell_type") == "raw":
            body = ["```", *body, "```"]
        if lines:
            lines.append("")
            cell_of.append(n)
        lines.extend(body)
        cell_of.extend([n] * len(body))
    return lines, cell_of


def _runs_of_ticks(s: str) -> list[str]:
    return re.findall(r"`{3,}", s)


def chunk_notebook(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
    try:
        lines, cell_of = render_notebook(file.text)
    except (ValueError, AttributeError, TypeError) as exc:
        log.warning("%s is not a readable notebook (%s); using line windows", file.path, exc)
        return [replace(c, metadata={"fallback": "invalid_notebook"})
                for c in chunk_lines(file, cfg, kind="notebook")]
    chunks = chunk_markdown_text(file.path, "\n".join(lines), cfg, kind="notebook",
                                 language="markdown")
    out = []
    for c in chunks:
        first, last = cell_of[c.start_line - 1], cell_of[c.end_line - 1]
        out.append(replace(c, start_line=first, end_line=last,
                           metadata=dict(c.metadata, cells=[first, last], line_unit="cell")))
    return out


class NotebookChunker:
    name = "notebook"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_notebook(file, cfg)
