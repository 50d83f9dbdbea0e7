"""Index names: each becomes one folder under ``index.root`` (or ``--out``), so it must be a plain
name that cannot climb out of it (``../x``, ``/abs``, ``a/b``, ``..``) or hide (``.x``)."""

from __future__ import annotations

import re
from pathlib import Path

from ragcode.errors import IndexNameError

MAX_NAME = 128
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
_RULE = (f"an index name is a plain folder name: letters, digits, '.', '_' and '-', starting "
         f"with a letter, digit or '_', at most {MAX_NAME} characters")


def check_index_name(name: object) -> str:
    """``name`` if it is a valid index name, else ``IndexNameError`` (one line)."""
    if not isinstance(name, str) or len(name) > MAX_NAME or not _NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
        raise IndexNameError(f"index name {shown} is not allowed: {_RULE}")
    return name


def default_index_name(repo: Path) -> str:
    """The repository folder's name, with characters an index name cannot hold replaced by '-'."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", repo.name).lstrip(".-")[:MAX_NAME]
    if not name:
        raise IndexNameError(f"cannot make an index name from the folder name of {str(repo)!r}; "
                             f"pass --name NAME ({_RULE})")
    return name
