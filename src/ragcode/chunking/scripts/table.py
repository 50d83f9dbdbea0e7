"""The ``cli`` chunk of a script: one text table of the flags its parser declares.

``chunk_cli`` turns the ``Flag``s of a Python or shell script (``declared_flags``) into ONE
chunk of kind ``cli``: its path, how to run it (``python``/``bash``), and a line per flag
(type, default, choices, required, help). Literal defaults are shown as values, others as their
source text; ``HfArgumentParser`` fields are listed under their dataclass, and one of
transformers' own dataclasses as a single line of flag names. The metadata holds ``script``,
``parsers`` and ``flags`` (``Flag.to_dict()`` each).
"""

from __future__ import annotations

import logging
import posixpath
from typing import Any

from ragcode.chunking.languages import BASH, language_for
from ragcode.chunking.scripts.flags import Flag, extract_flags
from ragcode.chunking.scripts.shell_args import extract_shell_flags
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


_EXTERNAL_NAMES = 30  # names listed for a dataclass the repository does not define


def _flag_lines(flags: list[Flag]) -> list[str]:
    """One line per flag; ``HfArgumentParser`` fields under their dataclass, and a dataclass
    from transformers (not in the repository) as one line of its flag names."""
    if not any(f.group for f in flags):
        return ["  " + format_flag(f) for f in flags]
    out: list[str] = []
    groups = list(dict.fromkeys(f.group or "" for f in flags))
    for group in groups:
        members = [f for f in flags if (f.group or "") == group]
        if group.endswith("(transformers)"):
            names = [f.name for f in members if f.action != "store_false"]
            shown = ", ".join(names[:_EXTERNAL_NAMES]) + (", ..." if len(names) > _EXTERNAL_NAMES
                                                          else "")
            out.append(f"  {group}, {len(names)} flags: {shown}")
            continue
        if group:
            out.append(f"  {group}:")
        out.extend(("    " if group else "  ") + format_flag(f) for f in members)
    return out


def cli_chunk(path: str, flags: list[Flag], cfg: ChunkingConfig) -> Chunk:
    parsers = sorted({f.parser for f in flags})
    folder = posixpath.dirname(path)
    name = posixpath.basename(path)
    shell = language_for(path) is BASH
    run, what = ("bash", "arguments") if shell else ("python", "flags")
    lines = [
        f"Command-line {what} of {path} ({', '.join(parsers)})",
        f"Run from the repository root: {run} {path} [{what}]",
    ]
    if folder:
        lines.append(f"Run from {folder}/: {run} {name} [{what}]")
    subs = list(dict.fromkeys(f.subcommand for f in flags if f.subcommand))
    if subs:
        lines.append(f"Subcommands: {', '.join(subs)}")
    lines.append(f"{what.capitalize()}:")
    lines.extend(_flag_lines(flags))
    return Chunk(
        path=path, kind="cli", text="\n".join(lines),
        start_line=min(f.line for f in flags), end_line=max(f.line for f in flags),
        symbol="cli", header=f"# {path} :: command-line {what}" if cfg.code.header
        else "", language="bash" if shell else "python",
        metadata={"script": path, "parsers": parsers, "flags": [f.to_dict() for f in flags]},
    )


def declared_flags(path: str, text: str, tree: Any = None) -> list[Flag]:
    """The ``Flag``s a script declares: shell scripts (``.sh``, ``.bash``) through
    ``shell_args``, anything else as Python through ``flags``."""
    if language_for(path) is BASH:
        return extract_shell_flags(text, tree)
    return extract_flags(text, tree)


def chunk_cli(file: SourceFile, cfg: ChunkingConfig, tree: Any = None) -> list[Chunk]:
    """The ``cli`` chunk of a Python or shell script, or ``[]`` when it declares no flags."""
    if not cfg.cli.enabled:
        return []
    try:
        flags = declared_flags(file.path, file.text, tree)
    except Exception as exc:  # noqa: BLE001 - one odd file must not stop indexing
        log.warning("cannot read the command-line flags of %s: %s", file.path, exc)
        return []
    return [cli_chunk(file.path, flags, cfg)] if flags else []


class CliChunker:
    name = "cli"

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return chunk_cli(file, cfg)
