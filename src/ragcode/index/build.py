"""Build or update an index: ``index_repo(path, config) -> Index``.

Steps (each a function over plain data, see ``plan.py`` and ``steps.py``): plan (walk, then
compare with the stored ``Manifest``) -> chunk (only new or changed files) -> link
(``chunking.link_chunks`` over all chunks, metadata only: the pass ``chunk_repo`` makes) ->
embed (only chunks whose kind gets vectors and whose vector is not in FAISS yet, through the
embedding cache) -> commit (new generation files, then the new ``Manifest``). Each run writes a
new generation of the chunk store and FAISS file next to the old one and swaps
``manifest.json`` last, so a run killed at any point leaves the previous index usable; the next
run resumes from the embedding cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
from collections import Counter
from pathlib import Path
from typing import Iterator

from ragcode.config import Config, load_config
from ragcode.errors import IndexStateError, RepoNotFoundError
from ragcode.index import steps
from ragcode.index.manifest import Manifest, read_manifest, rebuild_hint, write_manifest
from ragcode.index.names import check_index_name, default_index_name
from ragcode.index.plan import BuildPlan, embed_kinds, plan_build
from ragcode.index.progress import IndexSummary, Stages
from ragcode.index.store import Index, check_embedder, open_index_dir, settle_config

log = logging.getLogger(__name__)


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
    for p in steps.stale_files(index_dir, keep):
        p.unlink(missing_ok=True)


def _refuse_other_repo(old: Manifest, repo: Path, index_dir: Path) -> None:
    """An index name already used for another repository is not silently swapped for this one."""
    if old.repo and Path(old.repo).expanduser().resolve() != repo:
        raise IndexStateError(
            f"index {index_dir.name!r} at {index_dir} holds {old.repo}, not {repo}: give this "
            f"repository another --name, or pass --rebuild to replace that index")


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
    from ragcode.embedding import embedder_key

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
    summary = IndexSummary(name=name, index_dir=str(index_dir), repo=str(repo))
    embedder_key(cfg.embedder), embed_kinds(cfg)  # bad settings fail before anything is written

    with _locked(index_dir):
        old: Manifest | None = None
        if (index_dir / "manifest.json").exists() and not rebuild:
            old = read_manifest(index_dir, str(repo))
            _refuse_other_repo(old, repo, index_dir)
        cfg = settle_config(cfg, old)  # embedder.backend auto -> the one this index uses
        if old is not None:
            check_embedder(index_dir, old, cfg.embedder)
            open_index_dir(index_dir, cfg).close()  # refuses a corrupt index before we build on it
        live = old or _readable_manifest(index_dir)  # with --rebuild: kept until the swap
        summary.created = live is None
        summary.rebuilt = rebuild
        keep = {"manifest.json", ".lock"}
        if live:
            keep |= {live.chunk_store, live.vectors or ""}
        _clean_stale(index_dir, keep)

        with Stages(progress, summary) as stages:
            plan = _plan(repo, name, index_dir, cfg, old, live, stages)
            summary.files_by_kind = plan.files_by_kind()
            summary.files_added, summary.files_changed = plan.added, plan.changed
            summary.files_unchanged, summary.files_deleted = plan.unchanged, len(plan.deleted)
            if plan.up_to_date:  # nothing to write: no new generation
                assert old is not None
                summary.skipped = dict(sorted(plan.skipped.items()))
                summary.chunks_by_kind = dict(old.counts.chunks_by_kind)
                summary.vectors = old.counts.vectors
                index = open_index_dir(index_dir, cfg)
                index.summary = summary
                return index
            manifest = _build(plan, cfg, summary, stages, rebuild_hint(index_dir, str(repo)))
            write_manifest(index_dir, manifest)
            _clean_stale(index_dir, {"manifest.json", ".lock", manifest.chunk_store,
                                     manifest.vectors or ""})

    index = open_index_dir(index_dir, cfg)
    index.summary = summary
    log.info("indexed %s: %d files, %d chunks, %d vectors (%d embedded, %d cached)", repo,
             summary.files, summary.chunks, summary.vectors, summary.embedded, summary.cached)
    return index


def _plan(repo: Path, name: str, index_dir: Path, cfg: Config, old: Manifest | None,
          live: Manifest | None, stages: Stages) -> BuildPlan:
    """The walk (the plan step's only input besides the manifest), then the plan."""
    from ragcode.chunking import walk_repo

    with stages.stage("walk") as advance:
        walked = walk_repo(repo, cfg.chunking.walk)
        advance(len(walked.files))
    kinds = {f.path: walked.file_kind(f.path) for f in walked.files}
    return plan_build(repo, name, index_dir, cfg, walked.files, kinds, Counter(walked.skipped),
                      old, live)


def _build(plan: BuildPlan, cfg: Config, summary: IndexSummary, stages: Stages,
           hint: str) -> Manifest:
    """Chunk, link, embed and write the new generation; the manifest that commits it."""
    store = steps.open_generation(plan, hint)
    embedder = steps.cached_embedder(cfg, summary) if embed_kinds(cfg) != set() else None
    prefetch = steps.prefetch_for(plan, cfg, embedder, stages.bar("embed")) if embedder else None
    try:
        try:
            with stages.stage("chunk", total=len(plan.to_chunk)) as advance:
                steps.chunk_step(store, plan, cfg, summary, advance, prefetch)
            with stages.stage("link") as advance:
                summary.links_updated = steps.link_step(store, cfg)
                advance(1)
        except BaseException:
            if prefetch is not None:
                prefetch.stop()
            raise
        if "load-model" in summary.seconds:  # loaded in the background, during chunk or link
            summary.background["load-model"] = summary.seconds.pop("load-model")
        with stages.stage("embed", keep=True) as advance:
            if prefetch is not None:  # the rest of the overlapped embedding (errors re-raised)
                try:
                    prefetch.finish()
                except BaseException:  # Ctrl-C while waiting: the thread stops before we go on
                    prefetch.stop()
                    raise
                summary.overlapped = prefetch.done
                summary.background["embed"] = round(prefetch.busy_s, 3)
                advance = steps.skip_first(prefetch.done, advance)  # found in the cache now
            emb = steps.embed_step(store, plan, cfg, summary, advance, embedder)
        if "load-model" in summary.seconds:  # loaded in this stage: reported on its own
            summary.seconds["embed"] = round(
                summary.seconds["embed"] - summary.seconds["load-model"], 3)
        with stages.stage("write") as advance:
            files, n_chunks, n_vectors = steps.write_step(store, plan, emb, summary)
            advance(1)
    finally:
        if embedder is not None:
            embedder.cache.close()
        store.close()
    summary.vectors = n_vectors
    summary.skipped = dict(sorted(plan.skipped.items()))
    return steps.new_manifest(plan, cfg, summary, files, n_chunks, n_vectors, emb.dim)


def _readable_manifest(index_dir: Path) -> Manifest | None:
    try:
        return read_manifest(index_dir)
    except IndexStateError:
        return None
