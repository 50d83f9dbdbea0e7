"""A code-aware tokenizer for BM25 over repositories.

Every word is split into its parts (``snake_case``, ``camelCase``, ``dotted.names``,
``path/to/file.py``, ``kebab-case``), lower-cased, and light English stopwords dropped. Some
words are also kept whole as extra tokens, because they are what a task names literally:
command-line flags (``--batch_size``), dotted names (``torch.nn.Conv2d``), file names and
paths (``train.py``, ``examples/gcn``) and compound identifiers (``batch_size``, ``GraphConv``).
"""

from __future__ import annotations

import re

# A word: optional leading dashes (flags), then word characters, dots, slashes, dashes.
_WORD = re.compile(r"-{0,2}[A-Za-z0-9_][A-Za-z0-9_\-\./]*")
_SEPARATORS = re.compile(r"[_\-\./]+")
# camelCase / PascalCase / ACRONYMWord / digits boundaries
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS: frozenset[str] = frozenset("""
a an the and or but if then else of to in on at by for with from as into onto about over
is are was were be been being am do does did done have has had having it its this that these
those there here i me my we our you your he she they them their his her what which who whom
whose when where why how can could would should shall will may might must not no nor so too
very just also than such some any each all both few more most other own same only up down out
off again further once please need want like use using used help me assist kindly
""".split())


def _parts(word: str) -> list[str]:
    out: list[str] = []
    for piece in _SEPARATORS.split(word):
        if not piece:
            continue
        found = _CAMEL.findall(piece)
        out.extend(found if found else [piece])
    return [p.lower() for p in out]


def _wholes(word: str) -> list[str]:
    """Whole forms kept as extra tokens: flags, dotted names, paths, compound identifiers."""
    lower = word.lower()
    extras: list[str] = []
    if word.startswith("-") and len(word.lstrip("-")) > 0:
        extras.append(lower)  # --lr, -n
        word = word.lstrip("-")
        lower = word.lower()
    if "/" in word:
        extras.append(lower)
        # file and directory names that are compounds themselves (train.py, dtgrnn_v2)
        extras.extend(s for s in lower.split("/") if s not in ("", ".", "..") and _SEPARATORS.search(s))
    elif "." in word or "_" in word or "-" in word:
        extras.append(lower)
    elif _CAMEL.findall(word) and len(_CAMEL.findall(word)) > 1:
        extras.append(lower)  # GraphConv -> graphconv
    return extras


def code_tokens(text: str, stopwords: frozenset[str] = STOPWORDS) -> list[str]:
    """Tokens of ``text`` for BM25: parts of every word plus whole forms of code-like words."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0).rstrip(".-/")
        if not word:
            continue
        for part in _parts(word):
            if part not in stopwords:
                out.append(part)
        for whole in _wholes(word):
            if whole and whole not in stopwords:
                out.append(whole)
    return out
