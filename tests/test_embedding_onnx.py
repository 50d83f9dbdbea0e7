"""The ONNX backends: exported offline from the packaged MiniLM, vectors close to torch's, and an
index built with one backend refused by another."""

from __future__ import annotations

import numpy as np
import pytest

from index_helpers import make_repo, use_simple_chunking
from ragcode.config import EmbedderConfig, load_config
from ragcode.embedding import embedder_key, load_embedder
from ragcode.errors import IndexStateError
from ragcode.index.build import index_repo
from ragcode.index.store import load_index

TEXTS = [
    "train a GAN on MNIST with batch size 64",
    "python train.py --dataset cora --lr 0.01",
    "## Usage\n\nRun `bash scripts/run.sh` to fine-tune the model on your data.\n" * 20,
    "x",
]


def test_backend_is_part_of_the_embedder_name() -> None:
    torch_key = embedder_key(EmbedderConfig())
    assert torch_key == "st:minilm:seq256:norm"  # unchanged: existing indexes stay valid
    assert embedder_key(EmbedderConfig(backend="onnx")) == "onnx:minilm:seq256:norm"
    assert embedder_key(EmbedderConfig(backend="onnx-int8")) == "onnx-int8:minilm:seq256:norm"


def test_index_of_one_backend_refuses_another(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    base = {"index.root": str(tmp_path / "indexes"), "index.cache_dir": str(tmp_path / "cache"),
            "embedder.kinds": ["markdown"]}
    index_repo(repo, load_config(overrides=base), progress=False).close()
    onnx = load_config(overrides={**base, "embedder.backend": "onnx-int8"})
    with pytest.raises(IndexStateError) as err:  # refused before any model is loaded
        index_repo(repo, onnx, progress=False)
    msg = str(err.value)
    assert "backend 'sentence-transformers'" in msg and "backend 'onnx-int8'" in msg
    assert "embedder.backend=sentence-transformers" in msg and "--rebuild" in msg
    with pytest.raises(IndexStateError, match="cannot be mixed"):
        load_index("demo", onnx)


@pytest.mark.slow
def test_onnx_backends_export_offline_and_match_torch(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ref = load_embedder(EmbedderConfig()).embed(TEXTS)
    fp32 = load_embedder(EmbedderConfig(backend="onnx", batch_size=3))
    int8 = load_embedder(EmbedderConfig(backend="onnx-int8", batch_size=3))
    assert fp32.dim == int8.dim == 384 and int8.name == "onnx-int8:minilm:seq256:norm"
    assert sorted(p.name for p in (tmp_path / "cache" / "onnx").glob("*/*.onnx")) == [
        "model-int8.onnx", "model.onnx"]
    a, b = fp32.embed(TEXTS), int8.embed(TEXTS)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert (a * ref).sum(1).min() > 0.999  # the same model: only float rounding
    assert (b * ref).sum(1).min() > 0.97  # int8 weights: the stated tolerance (docs/index.md)
    assert fp32.embed([]).shape == (0, 384)
    # the order of the texts does not change a text's vector (batches are sorted by length)
    assert np.allclose(fp32.embed(TEXTS[::-1])[::-1], a, atol=1e-5)
