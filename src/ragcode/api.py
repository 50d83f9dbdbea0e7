"""The public Python API. Each function delegates to its stage; the CLI calls these too."""

from __future__ import annotations

from typing import Any


def index_repo(path: Any, config: Any = None, **kwargs: Any) -> Any:
    """Chunk, embed and store a repository; returns the ``Index``. See ``ragcode.index.build``."""
    from ragcode.index.build import index_repo as _index_repo

    return _index_repo(path, config=config, **kwargs)


def load_index(name_or_path: Any, config: Any = None) -> Any:
    """Open an existing index by name (under ``index.root``) or path."""
    from ragcode.index.store import load_index as _load_index

    return _load_index(name_or_path, config=config)


def search(index: Any, query: str, k: int = 10, config: Any = None, **kwargs: Any) -> Any:
    """Retrieve ``Hit``s for ``query`` from ``index`` (a name, path or ``Index``)."""
    from ragcode.retrieval.search import search as _search

    return _search(index, query, k=k, config=config, **kwargs)


def generate(task: Any, index: Any = None, n: int = 5, config: Any = None, **kwargs: Any) -> Any:
    """Generate ``n`` candidate answers for a task (instruction string or ``Task``)."""
    from ragcode.answering import generate as _generate

    return _generate(task, index=index, n=n, config=config, **kwargs)


def evaluate(*args: Any, **kwargs: Any) -> Any:
    """Run and score ML-Bench tasks; see ``ragcode.bench.evaluate``."""
    from ragcode.bench.evaluate import evaluate as _evaluate

    return _evaluate(*args, **kwargs)
