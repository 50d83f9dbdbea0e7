"""Open an index: ``load_index(name_or_path, config=None) -> Index``.

``Index`` is what retrieval reads: the chunks with their int ids, the dense vectors and the
embedder the vectors were made with. Opening checks the format version, the embedder and that
the chunk store and FAISS agree; anything else raises ``IndexStateError`` saying how to rebuild.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, TypeAlias

from ragcode.config import Config, EmbedderConfig
from ragcode.errors import IndexStateError
from ragcode.index.chunk_store import ChunkStore
from ragcode.index.manifest import MANIFEST, Manifest, read_manifest, rebuild_hint
from ragcode.index.names import check_index_name, no_index_message
from ragcode.index.vectors import VectorIndex
from ragcode.types import Chunk

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.embedding import Embedder


def resolve_index_dir(name_or_path: str | Path, config: Config | None = None) -> Path:
    """A folder path (absolute, with a ``/``, or holding ``manifest.json``) is used as given;
    anything else is an index name (``IndexNameError`` unless a plain one, see ``names.py``)
    under ``index.root``."""
    path = Path(name_or_path).expanduser()
    if (path / MANIFEST).exists() or path.is_absolute() or len(path.parts) > 1:
        return path
    root = Path((config or Config()).index.root).expanduser()
    return root / check_index_name(str(name_or_path))


def settle_config(config: Config, manifest: Manifest | None) -> Config:
    """``config`` with ``embedder.backend: auto`` made concrete for the index ``manifest``
    describes (``None``: a new one): the fp32 backend that built it, else auto's pick
    (``ragcode.embedding.settle``). Every other config is returned as given."""
    from ragcode.embedding import AUTO, settle

    if config.embedder.backend != AUTO:
        return config
    name = backend = None
    if manifest is not None:
        name = manifest.embedder.name
        backend = (manifest.embedder.config or {}).get("backend") or \
            {"st": "sentence-transformers", "onnx": "onnx"}.get(name.split(":", 1)[0])
    return config.model_copy(update={"embedder": settle(config.embedder, name, backend)})


def check_embedder(index_dir: Path, manifest: Manifest, cfg: EmbedderConfig) -> None:
    """Refuse an index whose vectors came from another embedder than ``cfg`` names."""
    from ragcode.embedding import embedder_key

    built = manifest.embedder.name
    wanted = embedder_key(cfg)
    if built != wanted:
        had = (manifest.embedder.config or {}).get("backend")
        if had and had != cfg.backend and built.split(":", 1)[1:] == wanted.split(":", 1)[1:]:
            use = f"embedder.backend={had}"  # same model and settings, another backend
        else:
            use = "the embedder it was built with"
        what = f" (backend {had!r}; the config asks for backend {cfg.backend!r})" \
            if had and had != cfg.backend else ""
        raise IndexStateError(
            f"index at {index_dir} was built with embedder {built!r}{what}, but the config asks "
            f"for {wanted!r}; vectors from different embedders cannot be mixed. Either use "
            f"{use}, or {rebuild_hint(index_dir, manifest.repo or None)}.")


class Index:
    """A built index, opened read-only.

    - ``name``, ``dir`` (the index folder), ``root`` (the repository it was built from),
      ``manifest`` (a validated ``Manifest``), ``config`` (the resolved ``Config`` it was built
      with, or the one given).
    - ``chunks() -> dict[int, Chunk]``: every chunk by int id, in id order (loaded once).
    - ``get(ids) -> list[Chunk]``: those chunks, in the order given.
    - ``search_vectors(query_vec, k, allowed_ids=None) -> list[(id, score)]``: cosine top-k.
    - ``embedder``: the embedder the vectors were made with (loaded on first use); embed a
      query with ``index.embedder.embed_query([text])[0]``.
    - ``symbols(name=None) -> list[dict]``: the symbol index (Python definitions).
    - ``chunk_count``, ``vector_count``, ``vector_ids()``.
    """

    def __init__(self, index_dir: Path, manifest: Manifest, config: Config):
        self.dir = index_dir
        self.manifest = manifest
        self.config = config
        self.name: str = manifest.name or index_dir.name
        self.root = Path(manifest.repo)
        self.summary: Any = None  # set by index_repo to the build's IndexSummary
        self.hint = hint = rebuild_hint(index_dir, manifest.repo or None)
        try:
            self._store = ChunkStore(index_dir / manifest.chunk_store, readonly=True, hint=hint)
            self._store.count()
        except Exception as exc:  # noqa: BLE001 - missing or unreadable SQLite file
            raise IndexStateError(
                f"index at {index_dir} is corrupt: chunk store {manifest.chunk_store} cannot be "
                f"opened ({exc}); {hint}") from None
        vec_file = manifest.vectors
        try:
            self._vectors = VectorIndex.read(index_dir / vec_file) if vec_file else None
        except Exception as exc:  # noqa: BLE001 - faiss raises RuntimeError on a bad file
            self._store.close()
            raise IndexStateError(
                f"index at {index_dir} is corrupt: vectors {vec_file} cannot be read "
                f"({str(exc).splitlines()[0] if str(exc) else exc!r}); {hint}") from None
        self._chunks: dict[int, Chunk] | None = None
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()
        self._verify()

    def _verify(self) -> None:
        hint = self.hint
        try:
            n_chunks = self._store.count()
            n_flagged = self._store.count_vectors()
        except Exception as exc:  # noqa: BLE001 - any sqlite failure means a broken store
            raise IndexStateError(
                f"index at {self.dir} is corrupt: chunk store unreadable ({exc}); {hint}") from None
        counts = self.manifest.counts
        n_vectors = self._vectors.ntotal if self._vectors else 0
        if n_chunks != counts.chunks or n_vectors != n_flagged or n_vectors != counts.vectors:
            raise IndexStateError(
                f"index at {self.dir} is corrupt: manifest says {counts.chunks} chunks / "
                f"{counts.vectors} vectors, chunk store has {n_chunks} chunks "
                f"({n_flagged} with vectors), FAISS has {n_vectors} vectors; {hint}")
        dim = self.manifest.embedder.dim
        if self._vectors is not None and dim is not None and self._vectors.dim != dim:
            raise IndexStateError(
                f"index at {self.dir} is corrupt: FAISS dim {self._vectors.dim} != manifest dim "
                f"{dim}; {hint}")

    @property
    def chunk_count(self) -> int:
        return self.manifest.counts.chunks

    @property
    def vector_count(self) -> int:
        return self._vectors.ntotal if self._vectors else 0

    def chunks(self) -> dict[int, Chunk]:
        with self._lock:
            if self._chunks is None:
                self._chunks = dict(self._store.iter_chunks())
            return self._chunks

    def get(self, ids: Iterable[int]) -> list[Chunk]:
        ids = [int(i) for i in ids]
        table = self.chunks()
        missing = [i for i in ids if i not in table]
        if missing:
            raise IndexStateError(f"index {self.name!r} has no chunks with ids {missing[:10]}")
        return [table[i] for i in ids]

    def vector_ids(self) -> set[int]:
        return self._vectors.ids() if self._vectors else set()

    def symbols(self, name: str | None = None) -> list[dict[str, Any]]:
        """The symbol index: Python definitions (``ragcode.chunking.symbols.Symbol.to_dict()``:
        qualified name, signature, decorators, docstring line, lines, called names), all or
        those whose bare or qualified name is ``name``."""
        with self._lock:
            return self._store.symbols(name)

    def search_vectors(
        self, query_vec: np.ndarray, k: int, allowed_ids: Iterable[int] | None = None
    ) -> list[tuple[int, float]]:
        if self._vectors is None:
            raise IndexStateError(
                f"index {self.name!r} has no dense vectors (built with embedder.enabled=false or "
                "embedder.kinds matching no chunk); use retrieval.mode=bm25 or re-index with "
                "embedding enabled.")
        return self._vectors.search(query_vec, k, allowed_ids)

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from ragcode.embedding import load_embedder

                try:
                    cfg = EmbedderConfig(**self.manifest.embedder.config)
                except Exception as exc:  # noqa: BLE001 - pydantic's multi-line ValidationError
                    raise IndexStateError(
                        f"index at {self.dir} is corrupt: its embedder settings are not valid "
                        f"({' '.join(str(exc).split())[:200]}); {self.hint}") from None
                self._embedder = load_embedder(cfg)
            return self._embedder

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"Index(name={self.name!r}, chunks={self.chunk_count}, vectors={self.vector_count}, "
                f"embedder={self.manifest.embedder.name!r})")


IndexRef: TypeAlias = "str | os.PathLike[str] | Index"  # an index name, its folder, or an open Index


def load_index(name_or_path: IndexRef, config: Config | None = None) -> Index:
    """Open the index named ``name_or_path`` (under ``config.index.root``) or at that folder.

    With ``config``, its embedder must be the one the index was built with (``auto`` takes the
    index's backend when it is torch or fp32 ONNX, see ``settle_config``). Without, the config
    recorded in the manifest is used.
    """
    if isinstance(name_or_path, Index):
        return name_or_path
    return open_index_dir(resolve_index_dir(os.fspath(name_or_path), config), config)


def open_index_dir(index_dir: Path, config: Config | None = None) -> Index:
    """``load_index`` for an index folder already resolved (no name lookup)."""
    if not (index_dir / MANIFEST).is_file():
        raise IndexStateError(no_index_message(index_dir))  # a mistyped name: say the ones there are
    for attempt in (1, 2):
        manifest = read_manifest(index_dir)
        if config is not None:
            cfg = settle_config(config, manifest)
            check_embedder(index_dir, manifest, cfg.embedder)
        else:
            try:
                cfg = Config.model_validate(manifest.config)
            except Exception:  # noqa: BLE001 - an older config layout: fall back to defaults
                cfg = Config()
        try:
            return Index(index_dir, manifest, cfg)
        except IndexStateError:
            # an update may have swapped the manifest and removed the files we were opening
            if attempt == 2 or read_manifest(index_dir).generation == manifest.generation:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
