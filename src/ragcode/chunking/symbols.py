"""Python definitions and what they refer to, read with tree-sitter (nothing is imported or run).

``extract_symbols(path, text)`` returns one ``Symbol`` per function, class and method of a
module, and per module-level assignment to a name (kind ``variable``: ``sam_model_registry =
{...}``); definitions under module-level ``if`` / ``try`` blocks count too, functions nested in
functions do not (they are not callable from outside). Each carries its qualified name
(``pkg.model.GPT.from_pretrained``: the module's dotted path, ``src/`` and ``__init__`` dropped,
then the class path), its signature as written (whitespace collapsed), its decorators, the first
sentence of its docstring, its lines, and the names it calls (``refs``: ``f`` for ``f(...)``,
``attr`` for ``x.attr(...)``). The symbol index of ``ragcode.index`` and the ``api`` chunks are
made from these.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ragcode.chunking.languages import PYTHON, parser_for

_WS = re.compile(r"\s+")
MAX_REFS = 40  # names kept per definition
_CONTAINERS = ("if_statement", "try_statement", "else_clause", "elif_clause", "except_clause",
               "finally_clause", "with_statement", "block")


@dataclass(frozen=True)
class Symbol:
    """One definition: ``kind`` is ``function``, ``class``, ``method`` or ``variable`` (a
    module-level assignment to a name); lines 1-based."""

    name: str
    qualname: str
    kind: str
    signature: str
    path: str
    line: int
    end_line: int
    doc: str = ""
    decorators: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    parent: str = ""  # the enclosing class's name for a method
    bases: tuple[str, ...] = field(default=())

    @property
    def public(self) -> bool:
        """Callable from outside by convention: no leading underscore (``__init__`` counts,
        being how a class is called), and, for a method, a public class."""
        own = not self.name.startswith("_") or self.name == "__init__"
        return own and not self.parent.startswith("_")

    @property
    def local_name(self) -> str:
        """``Class.method`` for a method, the bare name otherwise."""
        return f"{self.parent}.{self.name}" if self.parent else self.name

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["decorators"], d["refs"], d["bases"] = list(self.decorators), list(self.refs), \
            list(self.bases)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Symbol:
        return cls(**{**d, "decorators": tuple(d.get("decorators", ())),
                      "refs": tuple(d.get("refs", ())), "bases": tuple(d.get("bases", ()))})


def module_name(path: str) -> str:
    """``src/pkg/model.py`` -> ``pkg.model``; ``pkg/__init__.py`` -> ``pkg``."""
    parts = path.split("/")
    if parts and parts[0] in ("src", "lib") and len(parts) > 1:
        parts = parts[1:]
    last = re.sub(r"\.pyi?$", "", parts[-1])
    parts = parts[:-1] + ([] if last == "__init__" else [last])
    return ".".join(p.replace("-", "_") for p in parts) or last


def _text(node: Any, src: bytes) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


def docstring(body: Any, src: bytes) -> str:
    """The first sentence of a body's leading string literal: its first paragraph with the lines
    joined, up to the first ``.``/``!``/``?`` followed by a space (at most 200 characters;
    "" when there is no docstring)."""
    if body is None or not body.named_children:
        return ""
    first = body.named_children[0]
    if first.type != "expression_statement" or not first.named_children \
            or first.named_children[0].type != "string":
        return ""
    raw = _text(first.named_children[0], src)
    raw = re.sub(r"^[rRbBuUfF]*('\'\'|\"\"\"|'|\")", "", raw)
    raw = re.sub(r"('\'\'|\"\"\"|'|\")$", "", raw)
    para = next((p for p in re.split(r"\n\s*\n", raw.strip()) if p.strip()), "")
    text = _one_line(para)
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text)[:200]


_CALLS = "(call function: [(identifier) @name (attribute attribute: (identifier) @name)])"


@functools.lru_cache(maxsize=1)
def _calls_query(language: Any) -> Any:
    from tree_sitter import Query

    return Query(language, _CALLS)


def call_sites(root: Any, parser: Any) -> list[tuple[int, str]]:
    """(start byte, name) of every call in the tree, in source order: ``f`` for ``f(...)``,
    ``attr`` for ``x.attr(...)`` (one tree-sitter query, not a walk in Python)."""
    from tree_sitter import QueryCursor

    found = QueryCursor(_calls_query(parser.language)).captures(root).get("name", [])
    return sorted((n.start_byte, (n.text or b"").decode("utf-8", "replace")) for n in found)


def called_names(body: Any, calls: list[tuple[int, str]]) -> tuple[str, ...]:
    """Names called in ``body`` (``call_sites`` of its file), in order of first use, at most
    ``MAX_REFS``."""
    if body is None:
        return ()
    lo = bisect.bisect_left(calls, (body.start_byte, ""))
    hi = bisect.bisect_left(calls, (body.end_byte, ""))
    found: dict[str, None] = {}
    for _pos, name in calls[lo:hi]:
        found.setdefault(name)
        if len(found) >= MAX_REFS:
            break
    return tuple(found)


def _signature(node: Any, src: bytes) -> str:
    """``def f(x, y=1) -> int`` / ``async def f(...)`` / ``class A(B)``, as written."""
    body = node.child_by_field_name("body")
    end = body.start_byte if body is not None else node.end_byte
    head = src[node.start_byte:end].decode("utf-8", "replace")
    head = re.sub(r"#[^\n]*", "", head)  # comments between parameters
    return _one_line(head).rstrip(":").rstrip()


class _Reader:
    def __init__(self, path: str, src: bytes, calls: list[tuple[int, str]]):
        self.path = path
        self.src = src
        self.calls = calls
        self.module = module_name(path)
        self.out: list[Symbol] = []

    def scope(self, nodes: list[Any], cls: str, in_function: bool) -> None:
        for node in nodes:
            decorators: list[str] = []
            target = node
            if node.type == "decorated_definition":
                decorators = [_one_line(_text(d, self.src)).lstrip("@")
                              for d in node.named_children if d.type == "decorator"]
                target = node.child_by_field_name("definition") or node.named_children[-1]
            if target.type in ("function_definition", "class_definition"):
                if not in_function:
                    self.define(node, target, decorators, cls)
            elif node.type == "expression_statement" and not cls:
                self.assigned(node)
            elif node.type in _CONTAINERS and not in_function:
                self.scope(list(node.named_children), cls, in_function)

    def assigned(self, node: Any) -> None:
        """A module-level ``NAME = value`` (``sam_model_registry = {...}``): kind ``variable``,
        its signature the first line of the statement (at most 120 characters)."""
        stmt = node.named_children[0] if node.named_children else None
        if stmt is None or stmt.type != "assignment":
            return
        left = stmt.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return
        name = _text(left, self.src)
        first = _text(stmt, self.src).split("\n")[0]
        self.out.append(Symbol(
            name=name, qualname=f"{self.module}.{name}", kind="variable",
            signature=_one_line(first)[:120], path=self.path, line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1))

    def define(self, outer: Any, node: Any, decorators: list[str], cls: str) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        name = _text(name_node, self.src)
        body = node.child_by_field_name("body")
        is_class = node.type == "class_definition"
        kind = "class" if is_class else ("method" if cls else "function")
        qual = ".".join(p for p in (self.module, cls, name) if p)
        bases: tuple[str, ...] = ()
        if is_class:
            sup = node.child_by_field_name("superclasses")
            if sup is not None:
                bases = tuple(_one_line(_text(b, self.src)) for b in sup.named_children)
        self.out.append(Symbol(
            name=name, qualname=qual, kind=kind, signature=_signature(node, self.src),
            path=self.path, line=outer.start_point[0] + 1, end_line=outer.end_point[0] + 1,
            doc=docstring(body, self.src), decorators=tuple(decorators),
            refs=() if is_class else called_names(body, self.calls), parent=cls, bases=bases))
        if is_class and body is not None:
            inner = f"{cls}.{name}" if cls else name
            self.scope(list(body.named_children), inner, False)


def extract_symbols(path: str, text: str) -> list[Symbol]:
    """Every function, class and method of the Python module ``text`` (at ``path``), in file
    order; ``[]`` when the grammar is missing or the text does not parse at all."""
    parser = parser_for(PYTHON)
    if parser is None:
        return []
    src = text.encode("utf-8", "surrogatepass")
    try:
        root = parser.parse(src).root_node
    except Exception:  # noqa: BLE001 - a parser crash leaves the file without symbols
        return []
    reader = _Reader(path, src, call_sites(root, parser))
    reader.scope(list(root.named_children), "", False)
    return reader.out
