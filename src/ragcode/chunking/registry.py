"""Chunkers by name. ``ChunkingConfig.chunkers`` maps a file kind to one of these names.

A chunker is anything with ``chunk(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]``:
register a class (instantiated with no arguments) or a ``"package.module:Class"`` path.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ragcode.config import ChunkingConfig
from ragcode.registry import Registry
from ragcode.types import Chunk, SourceFile


@runtime_checkable
class Chunker(Protocol):
    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]: ...


CHUNKERS = Registry("chunker", {
    "markdown": "ragcode.chunking.markdown:MarkdownChunker",
    "python": "ragcode.chunking.code:PythonChunker",
    "code": "ragcode.chunking.code:CodeChunker",  # C, C++, CUDA, JS, TS... by extension
    "shell": "ragcode.chunking.shellfile:ShellChunker",  # code units + the cli chunk of $1..
    "notebook": "ragcode.chunking.notebook:NotebookChunker",
    "lines": "ragcode.chunking.lines:LinesChunker",
    "cli": "ragcode.chunking.scripts.table:CliChunker",
    # LlamaIndex's chunkers as baselines (issue 7); need the llamaindex extra, imported on use
    "llamaindex-markdown": "ragcode.integrations.llamaindex.chunkers:LlamaIndexMarkdownChunker",
    "llamaindex-code": "ragcode.integrations.llamaindex.chunkers:LlamaIndexCodeChunker",
})


def get_chunker(name: str) -> Chunker:
    """The chunker registered as ``name`` (or a ``module:Class`` path), ready to call."""
    obj = CHUNKERS.get(name)
    return obj() if isinstance(obj, type) else obj
