"""``link_api``: documents and examples linked to the ``api`` chunks of what they call.

A README passage that writes ``model = GPT.from_pretrained("gpt2")`` or
``from whisper import load_model`` uses ``GPT`` / ``load_model``; the ``api`` chunk listing
that definition's signature is what an answer calling it needs, so both get it in
``metadata["api_links"]`` (as README commands and CLI tables get ``cli_links``): documentation
chunks (markdown, notebook, text) and code chunks of example files (a path with ``example``,
``demo``, ``tutorial`` or ``notebook``) list the api chunks they use (at most
``MAX_LINKS``, in order of first use); api chunks list the chunks that use them.

A name counts when the text calls it (``name(``, ``x.name(``), imports it, or quotes it in
backticks; names listed by more than ``MAX_DEFINERS`` api chunks, names under four
characters and a few generic method names (``forward``, ``main``, ...) point nowhere and are
not linked. Chunk ids do not depend on metadata, so linking never changes an id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragcode.types import Chunk

MAX_LINKS = 5
MAX_BACKLINKS = 20
MAX_DEFINERS = 3
USING_KINDS = ("markdown", "notebook", "text")
_EXAMPLE_PATH = re.compile(r"example|demo|tutorial|notebook", re.I)
GENERIC = frozenset({
    "main", "forward", "train", "test", "build", "setup", "call", "apply", "reset", "save",
    "load", "eval", "update", "step", "init", "run", "get", "set", "__init__", "__call__",
    "parse_args", "print", "format", "item", "items", "keys", "values", "copy", "close",
})
_CALL = re.compile(r"(?<![\w])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\(")
_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\s+\(?([\w\s,]+)", re.M)
_TICKED = re.compile(r"`((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)(?:\(\))?`")


def used_names(text: str) -> list[str]:
    """Names ``text`` calls, imports or quotes, in order of first use; a dotted call gives its
    last two parts (``GPT.from_pretrained``) and its last part."""
    found: dict[str, int] = {}

    def add(word: str, pos: int) -> None:
        parts = word.split(".")
        if len(parts) >= 2:
            found.setdefault(".".join(parts[-2:]), pos)
        found.setdefault(parts[-1], pos)

    for m in _CALL.finditer(text):
        add(m.group(1), m.start())
    for m in _TICKED.finditer(text):
        add(m.group(1), m.start())
    for m in _IMPORT.finditer(text):
        for part in m.group(1).split(","):
            word = part.split(" as ")[0].strip()
            if word:
                add(word, m.start())
    return sorted(found, key=lambda w: found[w])


def _definers(chunks: Sequence[Chunk]) -> dict[str, list[int]]:
    """Listed name (bare, and ``Class.method``) -> positions of the api chunks listing it."""
    table: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        if c.kind != "api":
            continue
        for qual in c.metadata.get("listed", []):
            parts = str(qual).split(".")
            for key in {parts[-1], ".".join(parts[-2:])}:
                if i not in table.setdefault(key, []):
                    table[key].append(i)
    return {k: v for k, v in table.items()
            if len(v) <= MAX_DEFINERS and len(k) >= 4 and k.split(".")[-1] not in GENERIC}


def _uses(chunk: Chunk) -> bool:
    return chunk.kind in USING_KINDS or (
        chunk.kind == "code" and chunk.language == "python" and bool(_EXAMPLE_PATH.search(chunk.path)))


def link_api(chunks: Sequence[Chunk]) -> list[Chunk]:
    """``chunks`` with ``metadata["api_links"]`` set on documents/examples and the api chunks
    they use (same length and order; input chunks are not modified)."""
    definers = _definers(chunks)
    if not definers:
        return list(chunks)
    links: dict[int, list[int]] = {}
    back: dict[int, list[int]] = {}
    for i, c in enumerate(chunks):
        if not _uses(c):
            continue
        targets: list[int] = []
        for name in used_names(c.text):
            for j in definers.get(name, ()):
                if j not in targets and chunks[j].path != c.path:
                    targets.append(j)
        if targets:
            links[i] = targets[:MAX_LINKS]
            for j in links[i]:
                back.setdefault(j, []).append(i)
    out = list(chunks)
    for i, targets in links.items():
        out[i] = replace(chunks[i], metadata={**chunks[i].metadata,
                                              "api_links": [chunks[j].id for j in targets]})
    for j, users in back.items():
        out[j] = replace(chunks[j], metadata={**chunks[j].metadata,
                                              "api_links": [chunks[i].id for i in users[:MAX_BACKLINKS]]})
    return out
