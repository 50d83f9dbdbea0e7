"""How the repository itself spells values: the words inside the string literals of its Python
files (``"vit_h": build_sam_vit_h``, ``choices=['cifar10', 'lsun']``, ``help='cifar10 | lsun'``,
``"ViT-g-14": _VITg14``).

A value the instruction names in another case or with other separators than the answer
(``ViT-H`` / ``vit_h``, ``CIFAR-10`` / ``cifar10``) is respelled the user's way only when the
repository's code spells it the user's way and never the answer's: a spelling the code uses is a
value its parser or its registry takes, so the answer's form stands. Read once per repository
(files up to 256 KB, at most 5000 of them, hidden and virtual-environment folders skipped).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

_SKIP_DIRS = {"__pycache__", "node_modules", ".venv", "venv", "site-packages"}
_MAX_FILES, _MAX_BYTES = 5000, 256_000
_LITERAL = re.compile(r"""(['"])((?:(?!\1)[^\\\n]){1,200})\1""")
_TOKEN = re.compile(r"[A-Za-z0-9_./:-]*[A-Za-z0-9_/]")


def literal_words(text: str) -> set[str]:
    """The words inside the string literals of Python source ``text``: each literal whole, its
    tokens, and each token's parts between ``/``, ``.`` and ``:`` (``ViT-g-14.json`` gives ``ViT-g-14``)."""
    out: set[str] = set()
    for m in _LITERAL.finditer(text):
        body = m.group(2).strip()
        out.add(body)
        for tok in _TOKEN.findall(body):
            out.add(tok)
            out.update(p for p in re.split(r"[/.:]", tok) if p)
    return out


@functools.lru_cache(maxsize=32)
def _python_files(repo: Path) -> tuple[Path, ...]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            try:
                if name.endswith(".py") and path.stat().st_size <= _MAX_BYTES:
                    out.append(path)
            except OSError:
                continue
            if len(out) >= _MAX_FILES:
                return tuple(out)
    return tuple(out)


@functools.lru_cache(maxsize=32)
def code_spellings(repo: Path) -> frozenset[str]:
    """Every word the repository's Python files write inside a string literal."""
    words: set[str] = set()
    for path in _python_files(repo):
        try:
            words |= literal_words(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return frozenset(words)


def code_spells(repo: Path | str, word: str) -> bool:
    """The repository's code writes ``word`` as (part of) a string literal."""
    return word in code_spellings(Path(repo).resolve())


_DEFINED = re.compile(r"^\s*(?:class|def)\s+(\w+)", re.MULTILINE)


@functools.lru_cache(maxsize=32)
def _squashed_names(repo: Path) -> frozenset[str]:
    """The literal words, the class and function names and the file and folder names of the
    repository's code, lower case without separators."""
    names = set(code_spellings(repo))
    for path in _python_files(repo):
        names.update(path.stem.split(".")[0] for path in (path, path.parent))
        try:
            names.update(_DEFINED.findall(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return frozenset(re.sub(r"[\s_./-]+", "", w.lower()) for w in names)


def code_names(repo: Path | str, squashed: str) -> bool:
    """The repository's code names ``squashed`` (lower case, no separators) in some case and
    spelling: in a string literal (``'LSTM'``), as a class or function (``class ViP``) or a file
    (``vip-mlp.py``)."""
    return squashed in _squashed_names(Path(repo).resolve())
