"""Which modules a repository and an environment provide (for imports and ``python -m``).

- ``repo_modules(repo)`` / ``in_repo(name, roots, repo)``: the repository's own importable names;
- ``repo_imports(repo)``: top-level modules its own code and notebooks import (a line scan);
- ``repo_declared_packages(repo)``: what its requirement files and docs say to ``pip install``;
- ``repo_needs(name, repo)``: a third-party package the repository depends on;
- ``near_repo_module(name, repo)``: the repository's module or declared package that ``name``
  misses by a little (a misspelling), or "";
- ``env_has_modules(interpreter, names)``: which names the interpreter can import (asked once).

Used by the answer checks and by the ``static`` scoring policy and infrastructure-failure
rules in ``ragcode.bench``.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

from ragcode.check.facts import read_text


@functools.lru_cache(maxsize=32)
def repo_modules(repo_dir: Path, depth: int = 3) -> frozenset[str]:
    """Importable names a repository provides: packages (a folder with ``__init__.py``) and
    modules within ``depth`` levels (covers ``src/`` layouts and vendored sub-projects such as
    ``GroundingDINO/groundingdino``), plus every top-level folder (namespace packages)."""
    names: set[str] = set()
    base_parts = len(repo_dir.parts)
    for dirpath, dirnames, filenames in os.walk(repo_dir):
        level = len(Path(dirpath).parts) - base_parts
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        if level >= depth:
            dirnames[:] = []
        if level == 0:
            names.update(dirnames)
        if "__init__.py" in filenames and level > 0:
            names.add(Path(dirpath).name)
        names.update(f[:-3] for f in filenames if f.endswith(".py"))
    return frozenset(names)


def in_repo(name: str, roots: list[Path], repo_dir: Path) -> bool:
    return (any((r / name).is_dir() or (r / f"{name}.py").is_file() for r in roots)
            or name in repo_modules(repo_dir))


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


@functools.lru_cache(maxsize=32)
def repo_imports(repo_dir: Path) -> frozenset[str]:
    """Top-level module names the repository's own Python files and notebooks' code cells import
    (a cheap line scan)."""
    names: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(repo_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if f.endswith(".py"):  # read_text: regular files under the size cap only (a FIFO would block)
                names.update(_IMPORT_LINE.findall(read_text(Path(dirpath) / f) or ""))
            elif f.endswith(".ipynb"):
                names.update(_IMPORT_LINE.findall(_notebook_code(read_text(Path(dirpath) / f) or "")))
    return frozenset(names)


def _notebook_code(text: str) -> str:
    """The code cells of a Jupyter notebook's JSON, joined ("" when it is not one)."""
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return ""
    sources = [c.get("source", "") for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    return "\n".join("".join(s) if isinstance(s, list) else str(s) for s in sources)


_PIP_INSTALL = re.compile(r"pip3?\s+install\s+([^\n`;&|]+)")
_PACKAGE_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_DECLARING_FILES = ("requirements*.txt", "setup.py", "setup.cfg", "pyproject.toml",
                    "environment*.yml", "environment*.yaml", "README*", "readme*")


def _norm(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(".", "_")


@functools.lru_cache(maxsize=32)
def repo_declared_packages(repo_dir: Path) -> frozenset[str]:
    """Distribution names the repository asks users to install: requirement-file lines and the
    words after ``pip install`` in its top-level docs and setup files (normalised to import
    style: lower case, ``-`` -> ``_``)."""
    names: set[str] = set()
    for pattern in _DECLARING_FILES:
        for path in repo_dir.glob(pattern):
            text = read_text(path)
            if text is None:
                continue
            if path.name.startswith("requirements"):
                names.update(_norm(m.group(1)) for line in text.splitlines()
                             if (m := _REQ_NAME.match(line)) and not line.lstrip().startswith(("#", "-")))
            for m in _PIP_INSTALL.finditer(text):
                for word in m.group(1).split():
                    word = word.strip("'\"")
                    if word.startswith(("-", ".", "/", "git+", "http")) or word.endswith((".txt", ".yml", ".yaml")):
                        continue
                    word = re.split(r"[\[<>=!~]", word, maxsplit=1)[0]
                    if not _PACKAGE_WORD.match(word):
                        break  # prose after the command
                    names.add(_norm(word))
    return frozenset(n for n in names if n)


@functools.lru_cache(maxsize=64)
def _env_modules_cached(interpreter: str, names: tuple[str, ...]) -> dict[str, bool]:
    if not names:
        return {}
    if interpreter in ("", sys.executable):
        return {n: importlib.util.find_spec(n.split(".")[0]) is not None for n in names}
    from ragcode.execution.probe import ask_json

    code = ("import importlib.util,json,sys;print(json.dumps({n: importlib.util.find_spec(n) is not None "
            "for n in json.load(sys.stdin)}))")
    # top-level names only: finding ``a.b`` would import (run) ``a``
    found = ask_json(interpreter, code, json.dumps([n.split(".")[0] for n in names]))
    if not isinstance(found, dict):
        return {n: True for n in names}  # cannot tell: do not blame the answer
    return {n: bool(found.get(n.split(".")[0], True)) for n in names}


def env_has_modules(interpreter: str, names: tuple[str, ...] | list[str]) -> dict[str, bool]:
    """Which of ``names`` the interpreter (empty = this one) can import; asked once per set."""
    return _env_modules_cached(interpreter, tuple(names))


def repo_needs(top: str, repo_dir: Path) -> bool:
    """Is ``top`` a third-party package the repository imports itself or says to install?"""
    if top in sys.stdlib_module_names:
        return False
    return top in repo_imports(Path(repo_dir)) or top.lower() in repo_declared_packages(Path(repo_dir))


def near_repo_module(top: str, repo_dir: Path) -> str:
    """The repository's own module, its folder's name or a package it says to install that
    ``top`` misses by a little (``open_clips`` / ``openclip`` for ``open_clip``), or ""."""
    want = _squash(top)
    if len(want) < 3:
        return ""
    names = sorted(repo_modules(Path(repo_dir)) | repo_declared_packages(Path(repo_dir)) | {Path(repo_dir).name})
    close = difflib.get_close_matches(want, [_squash(n) for n in names], n=1, cutoff=0.8)
    return next((n for n in names if close and _squash(n) == close[0]), "")


def _squash(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")
