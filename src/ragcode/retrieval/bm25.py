"""BM25 over an index's chunks (bm25s), with the code-aware tokenizer, cached on disk.

The BM25 model is built once per chunk store and saved next to the index (or under the cache
directory for an in-memory corpus), keyed by a hash of the chunk ids and the tokenizer version,
so a query never rebuilds it and a changed index never reads a stale one. ``api`` listings get a
model of their own (their words would change every other chunk's statistics), so the scores of
the other chunks are what they would be without them. A loaded cache is checked against its
chunks (``cache_problem``) and rebuilt when wrong.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

from ragcode.retrieval.base import Corpus, Filters, Retriever, chunk_table
from ragcode.retrieval.tokenize import code_tokens
from ragcode.types import Chunk, Hit

log = logging.getLogger(__name__)

TOKENIZER_VERSION = "code-tokens-1"


def document_text(chunk: Chunk) -> str:
    """What BM25 sees of a chunk: its path and heading/symbol count as words of it."""
    return f"{chunk.path}\n{chunk.symbol}\n{chunk.text}"


def corpus_key(chunks: Sequence[Chunk]) -> str:
    h = hashlib.sha256(TOKENIZER_VERSION.encode())
    for c in chunks:
        h.update(c.id.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:20]


def _cache_root(corpus: Any, config: Any) -> Path | None:
    path = getattr(corpus, "dir", None)  # an Index: next to its files
    if path is not None and Path(path).is_dir():
        return Path(path) / "bm25"
    if config is not None:
        return Path(config.index.cache_dir) / "bm25"
    return None


class _Part:
    """One bm25s model over some of the corpus's chunks (their positions ``idx``), cached at
    ``target``: loaded when the cache there is whole, else built and saved."""

    def __init__(self, idx: list[int], chunks: list[Chunk], root: Path | None):
        self.idx, self.chunks = idx, chunks
        self.target = root / corpus_key(chunks) if root is not None else None
        self.model: Any = self._load()
        if self.model is None:
            self.build(replace=self.target is not None and self.target.exists())

    def _load(self) -> Any:
        import bm25s

        target = self.target
        if target is None or not (target / "params.index.json").exists():
            return None
        try:
            model = bm25s.BM25.load(str(target))
            why = cache_problem(model, len(self.chunks))
        except Exception as exc:  # noqa: BLE001 - a corrupt cache is rebuilt
            why = f"unreadable ({exc})"
        if why:
            log.warning("BM25 cache %s %s; rebuilding", target, why)
            return None
        return model

    def build(self, replace: bool = False) -> None:
        import bm25s

        self.model = bm25s.BM25()
        docs = [code_tokens(document_text(c)) or ["\0empty"] for c in self.chunks]
        self.model.index(docs, show_progress=False)
        if self.target is not None:
            _save_atomic(self.model, self.target, replace)

    def scores(self, q: list[str]) -> Any:
        try:
            return self.model.get_scores(q)
        except (ValueError, IndexError) as exc:  # a cache that passed the checks and is still wrong
            log.warning("BM25 model of %s failed a query (%s); rebuilding", self.target, exc)
            self.build(replace=True)
            return self.model.get_scores(q)


class BM25Retriever(Retriever):
    name = "bm25"

    def __init__(self, corpus: Corpus, config: Any = None, cache_dir: str | Path | None = None):
        import bm25s  # noqa: F401 - imported here so its logger exists to be quietened

        # bm25s sets its own logger to DEBUG on import; let ours decide what is shown
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        _, self._chunks = chunk_table(corpus)
        self._masks: dict[Filters, Any] = {}  # filter -> which chunks it accepts
        root = Path(cache_dir) if cache_dir is not None else _cache_root(corpus, config)
        # api listings are scored by a model of their own: the word statistics of every other
        # chunk (and so a command query's ranking) do not depend on whether they exist
        parts = ([i for i, c in enumerate(self._chunks) if c.kind != "api"],
                 [i for i, c in enumerate(self._chunks) if c.kind == "api"])
        self.parts = [_Part(idx, [self._chunks[i] for i in idx], root) for idx in parts if idx]

    @property
    def chunks(self) -> list[Chunk]:
        return self._chunks

    def scores(self, query: str):
        import numpy as np

        out = np.zeros(len(self._chunks), dtype="float32")
        q = code_tokens(query)
        if not q:
            return out
        for part in self.parts:
            out[part.idx] = part.scores(q)
        return out

    def retrieve(self, query: str, k: int, filters: Filters = Filters()) -> list[Hit]:
        import numpy as np

        if not self._chunks:
            return []
        scores = np.asarray(self.scores(query), dtype="float64")
        if filters.active:
            mask = self._masks.get(filters)
            if mask is None:
                mask = self._masks[filters] = np.array([filters.accepts(c) for c in self._chunks])
            scores = np.where(mask, scores, -np.inf)
        k = min(k, len(self._chunks))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        hits: list[Hit] = []
        for i in top:
            if not np.isfinite(scores[i]) or scores[i] <= 0.0:
                continue
            hits.append(Hit(chunk=self._chunks[i], score=float(scores[i]), rank=len(hits),
                            source=self.name))
        return hits


def cache_problem(model: Any, n_docs: int) -> str:
    """What is wrong with a loaded BM25 model for a corpus of ``n_docs`` chunks (its arrays can be
    well-formed files of the wrong shape); empty when nothing is."""
    import numpy as np

    try:
        s = model.scores
        data, indices, indptr = (np.asarray(s[k]) for k in ("data", "indices", "indptr"))
        vocab = dict(model.vocab_dict)
        num_docs = int(s["num_docs"])
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        return f"is incomplete ({exc})"
    if num_docs != n_docs:
        return f"holds {num_docs} documents, the index {n_docs}"
    if data.ndim != 1 or indices.shape != data.shape or indptr.ndim != 1 or len(indptr) < 1:
        return "has arrays of the wrong shape"
    if indptr[0] != 0 or indptr[-1] != len(data) or bool(np.any(np.diff(indptr) < 0)):
        return "has a broken column index"
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= num_docs):
        return "names documents that do not exist"
    ids = [i for t, i in vocab.items() if t != ""]
    if not all(isinstance(i, int) for i in ids) or (ids and (min(ids) < 0 or max(ids) >= len(indptr) - 1)):
        return f"has a vocabulary ({len(ids)} words) that its matrix ({len(indptr) - 1} columns) does not cover"
    return ""


def _save_atomic(model: Any, target: Path, replace: bool = False) -> None:
    """Save ``model`` as ``target`` through a temp folder; ``replace``: a bad cache is there and
    is swapped out (moved aside, then removed), else another process's equal one is kept."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".bm25-", dir=target.parent))
    try:
        model.save(str(tmp))
        if replace and target.exists():
            old = Path(tempfile.mkdtemp(prefix=".bm25-old-", dir=target.parent))
            try:
                os.replace(target, old / "x")
            except OSError:
                pass
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:  # another process won the race; theirs is equally good
            shutil.rmtree(tmp, ignore_errors=True)
    except Exception:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
