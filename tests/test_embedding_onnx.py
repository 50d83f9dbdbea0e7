"""The ONNX backends: exported offline from the packaged MiniLM, vectors close to torch's; the
default ``auto`` picks fp32 ONNX where the exporter supports the model and keeps the fp32 backend
an existing index was built with; an explicit backend refuses an index of another."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from index_helpers import make_repo, use_simple_chunking
from ragcode.config import EmbedderConfig, load_config
from ragcode.embedding import auto_backend, embedder_key, load_embedder, settle
from ragcode.embedding.cache import EmbeddingCache
from ragcode.embedding.onnx_export import export_dir, exportable
from ragcode.embedding.sentence_transformer import SentenceTransformerEmbedder, resolve_model
from ragcode.errors import IndexStateError
from ragcode.index.build import index_repo
from ragcode.index.store import load_index

TEXTS = [
    "train a GAN on MNIST with batch size 64",
    "python train.py --dataset cora --lr 0.01",
    "## Usage\n\nRun `bash scripts/run.sh` to fine-tune the model on your data.\n" * 20,
    "x",
]
ST = "sentence-transformers"


def test_backend_is_part_of_the_embedder_name() -> None:
    torch_key = embedder_key(EmbedderConfig(backend=ST))
    assert torch_key == "st:minilm:seq256:norm"  # unchanged: existing indexes stay valid
    assert embedder_key(EmbedderConfig(backend="onnx")) == "onnx:minilm:seq256:norm"
    assert embedder_key(EmbedderConfig(backend="onnx-int8")) == "onnx-int8:minilm:seq256:norm"
    assert EmbedderConfig().backend == "auto"
    assert embedder_key(EmbedderConfig()) == "onnx:minilm:seq256:norm"  # auto, resolved


def _model_folder(root: Path, modules: list[str], pooling: dict, tokenizer: bool = True) -> Path:
    """A model folder's JSON files only (the resolution reads nothing else)."""
    root.mkdir(parents=True)
    (root / "modules.json").write_text(json.dumps(
        [{"idx": i, "name": str(i), "path": "" if i == 0 else f"{i}_{m}",
          "type": f"sentence_transformers.models.{m}"} for i, m in enumerate(modules)]))
    (root / "1_Pooling").mkdir()
    (root / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    if tokenizer:
        (root / "tokenizer.json").write_text("{}")
    return root


def test_auto_picks_onnx_only_where_the_exporter_supports_the_model(tmp_path) -> None:  # noqa: ANN001
    assert auto_backend("minilm") == ("onnx", None)
    assert exportable(resolve_model("minilm")) is None
    mean = {"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}
    ok = _model_folder(tmp_path / "ok", ["Transformer", "Pooling", "Normalize"], mean)
    cls = _model_folder(tmp_path / "cls", ["Transformer", "Pooling"], {"pooling_mode": "cls"})
    assert auto_backend(str(ok))[0] == auto_backend(str(cls))[0] == "onnx"
    rejected = {
        "max": _model_folder(tmp_path / "max", ["Transformer", "Pooling"],
                             {"pooling_mode_max_tokens": True}),
        "dense": _model_folder(tmp_path / "dense", ["Transformer", "Pooling", "Dense"], mean),
        "notok": _model_folder(tmp_path / "notok", ["Transformer", "Pooling"], mean,
                               tokenizer=False),
    }
    for name, folder in rejected.items():
        backend, why = auto_backend(str(folder))
        assert backend == ST and why, name
        # the key is the torch one, known without loading anything
        assert embedder_key(EmbedderConfig(model=str(folder))) == f"st:{folder}:seq256:norm"
    # a hub name (no folder) is not looked up: torch, which fails offline when loaded
    assert auto_backend("some-org/some-embedder") == (ST, "'some-org/some-embedder' is not a local "
                                                          "model folder")
    assert auto_backend("minilm", "cuda")[0] == ST  # onnxruntime runs on CPU here
    assert settle(EmbedderConfig(model="e5-small")).backend == "e5-small"
    for explicit in (ST, "onnx-int8"):  # never changed, whatever an index says
        assert settle(EmbedderConfig(backend=explicit), "onnx:minilm:seq256:norm",
                      "onnx").backend == explicit


def _configs(tmp_path: Path) -> dict:
    return {"index.root": str(tmp_path / "indexes"), "index.cache_dir": str(tmp_path / "cache"),
            "embedder.kinds": ["markdown"]}


def test_index_of_one_backend_refuses_another(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    base = _configs(tmp_path)
    index_repo(repo, load_config(overrides={**base, "embedder.backend": ST}),
               progress=False).close()
    onnx = load_config(overrides={**base, "embedder.backend": "onnx-int8"})
    with pytest.raises(IndexStateError) as err:  # refused before any model is loaded
        index_repo(repo, onnx, progress=False)
    msg = str(err.value)
    assert "backend 'sentence-transformers'" in msg and "backend 'onnx-int8'" in msg
    assert "embedder.backend=sentence-transformers" in msg and "--rebuild" in msg
    with pytest.raises(IndexStateError, match="cannot be mixed"):
        load_index("demo", onnx)
    # an explicit fp32 backend is as strict: only auto takes the index's own
    with pytest.raises(IndexStateError, match="embedder.backend=sentence-transformers"):
        load_index("demo", load_config(overrides={**base, "embedder.backend": "onnx"}))


@pytest.mark.slow
def test_index_built_by_auto_records_onnx_and_reopens(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    base = _configs(tmp_path)
    auto = load_config(overrides=base)
    index = index_repo(repo, auto, progress=False)
    m = index.manifest
    assert m.embedder.name == "onnx:minilm:seq256:norm" and m.embedder.config["backend"] == "onnx"
    assert m.config["embedder"]["backend"] == "onnx" and index.vector_count == 5
    again = index_repo(repo, auto, progress=False)  # nothing changed: no new generation
    assert again.manifest.generation == m.generation and again.summary.embedded == 0
    opened = load_index("demo", auto)
    assert opened.embedder.name == "onnx:minilm:seq256:norm"
    target = next(i for i, c in opened.chunks().items() if "leaky relu" in c.text)
    q = opened.embedder.embed_query(["which activation does the discriminator use"])[0]
    assert opened.search_vectors(q, 1)[0][0] == target
    with pytest.raises(IndexStateError, match="embedder.backend=onnx"):  # explicit torch: refused
        load_index("demo", load_config(overrides={**base, "embedder.backend": ST}))


@pytest.mark.slow
def test_torch_index_opens_and_updates_under_auto_with_torch(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    base = _configs(tmp_path)
    built = index_repo(repo, load_config(overrides={**base, "embedder.backend": ST}),
                       progress=False)
    auto = load_config(overrides=base)
    opened = load_index("demo", auto)
    assert isinstance(opened.embedder, SentenceTransformerEmbedder)
    assert opened.config.embedder.backend == ST
    again = index_repo(repo, auto, progress=False)  # up to date under auto: the same settings
    assert again.manifest.generation == built.manifest.generation
    (repo / "notes.md").write_text("# Notes\n\nThe discriminator uses leaky relu.\n\n"
                                   "## Sampling\n\nSave a grid of generated digits every epoch.\n")
    updated = index_repo(repo, auto, progress=False)  # an update embeds with torch
    assert updated.manifest.generation == built.manifest.generation + 1
    assert updated.manifest.embedder.name == "st:minilm:seq256:norm"
    assert updated.summary.embedded == 2 and updated.vector_count == 7
    assert isinstance(updated.embedder, SentenceTransformerEmbedder)
    cache = EmbeddingCache.in_dir(tmp_path / "cache")  # every vector came from torch
    assert cache.count("st:minilm:seq256:norm") == 7 and cache.count() == 7
    cache.close()
    # auto does not take an int8 index: its vectors are not torch's
    int8 = {**base, "index.root": str(tmp_path / "int8"), "embedder.backend": "onnx-int8"}
    index_repo(repo, load_config(overrides=int8), progress=False).close()
    with pytest.raises(IndexStateError, match="embedder.backend=onnx-int8"):
        load_index("demo", load_config(overrides={**int8, "embedder.backend": "auto"}))


@pytest.mark.slow
def test_onnx_backends_export_offline_and_match_torch(tmp_path, monkeypatch,  # noqa: ANN001
                                                      shared_models) -> None:  # noqa: ANN001
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ref = load_embedder(EmbedderConfig(backend=ST)).embed(TEXTS)
    fp32 = load_embedder(EmbedderConfig(backend="onnx", batch_size=3))
    int8 = load_embedder(EmbedderConfig(backend="onnx-int8", batch_size=3))
    assert fp32.dim == int8.dim == 384 and int8.name == "onnx-int8:minilm:seq256:norm"
    # exported into the session's models folder ($RAGCODE_MODELS), not the per-test cache
    folder = export_dir(resolve_model("minilm"))
    assert folder.parent == shared_models / "onnx"
    assert sorted(p.name for p in folder.glob("*.onnx")) == ["model-int8.onnx", "model.onnx"]
    assert not (tmp_path / "cache").exists()
    a, b = fp32.embed(TEXTS), int8.embed(TEXTS)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert (a * ref).sum(1).min() > 0.9999  # the same model: only float rounding
    assert (b * ref).sum(1).min() > 0.97  # int8 weights: the stated tolerance (docs/index.md)
    assert fp32.embed([]).shape == (0, 384)
    # the order of the texts does not change a text's vector (batches are sorted by length)
    assert np.allclose(fp32.embed(TEXTS[::-1])[::-1], a, atol=1e-5)
    # queries run one text per pass (no padding to the longest): the same vectors as a batch
    query = [TEXTS[0] + " " + TEXTS[1], "gan", "lr 0.0002"]
    assert np.allclose(fp32.embed_query(query), fp32.embed(query), atol=1e-5)
    assert load_embedder(EmbedderConfig(batch_size=3)) is fp32  # auto is onnx: one instance
