"""``RagcodeRetriever``: a ragcode index as a LlamaIndex ``BaseRetriever``.

``RagcodeRetriever.from_index("bert")`` opens an index by name (under ``index.root``) or path and
answers ``retrieve(query)`` with ``NodeWithScore``s whose nodes carry ragcode's chunk metadata.
Retrieval settings (``mode``, ``k``, ``kinds``, ``path_prefix``, ...) are the fields of
``config.retrieval`` and are checked like any config override.
"""

from __future__ import annotations

from typing import Any

from ragcode.config import Config, load_config
from ragcode.errors import ConfigError
from ragcode.integrations._extras import require_llamaindex

require_llamaindex()

from llama_index.core.callbacks import CallbackManager  # noqa: E402
from llama_index.core.retrievers import BaseRetriever  # noqa: E402
from llama_index.core.schema import NodeWithScore, QueryBundle  # noqa: E402

from ragcode.integrations.llamaindex.nodes import chunk_to_node  # noqa: E402


def resolve_config(config: Any = None, **retrieval_settings: Any) -> Config:
    """``config`` (a ``Config``, a YAML path or ``None``) with ``retrieval.<name>`` overrides."""
    base = config if isinstance(config, Config) else load_config(config)
    if not retrieval_settings:
        return base
    from ragcode.config import RetrievalConfig

    unknown = sorted(set(retrieval_settings) - set(RetrievalConfig.model_fields))
    if unknown:
        raise ConfigError(
            f"RagcodeRetriever got unknown retrieval setting(s) {', '.join(unknown)}; "
            f"known: {', '.join(RetrievalConfig.model_fields)}"
        )
    data = base.to_dict()
    data["retrieval"].update(retrieval_settings)
    return _validated(data)


def _validated(data: dict[str, Any]) -> Config:
    from pydantic import ValidationError

    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid retrieval setting for RagcodeRetriever: {msgs}") from None


class RagcodeRetriever(BaseRetriever):
    """Hybrid (dense + BM25) retrieval over a ragcode index, for LlamaIndex query engines."""

    def __init__(self, index: Any, config: Config | None = None,
                 callback_manager: CallbackManager | None = None, verbose: bool = False):
        self._index = index
        self._config = config or Config()
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @classmethod
    def from_index(cls, path_or_name: Any, config: Any = None,
                   callback_manager: CallbackManager | None = None,
                   **retrieval_settings: Any) -> RagcodeRetriever:
        """Open a ragcode index by name or path; ``retrieval_settings`` override
        ``config.retrieval`` (e.g. ``mode="bm25", k=10, kinds=["markdown", "cli"]``)."""
        from ragcode.index.store import load_index

        cfg = resolve_config(config, **retrieval_settings)
        return cls(load_index(path_or_name, config=cfg), config=cfg,
                   callback_manager=callback_manager)

    @property
    def config(self) -> Config:
        return self._config

    @property
    def index(self) -> Any:
        return self._index

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        from ragcode.retrieval.search import search

        hits = search(self._index, query_bundle.query_str, k=self._config.retrieval.k,
                      config=self._config)
        return [NodeWithScore(node=_hit_node(hit), score=float(hit.score)) for hit in hits]


def _hit_node(hit: Any) -> Any:
    node = chunk_to_node(hit.chunk)
    node.metadata.update(rank=hit.rank, retriever=hit.source)
    node.excluded_embed_metadata_keys += ["rank", "retriever"]
    node.excluded_llm_metadata_keys += ["rank", "retriever"]
    return node
