"""Chunking: repository files -> ``Chunk``s.

Public interface (other stages use only these):

- ``walk_repo(root, cfg: WalkConfig) -> WalkResult``: ``.files`` (list of ``SourceFile``),
  ``.skipped`` (``collections.Counter`` reason -> count), ``.file_kind(path) -> str``.
- ``chunk_file(file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]``: pure, per file; the
  chunker is chosen by the file's kind through ``ragcode.chunking.registry``.
- ``link_cli(chunks: list[Chunk]) -> list[Chunk]``: cross-file pass that links README commands
  (``python train.py --lr ...``) and the CLI table chunk of the script they call, in the
  ``metadata["cli_links"]`` of both. Cheap; re-run over all chunks after any file changes.
- ``link_chunks(chunks, cfg: ChunkingConfig) -> list[Chunk]``: ``link_cli`` as every caller runs
  it (old links dropped first; nothing linked when ``cli.link_readme_commands`` is false).
- ``chunk_repo(root, cfg: ChunkingConfig) -> ChunkedRepo``: walk + chunk_file + link_chunks.

See docs/chunking.md for what each chunker does and the ``chunking.*`` settings.
"""

# Bump when a chunker's output changes for the same input and settings: indexes built by an
# older version are then re-chunked on the next `ragcode index` (vectors still come from the cache).
# 2: README commands read with ragcode.shell (redirections dropped, <placeholders> kept,
#    `. x.sh`, `/bin/bash x.sh`, `%run` found); cli flag metadata gains `dest`.
# 3: tree-sitter units for C/C++/CUDA/JS/TS (kind `code`, were line windows of kind `text`)
#    and shell (kind `shell`); cli chunks for shell scripts and HfArgumentParser dataclasses;
#    Markdown fences found by markdown-it (inside list items and block quotes too).
# 4: an ``api`` chunk per Python module (public callables, signatures, docstring lines; the
#    module's definitions in its metadata, the index's symbol table); ``api_links`` between
#    documents / examples and the api chunks of what they call.
# 5: flags that collect or count each use (click multiple/count, typer list options, absl
#    DEFINE_multi_*) carry their action in the cli chunk ("action: append").
# 6: an api chunk also lists the public names bound to one of the module's own functions or
#    classes (``build_sam = build_sam_vit_h``), with the parameters of what they name.
# 7: a repository dataclass named like the transformers class it extends
#    (``TrainingArguments(transformers.TrainingArguments)``) keeps that class's fields in the table.
CHUNKING_VERSION = 7

from ragcode.chunking.scripts import extract_flags, link_cli  # noqa: E402
from ragcode.chunking.pipeline import (  # noqa: E402
    ChunkedRepo, chunk_file, chunk_repo, link_chunks, relink, skip_reason)
from ragcode.chunking.registry import CHUNKERS, Chunker, get_chunker  # noqa: E402
from ragcode.chunking.walk import FILE_KINDS, WalkResult, file_kind, walk_repo  # noqa: E402

__all__ = [
    "CHUNKERS", "CHUNKING_VERSION", "FILE_KINDS", "ChunkedRepo", "Chunker", "WalkResult", "chunk_file", "chunk_repo",
    "extract_flags", "file_kind", "get_chunker", "link_chunks", "link_cli", "relink", "skip_reason", "walk_repo",
]
