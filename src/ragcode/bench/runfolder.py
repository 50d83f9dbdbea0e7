"""Run folders and output files, in one place: who may write one, which settings made it, and
what in it is already done.

- ``hold_folder(folder)`` / ``hold_file(out)``: the exclusive lock (``ragcode.fileio.exclusive_output``)
  a writer holds throughout, on ``FOLDER/.ragcode.lock`` (``mlbench run`` and ``score``, an
  ablation's results folder) or ``OUT.lock`` beside an output file (``mlbench retrieve``), so a
  second writer is refused (``OutputBusyError``) instead of doing the work again beside the first.
- ``check_or_record(path, ident, ...)``: the settings that made an output (``run.json``,
  ``OUT.config.json``); resuming with settings of another hash is refused
  (``RunConfigMismatchError``, naming the fields that differ) instead of mixing two configurations.
- ``finished(path)``: the complete records of an append-only JSONL file, after cutting off a
  torn last line that a kill left (``ragcode.bench.jsonl``), i.e. what a resumed run skips.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragcode.bench.jsonl import read_lines, repair_tail
from ragcode.config import diff_settings
from ragcode.errors import RunConfigMismatchError
from ragcode.fileio import FOLDER_LOCK, exclusive_output, write_atomic

SHOWN_DIFFS = 6  # settings named in a refusal before " ..."


@contextmanager
def hold_folder(folder: str | Path, what: str = "run folder") -> Iterator[Path]:
    """Hold ``folder``'s writer lock for the body (the folder is created)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with exclusive_output(folder / FOLDER_LOCK, f"{what} {folder}"):
        yield folder


@contextmanager
def hold_file(out: str | Path) -> Iterator[Path]:
    """Hold the writer lock of the output file ``out`` (``OUT.lock`` beside it)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_output(out.with_name(out.name + ".lock"), f"output {out}"):
        yield out


def read_identity(path: Path) -> dict[str, Any]:
    """The recorded identity at ``path``; ``{}`` when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def check_or_record(path: Path, ident: dict[str, Any], compare: bool,
                    refuse: Callable[[dict[str, Any], str], str]) -> None:
    """Record ``ident`` (it holds ``config_hash`` and the ``config`` it hashes) at ``path``; with
    ``compare`` and a record already there, keep that one when the hashes agree and otherwise
    raise ``RunConfigMismatchError(refuse(old_record, "the settings that differ"))``."""
    if compare and path.exists():
        old = read_identity(path)
        if old.get("config_hash") != ident["config_hash"]:
            diffs = diff_settings(old.get("config", {}), ident.get("config", {}))
            shown = "; ".join(diffs[:SHOWN_DIFFS]) + (" ..." if len(diffs) > SHOWN_DIFFS else "")
            raise RunConfigMismatchError(refuse(old, shown or "settings differ"))
        return
    write_atomic(path, json.dumps(ident, indent=1) + "\n")


def finished(path: Path) -> list[dict[str, Any]]:
    """Every complete record of the append-only JSONL ``path`` (a torn last line cut off)."""
    repair_tail(path)
    return read_lines(path)
