"""Command-line interfaces of scripts, and the README commands that call them.

- ``flags``: ``Flag`` (one declared option or argument) and ``extract_flags`` (argparse, click,
  typer, absl, read with tree-sitter from literals);
- ``table``: the ``cli`` chunk of a script (``chunk_cli``, the ``CliChunker`` registered as
  ``cli``);
- ``link``: ``link_cli``, the cross-file pass that links documentation commands and the cli
  chunks of the scripts they run.
"""

from ragcode.chunking.scripts.flags import Flag, extract_flags
from ragcode.chunking.scripts.link import link_cli
from ragcode.chunking.scripts.table import CliChunker, chunk_cli

__all__ = ["CliChunker", "Flag", "chunk_cli", "extract_flags", "link_cli"]
