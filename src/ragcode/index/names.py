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


def index_names(root: Path) -> list[str]:
    """The indexes built under ``root``: its folders holding a ``manifest.json``, sorted."""
    try:
        return sorted(p.name for p in Path(root).iterdir() if (p / "manifest.json").is_file())
    except OSError:
        return []


def no_index_message(index_dir: Path) -> str:
    """What to say when ``index_dir`` holds no index: the closest built name beside it when a
    name was mistyped, the names there, and how to build one."""
    import difflib

    names = index_names(index_dir.parent)
    near = difflib.get_close_matches(index_dir.name, names, n=1, cutoff=0.6)
    guess = f"; did you mean {near[0]}?" if near else ""
    there = (f" (indexes there: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''})" if names
             else f" ({index_dir.parent} holds no index yet)")
    return (f"no index named {index_dir.name!r} under {index_dir.parent}{guess}{there}. Build it with "
            f"`ragcode index REPO --name {index_dir.name}`.")
