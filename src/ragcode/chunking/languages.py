"""The languages the tree-sitter code chunker reads, as one table of node types per language.

A ``Language`` says which grammar package parses it (compiled grammars from PyPI wheels:
``tree-sitter-python``, ``-c``, ``-cpp``, ``-cuda``, ``-javascript``, ``-typescript``,
``-bash``; nothing is downloaded at run time) and which node types are code units:

- ``units``: node type -> unit kind: ``function``, ``class`` (its functions are ``method``s),
  ``namespace``, or ``block``: a transparent container (``#ifdef`` ... ``#endif``,
  ``extern "C" { ... }``) whose contents are units at the level around it;
- ``wrappers``: node types that wrap one definition (Python decorators, C++ ``template <...>``,
  JS ``export``, C ``typedef struct {...} t;``), mapped to whether the signature starts at the
  wrapper (``template <typename T> class Net``) or at the definition (``def f(x):``);
- ``declarators``: declarations whose single declarator's value is a definition
  (JS ``const f = (x) => ...``), named by the declarator;
- ``blocks``: statement-list node types; rows where their statements start are the preferred
  cut points inside an oversized statement.

``language_for(path)`` picks a language by file extension (``.h`` is read as C++: in ML
repositories headers are mostly C++, and the C++ grammar reads C headers too).
``parser_for(lang)`` returns ``None``, with one logged warning, when the grammar package is
not installed; the chunker then falls back to line windows.
"""

from __future__ import annotations

import functools
import importlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

log = logging.getLogger(__name__)

_WS = re.compile(r"\s+")


@dataclass(frozen=True, eq=False)  # hashed by identity: one parser per language
class Language:
    name: str  # Chunk.language
    package: str  # the grammar module
    function: str = "language"  # its function returning the compiled grammar
    units: dict[str, str] = field(default_factory=dict)
    wrappers: dict[str, bool] = field(default_factory=dict)  # type -> signature from wrapper
    declarators: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()
    comment: str = "//"  # line comment, for chunk headers
    sep: str = "."  # joins a symbol's ancestor path
    docstrings: bool = False  # a leading string literal in a body belongs to the header
    chunk_kind: str = "code"


PYTHON = Language(
    "python", "tree_sitter_python",
    units={"function_definition": "function", "class_definition": "class"},
    wrappers={"decorated_definition": False}, blocks=frozenset({"block"}),
    comment="#", docstrings=True)

_C_UNITS = {
    "function_definition": "function", "struct_specifier": "class", "union_specifier": "class",
    "enum_specifier": "class", "preproc_if": "block", "preproc_ifdef": "block",
    "preproc_else": "block", "preproc_elif": "block", "preproc_elifdef": "block",
}
C = Language("c", "tree_sitter_c", units=_C_UNITS, wrappers={"type_definition": True},
             blocks=frozenset({"compound_statement"}), sep="::")
_CPP_UNITS = {**_C_UNITS, "class_specifier": "class", "namespace_definition": "namespace",
              "linkage_specification": "block"}
_CPP_WRAPPERS = {"type_definition": True, "template_declaration": True}
CPP = Language("cpp", "tree_sitter_cpp", units=_CPP_UNITS, wrappers=_CPP_WRAPPERS,
               blocks=frozenset({"compound_statement"}), sep="::")
CUDA = Language("cuda", "tree_sitter_cuda", units=_CPP_UNITS, wrappers=_CPP_WRAPPERS,
                blocks=frozenset({"compound_statement"}), sep="::")

_JS_UNITS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "class_declaration": "class", "method_definition": "function",
    "arrow_function": "function", "function_expression": "function", "function": "function",
    "generator_function": "function", "class": "class",
}
_JS_DECLS = frozenset({"lexical_declaration", "variable_declaration"})
JAVASCRIPT = Language("javascript", "tree_sitter_javascript", units=_JS_UNITS,
                      wrappers={"export_statement": False}, declarators=_JS_DECLS,
                      blocks=frozenset({"statement_block"}))
_TS_UNITS = {**_JS_UNITS, "abstract_class_declaration": "class",
             "interface_declaration": "class", "enum_declaration": "class",
             "internal_module": "namespace", "module": "namespace"}
_TS_WRAPPERS = {"export_statement": False, "ambient_declaration": True,
                "expression_statement": False}  # `namespace X {}` is an expression statement
TYPESCRIPT = Language("typescript", "tree_sitter_typescript", "language_typescript",
                      units=_TS_UNITS, wrappers=_TS_WRAPPERS, declarators=_JS_DECLS,
                      blocks=frozenset({"statement_block"}))
TSX = Language("tsx", "tree_sitter_typescript", "language_tsx", units=_TS_UNITS,
               wrappers=_TS_WRAPPERS, declarators=_JS_DECLS,
               blocks=frozenset({"statement_block"}))
