"""The repository API an instruction expecting Python needs: the signatures of what it and the
retrieved passages refer to.

``expects_python(text)`` is true when the instruction asks for Python by its words (Python, a
function, class or method, an API, an import, a snippet, a library, its "own ... code") or
spells a call (``load_model(``).
``ApiPicker.pick(hits, query, named)`` (for such an instruction, or a search-sized query naming
a definition) chooses up to ``context.api_top`` api chunks: those
listing a definition the query names (the symbol index), then, most words shared with the
query first, those linked from the top ``context.pair_top`` hits (``metadata["api_links"]``:
README passages and examples calling them) and api hits among the top ``3 x pair_top``; each is focused (``focus``) to its module line and the lines that best
match: definitions the query and those passages use, methods of such classes, lines sharing
words with the query (the first lines when none match), within ``context.api_chars``
characters. A command query (no such words, no definition named) gets
nothing, so its context is what it was; so does a long instruction that only mentions a
class ("train APPNP on Citeseer").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ragcode.chunking.api_link import used_names
from ragcode.config import ContextConfig
from ragcode.retrieval.symbols import SYMBOL_QUERY_WORDS
from ragcode.types import Chunk, Hit

_PYTHON = re.compile(
    r"\b(python|functions?|class(?:es)?|methods?|api|import|snippet|library|"
    r"own (?:\w+ )?code)\b|\w\(", re.I)


def expects_python(text: str) -> bool:
    return bool(_PYTHON.search(text))


def _stems(text: str) -> set[str]:
    """First five letters of the words of four letters or more (``parameter`` ~ ``params``)."""
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower().replace("_", " "))}


def _class_of(body: list[str], i: int) -> int | None:
    if not body[i].startswith("  "):
        return None
    return next((j for j in range(i - 1, -1, -1) if not body[j].startswith("  ")), None)


def focus(chunk: Chunk, names: set[str], words: str, limit: int) -> Chunk:
    """``chunk`` (an api listing) cut to ``limit`` characters: its module line, then the lines
    best matched: a definition in ``names`` (3), a method of such a class (1), plus one per stem
    shared with ``words`` (the instruction); a method comes with its class line; lines in listing
    order. The first lines when nothing matches."""
    lines = chunk.text.split("\n")
    head, body = lines[:1], lines[1:]
    want = _stems(words)
    named = {i for i, ln in enumerate(body) if _line_names(ln) & names}
    score = {}
    for i, ln in enumerate(body):
        s = 3 * (i in named) + len(_stems(ln) & want) + (_class_of(body, i) in named)
        if s:
            score[i] = s
    order = sorted(score, key=lambda i: (-score[i], i)) or list(range(len(body)))
    keep: list[int] = []
    size = len(head[0])
    for i in order:
        add = [j for j in (_class_of(body, i), i) if j is not None and j not in keep]
        cost = sum(len(body[j]) + 1 for j in add)
        if size + cost > limit:
            continue
        keep.extend(add)
        size += cost
    text = "\n".join(head + [body[i] for i in sorted(keep)])
    return Chunk(path=chunk.path, kind=chunk.kind, text=text, start_line=chunk.start_line,
                 end_line=chunk.end_line, symbol=chunk.symbol, header=chunk.header,
                 language=chunk.language, metadata=chunk.metadata)


_LINE_NAME = re.compile(r"(?:^\s*(?:@\w+\s+)*(?:def |class )?)([\w.]+)")


def _line_names(line: str) -> set[str]:
    m = _LINE_NAME.match(line)
    if not m:
        return set()
    word = m.group(1)
    return {word, word.split(".")[-1]}


class ApiPicker:
    """Chooses and focuses api chunks for one corpus and one ``ContextConfig``."""

    def __init__(self, ccfg: ContextConfig, lookup: Callable[[Sequence[str]], list[Chunk]]):
        self.ccfg = ccfg
        self.lookup = lookup

    def pick(self, hits: Sequence[Hit], query: str, named: Sequence[Chunk],
             described: tuple[Sequence[Chunk], set[str]] = ((), set())) -> list[Hit]:
        """Focused api chunks for ``query`` (``[]`` unless it expects Python, or is
        search-sized and ``named`` holds the api chunks of definitions it names); after
        ``named``, ``described``: the api chunks of the definitions it describes in plain words,
        with those definitions' names."""
        ccfg = self.ccfg
        short = len(query.split()) <= SYMBOL_QUERY_WORDS
        if ccfg.api_top <= 0 or not (expects_python(query) or (named and short)):
            return []
        found: dict[str, Chunk] = {}
        for hit in hits[:ccfg.pair_top]:
            for c in self.lookup(hit.chunk.metadata.get("api_links") or []):
                if c.kind == "api":
                    found.setdefault(c.id, c)
        for hit in hits[:ccfg.pair_top * 3]:
            if hit.chunk.kind == "api":
                found.setdefault(hit.chunk.id, hit.chunk)
        want = _stems(query)
        ranked = sorted(found.values(), key=lambda c: -len(_stems(c.text) & want))
        chosen = {c.id: c for c in [*named, *described[0], *ranked]}
        names = set(used_names(query)) | {w for w in re.findall(r"[A-Za-z_][\w.]*", query)}
        names |= described[1]
        for hit in hits[:ccfg.pair_top]:
            names |= set(used_names(hit.chunk.text))
        picked = list(chosen.values())[:ccfg.api_top]
        return [Hit(chunk=focus(c, names, query, ccfg.api_chars), score=0.0, rank=0, source="api")
                for c in picked]
