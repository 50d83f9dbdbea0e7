"""Shell scripts: tree-sitter code units (kind ``shell``, language ``bash``) and, when
``cli.enabled``, the ``cli`` chunk of the arguments the script reads (``$1``, ``getopts``,
``case "$1" in --x)``; see ``scripts.shell_args``).

The cli chunk is made here rather than in ``pipeline.chunk_file`` (which adds it for Python
files) so that the chunker registered for the ``shell`` kind is the whole story for a script.
"""

from __future__ import annotations

from ragcode.chunking.code import chunk_code
from ragcode.chunking.languages import BASH
from ragcode.chunking.scripts.table import chunk_cli
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile


def chunk_shell(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
    return chunk_code(file, cfg, BASH) + chunk_cli(file, cfg)


class ShellChunker:
    name = "shell"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_shell(file, cfg)
