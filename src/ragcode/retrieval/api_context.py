"""The repository API an instruction expecting Python needs: the signatures of what it and the
retrieved passages refer to.

``expects_python(text)`` is true when the instruction asks for Python by its words (Python, a
function, class or method, an API, an import, a snippet, a library, its "own ... code") or
spells a call (``load_model(``).
``ApiPicker.pick(hits, query, named)`` (for such an instruction, or a search-sized query naming
a definition) chooses up to ``context.api_top`` api chunks: those
listing a definition the query names (the symbol index), then those linked from the top
``context.pair_top`` hits (``metadata["api_links"]``: README passages and examples calling
them), then api hits; each is focused to the lines of the definitions the query and those
passages use (the module line, then matching lines; the first lines when none match), cut to
``context.api_chars`` characters. A command query (no such words, no definition named) gets
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


def focus(chunk: Chunk, names: set[str], limit: int) -> Chunk:
    """``chunk`` (an api listing) cut to its module line and the lines of ``names`` (with the
    class line above a kept method), else its first lines, within ``limit`` characters."""
    lines = chunk.text.split("\n")
    head, body = lines[:1], lines[1:]
    wanted = [i for i, ln in enumerate(body) if _line_names(ln) & names]
    keep: list[int] = []
    for i in wanted:
        if body[i].startswith("  "):  # a method: its class line first
            cls = next((j for j in range(i - 1, -1, -1) if not body[j].startswith("  ")), None)
            if cls is not None and cls not in keep:
                keep.append(cls)
        if i not in keep:
            keep.append(i)
    order = sorted(keep) if keep else list(range(len(body)))
    text = "\n".join(head)
    for i in order:
        if len(text) + len(body[i]) + 1 > limit:
            break
        text += "\n" + body[i]
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

    def pick(self, hits: Sequence[Hit], query: str, named: Sequence[Chunk]) -> list[Hit]:
        """Focused api chunks for ``query`` (``[]`` unless it expects Python, or is
        search-sized and ``named`` holds the api chunks of definitions it names)."""
        ccfg = self.ccfg
        short = len(query.split()) <= SYMBOL_QUERY_WORDS
        if ccfg.api_top <= 0 or not (expects_python(query) or (named and short)):
            return []
        chosen: dict[str, Chunk] = {c.id: c for c in named}
        for hit in hits[:ccfg.pair_top]:
            for c in self.lookup(hit.chunk.metadata.get("api_links") or []):
                if c.kind == "api":
                    chosen.setdefault(c.id, c)
        for hit in hits[:ccfg.pair_top * 3]:
            if hit.chunk.kind == "api":
                chosen.setdefault(hit.chunk.id, hit.chunk)
        names = set(used_names(query)) | {w for w in re.findall(r"[A-Za-z_][\w.]*", query)}
        for hit in hits[:ccfg.pair_top]:
            names |= set(used_names(hit.chunk.text))
        picked = list(chosen.values())[:ccfg.api_top]
        return [Hit(chunk=focus(c, names, ccfg.api_chars), score=0.0, rank=0, source="api")
                for c in picked]
