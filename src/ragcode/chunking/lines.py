"""Line windows: shell scripts, configs, plain text, and the fallback for unparseable code."""

from __future__ import annotations

from ragcode.chunking.walk import file_kind
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

_KIND_OF_FILE = {"shell": "shell", "config": "config", "python": "code", "code": "code"}


def line_windows(n_lines: int, window: int, overlap: int) -> list[tuple[int, int]]:
    """1-based inclusive ``(start, end)`` windows of ``window`` lines overlapping by ``overlap``."""
    if n_lines <= 0:
        return []
    window = max(1, window)
    step = max(1, window - max(0, min(overlap, window - 1)))
    out = []
    start = 1
    while True:
        end = min(n_lines, start + window - 1)
        out.append((start, end))
        if end >= n_lines:
            return out
        start += step


def chunk_lines(
    file: SourceFile, cfg: ChunkingConfig, kind: str | None = None, language: str = ""
) -> list[Chunk]:
    """Cut ``file`` into windows of ``text.window_lines`` lines (``text.overlap_lines`` shared).

    Windows holding only whitespace are dropped. ``kind`` defaults from the file's kind
    (``shell``, ``config``, else ``text``).
    """
    kind = kind or _KIND_OF_FILE.get(file_kind(file.path), "text")
    language = language or ("bash" if kind == "shell" else "")
    lines = file.text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    max_chars = max(1, cfg.text.max_chars)
    pieces: list[tuple[int, int, str]] = []
    for start, end in line_windows(len(lines), cfg.text.window_lines, cfg.text.overlap_lines):
        text = "\n".join(lines[start - 1:end])
        if len(text) <= max_chars:
            pieces.append((start, end, text))
            continue
        pieces.extend(_cut(lines, start, end, max_chars))
    chunks = []
    seen: set[tuple[int, int, str]] = set()
    for start, end, text in pieces:
        if not text.strip() or (start, end, text) in seen:
            continue
        seen.add((start, end, text))
        chunks.append(Chunk(path=file.path, kind=kind, text=text, start_line=start,
                            end_line=end, language=language))
    return chunks


def _cut(lines: list[str], start: int, end: int, max_chars: int) -> list[tuple[int, int, str]]:
    """Lines start..end (1-based) packed under ``max_chars``; a longer line is cut in pieces
    that all carry its line number."""
    out: list[tuple[int, int, str]] = []
    cur: list[str] = []
    cur_start = start
    for n in range(start, end + 1):
        line = lines[n - 1]
        if len(line) > max_chars:
            if cur:
                out.append((cur_start, n - 1, "\n".join(cur)))
                cur = []
            out.extend((n, n, line[k:k + max_chars]) for k in range(0, len(line), max_chars))
            cur_start = n + 1
            continue
        if cur and len("\n".join(cur)) + 1 + len(line) > max_chars:
            out.append((cur_start, n - 1, "\n".join(cur)))
            cur, cur_start = [], n
        cur.append(line)
    if cur:
        out.append((cur_start, end, "\n".join(cur)))
    return out


class LinesChunker:
    name = "lines"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_lines(file, cfg)
