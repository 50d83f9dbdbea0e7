"""Which modules a repository and an environment provide (for imports and ``python -m``).

``env_has_modules(interpreter, names)`` asks the interpreter once per set of names;
``in_repo(name, roots, repo_dir)`` tells whether a top-level module is the repository's own.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ragcode.bench.static_checks import _env_modules, _in_repo, repo_declared_packages, repo_imports


def env_has_modules(interpreter: str, names: tuple[str, ...]) -> dict[str, bool]:
    return _env_modules(interpreter, tuple(names))


def in_repo(name: str, roots: list[Path], repo_dir: Path) -> bool:
    return _in_repo(name, roots, repo_dir)


def repo_needs(top: str, repo_dir: Path) -> bool:
    """Is ``top`` a third-party package the repository imports itself or says to install?"""
    if top in sys.stdlib_module_names:
        return False
    return top in repo_imports(Path(repo_dir)) or top.lower() in repo_declared_packages(Path(repo_dir))
