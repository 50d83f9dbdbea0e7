"""``api`` chunks: the public callables of a Python module, one line each, as compact as the CLI
tables are for scripts.

For every Python module with public functions or classes (test files left out), one chunk of
kind ``api`` (more when it is over ``chunking.api.max_chars``, split between definitions):

    # API of pkg.model (pkg/model.py)
    class GPT(nn.Module) - The full GPT language model.
      GPT(config)
      @classmethod GPT.from_pretrained(model_type, override_args=None) - Load OpenAI weights.
      GPT.get_num_params(non_embedding=True) -> int - Return the number of parameters.
    def get_lr(it) - Learning rate schedule: warmup, then cosine decay.

A class line shows its bases, a method its class; ``self`` / ``cls`` are left out of the
parameters; ``__init__`` shows as the call of the class. ``metadata["listed"]`` holds the
qualified names listed, ``metadata["module"]`` the dotted module name; ``symbol`` is the module
name. ``with_definitions`` puts every definition of the module (private ones too) as
``Symbol.to_dict()`` in ``metadata["definitions"]`` of the module's first code chunk: the
index's symbol table is made from it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragcode.chunking.symbols import Symbol, extract_symbols, module_name
from ragcode.config import ChunkingConfig
from ragcode.types import Chunk, SourceFile

_TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*$|[^/]*_test\.py$|conftest\.py$)")
_ALIAS = re.compile(r"^\w+\s*=\s*([A-Za-z_]\w*)\s*$")  # NAME = other_name
_PARAMS = re.compile(r"^(?:async\s+)?def\s+\w+\s*(?:\[[^\]]*\]\s*)?\((.*)\)\s*(->.*)?$", re.S)


def is_test_file(path: str) -> bool:
    return bool(_TEST_FILE.search(path))


def call_form(sym: Symbol) -> str:
    """How the API line spells a definition's call: ``name(params) -> ret`` with ``self`` /
    ``cls`` dropped, ``Class(params)`` for ``__init__``, ``class Name(bases)`` for a class."""
    if sym.kind == "class":
        return f"class {sym.name}({', '.join(sym.bases)})" if sym.bases else f"class {sym.name}"
    m = _PARAMS.match(sym.signature)
    params, ret = (m.group(1), m.group(2) or "") if m else (sym.signature, "")
    parts = [p.strip() for p in _split_params(params)]
    if sym.kind == "method" and parts and parts[0] in ("self", "cls"):
        parts = parts[1:]
    name = sym.parent if sym.name == "__init__" else sym.local_name
    text = f"{name}({', '.join(p for p in parts if p)})"
    return f"{text} {ret.strip()}" if ret else text


def _split_params(params: str) -> list[str]:
    """Top-level commas only (defaults may hold calls, tuples, strings)."""
    out, depth, cur, quote = [], 0, "", ""
    for ch in params:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += ch
    return out + [cur]


def api_line(sym: Symbol) -> str:
    """One line of the API listing (methods indented under their class)."""
    decos = " ".join(f"@{d.split('(')[0]}" for d in sym.decorators
                     if d.split("(")[0] in ("classmethod", "staticmethod", "property"))
    text = f"{decos} {call_form(sym)}".strip()
    if sym.kind not in ("class", "method"):
        text = f"def {text}"
    if sym.doc:
        text += f" - {sym.doc}"
    return ("  " if sym.parent else "") + text


def listed(symbols: list[Symbol]) -> list[Symbol]:
    """The public callables an API chunk lists: public top-level functions and classes, the
    public methods (and constructor) of listed classes, and the public names bound to one of
    the module's own functions or classes (``aliases``)."""
    classes = {s.name for s in symbols if s.kind == "class" and not s.parent and s.public}

    def keep(s: Symbol) -> bool:
        if s.kind == "variable":
            return False
        if s.name == "__init__":
            return s.parent in classes
        return s.public and (not s.parent or s.parent in classes)
    return [s for s in symbols if keep(s)] + aliases(symbols)


def aliases(symbols: list[Symbol]) -> list[Symbol]:
    """Each public module-level name bound to a top-level function or class of the same module
    (``mae_vit_large_patch16 = mae_vit_large_patch16_dec512d8b``, ``build_sam = build_sam_vit_h``),
    as the definition it names under the alias's name: the name a user imports is the one
    the listing shows, with the parameters it takes."""
    own = {s.name: s for s in symbols if s.kind in ("function", "class") and not s.parent}
    out: list[Symbol] = []
    seen: set[str] = set()  # an alias bound twice is listed once
    for var in symbols:
        m = _ALIAS.match(var.signature) if var.kind == "variable" and var.public else None
        target = own.get(m.group(1)) if m else None
        if target is None or var.name in own or var.name in seen:
            continue
        seen.add(var.name)
        out.append(replace(target, name=var.name, qualname=var.qualname, line=var.line, end_line=var.end_line,
                           signature=target.signature.replace(f"def {target.name}", f"def {var.name}", 1),
                           doc=f"the same as {target.name}"))
    return out


def with_definitions(chunks: list[Chunk], symbols: list[Symbol]) -> list[Chunk]:
    """``chunks`` with ``metadata["definitions"]`` (every ``Symbol.to_dict()``) on the first
    ``code`` chunk (the input chunks are not modified)."""
    first = next((i for i, c in enumerate(chunks) if c.kind == "code"), None)
    if first is None or not symbols:
        return chunks
    out = list(chunks)
    out[first] = replace(chunks[first], metadata={
        **chunks[first].metadata, "definitions": [s.to_dict() for s in symbols]})
    return out


def chunk_api(file: SourceFile, cfg: ChunkingConfig, symbols: list[Symbol] | None = None
              ) -> list[Chunk]:
    """The ``api`` chunk(s) of one Python module (``[]`` for test files and modules without
    public callables, or when ``chunking.api.enabled`` is off); ``symbols`` when already read."""
    if not cfg.api.enabled or is_test_file(file.path):
        return []
    symbols = extract_symbols(file.path, file.text) if symbols is None else symbols
    shown = listed(symbols)
    if not shown:
        return []
    module = module_name(file.path)
    head = f"# API of {module} ({file.path})"
    groups: list[list[Symbol]] = [[]]
    size = len(head)
    for sym in shown:
        line = api_line(sym)
        if groups[-1] and size + len(line) + 1 > cfg.api.max_chars and not sym.parent:
            groups.append([])
            size = len(head)
        groups[-1].append(sym)
        size += len(line) + 1
    header = f"# {file.path} :: API" if cfg.code.header else ""
    chunks = []
    for group in groups:
        text = "\n".join([head] + [api_line(s) for s in group])
        chunks.append(Chunk(
            path=file.path, kind="api", text=text, start_line=group[0].line,
            end_line=max(s.end_line for s in group), symbol=module, header=header,
            language="python",
            metadata={"module": module, "listed": [s.qualname for s in group]}))
    return chunks
