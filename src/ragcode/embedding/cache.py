"""A content-addressed embedding cache, as a wrapper around any ``Embedder``.

Vectors live in one SQLite file (``<cache_dir>/embeddings.sqlite``) keyed by
(embedder name, sha256 of the embedded text). Every batch is committed as soon as it is embedded,
so a run that is killed half-way keeps what it finished and the next run resumes from there.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from ragcode.types import sha256_text

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.embedding import Embedder

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID;
"""


class EmbeddingCache:
    """(model, content hash) -> float32 vector, in SQLite (WAL: several processes may share it)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    @classmethod
    def in_dir(cls, cache_dir: str | Path) -> EmbeddingCache:
        return cls(Path(cache_dir).expanduser() / "embeddings.sqlite")

    def get_many(self, model: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        import numpy as np

        wanted = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT hash, dim, vec FROM vectors WHERE model=? AND hash IN ({marks})",
                    [model, *part],
                ).fetchall()
                for h, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == dim:
                        found[h] = vec
        return found

    def put_many(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        rows = [(model, h, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for h, v in items]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def count(self, model: str | None = None) -> int:
        with self._lock:
            if model is None:
                return self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM vectors WHERE model=?", (model,)).fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedEmbedder:
    """Wraps an ``Embedder``: documents already in the cache are never embedded again.

    ``embed`` counts texts it took from the cache or from an identical text in the same call
    (``hits``) and texts the model embedded (``misses``); ``hits + misses == len(texts)``.
    Queries are passed straight through.
    """

    def __init__(
        self,
        inner: Embedder | Callable[[], Embedder],
        cache: EmbeddingCache,
        name: str | None = None,
        chunk_size: int = 64,
    ):
        """``inner`` may be a zero-argument factory: with ``name`` given, the model is then
        loaded only when something is missing from the cache."""
        if callable(inner) and not hasattr(inner, "embed"):
            if name is None:
                raise ValueError("CachedEmbedder with a factory needs the embedder's name")
            self._factory: Callable[[], Embedder] | None = inner
            self._inner: Embedder | None = None
        else:
            self._factory, self._inner = None, inner  # type: ignore[assignment]
        self.cache = cache
        self.name = name or self._inner.name  # type: ignore[union-attr]
        self._dim: int | None = None
        self.chunk_size = chunk_size
        self.hits = 0
        self.misses = 0

    @property
    def inner(self) -> Embedder:
        if self._inner is None:
            assert self._factory is not None
            self._inner = self._factory()
            if self._inner.name != self.name:
                raise ValueError(f"embedder name {self._inner.name!r} != expected {self.name!r}")
        return self._inner

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self.inner.dim
        return self._dim

    def embed(
        self, texts: Sequence[str], on_progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors for ``texts``; ``on_progress(n)`` is called as each ``n`` texts are done."""
        import numpy as np

        hashes = [sha256_text(t) for t in texts]
        have = self.cache.get_many(self.name, hashes)
        if have and self._dim is None:
            self._dim = int(next(iter(have.values())).shape[0])
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: dict[str, int] = {}
        n_hit = 0
        for i, h in enumerate(hashes):
            if h in have:
                out[i] = have[h]
                n_hit += 1
            elif h not in todo:
                todo[h] = i
        self.hits += n_hit
        if on_progress and n_hit:
            on_progress(n_hit)
        # similar lengths in one batch: less padding (the model sorts only within a call)
        items = sorted(todo.items(), key=lambda item: len(texts[item[1]]))
        for start in range(0, len(items), self.chunk_size):
            part = items[start:start + self.chunk_size]
            vecs = self.inner.embed([texts[i] for _, i in part])
            self.cache.put_many(self.name, ((h, v) for (h, _), v in zip(part, vecs)))
            for (h, _), v in zip(part, vecs):
                have[h] = v
            self.misses += len(part)
            if on_progress:
                on_progress(len(part))
        # repeats of a text embedded in this call count as cache hits (not embedded twice)
        for i, h in enumerate(hashes):
            if h in todo:
                out[i] = have[h]
                if todo[h] != i:
                    self.hits += 1
                    if on_progress:
                        on_progress(1)
        return out

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_query(texts)