BASH = Language(
    "bash", "tree_sitter_bash", units={"function_definition": "function"},
    blocks=frozenset({"compound_statement", "do_group", "if_statement", "case_item"}),
    comment="#", chunk_kind="shell")

LANGUAGES: dict[str, Language] = {
    lang.name: lang for lang in (PYTHON, C, CPP, CUDA, JAVASCRIPT, TYPESCRIPT, TSX, BASH)}

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".c": "c",
    ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".cu": "cuda", ".cuh": "cuda",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash",
}


def language_for(path: str) -> Language | None:
    """The language of a file by its extension, or ``None``."""
    name = EXTENSIONS.get(PurePosixPath(path.lower()).suffix)
    return LANGUAGES[name] if name else None


@functools.lru_cache(maxsize=None)
def parser_for(lang: Language) -> Any:
    """A tree-sitter parser for ``lang``, or ``None`` (logged once) when its grammar package is
    missing or does not load."""
    try:
        import tree_sitter

        module = importlib.import_module(lang.package)
        return tree_sitter.Parser(tree_sitter.Language(getattr(module, lang.function)()))
    except Exception as exc:  # noqa: BLE001 - ImportError, an ABI mismatch: degrade, say why
        log.warning("no tree-sitter grammar for %s (%s: %s); its files become line windows",
                    lang.name, lang.package, exc)
        return None


def text_of(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


@dataclass
class Definition:
    """A code unit found at a statement: ``node`` is the whole statement (decorators, export,
    template line included), ``defn`` the definition itself."""

    node: Any
    defn: Any
    unit: str
    name: str
    sig_from: Any  # the node the signature starts at

    def body_nodes(self, lang: Language) -> list[Any]:
        """The statements inside the unit (``[]`` when it has none, e.g. ``x => x * 2``)."""
        body = self.defn.child_by_field_name("body")
        if body is not None:
            listed = body.type in lang.blocks or self.unit in ("class", "namespace", "block")
            return list(body.named_children) if listed else []
        if self.unit != "block":
            return []
        d = self.defn
        return [c for i, c in enumerate(d.children) if c.is_named
                and d.field_name_for_child(i) not in ("name", "condition", "value")]

    def signature(self, src: bytes, lang: Language) -> str:
        """The unit's header on one line, whitespace collapsed: ``def f(a, b=1) -> int:``,
        ``template <typename T> class Net : public Base``, ``const f = (x) =>``."""
        body = self.defn.child_by_field_name("body")
        end = body.start_byte if body is not None else self.defn.end_byte
        if self.unit == "block" and body is None:
            first = self.body_nodes(lang)
            end = first[0].start_byte if first else self.defn.end_byte
        text = src[self.sig_from.start_byte:end].decode("utf-8", "replace").strip()
        return _WS.sub(" ", text)


def _declarator_name(node: Any) -> str:
    """The declared name: the ``name`` field, else the innermost ``declarator``
    (``int *add(int a)`` -> ``add``; ``void Net::fit()`` -> ``Net::fit``)."""
    name = node.child_by_field_name("name")
    if name is not None:
        return _WS.sub("", text_of(name))
    d = node.child_by_field_name("declarator")
    while d is not None:
        inner = d.child_by_field_name("declarator")
        if inner is None and d.type.endswith("_declarator") and d.named_children:
            inner = d.named_children[0]  # reference_declarator: `T& f()`
        if inner is None:
            return _WS.sub("", text_of(d))
        d = inner
    return ""


def definition(node: Any, lang: Language) -> Definition | None:
    """The code unit ``node`` is, or ``None`` for any other statement (see the module doc)."""
    unit = lang.units.get(node.type)
    if unit is not None:
        if unit != "block" and node.child_by_field_name("body") is None:
            return None  # `struct point;`, a forward declaration
        return Definition(node, node, unit, _declarator_name(node) if unit != "block" else "",
                          node)
    if node.type in lang.wrappers:
        inner = (node.child_by_field_name("definition")
                 or node.child_by_field_name("declaration")
                 or node.child_by_field_name("type"))
        if inner is None and node.named_children:
            inner = node.named_children[-1]
        found = definition(inner, lang) if inner is not None else None
        if found is None:
            return None
        if not found.name and found.unit != "block":
            found.name = _declarator_name(node)  # typedef struct {...} vec_t;
        found.node = node
        if lang.wrappers[node.type]:
            found.sig_from = node
        return found
    if node.type in lang.declarators:
        decls = [c for c in node.named_children if c.type == "variable_declarator"]
        value = decls[0].child_by_field_name("value") if len(decls) == 1 else None
        if value is None or lang.units.get(value.type) not in ("function", "class"):
            return None
        return Definition(node, value, lang.units[value.type], _declarator_name(decls[0]), node)
    return None


def is_unit(node: Any, lang: Language) -> bool:
    return node.type in lang.units or node.type in lang.wrappers or node.type in lang.declarators
