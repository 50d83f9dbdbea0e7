"""Names a Python answer reads but never binds, and the import that binds a module's name.

``clip.tokenize(...)`` after ``from clip import load`` fails with ``NameError: clip``: the
answer meant the module and forgot its import. ``unbound_names`` finds such names with the
standard library's ``symtable`` (the compiler's own scope analysis: assignments, imports,
parameters, ``global``, comprehensions and class scopes as Python resolves them), so no scope
rules are written here; ``add_import`` puts ``import NAME`` where the answer's imports stand.
A class or function of the repository read unbound (``MLP(2, [16, 16, 1])`` after only
``from micrograd import nn``) is found in the one module beside the answer's own imports that
defines it (``defining_module``), and imported from there.
"""

from __future__ import annotations

import ast
import builtins
import functools
import symtable
from pathlib import Path

from ragcode.check.facts import mtime

_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__builtins__", "__spec__"}


def _tables(table: symtable.SymbolTable) -> list[symtable.SymbolTable]:
    out = [table]
    for child in table.get_children():
        out += _tables(child)
    return out


def unbound_names(code: str) -> list[tuple[int, str]]:
    """``(line, name)`` for each global name ``code`` reads that nothing in it binds (builtins
    aside), at the line of its first read; [] when it does not compile or star-imports. Read once
    per answer: the python check and the certain fix of each of its findings ask for the same."""
    return list(_unbound(code))


@functools.lru_cache(maxsize=256)
def _unbound(code: str) -> tuple[tuple[int, str], ...]:
    try:
        top = symtable.symtable(code, "<answer>", "exec")
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree)):
        return ()  # ``from x import *`` binds names no reading of the answer alone can list
    bound = {s.get_name() for t in _tables(top) for s in t.get_symbols()
             if (t is top or s.is_declared_global()) and (s.is_assigned() or s.is_imported() or s.is_namespace())}
    read = {s.get_name() for t in _tables(top) for s in t.get_symbols()
            if s.is_referenced() and (t is top or s.is_global())}
    missing = read - bound - _BUILTINS
    first: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in missing:
            first[node.id] = min(first.get(node.id, node.lineno), node.lineno)
    return tuple(sorted((line, name) for name, line in first.items()))


def add_import(code: str, name: str, source: str = "") -> str:
    """``code`` with ``import NAME`` (``from SOURCE import NAME`` with a ``source``) on the line
    before its first import (after a docstring and ``from __future__`` imports), or before its
    first statement when it imports nothing."""
    tree = ast.parse(code)
    body = [n for n in tree.body if not _preamble(n)]
    at = next((n.lineno for n in body if isinstance(n, ast.Import | ast.ImportFrom)), None)
    if at is None:
        at = _start(body[0]) if body else len(code.splitlines()) + 1
    lines = code.splitlines(keepends=True)
    lines.insert(at - 1, f"from {source} import {name}\n" if source else f"import {name}\n")
    return "".join(lines)


def defining_module(name: str, imported: list[Path], root: Path) -> str:
    """The one module, among the repository files the answer imports (``imported``) and the
    modules beside them, that defines ``name`` at its top (a class, a function or an assignment;
    not an import of it), as a dotted name from ``root``; empty when none or several do."""
    files = {f for path in imported for f in (path, *sorted(path.parent.glob("*.py")))}
    found = {f for f in files if name in _top_definitions(f, mtime(f))}
    if len(found) != 1:
        return ""
    path = found.pop().relative_to(root)
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=1024)
def _top_definitions(path: Path, _mtime: float) -> frozenset[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def _start(node: ast.stmt) -> int:
    """The first line of ``node``, its decorators included."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def _preamble(node: ast.stmt) -> bool:
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    return docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__")
