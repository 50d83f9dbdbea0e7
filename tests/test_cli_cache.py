"""`ragcode cache`: sizes by kind, and --clear KIND removes that kind only (links not followed)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ragcode.cachedir import KINDS
from ragcode.cli import app

runner = CliRunner()


def _fill(cache, outside):  # noqa: ANN001, ANN202
    models = cache / "models"
    (models / "transformers" / "m").mkdir(parents=True)
    (models / "x.gguf").write_bytes(b"g" * 3000)
    (models / "x.gguf.sha256").write_text("ab\n")
    (models / "transformers" / "m" / "model.safetensors").write_bytes(b"t" * 5000)
    (models / "onnx" / "e").mkdir(parents=True)
    (models / "onnx" / "e" / "model.onnx").write_bytes(b"o" * 700)
    (cache / "embeddings.sqlite").write_bytes(b"e" * 100)
    (cache / "bm25" / "k").mkdir(parents=True)
    (cache / "bm25" / "k" / "data").write_bytes(b"b" * 10)
    (cache / "dryrun" / "ab").mkdir(parents=True)
    (cache / "dryrun" / "ab" / "abcd.json").write_bytes(b"d" * 40)
    outside.mkdir()
    (outside / "precious").write_text("keep me")
    (cache / "bm25" / "link").symlink_to(outside)  # a link out of the cache: never followed


def _sizes(cache):  # noqa: ANN001, ANN202
    res = runner.invoke(app, ["cache", "--json", "--set", f"index.cache_dir={cache}"])
    assert res.exit_code == 0, res.output
    return {k["kind"]: (k["bytes"], k["files"]) for k in json.loads(res.stdout)}


def _isolate(monkeypatch, cache):  # noqa: ANN001, ANN202
    """ONNX exports follow $RAGCODE_CACHE / $RAGCODE_MODELS, not --set: point both here."""
    monkeypatch.setenv("RAGCODE_CACHE", str(cache))
    monkeypatch.delenv("RAGCODE_MODELS", raising=False)


def test_cache_sizes_by_kind_and_clear_one_kind(tmp_path, monkeypatch):
    cache, outside = tmp_path / "cache", tmp_path / "outside"
    _isolate(monkeypatch, cache)
    _fill(cache, outside)
    sizes = _sizes(cache)
    assert set(sizes) == set(KINDS)
    assert sizes["models"] == (3003, 2) and sizes["converted"] == (5000, 1) and sizes["onnx"] == (700, 1)
    assert sizes["embeddings"] == (100, 1) and sizes["rerank"] == (0, 0) and sizes["dryrun"] == (40, 1)
    assert sizes["bm25"][1] == 2  # the data file and the link itself

    table = runner.invoke(app, ["cache", "--set", f"index.cache_dir={cache}"])
    assert table.exit_code == 0 and "converted" in table.stdout and "5.0 KB" in table.stdout

    res = runner.invoke(app, ["cache", "--clear", "converted", "--set", f"index.cache_dir={cache}"])
    assert res.exit_code == 0 and "removed converted: 5.0 KB in 1 file(s)" in res.stdout
    after = _sizes(cache)
    assert after["converted"] == (0, 0) and after["models"] == sizes["models"] and after["onnx"] == sizes["onnx"]

    res = runner.invoke(app, ["cache", "--clear", "bm25", "--set", f"index.cache_dir={cache}"])
    assert res.exit_code == 0 and not (cache / "bm25").exists()
    assert (outside / "precious").read_text() == "keep me"


def test_clear_all_empties_every_kind(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    _isolate(monkeypatch, cache)
    _fill(cache, tmp_path / "outside")
    res = runner.invoke(app, ["cache", "--clear", "all", "--set", f"index.cache_dir={cache}"])
    assert res.exit_code == 0, res.output
    assert all(size == (0, 0) for size in _sizes(cache).values())


def test_unknown_kind_is_one_line_and_exit_2(tmp_path, monkeypatch):
    _isolate(monkeypatch, tmp_path)
    res = runner.invoke(app, ["cache", "--clear", "modles", "--set", f"index.cache_dir={tmp_path}"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "unknown cache kind 'modles'" in res.stderr and "models" in res.stderr
