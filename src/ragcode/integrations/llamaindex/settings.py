"""Offline-safe LlamaIndex settings.

LlamaIndex falls back to OpenAI for ``Settings.llm`` and ``Settings.embed_model`` when they are
read unset, which needs a key and the network. ``use_offline_settings()`` sets both explicitly:
the LLM to one you pass (default ``MockLLM``) and the embedding model to ``RagcodeEmbedding``,
ragcode's own embedder (the bundled MiniLM by default; no download).
"""

from __future__ import annotations

from typing import Any

from ragcode.config import EmbedderConfig
from ragcode.integrations._extras import require_llamaindex

require_llamaindex()

from llama_index.core import Settings  # noqa: E402
from llama_index.core.base.embeddings.base import BaseEmbedding  # noqa: E402
from llama_index.core.bridge.pydantic import Field, PrivateAttr  # noqa: E402


class RagcodeEmbedding(BaseEmbedding):
    """A LlamaIndex embedding model backed by ``ragcode.embedding.load_embedder``."""

    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig,
                                     description="ragcode embedder settings (config.embedder).")
    _model: Any = PrivateAttr(default=None)

    def __init__(self, embedder: EmbedderConfig | None = None, **kwargs: Any):
        embedder = embedder or EmbedderConfig()
        kwargs.setdefault("model_name", f"ragcode:{embedder.model}")
        kwargs.setdefault("embed_batch_size", embedder.batch_size)
        super().__init__(embedder=embedder, **kwargs)  # type: ignore[call-arg]  # this class's pydantic field

    @classmethod
    def class_name(cls) -> str:
        return "RagcodeEmbedding"

    def _load(self) -> Any:
        if self._model is None:
            from ragcode.embedding import load_embedder

            self._model = load_embedder(self.embedder)
        return self._model

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._load().embed_query([query])[0].tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._load().embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [v.tolist() for v in self._load().embed(texts)]


def use_offline_settings(llm: Any = None, embedder: EmbedderConfig | None = None,
                         embed_model: Any = None) -> None:
    """Set ``Settings.llm`` (default ``MockLLM``) and ``Settings.embed_model`` (default
    ``RagcodeEmbedding``) so nothing in LlamaIndex reaches for OpenAI or a model hub."""
    if llm is None:
        from llama_index.core.llms import MockLLM

        llm = MockLLM()
    Settings.llm = llm
    Settings.embed_model = embed_model if embed_model is not None else RagcodeEmbedding(embedder)
