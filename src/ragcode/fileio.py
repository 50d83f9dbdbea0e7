"""File writes shared by every stage: atomic writes (a killed process never leaves a
half-written file) and an exclusive lock on an output (two processes never write one run)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragcode.errors import OutputBusyError

FOLDER_LOCK = ".ragcode.lock"  # the lock file a run folder's writer holds (``exclusive_output``)


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
