"""Steps 2-5 of an index build, each over the new generation's ``ChunkStore``: chunk, link,
embed, and the ``Manifest`` that commits them (``ragcode.index.build`` runs them in order).

The chunking functions are looked up on ``ragcode.chunking`` when a step runs (its public
interface), and the link step is ``chunking.link_chunks``, the same pass ``chunk_repo`` makes.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ragcode.version import __version__
from ragcode.config import Config
from ragcode.errors import IndexStateError
from ragcode.index.chunk_store import ChunkStore
from ragcode.index.manifest import FORMAT_VERSION, Counts, EmbedderInfo, Manifest
from ragcode.index.plan import BuildPlan, chunking_key, embed_kinds, links_wanted
from ragcode.index.progress import IndexSummary
from ragcode.index.parallel import Prefetch, chunk_files, worker_count
from ragcode.index.vectors import VectorIndex

if TYPE_CHECKING:  # pragma: no cover
    from ragcode.embedding.cache import CachedEmbedder

log = logging.getLogger(__name__)

Advance = Callable[[int], None]


def open_generation(plan: BuildPlan, hint: str) -> ChunkStore:
    """The new generation's chunk store: a copy of the old one, or an empty one."""
    new = plan.index_dir / plan.chunk_store
    if plan.old is None:
        return ChunkStore(new, hint=hint)
    src = ChunkStore(plan.index_dir / plan.old.chunk_store, readonly=True, hint=hint)
    try:
        return src.copy_to(new)
    finally:
        src.close()


def chunk_step(store: ChunkStore, plan: BuildPlan, cfg: Config, summary: IndexSummary,
               advance: Advance, prefetch: Prefetch | None = None) -> None:
    """Remove deleted files; chunk new and changed ones (one bad file is logged, not fatal),
    in a process pool when there are enough of them. The texts of new chunks that get vectors
    go to ``prefetch`` (embedded while the chunking goes on)."""
    kinds = embed_kinds(cfg)
    workers = worker_count(cfg.index.workers, len(plan.to_chunk),
                           sum(f.size for f in plan.to_chunk))
    summary.workers = workers
    removed: list[int] = []
    with store.transaction():
        for p in plan.deleted:
            removed += store.delete_file(p)
        for f, chunks in chunk_files(plan.to_chunk, cfg.chunking, workers,
                                     on_start=prefetch.start if prefetch else None):
            if isinstance(chunks, str):
                log.warning("could not chunk %s: %s", f.path, chunks)
                plan.skipped["chunk-error"] += 1
                chunks = []
            removed += store.delete_file(f.path)
            summary.chunks_added += len(store.add_chunks(chunks))
            store.put_file(f.path, f.sha256, plan.kinds[f.path])
            if prefetch is not None:
                prefetch.put([c.embed_text for c in chunks if kinds is None or c.kind in kinds])
            advance(1)
    summary.chunks_removed = len(removed)


def link_step(store: ChunkStore, cfg: Config) -> int:
    """``chunking.link_chunks`` over every chunk (metadata only); returns the chunks changed."""
    from ragcode.chunking import link_chunks

    pairs = list(store.iter_chunks())
    linked = link_chunks([c for _cid, c in pairs], cfg.chunking)
    if len(linked) != len(pairs):
        raise IndexStateError(
            f"link_chunks returned {len(linked)} chunks for {len(pairs)}; it must keep the list "
            "length and order (a bug in ragcode.chunking)")
    changed = 0
    with store.transaction():
        for (cid, old), new in zip(pairs, linked):
            if new.metadata != old.metadata:
                store.set_metadata(cid, new.metadata)
                changed += 1
    return changed


@dataclass
class Embedded:
    """What the embed step leaves for the commit: the vectors and which ids it changed."""

    vectors: VectorIndex | None
    dim: int | None
    added: list[int]
    removed: set[int]


def cached_embedder(cfg: Config, summary: IndexSummary) -> CachedEmbedder:
    """The run's embedder behind the embedding cache; the model loads on the first miss (its
    load time goes to ``summary.seconds["load-model"]``). Close its ``cache`` when done."""
    from ragcode.embedding import embedder_key, load_embedder
    from ragcode.embedding.cache import CachedEmbedder, EmbeddingCache

    def load_model() -> Any:
        start = time.perf_counter()
        model = load_embedder(cfg.embedder)
        summary.seconds["load-model"] = round(time.perf_counter() - start, 3)
        return model

    return CachedEmbedder(load_model, EmbeddingCache.in_dir(cfg.index.cache_dir),
                          name=embedder_key(cfg.embedder),
                          chunk_size=max(8, cfg.embedder.batch_size * 2))


