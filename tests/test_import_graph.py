"""The import graph of ``src/ragcode``: no cycles between modules or between packages, and no
module over 400 lines. Read with ``ast`` (nothing is imported), so it costs milliseconds.

What is checked, precisely:

- Modules: every ``.py`` file under ``src/ragcode``; a package is its ``__init__.py``, named by
  the package (``ragcode.index``), the root facade is ``ragcode``.
- Edges: every ``import`` / ``from ... import`` statement anywhere in a file: at module level,
  inside functions and classes, under ``if TYPE_CHECKING:`` and in ``try`` blocks (a lazy
  import still ties the two modules together). ``from P import n`` is an edge to ``P.n`` when
  that is a module, else to ``P``; ``import a.b`` to the longest prefix that is a module;
  relative imports are resolved. Only ragcode's own modules count, and a module importing itself
  does not.
- Not edges: the parent packages Python runs on the way to a submodule, and names looked up at
  run time (registry targets such as ``"ragcode.integrations.llamaindex.chunkers:Class"``):
  those are how a lower layer reaches an implementation without importing it.
- Module cycles: no strongly connected component of two or more modules.
- Package cycles: each module belongs to its unit, the first name below ``ragcode``
  (``ragcode.index.build`` -> ``index``; ``ragcode.config`` -> ``config``; the root facade ->
  ``ragcode``); edges between different units must form no cycle either, so a lower package
  never imports an upper one, not even inside a function.
- ``ALLOWED``: known import edges in other owners' packages that make a cycle today, each with
  the fix it waits for. They are left out of the graph; an entry whose import is gone fails
  ``test_allowed_cycle_edges_still_exist`` so the list only shrinks.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 400

ALLOWED: dict[tuple[str, str], str] = {}


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "ragcode").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _target(name: str, mods: dict[str, Path]) -> str | None:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_edges(mods: dict[str, Path]) -> set[tuple[str, str]]:
    """(importer, imported) for every import statement of every module (see the module doc)."""
    edges = set()
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_target(a.name, mods) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in mods
                           else _target(origin, mods) for a in node.names]
            edges |= {(name, t) for t in targets if t is not None and t != name}
    return edges


def cycles(nodes: set[str], edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of two or more nodes (Tarjan), each sorted."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def unit(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _explain(comp: list[str], edges: set[tuple[str, str]]) -> str:
    inside = sorted((a, b) for a, b in edges if a in comp and b in comp)
    return f"{comp}: " + "; ".join(f"{a} -> {b}" for a, b in inside)


def test_no_import_cycle_between_modules():
    mods = modules()
    edges = import_edges(mods) - set(ALLOWED)
    found = cycles(set(mods), edges)
    assert not found, "import cycles between modules:\n" + "\n".join(
        _explain(c, edges) for c in found)


def test_no_import_cycle_between_packages():
    mods = modules()
    by_unit = {(unit(a), unit(b)) for a, b in import_edges(mods) - set(ALLOWED)
               if unit(a) != unit(b)}
    found = cycles({unit(m) for m in mods}, by_unit)
    if found:  # name the module imports behind each package edge of a cycle
        raw = {(a, b) for a, b in import_edges(mods) - set(ALLOWED) if unit(a) != unit(b)}
        lines = []
        for comp in found:
            lines.append(f"{comp}: " + "; ".join(
                f"{a} -> {b}" for a, b in sorted(raw) if unit(a) in comp and unit(b) in comp))
        raise AssertionError("import cycles between packages:\n" + "\n".join(lines))


def test_allowed_cycle_edges_still_exist():
    mods = modules()
    edges = import_edges(mods)
    stale = [e for e in ALLOWED if e[0] in mods and e not in edges]
    assert not stale, f"these imports are gone; remove them from ALLOWED: {stale}"


def test_no_module_over_400_lines():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines (split them): {long}"


def test_the_graph_sees_lazy_and_type_only_imports(tmp_path, monkeypatch):
    """The reader itself: a function-level and a TYPE_CHECKING import are edges; a registry
    string is not."""
    pkg = tmp_path / "ragcode"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ragcode.high import b\n"
        "TARGET = 'ragcode.high.b:Thing'\n")
    (pkg / "high.py").write_text("def f():\n    from .low import a\n    return a\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    mods = modules()
    edges = import_edges(mods)
    assert ("ragcode.high", "ragcode.low.a") in edges
    assert ("ragcode.low.a", "ragcode.high") in edges
    assert cycles(set(mods), edges) == [["ragcode.high", "ragcode.low.a"]]
