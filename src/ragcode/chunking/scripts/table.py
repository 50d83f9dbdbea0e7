"""The ``cli`` chunk of a script: one text table of the flags its parser declares.

``chunk_cli`` turns the ``Flag``s of a Python file into ONE chunk of kind ``cli``: its path, how
to run it, and a line per flag (type, default, choices, required, help). Literal defaults are
shown as values, others as their source text. The metadata holds ``script``, ``parsers`` and
``flags`` (``Flag.to_dict()`` each).
"""

from __future__ import annotations

import logging
import posixpath
from typing import Any

from ragcode.chunking.scripts.flags import Flag, extract_flags
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

log = logging.getLogger(__name__)

_HELP_CHARS = 300


def format_flag(flag: Flag) -> str:
    """One table line: ``--lr, -l  type: float  default: 0.001  help: learning rate``."""
    names = ", ".join(flag.names)
    parts = [names if not flag.positional else f"{names} (positional)"]
    if flag.subcommand:
        parts.append(f"subcommand: {flag.subcommand}")
    if flag.type:
        parts.append(f"type: {flag.type}")
    if flag.action and flag.action not in ("store", "store_true", "store_false"):
        parts.append(f"action: {flag.action}")
    if flag.default is not None:
        shown = repr(flag.default) if flag.default_literal else flag.default
        parts.append(f"default: {shown}")
    if flag.choices is not None:
        ch = flag.choices
        parts.append("choices: " + (", ".join(map(str, ch)) if isinstance(ch, list) else str(ch)))
    if flag.nargs is not None:
        parts.append(f"nargs: {flag.nargs}")
    if flag.required is True:
        parts.append("required")
    line = "  ".join(parts)
    help_text = " ".join(str(flag.help or "").split())
    if help_text:
        if len(help_text) > _HELP_CHARS:
            help_text = help_text[:_HELP_CHARS - 3] + "..."
        line += f"  help: {help_text}"
    return line


def cli_chunk(path: str, flags: list[Flag], cfg: ChunkingConfig) -> Chunk:
    parsers = sorted({f.parser for f in flags})
    folder = posixpath.dirname(path)
    name = posixpath.basename(path)
    lines = [
        f"Command-line flags of {path} ({', '.join(parsers)})",
        f"Run from the repository root: python {path} [flags]",
    ]
    if folder:
        lines.append(f"Run from {folder}/: python {name} [flags]")
    subs = list(dict.fromkeys(f.subcommand for f in flags if f.subcommand))
    if subs:
        lines.append(f"Subcommands: {', '.join(subs)}")
    lines.append("Flags:")
    lines.extend("  " + format_flag(f) for f in flags)
    return Chunk(
        path=path, kind="cli", text="\n".join(lines),
        start_line=min(f.line for f in flags), end_line=max(f.line for f in flags),
        symbol="cli", header=f"# {path} :: command-line flags" if cfg.code.header else "",
        language="python",
        metadata={"script": path, "parsers": parsers, "flags": [f.to_dict() for f in flags]},
    )


def chunk_cli(file: SourceFile, cfg: ChunkingConfig, tree: Any = None) -> list[Chunk]:
    """The ``cli`` chunk of a Python script, or ``[]`` when it declares no flags."""
    if not cfg.cli.enabled:
        return []
    try:
        flags = extract_flags(file.text, tree)
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop indexing
        log.warning("cannot read the command-line flags of %s: %s", file.path, exc)
        return []
    return [cli_chunk(file.path, flags, cfg)] if flags else []


class CliChunker:
    name = "cli"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_cli(file, cfg)
