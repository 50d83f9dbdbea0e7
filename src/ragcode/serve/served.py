"""The indexes a server serves: each an opened ``Index``, replaced whole after an update.

A tool call leases the current ``Index`` (``ServedIndex.lease``) and works on that object to the
end of the call. An update (``ServedIndex.swap``) opens the new index first and then replaces
the reference under a lock, so a call sees the old index or the new one, never a half-written
one; the old ``Index`` is closed when its last lease ends.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ragcode.config import Config
from ragcode.errors import RagcodeError, RepoNotFoundError
from ragcode.index.store import Index, open_index_dir, resolve_index_dir


@dataclass
class ServedIndex:
    """One served index: its name, folder and repository, the config the tools run with, and
    the current ``Index``. ``cache`` is shared by every call's ``AgentEnv`` (the checkers, the
    sandbox executor), ``search_lock`` keeps one search at a time on this index (a searcher
    builds its retrievers on first use)."""

    name: str
    dir: Path
    repo: Path
    config: Config
    index: Index
    updates: int = 0
    cache: dict[str, Any] = field(default_factory=dict)
    search_lock: threading.Lock = field(default_factory=threading.Lock)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _leases: dict[int, int] = field(default_factory=dict)
    _retired: dict[int, Index] = field(default_factory=dict)

    @contextlib.contextmanager
    def lease(self) -> Iterator[Index]:
        """The current ``Index``, kept open until the block ends (even if swapped meanwhile)."""
        with self._lock:
            index = self.index
            self._leases[id(index)] = self._leases.get(id(index), 0) + 1
        try:
            yield index
        finally:
            with self._lock:
                left = self._leases[id(index)] - 1
                if left:
                    self._leases[id(index)] = left
                else:
                    del self._leases[id(index)]
                old = self._retired.pop(id(index), None) if not left else None
            if old is not None:
                old.close()

    def swap(self, new: Index) -> None:
        """Serve ``new`` from now on; the previous ``Index`` is closed once no call uses it."""
        with self._lock:
            old, self.index = self.index, new
            self.updates += 1
            busy = old is new or bool(self._leases.get(id(old)))
            if busy and old is not new:
                self._retired[id(old)] = old  # closed by its last lease
        if not busy:
            old.close()

    def env(self, index: Index, workdir: str = ".", instruction: str = "") -> Any:
        """The agent's tool environment over ``index`` (same path guard, limits and caches)."""
        from ragcode.agent.tools import AgentEnv

        return AgentEnv(self.repo, index, self.config, workdir, instruction, self.repo.name, _cache=self.cache)

    def describe(self) -> dict[str, Any]:
        """What the index resource shows: names, folders, counts and the manifest (without the
        per-file hashes, which only the index itself needs)."""
        with self.lease() as index:
            manifest = index.manifest.model_dump(mode="json", exclude={"files"})
        return {"name": self.name, "index_dir": str(self.dir), "repo": str(self.repo),
                "updates": self.updates, "manifest": manifest}

    def close(self) -> None:
        with self._lock:
            self.index.close()


def warm(index: Index, config: Config) -> None:
    """One search on ``index``, so its retrievers (BM25 tables, the query embedder) are built
    before a caller's first search needs them."""
    from ragcode.retrieval.search import search

    search(index, "warm up", 1, config)


def open_served(names: list[str], config: Config) -> list[ServedIndex]:
    """Each index of ``names`` (a name under ``index.root`` or a folder), opened with the
    embedder it was built with; its repository must be where the manifest says (the tools read
    it). Two indexes of the same name are refused: the ``index`` argument picks by name."""
    if not names:
        raise RagcodeError("serve needs at least one index: ragcode serve INDEX [INDEX ...]")
    out: list[ServedIndex] = []
    for name in names:
        index = open_index_dir(resolve_index_dir(name, config))
        repo = Path(index.manifest.repo) if index.manifest.repo else None
        if repo is None or not repo.is_dir():
            index.close()
            raise RepoNotFoundError(
                f"index {index.name!r} was built from {index.manifest.repo!r}, which is not there; the "
                "tools read the repository itself: restore it or rebuild the index from where it is now")
        if any(s.name == index.name for s in out):
            index.close()
            raise RagcodeError(f"two served indexes are named {index.name!r}; serve each name once")
        out.append(ServedIndex(index.name, index.dir, repo.resolve(), config, index))
    return out
