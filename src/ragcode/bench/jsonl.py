"""Append-only JSONL files that survive a kill: each line is written, flushed and fsynced; a torn
last line (a kill mid-write) is ignored on read and cut off before the next append."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


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


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line of ``path``; a torn or corrupt line is skipped with a warning."""
    if not path.exists():
        return []
    out = []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            torn = lineno == len(lines)
            log.warning("%s line %d: %s, ignored", path, lineno,
                        "torn last line" if torn else "not valid JSON")
    return out


