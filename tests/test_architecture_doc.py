"""docs/architecture.md matches the code: every dotted ``ragcode.`` name it cites imports, and
its package tables (what each unit imports, and the layers) equal the import graph that
``test_import_graph`` reads. ``python tests/test_architecture_doc.py`` prints both tables."""

from __future__ import annotations

import graphlib
import importlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_import_graph import ALLOWED, import_edges, modules, unit  # noqa: E402

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
DOTTED = re.compile(r"\bragcode(?:\.[A-Za-z_]\w*)+")
ROW = re.compile(r"^\| `(\w+)` \| ([\w, ]*) \|$", re.M)
LAYER_ROW = re.compile(r"^\| (\d+) \| (.+) \|$", re.M)
PARAGRAPH = re.compile(r"\*\*`(\w+)`\*\* \((?:module; )?imports ([\w, ]+)\)")


def _short(u: str) -> str:
    return u.removeprefix("ragcode.")


def package_edges() -> dict[str, set[str]]:
    """unit -> the units it imports (module edges between different units, ALLOWED left out)."""
    edges: dict[str, set[str]] = {}
    for a, b in import_edges(modules()) - set(ALLOWED):
        if unit(a) != unit(b):
            edges.setdefault(_short(unit(a)), set()).add(_short(unit(b)))
    return edges


def layers() -> list[list[str]]:
    """Units in import order: layer 0 imports nothing of ragcode; each later one only earlier ones."""
    units = {_short(unit(m)) for m in modules()}
    edges = package_edges()
    ts = graphlib.TopologicalSorter({u: edges.get(u, set()) for u in units})
    ts.prepare()
    out = []
    while ts.is_active():
        ready = sorted(ts.get_ready())
        out.append(ready)
        ts.done(*ready)
    return out


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if (exc.name or "").startswith("ragcode"):
                continue  # not a module of ragcode: the rest may be attributes
            raise
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_name_in_the_doc_imports():
    names = sorted(set(DOTTED.findall(DOC.read_text(encoding="utf-8"))))
    assert len(names) > 50
    missing = [n for n in names if not _resolves(n)]
    assert not missing, f"docs/architecture.md cites names that do not exist: {missing}"


def test_the_package_table_is_the_import_graph():
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- package-imports:start -->")[1].split("<!-- package-imports:end -->")[0]
    documented = {u: {x.strip() for x in deps.split(",") if x.strip()} for u, deps in ROW.findall(block)}
    real = package_edges()
    assert documented == real, (
        "docs/architecture.md's package table differs from the code; rows to write:\n"
        + "\n".join(f"| `{u}` | {', '.join(sorted(real[u]))} |" for u in sorted(real)
                    if documented.get(u) != real[u])
        + "".join(f"\nremove the row of `{u}`" for u in sorted(set(documented) - set(real))))


def test_each_package_paragraph_names_what_it_imports():
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    found = {u: {x.strip() for x in deps.split(",")} for u, deps in PARAGRAPH.findall(text)}
    real = package_edges()
    assert len(found) >= 12
    wrong = {u: sorted(real.get(u, set())) for u, deps in found.items() if deps != real.get(u, set())}
    assert not wrong, f"paragraphs of docs/architecture.md to correct (unit: its imports): {wrong}"


def test_the_layer_table_is_the_import_order():
    documented = [sorted(re.findall(r"`(\w+)`", cells)) for _, cells in LAYER_ROW.findall(
        DOC.read_text(encoding="utf-8"))]
    assert documented == layers(), f"layers to write: {layers()}"


if __name__ == "__main__":
    for u, deps in sorted(package_edges().items()):
        print(f"| `{u}` | {', '.join(sorted(deps))} |")
    for i, row in enumerate(layers()):
        print(i, ", ".join(row))
