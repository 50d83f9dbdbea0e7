"""The repository's definitions that an instruction describes in plain words.

An instruction for Python rarely names what it needs ("compute the 2D sine-cosine position
embedding", "create a Gaussian diffusion respaced to 25 DDIM steps"); the function it needs
(``get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False)``,
``create_gaussian_diffusion(...)``) is described by its name, its parameters and its docstring's
first sentence. ``DefinitionIndex`` ranks a repository's public functions, classes and methods
by BM25 (``bm25s``) between the instruction and those words, each word cut to its first five
letters so that "embedding" meets ``embed`` and "schedule" meets ``noise_schedule``. A
definition must share at least ``MIN_SHARED`` such stems with the instruction to be offered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragcode.retrieval.tokenize import STOPWORDS, code_tokens

MIN_SHARED = 2
_PARAMS = re.compile(r"\((.*)\)", re.S)
_LETTERS = re.compile(r"[A-Za-z]+")


def stems(text: str) -> list[str]:
    """``code_tokens`` of ``text`` and each run of letters lower-cased whole (``ResNet-50`` and
    ``detr_resnet50`` both give ``resnet``, which camel-case splitting alone would not), the
    alphabetic ones of four letters or more cut to five; numbers and single letters dropped."""
    out: list[str] = []
    for tok in [*code_tokens(text), *(w.lower() for w in _LETTERS.findall(text))]:
        if not tok.isalpha() or tok in STOPWORDS:
            continue
        if len(tok) >= 4:
            out.append(tok[:5])
        elif len(tok) >= 2:
            out.append(tok)
    return out


def described_words(sym: dict[str, Any]) -> str:
    """What a definition says of itself: its name, its class, its parameters' names, its
    docstring's first sentence and its module's path."""
    params = _PARAMS.search(str(sym.get("signature", "")))
    names = re.sub(r"[:=][^,]*|\b(?:self|cls)\b", "", params.group(1)) if params else ""
    name = "" if sym.get("name") == "__init__" else str(sym.get("name", ""))
    return " ".join([name, str(sym.get("parent", "")), names,
                     str(sym.get("doc", "")), str(sym.get("path", "")).removesuffix(".py")])


def offered(sym: dict[str, Any]) -> bool:
    """Public functions, classes and methods of public classes, and constructors (``__init__``,
    whose parameters are how the class is called)."""
    name, parent = str(sym.get("name", "")), str(sym.get("parent", ""))
    if sym.get("kind") not in ("function", "class", "method"):
        return False
    return (not name.startswith("_") or name == "__init__") and not parent.startswith("_")


class DefinitionIndex:
    """BM25 over the definitions' own words (see the module doc)."""

    def __init__(self, definitions: Sequence[dict[str, Any]]):
        self.definitions = [d for d in definitions if offered(d)]
        self.words = [set(stems(described_words(d))) for d in self.definitions]
        self.model: Any = None
        if self.definitions:
            import bm25s

            self.model = bm25s.BM25()
            self.model.index([sorted(w) or ["\0empty"] for w in self.words], show_progress=False)

    def best(self, query: str, limit: int = 3) -> list[dict[str, Any]]:
        """The definitions ``query`` describes best, at most ``limit``, best first."""
        want = set(stems(query))
        if self.model is None or not want:
            return []
        scores = self.model.get_scores(sorted(want))
        order = sorted(range(len(self.definitions)), key=lambda i: -float(scores[i]))
        out: list[dict[str, Any]] = []
        for i in order:
            if float(scores[i]) <= 0 or len(out) >= limit:
                break
            if len(self.words[i] & want) >= MIN_SHARED:
                out.append(self.definitions[i])
        return out
