"""The ``api`` tool of ``ragcode serve``: a repository's Python API from the index, not the files.

- ``api("GPT.from_pretrained")`` (a bare, dotted or qualified name): the definitions of that name
  from the symbol index, each with its place, kind, signature and docstring sentence;
- ``api("model.py")`` (a module's path): the module's ``api`` listings, its public callables with
  their signatures and one docstring line each.

It reads only what the index stores (``Index.symbols``, the ``api`` chunks), so no path reaches
the file system; a name with nothing behind it is a one-line tool error pointing at ``search``.
"""

from __future__ import annotations

from typing import Any

from ragcode.agent.schema import Observation, Param, Tool, ToolCallError

MAX_DEFINITIONS = 10


def _definition_line(s: dict[str, Any]) -> str:
    place = f"{s.get('path', '')}:{s.get('line', 0)}-{s.get('end_line', s.get('line', 0))}"
    doc = f"  # {s['doc']}" if s.get("doc") else ""
    deco = "".join(f"@{d} " for d in s.get("decorators") or [])
    return f"{place} {s.get('kind', '')} {s.get('qualname', s.get('name', ''))}: {deco}{s.get('signature', '')}{doc}"


def definitions(index: Any, name: str) -> list[dict[str, Any]]:
    """The definitions named ``name``: exact bare or qualified name, else a qualified name that
    ends with it (``GPT.from_pretrained`` for ``model.GPT.from_pretrained``)."""
    found = index.symbols(name)
    if not found:
        tail = "." + name
        found = [s for s in index.symbols() if str(s.get("qualname", "")).endswith(tail)]
    return found


def module_listing(index: Any, path: str) -> list[str]:
    """The texts of the ``api`` chunks of the module at ``path`` (relative to the repository)."""
    want = path.strip().removeprefix("./")
    chunks = sorted((c for c in index.chunks().values() if c.kind == "api" and c.path == want),
                    key=lambda c: c.start_line)
    return [c.text for c in chunks]


def api_observation(index: Any, name: str, limit: int) -> Observation:
    from ragcode.agent.tools import cut

    name = name.strip()
    if not name or "\0" in name or len(name) > 300:
        raise ToolCallError("api: give a definition's name (GPT.from_pretrained) or a module's path (model.py)")
    if name.endswith(".py") or "/" in name:
        texts = module_listing(index, name)
        if not texts:
            raise ToolCallError(f"api: no public callables are indexed for module {name!r}; "
                                "search(query, kind='api') finds listings by words")
        return Observation(cut("\n\n".join(texts), limit))
    found = definitions(index, name)
    if not found:
        raise ToolCallError(f"api: no definition named {name!r} in the index; "
                            "search(query, kind='api') finds listings by words")
    lines = [_definition_line(s) for s in found[:MAX_DEFINITIONS]]
    more = f"\n(+{len(found) - MAX_DEFINITIONS} more)" if len(found) > MAX_DEFINITIONS else ""
    return Observation(cut("\n".join(lines) + more, limit), proposed={"definitions": found[:MAX_DEFINITIONS]})


API_PARAMS = (Param("name", "string", "a definition's name, bare or dotted (get_lr, GPT.from_pretrained), "
                    "or a module's path relative to the repository root (model.py)"),)


def api_tool(fn: Any) -> Tool:
    return Tool("api", "The repository's Python API from its index: for a name, each definition's "
                "place, signature and docstring line; for a module path, its public callables with "
                "their signatures. Use it before calling the repository's code from a Python answer.",
                API_PARAMS, fn)
