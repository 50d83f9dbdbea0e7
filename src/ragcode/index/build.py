"""Build or update an index: ``index_repo(path, config) -> Index``.

Stages: walk -> chunk (only new or changed files) -> link CLI tables (all chunks, metadata
only) -> embed (only chunks whose kind gets vectors and whose vector is not in FAISS yet, through
the embedding cache) -> write. Each run writes a new generation of the chunk store and FAISS
file next to the old one and swaps ``manifest.json`` last, so a run killed at any point leaves
the previous index usable; the next run resumes from the embedding cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ragcode import __version__
from ragcode.chunking import CHUNKING_VERSION
from ragcode.config import Config, load_config
from ragcode.errors import ConfigError, IndexStateError, RepoNotFoundError
from ragcode.index.chunk_store import ChunkStore
from ragcode.index.manifest import (FORMAT_VERSION, Manifest, read_manifest, rebuild_hint,
                                    write_manifest)
from ragcode.index.names import check_index_name, default_index_name
from ragcode.index.progress import IndexSummary, Stages
from ragcode.index.store import Index, check_embedder, open_index_dir
from ragcode.index.vectors import VectorIndex
from ragcode.types import CHUNK_KINDS

log = logging.getLogger(__name__)

LINK_KEY = "cli_links"


@contextlib.contextmanager
def _locked(index_dir: Path) -> Iterator[None]:
    """One writer per index folder at a time (others wait)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with open(index_dir / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.warning("waiting for another ragcode process updating %s", index_dir)
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _clean_stale(index_dir: Path, keep: set[str]) -> None:
    """Remove generations and temp files no manifest points to (left by a killed run)."""
    for pattern in ("chunks-*.sqlite*", "vectors-*.faiss", ".*.tmp"):
        for p in index_dir.glob(pattern):
            if p.name not in keep:
                p.unlink(missing_ok=True)


def _embed_kinds(cfg: Config) -> set[str] | None:
    """Kinds that get vectors; ``None`` = all."""
    unknown = sorted(set(cfg.embedder.kinds) - set(CHUNK_KINDS))
    if unknown:
        raise ConfigError(
            f"embedder.kinds has unknown chunk kinds {unknown}; known kinds: "
            f"{', '.join(CHUNK_KINDS)} (empty = all)")
    if not cfg.embedder.enabled:
        return set()
    return set(cfg.embedder.kinds) if cfg.embedder.kinds else None


def index_repo(
    path: str | Path,
    config: Config | str | Path | None = None,
    name: str | None = None,
    out: str | Path | None = None,
    rebuild: bool = False,
    progress: bool = True,
) -> Index:
    """Chunk, embed and store the repository at ``path``; returns the opened ``Index``.

    The index goes to ``<out or config.index.root>/<name or folder name>/``; ``name`` must be a
    plain name (``IndexNameError`` otherwise, see ``ragcode.index.names``). If one is there it
    is updated: unchanged files cost only the walk, changed files cost their own chunks, deleted
    files' chunks and vectors are removed. ``rebuild=True`` starts from scratch (the embedding
    cache still applies). The run's ``IndexSummary`` is on the returned ``Index.summary``.
    """
    from ragcode.embedding import embedder_key, load_embedder
    from ragcode.embedding.cache import CachedEmbedder, EmbeddingCache

    if config is None or isinstance(config, (str, Path)):
        config = load_config(config)
    cfg: Config = config
    repo = Path(path).expanduser()
    if not repo.is_dir():
        raise RepoNotFoundError(
            f"repository {str(path)!r} does not exist or is not a folder; give the path of a "
            "checked-out repository")
    repo = repo.resolve()
    name = check_index_name(name) if name is not None else default_index_name(repo)
    index_dir = Path(out or cfg.index.root).expanduser() / name
    hint = rebuild_hint(index_dir, str(repo))
    summary = IndexSummary(name=name, index_dir=str(index_dir), repo=str(repo))
    emb_name = embedder_key(cfg.embedder)
    embed_kinds = _embed_kinds(cfg)

    with _locked(index_dir):
        old: Manifest | None = None
        if (index_dir / "manifest.json").exists() and not rebuild:
            old = read_manifest(index_dir, str(repo))
            check_embedder(index_dir, old, cfg.embedder)
            open_index_dir(index_dir, cfg).close()  # refuses a corrupt index before we build on it
        live = old or _readable_manifest(index_dir)  # with --rebuild: kept until the swap
        summary.created = live is None
        summary.rebuilt = rebuild
        keep = {"manifest.json", ".lock"}
        if live:
            keep |= {live.chunk_store, live.vectors or ""}
        _clean_stale(index_dir, keep)
        gen = live.generation + 1 if live else 1
        new_store_name, new_vec_name = f"chunks-{gen}.sqlite", f"vectors-{gen}.faiss"

        with Stages(progress, summary) as stages:
            # walk ---------------------------------------------------------------------------
            from ragcode.chunking import chunk_file, link_cli, walk_repo

            with stages.stage("walk") as advance:
                walked = walk_repo(repo, cfg.chunking.walk)
                advance(len(walked.files))
            skipped = Counter(walked.skipped)
            current = {f.path: f for f in walked.files}
            kinds = {p: walked.file_kind(p) for p in current}
            summary.files_by_kind = dict(sorted(Counter(kinds.values()).items()))
            if old and _up_to_date(old, current, cfg):  # nothing to write: no new generation
                summary.files_unchanged = len(current)
                summary.skipped = dict(sorted(skipped.items()))
                summary.chunks_by_kind = dict(old.counts.chunks_by_kind)
                summary.vectors = old.counts.vectors
                index = open_index_dir(index_dir, cfg)
                index.summary = summary
                return index

            # open or create the new generation of the chunk store -------------------------
            if old:
                src = ChunkStore(index_dir / old.chunk_store, readonly=True, hint=hint)
                store = src.copy_to(index_dir / new_store_name)
                src.close()
            else:
                store = ChunkStore(index_dir / new_store_name, hint=hint)
            try:
                known = store.files()
                same_chunking = old is not None and \
                    old.section_hashes.get("chunking") == chunking_key(cfg)
                to_chunk = []
                for p, f in current.items():
                    if p not in known:
                        summary.files_added += 1
                        to_chunk.append(f)
                    elif known[p][0] != f.sha256 or not same_chunking:
                        summary.files_changed += 1
                        to_chunk.append(f)
                    else:
                        summary.files_unchanged += 1
                deleted = [p for p in known if p not in current]
                summary.files_deleted = len(deleted)

                # chunk ------------------------------------------------------------------------
                with store.transaction():
                    removed_ids: list[int] = []
                    for p in deleted:
                        removed_ids += store.delete_file(p)
                    with stages.stage("chunk", total=len(to_chunk)) as advance:
                        for f in to_chunk:
                            try:
                                chunks = chunk_file(f, cfg.chunking)
                            except Exception as exc:  # noqa: BLE001 - one bad file is not fatal
                                log.warning("could not chunk %s: %s", f.path, exc)
                                skipped["chunk-error"] += 1
                                chunks = []
                            removed_ids += store.delete_file(f.path)
                            summary.chunks_added += len(store.add_chunks(chunks))
                            store.put_file(f.path, f.sha256, kinds[f.path])
                            advance(1)
                    summary.chunks_removed = len(removed_ids)

                # link CLI tables across files (metadata only) ---------------------------------
                with stages.stage("link") as advance, store.transaction():
                    summary.links_updated = _relink(store, link_cli)
                    advance(1)

                # embed ------------------------------------------------------------------------
                vectors = VectorIndex.read(index_dir / old.vectors) \
                    if old and old.vectors else None
                have = vectors.ids() if vectors else set()
                want = {i for i, k in store.kinds_by_id().items()
                        if embed_kinds is None or k in embed_kinds}
                to_remove, to_add = have - want, sorted(want - have)
                dim = old.embedder.dim if old else None
                with stages.stage("embed", total=len(to_add)) as advance:
                    if to_add:
                        cache = EmbeddingCache.in_dir(cfg.index.cache_dir)
                        def load_model() -> Any:
                            start = time.perf_counter()
                            model = load_embedder(cfg.embedder)
                            summary.seconds["load-model"] = round(time.perf_counter() - start, 3)
                            return model

                        embedder = CachedEmbedder(load_model, cache,
                                                  name=emb_name, chunk_size=max(8, cfg.embedder.batch_size * 2))
                        chunk_map = store.get(to_add)
                        texts = [chunk_map[i].embed_text for i in to_add]
                        vecs = embedder.embed(texts, on_progress=advance)
                        cache.close()
                        summary.embedded, summary.cached = embedder.misses, embedder.hits
                        dim = int(vecs.shape[1])
                        if vectors is None:
                            vectors = VectorIndex.empty(dim)
                        vectors.add(to_add, vecs)
                    if vectors is not None:
                        summary.vectors_removed = vectors.remove(to_remove)
                summary.vectors_added = len(to_add)
                if "load-model" in summary.seconds:  # report the model load on its own
                    summary.seconds["embed"] = round(
                        summary.seconds["embed"] - summary.seconds["load-model"], 3)

                # write: new generation files, then the manifest --------------------------------
                with stages.stage("write") as advance, store.transaction():
                    store.set_has_vector(to_remove, False)
                    store.set_has_vector(to_add, True)
                    n_vectors = vectors.ntotal if vectors else 0
                    if vectors is not None and n_vectors:
                        vectors.write(index_dir / new_vec_name)
                    summary.chunks_by_kind = store.counts_by_kind()
                    n_chunks = store.count()
                    files = store.files()
                    advance(1)
            finally:
                store.close()

            summary.vectors = n_vectors
            summary.skipped = dict(sorted(skipped.items()))
            now = datetime.now(timezone.utc).isoformat(timespec="seconds")
            manifest = Manifest(
                format_version=FORMAT_VERSION,
                ragcode_version=__version__,
                name=name,
                repo=str(repo),
                generation=gen,
                chunk_store=new_store_name,
                vectors=new_vec_name if n_vectors else None,
                embedder={"name": emb_name, "dim": dim,
                          "config": cfg.embedder.model_dump(mode="json")},
                config_hash=cfg.hash(),
                section_hashes={"chunking": chunking_key(cfg),
                                "embedder": cfg.section_hash("embedder")},
                config=cfg.to_dict(),
                files={p: h for p, (h, _k) in sorted(files.items())},
                counts={"files": len(files), "chunks": n_chunks, "vectors": n_vectors,
                        "files_by_kind": summary.files_by_kind,
                        "chunks_by_kind": summary.chunks_by_kind},
                skipped=summary.skipped,
                created_at=(old.created_at if old and old.created_at else now),
                updated_at=now,
                last_run={k: summary.to_dict()[k] for k in (
                    "files_added", "files_changed", "files_deleted", "chunks_added",
                    "chunks_removed", "embedded", "cached", "seconds")},
            )
            write_manifest(index_dir, manifest)
            _clean_stale(index_dir, {"manifest.json", ".lock", new_store_name,
                                     manifest.vectors or ""})

    index = open_index_dir(index_dir, cfg)
    index.summary = summary
    log.info("indexed %s: %d files, %d chunks, %d vectors (%d embedded, %d cached)", repo,
             summary.files, summary.chunks, summary.vectors, summary.embedded, summary.cached)
    return index


def chunking_key(cfg: Config) -> str:
    """What decides a file's chunks: the chunking settings and the chunkers' output version."""
    return f"{cfg.section_hash('chunking')}-v{CHUNKING_VERSION}"


def _up_to_date(old: Manifest, current: dict[str, Any], cfg: Config) -> bool:
    """Same files (by sha256), same chunking and embedder settings as the stored index."""
    hashes = old.section_hashes
    return (hashes.get("chunking") == chunking_key(cfg)
            and hashes.get("embedder") == cfg.section_hash("embedder")
            and old.files == {p: f.sha256 for p, f in current.items()})


def _readable_manifest(index_dir: Path) -> Manifest | None:
    try:
        return read_manifest(index_dir)
    except IndexStateError:
        return None


def _relink(store: ChunkStore, link_cli: Any) -> int:
    """Recompute CLI links over all chunks; write back metadata that changed. Returns the count."""
    import dataclasses

    pairs = list(store.iter_chunks())
    if not pairs:
        return 0
    base = []
    for _cid, c in pairs:
        meta = {k: v for k, v in c.metadata.items() if k != LINK_KEY}
        base.append(dataclasses.replace(c, metadata=meta))
    linked = link_cli(base)
    if len(linked) != len(pairs):
        raise IndexStateError(
            f"link_cli returned {len(linked)} chunks for {len(pairs)}; it must keep the list "
            "length and order (a bug in ragcode.chunking)")
    changed = 0
    for (cid, old), new in zip(pairs, linked):
        if new.metadata != old.metadata:
            store.set_metadata(cid, new.metadata)
            changed += 1
    return changed

