"""What the checks know about a repository, read from its files and cached.

- ``script_flags(path)``: the ``Flag``s a script's parser declares (argparse, click, typer,
  absl, ``HfArgumentParser``; a shell script's ``$1..$n`` / ``getopts``, through the chunking
  stage's extractor), or ``None`` when none can be read or a shell script forwards ``"$@"``;
- ``scripts_near(folder)``: runnable files (``.py``, ``.sh``) in and just below a folder, for
  naming the closest real script;
- ``module_file(name, roots)``: the file a dotted module name resolves to inside the repository;
- ``module_symbols(path)``: the names a module defines at top level (functions, classes,
  assignments, imports, ``__all__``), for "that function does not exist" findings;
- ``console_scripts(repo)``: the commands the repository installs (``[project.scripts]`` of
  pyproject.toml, ``console_scripts`` of setup.py / setup.cfg): ``whisper audio.mp3`` runs it;
  ``console_targets(repo)`` with the ``module:function`` each runs.

Files are read once per (path, mtime); a repository does not change while it is checked.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import stat
from pathlib import Path

from ragcode.chunking.scripts.flags import Flag
from ragcode.chunking.scripts.table import declared_flags
from ragcode.errors import RepoPathError
from ragcode.fileio import inside_repo
from ragcode.shell import split_prefix

RUNNABLE = (".py", ".sh")
_SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv"}


def mtime(path: Path) -> float:
    """The file's modification time (-1 when it cannot be read): a cache key part for what is read from it."""
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


MAX_SOURCE_BYTES = 2_000_000  # a bigger file is not read by the checks (a 48 MB script took 12 GB)


def read_text(path: Path) -> str | None:
    """A source file's text; None when it cannot be read, is no regular file (a FIFO would
    block) or is over ``MAX_SOURCE_BYTES`` (no check can tell anything of it then)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def script_flags(path: Path) -> list[Flag] | None:
    path = Path(path).resolve()
    return _script_flags(path, mtime(path))


@functools.lru_cache(maxsize=1024)
def _script_flags(path: Path, _mtime: float) -> list[Flag] | None:
    if path.suffix not in (".py", ".sh", ".bash"):
        return None
    text = read_text(path)
    if text is None:
        return None
    if path.suffix != ".py" and re.search(r'"?\$[@*]"?|\$\{[@*]', text):
        return None  # a shell script that forwards its arguments: any command line may be right
    try:
        flags = declared_flags(str(path), text)
    except Exception:  # noqa: BLE001 - a file the extractor cannot read is simply not judged
        return None
    return flags or None


@functools.lru_cache(maxsize=256)
def scripts_near(folder: Path, depth: int = 2) -> tuple[str, ...]:
    """Runnable files under ``folder`` (paths relative to it), at most ``depth`` levels down."""
    folder = Path(folder)
    out: list[str] = []
    base = len(folder.parts)
    for dirpath, dirnames, filenames in os.walk(folder):
        level = len(Path(dirpath).parts) - base
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        if level >= depth:
            dirnames[:] = []
        rel = Path(dirpath).relative_to(folder)
        out.extend(str(rel / f) if level else f for f in sorted(filenames) if f.endswith(RUNNABLE))
        if len(out) > 2000:
            break
    return tuple(out)


def module_file(name: str, roots: list[Path]) -> Path | None:
    """``pkg.mod`` -> ``ROOT/pkg/mod.py`` or ``ROOT/pkg/mod/__init__.py`` for the first root
    that has it."""
    parts = name.split(".")
    if not all(parts):
        return None
    for root in roots:
        base = Path(root).joinpath(*parts)
        for cand in (base.with_suffix(".py"), base / "__init__.py", base / "__main__.py"):
            if cand.is_file() and _within(cand, roots):
                return cand
        if base.is_dir() and _within(base, roots):  # a namespace package
            return base
    return None


def _within(path: Path, roots: list[Path]) -> bool:
    """Does ``path`` (links followed) stay inside one of ``roots``, all inside the repository?"""
    for root in roots:
        try:
            inside_repo(root, path)
            return True
        except RepoPathError:
            continue
    return False


def module_symbols(path: Path) -> frozenset[str] | None:
    path = Path(path)
    return _module_symbols(path, mtime(path))


@functools.lru_cache(maxsize=1024)
def _module_symbols(path: Path, _mtime: float) -> frozenset[str] | None:
    if path.is_dir():  # namespace package: its submodules
        return frozenset(p.stem for p in path.iterdir() if p.suffix == ".py" or p.is_dir())
    text = read_text(path)
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    names: set[str] = set()
    for node in tree.body:
        names.update(_defined(node))
    if path.name == "__init__.py":  # submodules of a package are importable names too
        names.update(p.stem for p in path.parent.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file())
    return frozenset(names)


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"} | (
            {"*"} if any(a.name == "*" for a in node.names) else set())
    if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
        out: set[str] = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                out |= _defined(child)
        for handler in getattr(node, "handlers", []):
            for child in handler.body:
                out |= _defined(child)
        return out
    return set()


_ENTRY = re.compile(r"""['"]\s*([A-Za-z][\w.-]*)\s*=\s*([\w.]+:[\w.]+)\s*['"]""")


@functools.lru_cache(maxsize=64)
def console_targets(repo: Path) -> dict[str, str]:
    """The commands the repository's packaging installs, each with the ``module:function`` it runs
    (``whisper`` -> ``whisper.transcribe:cli``; ``[project.scripts]`` of pyproject.toml,
    ``console_scripts`` of setup.py / setup.cfg). Read as text: a setup.py is never run."""
    import tomllib

    targets: dict[str, str] = {}
    try:
        project = tomllib.loads(read_text(repo / "pyproject.toml") or "").get("project", {})
        targets.update({str(k): str(v) for k, v in (project.get("scripts", {}) or {}).items()})
    except (tomllib.TOMLDecodeError, AttributeError, TypeError):
        pass
    setup_py = read_text(repo / "setup.py") or ""
    if "console_scripts" in setup_py:
        targets.update(_ENTRY.findall(setup_py[setup_py.index("console_scripts"):]))
    cfg = read_text(repo / "setup.cfg") or ""
    if "console_scripts" in cfg:
        block = cfg[cfg.index("console_scripts"):].split("\n[", 1)[0]
        targets.update((m.group(1), m.group(2)) for m in
                       re.finditer(r"(?m)^\s+([A-Za-z][\w.-]*)\s*=\s*([\w.]+:[\w.]+)", block))
    return targets


def console_scripts(repo: Path) -> frozenset[str]:
    """The command names the repository's packaging installs (``whisper``, ``fairseq-train``)."""
    return frozenset(console_targets(repo))


def installed_command(words: list[str], repo: Path) -> str | None:
    """The ``module:function`` a command's words run when, after any ``VAR=value`` prefix and
    wrapper, they start with a command the repository installs (``whisper talk.wav``), else None."""
    rest = split_prefix(words)[1]
    return console_targets(repo).get(rest[0]) if rest else None
