"""ML-Bench's own "retrieval" setting, reproduced as a baseline at our budget.

What ML-Bench does (gersteinlab/ML-Bench ``utils/crawl_whole_repo.py`` and ``utils/bm25.py``,
read, not copied): dump the repository as text, README files first and then every other file
that decodes as UTF-8, each preceded by ``=== path ===``; split the dump into sentences with
NLTK's Punkt ``sent_tokenize``; keep the first 1000 sentences (the paper); slide a window of 10
sentences with stride 1; split windows and the instruction on whitespace; rank windows with
``rank_bm25.BM25Okapi`` and return the best one.

Matched here: dump layout and README-first order, window size and stride, whitespace
tokenisation (case kept), ``BM25Okapi`` with its default parameters, the instruction as the
only query. Our choices where the original is silent or cannot run offline: files are visited
in sorted order (``os.walk`` order is filesystem-dependent) and ``.git`` is skipped; Punkt runs
with its untrained default parameters because NLTK's pretrained English model must be
downloaded; and instead of the single best window, windows are packed best first (sentences
already packed are not repeated) up to the same budget ragcode gets, the last one cut to fit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ragcode.errors import RagcodeError

N_SENTENCES = 1000
WINDOW = 10


def repo_dump(root: str | Path) -> str:
    """The repository as ML-Bench dumps it: README files first, each file headed by its path."""
    root = Path(root)
    readmes: list[str] = []
    others: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                with open(full, encoding="utf-8") as fh:
                    content = fh.read()
            except (UnicodeDecodeError, OSError):
                continue
            shown = os.path.join(root.name, os.path.relpath(full, root))  # as if cloned here
            block = f"\n=== {shown} ===\n{content}\n"
            (readmes if "README" in name.upper() else others).append(block)
    return "".join(readmes) + "".join(others)


def _sentences(text: str, limit: int) -> list[str]:
    """The first ``limit`` Punkt sentences, tokenising a growing prefix (dumps can be 50 MB)."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    tokenizer = PunktSentenceTokenizer()
    cap = 200_000
    while True:
        part = text[:cap]
        spans = []
        for span in tokenizer.span_tokenize(part):
            spans.append(span)
            if len(spans) > limit:  # one more than needed: the first ``limit`` are complete
                break
        if len(spans) > limit or cap >= len(text):
            return [part[a:b] for a, b in spans[:limit]]
        cap *= 4


@dataclass
class PaperBM25:
    """BM25Okapi over 10-sentence windows of the first 1000 sentences of one repository."""

    sentences: list[str]

    @classmethod
    def from_repo(cls, root: str | Path, n_sentences: int = N_SENTENCES) -> PaperBM25:
        return cls(sentences=_sentences(repo_dump(root), n_sentences))

    def __post_init__(self) -> None:
        try:
            from rank_bm25 import BM25Okapi
        except ImportError:
            raise RagcodeError("the paper-style BM25 baseline needs rank-bm25: "
                               "pip install 'ragcode[bench]'") from None
        self.windows = [self.sentences[i:i + WINDOW] for i in range(len(self.sentences))]
        docs = [" ".join(w).split() for w in self.windows] or [[""]]
        self.bm25 = BM25Okapi(docs)

    def context(self, instruction: str, budget: int) -> str:
        """Best windows first, sentences never repeated, at most ``budget`` characters."""
        if not self.windows:
            return ""
        scores = self.bm25.get_scores(instruction.split())
        order = sorted(range(len(self.windows)), key=lambda i: (-scores[i], i))
        used: set[int] = set()
        parts: list[str] = []
        size = 0
        for i in order:
            new = [j for j in range(i, min(i + WINDOW, len(self.sentences))) if j not in used]
            if not new:
                continue
            text = " ".join(self.sentences[j] for j in new)
            sep = 2 if parts else 0
            room = budget - size - sep
            if room <= 0:
                break
            if len(text) > room:
                text = text[:room]
            parts.append(text)
            size += sep + len(text)
            used.update(new)
        return "\n\n".join(parts)
