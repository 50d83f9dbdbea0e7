"""Parallel index builds: chunking in a process pool gives the serial run's chunks and ids, and
embedding overlapped with chunking gives the same vectors and counts."""

from __future__ import annotations

import numpy as np
import pytest

import ragcode.index.parallel as parallel
from index_helpers import make_repo, use_simple_chunking
from ragcode.config import ChunkingConfig, load_config
from ragcode.index.build import index_repo
from ragcode.index.parallel import Prefetch, chunk_files, worker_count
from ragcode.types import SourceFile, sha256_text


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def test_worker_count_uses_a_pool_only_when_it_pays() -> None:
    assert worker_count(4, n_files=10, n_bytes=10_000_000) == 1  # too few files
    assert worker_count(4, n_files=1000, n_bytes=1000) == 1  # too few bytes
    assert worker_count(4, n_files=1000, n_bytes=10_000_000) == 4
    assert worker_count(1, n_files=1000, n_bytes=10_000_000) == 1
    assert 1 <= worker_count(0, n_files=1000, n_bytes=10_000_000) <= 8


def test_pool_chunks_like_the_serial_run() -> None:
    files = [_file(f"pkg/m{i}.py", f"import argparse\n\n\ndef f{i}(x):\n    return x + {i}\n\n\n"
                   f"class C{i}:\n    def g(self):\n        return {i}\n") for i in range(30)]
    files.append(_file("README.md", "# Demo\n\n## Usage\n\nRun `python pkg/m1.py`.\n"))
    cfg = ChunkingConfig()
    serial = list(chunk_files(files, cfg, workers=1))
    pooled = list(chunk_files(files, cfg, workers=2))
    assert [f.path for f, _ in pooled] == [f.path for f in files]  # the input order
    assert [[c.id for c in cs] for _, cs in pooled] == [[c.id for c in cs] for _, cs in serial]
    assert all(isinstance(cs, list) and cs for _, cs in pooled)


def test_a_file_that_fails_to_chunk_is_reported_not_fatal(monkeypatch) -> None:  # noqa: ANN001
    import ragcode.chunking as chunking

    def boom(file, cfg=None):  # noqa: ANN001, ANN202
        raise ValueError(f"cannot read {file.path}")

    monkeypatch.setattr(chunking, "chunk_file", boom)
    out = list(chunk_files([_file("a.py", "x = 1\n")] * 3, ChunkingConfig(), workers=2))
    assert [r for _, r in out] == ["ValueError: cannot read a.py"] * 3


@pytest.fixture
def env(tmp_path, monkeypatch):  # noqa: ANN001, ANN201
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    for n in range(20):
        (repo / f"extra{n}.md").write_text(f"# Extra {n}\n\nNote {n} about training.\n")

    def cfg(root: str, **over):  # noqa: ANN003, ANN202
        return load_config(overrides={"index.root": str(tmp_path / root),
                                      "index.cache_dir": str(tmp_path / f"cache-{root}"),
                                      "embedder.kinds": [], **over})

    return repo, cfg


def test_pool_and_overlap_build_the_serial_index(env, monkeypatch) -> None:  # noqa: ANN001
    repo, cfg = env
    serial = index_repo(repo, cfg("serial", **{"index.workers": 1, "index.overlap": False}),
                        progress=False)
    monkeypatch.setattr(parallel, "MIN_POOL_FILES", 1)
    monkeypatch.setattr(parallel, "MIN_POOL_BYTES", 1)
    fast = index_repo(repo, cfg("fast", **{"index.workers": 2}), progress=False)
    s = fast.summary
    assert s.workers == 2 and serial.summary.workers == 1
    assert s.overlapped == s.embedded == s.vectors == serial.summary.embedded == serial.chunk_count
    assert (s.cached, serial.summary.overlapped) == (0, 0)
    assert "embed" in s.background and "embed" not in serial.summary.background
    assert {i: c.id for i, c in fast.chunks().items()} == \
        {i: c.id for i, c in serial.chunks().items()}
    q = serial.embedder.embed_query(["training note"])[0]
    got, want = fast.search_vectors(q, 5), serial.search_vectors(q, 5)
    assert [i for i, _ in got] == [i for i, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)

    # incremental as before: one file changed, its chunks alone re-chunked and embedded
    (repo / "extra3.md").write_text("# Extra 3\n\nA changed note.\n")
    again = index_repo(repo, cfg("fast", **{"index.workers": 2}), progress=False)
    a = again.summary
    # the heading's chunk is unchanged (from the cache), the note's is new
    assert (a.files_changed, a.files_unchanged, a.embedded, a.cached) == (1, 23, 1, 1)
    assert a.overlapped == 2 and again.vector_count == fast.vector_count
    unchanged = index_repo(repo, cfg("fast", **{"index.workers": 2}), progress=False)
    assert unchanged.summary.embedded == 0 and unchanged.manifest.generation == 2


class _Recorder:
    def __init__(self, fail_at: int | None = None):
        self.calls: list[list[str]] = []
        self.fail_at = fail_at

    def embed(self, texts, on_progress=None):  # noqa: ANN001, ANN201
        self.calls.append(list(texts))
        if self.fail_at is not None and len(self.calls) >= self.fail_at:
            raise RuntimeError("model failed")
        if on_progress:
            on_progress(len(texts))
        return np.zeros((len(texts), 2), dtype=np.float32)


def test_prefetch_embeds_everything_once_and_reraises_errors() -> None:
    rec = _Recorder()
    seen: list[int] = []
    pre = Prefetch(rec, batch=4, advance=seen.append)
    pre.start()
    for n in range(10):
        pre.put([f"t{n}"])
    pre.put([])
    pre.finish()
    assert sorted(t for call in rec.calls for t in call) == sorted(f"t{n}" for n in range(10))
    assert pre.done == 10 and sum(seen) == 10

    bad = Prefetch(_Recorder(fail_at=1), batch=1)
    bad.start()
    bad.put(["a"])
    with pytest.raises(RuntimeError, match="model failed"):
        bad.finish()
