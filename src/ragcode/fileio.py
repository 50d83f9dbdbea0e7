"""File access shared by every stage: atomic writes (a killed process never leaves a
half-written file), an exclusive lock on an output (two processes never write one run),
append-only JSONL files that survive a kill (each line is written, flushed and fsynced; a torn
last line, from a kill mid-write, is ignored on read and cut off before the next append), and
the one guard every path a user or a model names inside a repository goes through
(``inside_repo``)."""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragcode.errors import OutputBusyError, RepoPathError

log = logging.getLogger(__name__)

FOLDER_LOCK = ".ragcode.lock"  # the lock file a run folder's writer holds (``exclusive_output``)


def inside_repo(root: str | Path, path: str | Path, base: str | Path | None = None) -> Path:
    """``path`` resolved (links followed, ``..`` taken) and kept inside the repository ``root``.

    A relative ``path`` is taken from ``base`` (a folder inside ``root``; the root when None).
    Raises ``RepoPathError`` with a one-line message when the result is outside ``root``
    (``..``, an absolute path elsewhere, a link out) or is no path at all (a NUL byte). Every
    tool that reads what a user or a model names (the agent's tools, the answer checks, the
    static scoring policy) goes through here, so a new reader gets the same guard.
    """
    repo = Path(root).resolve()
    raw = str(path).strip() or "."
    try:
        full = (Path(base) if base is not None else repo).joinpath(raw).resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise RepoPathError(f"bad path {raw[:200]!r}: {exc}") from None
    if full != repo and repo not in full.parents:
        raise RepoPathError(f"refused: {raw[:200]!r} is outside the repository; paths are relative to the "
                            "repository root")
    try:
        os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        pass  # a path that does not exist is still inside
    except OSError as exc:  # a name too long, a permission the process lacks
        raise RepoPathError(f"bad path {raw[:200]!r}: {exc.strerror or exc}") from None
    return full


def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` through a temp file in the same folder, fsync, ``os.replace``.

    The folder is created if needed; on any failure the temp file is removed and ``path`` keeps
    its old content.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, data: Any, indent: int = 2) -> None:
    write_atomic(path, json.dumps(data, indent=indent, ensure_ascii=False))


@contextmanager
def exclusive_output(lock_path: str | Path, what: str) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (a file beside or inside the output ``what``) for
    the body, or raise ``OutputBusyError`` at once, naming the holder's pid, when another
    process holds it. The lock is the OS's (flock), so a killed holder never leaves it stuck;
    the holder's pid and command line are kept in ``<lock_path>.json`` while it holds it."""
    from filelock import FileLock, Timeout

    lock_path = Path(lock_path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    owner = lock_path.with_name(lock_path.name + ".json")
    lock = FileLock(str(lock_path), timeout=0)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise OutputBusyError(
            f"{what} is in use by another ragcode process ({_holder(owner)}); wait for it to "
            "finish or write to another --out") from None
    try:
        write_json_atomic(owner, {"pid": os.getpid(), "argv": sys.argv,
                                  "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        yield
    finally:
        owner.unlink(missing_ok=True)
        lock.release()


def _holder(owner: Path) -> str:
    try:
        info = json.loads(owner.read_text(encoding="utf-8"))
        cmd = " ".join(str(a) for a in info.get("argv", [])[1:3])
        return f"pid {int(info['pid'])}, since {info.get('since', '?')}" + (f", `{cmd}`" if cmd else "")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "pid unknown"

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