def prefetch_for(plan: BuildPlan, cfg: Config, embedder: CachedEmbedder, advance: Advance
                 ) -> Prefetch | None:
    """A ``Prefetch`` when this run chunks files whose chunks may get vectors (and
    ``index.overlap`` is on); ``None`` otherwise."""
    if not cfg.index.overlap or not plan.to_chunk or embed_kinds(cfg) == set():
        return None
    return Prefetch(embedder, batch=max(64, cfg.embedder.batch_size * 8), advance=advance)


def skip_first(n: int, advance: Advance) -> Advance:
    """``advance`` that ignores the first ``n`` units (work a bar has counted already)."""
    left = n

    def skipping(k: int = 1) -> None:
        nonlocal left
        drop = min(left, k)
        left -= drop
        if k - drop:
            advance(k - drop)
    return skipping


def embed_step(store: ChunkStore, plan: BuildPlan, cfg: Config, summary: IndexSummary,
               advance: Advance, embedder: CachedEmbedder | None = None) -> Embedded:
    """Vectors for chunks whose kind gets one and that FAISS lacks (through the embedding
    cache: what a ``Prefetch`` embedded during the chunk step is found there); vectors of
    chunks gone or no longer embedded are removed. ``embedder`` is the one the prefetch used
    (its counts include what it embedded)."""
    old = plan.old
    kinds = embed_kinds(cfg)
    vectors = VectorIndex.read(plan.index_dir / old.vectors) if old and old.vectors else None
    have = vectors.ids() if vectors else set()
    want = {i for i, k in store.kinds_by_id().items() if kinds is None or k in kinds}
    to_remove, to_add = have - want, sorted(want - have)
    dim = old.embedder.dim if old else None
    if to_add:
        own = embedder is None
        embedder = embedder or cached_embedder(cfg, summary)
        chunk_map = store.get(to_add)
        try:
            vecs = embedder.embed([chunk_map[i].embed_text for i in to_add], on_progress=advance)
        finally:
            if own:
                embedder.cache.close()
        # every text was embedded by the model once (here or in the prefetch) or cached
        summary.embedded = embedder.misses
        summary.cached = len(to_add) - embedder.misses
        dim = int(vecs.shape[1])
        if vectors is None:
            vectors = VectorIndex.empty(dim)
        vectors.add(to_add, vecs)
    if vectors is not None:
        summary.vectors_removed = vectors.remove(to_remove)
    summary.vectors_added = len(to_add)
    return Embedded(vectors=vectors, dim=dim, added=to_add, removed=to_remove)


def write_step(store: ChunkStore, plan: BuildPlan, emb: Embedded, summary: IndexSummary
               ) -> tuple[dict[str, str], int, int]:
    """Vector flags into the store and the FAISS file of the new generation; returns the
    files (path -> sha256), the chunk count and the vector count the manifest records."""
    with store.transaction():
        store.set_has_vector(emb.removed, False)
        store.set_has_vector(emb.added, True)
        n_vectors = emb.vectors.ntotal if emb.vectors else 0
        if emb.vectors is not None and n_vectors:
            emb.vectors.write(plan.index_dir / plan.vectors)
        summary.chunks_by_kind = store.counts_by_kind()
        n_chunks = store.count()
        files = {p: h for p, (h, _k) in sorted(store.files().items())}
    return files, n_chunks, n_vectors


def new_manifest(plan: BuildPlan, cfg: Config, summary: IndexSummary, files: dict[str, str],
                 n_chunks: int, n_vectors: int, dim: int | None) -> Manifest:
    """The manifest that commits this run (``write_manifest`` swaps it in)."""
    from ragcode.embedding import embedder_key

    old = plan.old
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return Manifest(
        format_version=FORMAT_VERSION,
        ragcode_version=__version__,
        name=plan.name,
        repo=str(plan.repo),
        generation=plan.generation,
        chunk_store=plan.chunk_store,
        vectors=plan.vectors if n_vectors else None,
        embedder=EmbedderInfo(name=embedder_key(cfg.embedder), dim=dim,
                              config=cfg.embedder.model_dump(mode="json")),
        config_hash=cfg.hash(),
        section_hashes={"chunking": chunking_key(cfg), "embedder": cfg.section_hash("embedder")},
        links=links_wanted(cfg),
        config=cfg.to_dict(),
        files=files,
        counts=Counts(files=len(files), chunks=n_chunks, vectors=n_vectors,
                      files_by_kind=summary.files_by_kind, chunks_by_kind=summary.chunks_by_kind),
        skipped=summary.skipped,
        created_at=(old.created_at if old and old.created_at else now),
        updated_at=now,
        last_run={k: summary.to_dict()[k] for k in (
            "files_added", "files_changed", "files_deleted", "chunks_added",
            "chunks_removed", "embedded", "cached", "seconds")},
    )


def stale_files(index_dir: Path, keep: set[str]) -> list[Path]:
    """Generations and temp files no manifest points to (left by a killed run)."""
    return [p for pattern in ("chunks-*.sqlite*", "vectors-*.faiss", ".*.tmp")
            for p in index_dir.glob(pattern) if p.name not in keep]
