"""Dense vectors in FAISS, keyed by the chunk store's int64 ids (``IndexIDMap2(IndexFlatIP)``).

Inner product on L2-normalised vectors is cosine similarity. ID mapping lets an update remove
and re-add one file's vectors instead of rebuilding.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


# one query against at most this many vectors is searched on one thread: starting an OpenMP
# team costs more than it saves (0.07 ms on one thread vs 8 ms with two busy cores)
ONE_THREAD_MAX = 500_000
_omp_lock = threading.Lock()


@contextlib.contextmanager
def _one_thread(ntotal: int) -> Iterator[None]:
    import faiss

    if ntotal > ONE_THREAD_MAX:
        yield
        return
    with _omp_lock:
        before = faiss.omp_get_max_threads()
        if before > 1:
            faiss.omp_set_num_threads(1)
        try:
            yield
        finally:
            if before > 1:
                faiss.omp_set_num_threads(before)


class VectorIndex:
    def __init__(self, index):  # noqa: ANN001 - a faiss.IndexIDMap2
        self.index = index

    @classmethod
    def empty(cls, dim: int) -> VectorIndex:
        import faiss

        return cls(faiss.IndexIDMap2(faiss.IndexFlatIP(dim)))

    @classmethod
    def read(cls, path: str | Path) -> VectorIndex:
        import faiss

        return cls(faiss.read_index(str(path)))

    def write(self, path: str | Path) -> None:
        """Write to ``path`` atomically (temp file in the same folder, then ``os.replace``)."""
        import faiss

        path = Path(path)
        tmp = path.with_name(f".{path.name}.tmp")
        faiss.write_index(self.index, str(tmp))
        os.replace(tmp, path)

    @property
    def dim(self) -> int:
        return int(self.index.d)

    @property
    def ntotal(self) -> int:
        return int(self.index.ntotal)

    def ids(self) -> set[int]:
        import faiss

        return set(faiss.vector_to_array(self.index.id_map).tolist())

    def add(self, ids: Iterable[int], vectors: np.ndarray) -> None:
        import numpy as np

        id_arr = np.asarray(list(ids), dtype=np.int64)
        if len(id_arr):
            self.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), id_arr)

    def remove(self, ids: Iterable[int]) -> int:
        import numpy as np

        id_arr = np.asarray(list(ids), dtype=np.int64)
        return int(self.index.remove_ids(id_arr)) if len(id_arr) else 0

    def search(
        self, query: np.ndarray, k: int, allowed_ids: Iterable[int] | None = None
    ) -> list[tuple[int, float]]:
        import faiss
        import numpy as np

        q = np.ascontiguousarray(np.asarray(query, dtype=np.float32).reshape(1, -1))
        params = None
        if allowed_ids is not None:
            allowed = np.asarray(sorted(set(int(i) for i in allowed_ids)), dtype=np.int64)
            if not len(allowed):
                return []
            params = faiss.SearchParameters(sel=faiss.IDSelectorBatch(allowed))  # type: ignore[call-arg]  # SWIG kwargs
            k = min(k, len(allowed))
        k = min(k, self.ntotal)
        if k <= 0:
            return []
        with _one_thread(self.ntotal):
            scores, ids = self.index.search(q, k, params=params)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i != -1]
