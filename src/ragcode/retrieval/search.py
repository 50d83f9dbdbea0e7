"""The retrieval stage's entry points: ranking (``ranking.Ranker``) then context assembly
(``assembly.ContextAssembler``), bound to one index and one config by a ``Searcher``.

- ``search(index, query, k, config)`` -> ranked ``Hit``s (``ragcode.search`` and ``ragcode search``)
- ``retrieve_context(index, instruction, config)`` -> the budgeted ``Context`` a prompt gets.
  It accepts only the task's instruction and the repository's index: no other task field
  (oracle, arguments, output, path) can reach retrieval.
- ``Searcher.retrieve(instruction)`` -> both, from one ranking (what the ablation records).
"""

from __future__ import annotations

import weakref
from typing import Any

from ragcode.config import Config
from ragcode.retrieval.assembly import ContextAssembler
from ragcode.retrieval.base import Query
from ragcode.retrieval.query import build_query
from ragcode.retrieval.ranking import Ranker
from ragcode.types import Context, Hit


class Searcher:
    """A ``Ranker`` and a ``ContextAssembler`` over one index and one config; reuse it."""

    def __init__(self, index: Any, config: Config):
        self.index = index
        self.config = config
        self.ranker = Ranker(index, config)
        self.assembler = ContextAssembler(index, config.context)

    def query(self, text: str) -> Query:
        return build_query(text, multi=self.config.retrieval.multi_query)

    def search_query(self, query: Query, k: int) -> list[Hit]:
        return self.ranker.rank(query, k)

    def search(self, text: str, k: int) -> list[Hit]:
        return self.ranker.rank(self.query(text), k)

    def retrieve(self, instruction: str) -> tuple[list[Hit], Context]:
        """The ``retrieval.k`` ranked hits for ``instruction`` and the context packed from them."""
        query = self.query(instruction)
        hits = self.ranker.rank(query, self.config.retrieval.k)
        return hits, self.assembler.assemble(hits, query.text)

    def context(self, instruction: str) -> Context:
        return self.retrieve(instruction)[1]


_SEARCHERS: "weakref.WeakKeyDictionary[Any, dict[str, Searcher]]" = weakref.WeakKeyDictionary()


def _resolve(index: Any, config: Config | None) -> tuple[Any, Config]:
    if config is None:
        from ragcode.config import load_config

        config = load_config()
    if isinstance(index, (str, bytes)) or hasattr(index, "__fspath__"):
        from ragcode.index.store import load_index

        index = load_index(index, config)
    return index, config


def searcher_for(index: Any, config: Config | None = None) -> Searcher:
    """A cached ``Searcher`` for this index object and the retrieval-relevant config."""
    index, config = _resolve(index, config)
    key = config.section_hash("retrieval", "rerank", "context", "embedder")
    try:
        per_index = _SEARCHERS.setdefault(index, {})
    except TypeError:  # not weak-referenceable: no caching
        return Searcher(index, config)
    if key not in per_index:
        per_index[key] = Searcher(index, config)
    return per_index[key]


def search(index: Any, query: str, k: int = 10, config: Config | None = None) -> list[Hit]:
    """Ranked hits for ``query`` from ``index`` (an ``Index``, or a name or path to load)."""
    return searcher_for(index, config).search(query, k)


def retrieve_context(index: Any, instruction: str, config: Config | None = None) -> Context:
    """The packed context for one task instruction. Takes nothing else from the task."""
    return searcher_for(index, config).context(instruction)
