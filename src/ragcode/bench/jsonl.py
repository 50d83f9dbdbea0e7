"""Append-only JSONL files that survive a kill: each line is written, flushed and fsynced; a torn
last line (a kill mid-write) is ignored on read and cut off before the next append."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_JSON_NAMES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


def repair_tail(path: Path) -> int:
    """Cut a torn last line (no trailing newline) off ``path``; returns the bytes removed."""
    if not path.exists():
        return 0
    with path.open("rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return 0
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        pos = size - 1
        while pos > 0:
            step = min(4096, pos)
            fh.seek(pos - step)
            block = fh.read(step)
            idx = block.rfind(b"\n")
            if idx >= 0:
                pos = pos - step + idx + 1
                break
            pos -= step
        fh.truncate(pos)
        log.warning("%s: cut a torn last line (%d bytes) left by an interrupted write", path, size - pos)
        return size - pos


def append_line(path: Path, obj: Any) -> None:
    data = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
    with path.open("ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def read_lines(path: Path, problems: list[str] | None = None) -> list[dict[str, Any]]:
    """Every complete JSON-object line of ``path``. A torn or corrupt line, or one that holds
    another JSON value (an array, a number), is skipped with a warning and, when ``problems``
    is given, described there (``"line 3: not valid JSON"``)."""
    if not path.exists():
        return []
    out = []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            why = "torn last line" if lineno == len(lines) else "not valid JSON"
        else:
            if isinstance(rec, dict):
                out.append(rec)
                continue
            why = f"a JSON {_JSON_NAMES.get(type(rec), 'value')}, not an object"
        log.warning("%s line %d: %s, ignored", path, lineno, why)
        if problems is not None:
            problems.append(f"line {lineno}: {why}")
    return out
