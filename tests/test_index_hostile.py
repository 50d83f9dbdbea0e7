"""Hostile repositories and index folders: links out of the repository, named pipes, index names
that climb out of --out, manifests and chunk stores holding garbage.

Real walker, real chunkers, real SQLite; embedding disabled (BM25 only) so no model loads.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragcode
from index_helpers import make_repo
from ragcode.cli import app, common
from ragcode.config import load_config
from ragcode.errors import IndexNameError, IndexStateError
from ragcode.index.build import index_repo
from ragcode.index.store import load_index

SECRET = "TOKEN_b41d_shadow_secret"
BAD_NAMES = ["../x", "a/b", "..", ".", ".hidden", "", "x" * 200]


@pytest.fixture
def env(tmp_path):  # noqa: ANN001, ANN201
    repo = make_repo(tmp_path / "demo")
    out = tmp_path / "idx"
    sets = ["embedder.enabled=false", "retrieval.mode=bm25",
            f"index.cache_dir={tmp_path / 'cache'}", f"index.root={out}"]
    return repo, out, load_config(None, sets), [a for s in sets for a in ("--set", s)]


@pytest.fixture
def cli(monkeypatch):  # noqa: ANN001, ANN201
    """Invoke the CLI with a console wide enough that a one-line message stays one line."""
    monkeypatch.setattr(common.err_console, "_width", 10_000)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def _one_line_error(result) -> str:  # noqa: ANN001
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not a traceback
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def _with_secrets_outside(tmp_path: Path, repo: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "keys").mkdir(parents=True)
    (outside / "shadow").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    (outside / "keys" / "notes.md").write_text(f"# Keys\n\nThe key is {SECRET}.\n")
    (repo / "shadow.txt").symlink_to(outside / "shadow")
    (repo / "keys").symlink_to(outside / "keys", target_is_directory=True)


# --- links out of the repository, pipes ------------------------------------------------------

def test_symlinked_outside_file_and_folder_are_not_in_any_chunk_nor_searchable(env, tmp_path):  # noqa: ANN001
    repo, _out, cfg, _sets = env
    _with_secrets_outside(tmp_path, repo)
    index = index_repo(repo, cfg, progress=False)
    assert index.summary.skipped["symlink_outside"] == 2
    assert index.manifest.skipped["symlink_outside"] == 2
    assert not any(SECRET in c.text for c in index.chunks().values())
    assert not any(p.startswith(("shadow", "keys")) for p in index.manifest.files)
    hits = ragcode.search(index, SECRET, k=20, config=cfg)
    assert not any(SECRET in h.chunk.text for h in hits)


def test_symlink_inside_the_repository_is_still_indexed(env) -> None:  # noqa: ANN001
    repo, _out, cfg, _sets = env
    (repo / "train_alias.py").symlink_to("train.py")
    index = index_repo(repo, cfg, progress=False)
    assert "train_alias.py" in index.manifest.files
    assert "symlink_outside" not in index.summary.skipped


def test_fifo_in_the_repository_does_not_hang_the_index_run(env) -> None:  # noqa: ANN001
    repo, out, cfg, _sets = env
    fifo = repo / "events.log"
    os.mkfifo(fifo)
    box: dict = {}
    run = threading.Thread(daemon=True, target=lambda: box.setdefault(
        "index", index_repo(repo, cfg, progress=False)))
    run.start()
    run.join(120)
    if run.is_alive():  # release the reader blocked in open() before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("index_repo blocked on a FIFO in the repository")
    assert box["index"].summary.skipped["not_regular"] == 1
    assert "events.log" not in box["index"].manifest.files
    # the lock was released: a second run gets it at once
    assert index_repo(repo, cfg, progress=False).summary.files_unchanged == 4


# --- index names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", BAD_NAMES + ["/abs"])
def test_index_cli_refuses_a_name_that_escapes_out(env, cli, tmp_path, name) -> None:  # noqa: ANN001
    repo, out, _cfg, sets = env
    if name == "/abs":
        name = str(tmp_path / "abs")
    before = sorted(p for p in tmp_path.rglob("*"))
    line = _one_line_error(cli("index", repo, "--name", name, "--out", out, *sets))
    assert "index name" in line and "not allowed" in line
    assert sorted(p for p in tmp_path.rglob("*")) == before  # nothing written anywhere
    assert not out.exists()


@pytest.mark.parametrize("name", BAD_NAMES + ["/abs"])
def test_index_repo_api_refuses_a_name_that_escapes_out(env, tmp_path, name) -> None:  # noqa: ANN001
    repo, out, cfg, _sets = env
    if name == "/abs":
        name = str(tmp_path / "abs")
    with pytest.raises(IndexNameError, match="not allowed"):
        index_repo(repo, cfg, name=name, out=out, progress=False)
    assert not out.exists() and not (tmp_path / "abs").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("name", ["..", ".", ".hidden", ""])
def test_load_search_and_generate_refuse_a_bad_index_name(env, cli, name) -> None:  # noqa: ANN001
    _repo, _out, cfg, sets = env
    with pytest.raises(IndexNameError):
        load_index(name, cfg)
    with pytest.raises(IndexNameError):
        ragcode.search(name, "train", config=cfg)
    with pytest.raises(IndexNameError):
        ragcode.generate("train it", index=name, config=cfg)
    assert "index name" in _one_line_error(cli("search", name, "train", *sets))
    assert "index name" in _one_line_error(
        cli("generate", "--index", name, "--llm", "scripted", "train it", *sets))


def test_default_name_from_an_odd_folder_name_is_made_plain(tmp_path) -> None:  # noqa: ANN001
    repo = make_repo(tmp_path / ".my repo")
    cfg = load_config(None, ["embedder.enabled=false", f"index.root={tmp_path / 'idx'}"])
    index = index_repo(repo, cfg, progress=False)
    assert Path(index.dir) == tmp_path / "idx" / "my-repo" and index.name == "my-repo"


# --- corrupt indexes: the hint rebuilds the index it is about ------------------------------

def _build(cli, repo, out, sets, name="d"):  # noqa: ANN001, ANN202
    res = cli("index", repo, "--name", name, "--out", out, "--quiet", *sets)
    assert res.exit_code == 0, res.output
    return out / name


def _follow_hint(cli, line: str, sets: list[str]) -> None:  # noqa: ANN001
    cmd = shlex.split(line.split("`")[1])
    assert cmd[:2] == ["ragcode", "index"]
    res = cli(*cmd[1:], "--quiet", *sets)
    assert res.exit_code == 0, res.output


def test_rebuild_hint_names_the_index_and_following_it_fixes_it(env, cli) -> None:  # noqa: ANN001
    repo, out, cfg, sets = env
    index_dir = _build(cli, repo, out, sets, name="named")
    (index_dir / "manifest.json").write_text("{not json")
    line = _one_line_error(cli("search", "named", "train", *sets))
    assert "corrupt" in line and f"--rebuild --name named --out {out}" in line
    line = _one_line_error(cli("index", repo, "--name", "named", "--out", out, *sets))
    assert f"ragcode index {repo} --rebuild --name named --out {out}" in line
    assert sets[-1].startswith("index.root=")
    _follow_hint(cli, line, sets[:-2])  # the hint's own --out finds the index
    assert load_index("named", cfg).chunk_count > 0


def test_rebuild_hint_of_an_incompatible_embedder_names_the_index(env, cli) -> None:  # noqa: ANN001
    repo, out, _cfg, sets = env  # the embedder's name is checked before any model loads
    res = cli("index", repo, "--name", "emb", "--out", out, "--quiet",
              "--set", "embedder.model=e5-small", *sets)
    assert res.exit_code == 0, res.output
    line = _one_line_error(cli("index", repo, "--name", "emb", "--out", out, *sets))
    assert "built with embedder" in line and "--rebuild --name emb" in line


@pytest.mark.parametrize(("field", "value"), [
    ("counts", {"chunks": "9", "vectors": 0}),
    ("files", ["train.py"]),
    ("embedder", "minilm"),
    ("chunk_store", "../../../etc/passwd"),
    ("vectors", 7),
    ("generation", "2"),
    ("format_version", "1"),
    ("section_hashes", {"chunking": 3}),
])
def test_manifest_with_wrong_field_types_is_a_one_line_corrupt_error(
        env, cli, field, value) -> None:  # noqa: ANN001
    repo, out, cfg, sets = env
    index_dir = _build(cli, repo, out, sets)
    path = index_dir / "manifest.json"
    m = json.loads(path.read_text())
    m[field] = value
    path.write_text(json.dumps(m))
    for args in (("search", "d", "train"), ("index", repo, "--name", "d", "--out", out)):
        line = _one_line_error(cli(*args, *sets))
        assert ("corrupt" in line or "format version" in line) and "--rebuild --name d" in line
    with pytest.raises(IndexStateError):
        load_index("d", cfg)


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2]", "null", "7"])
def test_garbage_chunk_metadata_is_a_one_line_corrupt_error(env, cli, garbage) -> None:  # noqa: ANN001
    repo, out, cfg, sets = env
    index_dir = _build(cli, repo, out, sets)
    store = index_dir / load_index(index_dir).manifest.chunk_store
    with sqlite3.connect(store) as db:
        db.execute("UPDATE chunks SET metadata=? WHERE id=(SELECT MIN(id) FROM chunks)",
                   (garbage,))
    db.close()
    line = _one_line_error(cli("search", "d", "train", *sets))
    assert "corrupt" in line and "metadata" in line and "--rebuild --name d" in line
    with pytest.raises(IndexStateError, match="not a JSON object"):
        load_index("d", cfg).chunks()
    (repo / "notes.md").write_text("# Notes\n\nChanged.\n")  # an update reads every chunk
    line = _one_line_error(cli("index", repo, "--name", "d", "--out", out, "--quiet", *sets))
    assert "chunk store chunks-1.sqlite" in line  # the live store, not the copy being built
    _follow_hint(cli, line, sets)
    assert len(load_index("d", cfg).chunks()) > 0


def test_garbage_chunk_columns_are_a_corrupt_error(env, cli) -> None:  # noqa: ANN001
    repo, out, _cfg, sets = env
    index_dir = _build(cli, repo, out, sets)
    store = index_dir / load_index(index_dir).manifest.chunk_store
    with sqlite3.connect(store) as db:
        db.execute("UPDATE chunks SET start_line='first' WHERE id=(SELECT MIN(id) FROM chunks)")
    db.close()
    line = _one_line_error(cli("search", "d", "train", *sets))
    assert "wrong type" in line and "--rebuild" in line


def _wrong_shapes(cache: Path, how: str) -> None:
    """Overwrite a BM25 cache with well-formed files of the wrong shape."""
    import bm25s
    import numpy as np

    if how == "other-corpus":  # a whole, consistent model of another (smaller) corpus
        other = bm25s.BM25()
        other.index([["x", "y"], ["z"]], show_progress=False)
        other.save(str(cache))
    elif how == "vocab-beyond-matrix":  # the case: token ids past the matrix's columns
        vocab = json.loads((cache / "vocab.index.json").read_text())
        (cache / "vocab.index.json").write_text(json.dumps({t: i + 10_000 for t, i in vocab.items()}))
    else:  # "short-indptr": a column index that stops early
        indptr = np.load(cache / "indptr.csc.index.npy")
        np.save(cache / "indptr.csc.index.npy", indptr[:2])


@pytest.mark.parametrize("how", ["other-corpus", "vocab-beyond-matrix", "short-indptr"])
def test_bm25_cache_of_wrong_shaped_arrays_is_rebuilt(env, cli, how) -> None:  # noqa: ANN001
    repo, out, cfg, sets = env
    _build(cli, repo, out, sets)
    first = cli("search", "d", "epochs", *sets)
    assert first.exit_code == 0 and "train.py" in first.output, first.output
    caches = sorted(p for p in (out / "d" / "bm25").iterdir() if not p.name.startswith("."))
    assert 1 <= len(caches) <= 2  # the chunks' model, and the api listings' when there are any
    for cache in caches:
        _wrong_shapes(cache, how)
    again = cli("search", "d", "epochs", *sets)
    assert again.exit_code == 0 and "Traceback" not in again.output, again.output
    assert "train.py" in again.output
    from ragcode.retrieval.bm25 import BM25Retriever, cache_problem

    rebuilt = BM25Retriever(load_index("d", cfg), cfg)  # the rebuilt caches are whole again
    assert len(rebuilt.parts) == len(caches)
    assert all(cache_problem(part.model, len(part.chunks)) == "" for part in rebuilt.parts)
    assert sorted(p for p in (out / "d" / "bm25").iterdir() if not p.name.startswith(".")) == caches


@pytest.mark.parametrize("generation", [-5, "2", 1.5])
def test_manifest_with_a_negative_generation_is_refused_and_leaves_no_stray_file(env, cli, generation) -> None:  # noqa: ANN001
    repo, out, cfg, sets = env
    index_dir = _build(cli, repo, out, sets)
    before = sorted(p.name for p in index_dir.iterdir())
    path = index_dir / "manifest.json"
    m = json.loads(path.read_text())
    m["generation"] = generation
    path.write_text(json.dumps(m))
    (repo / "notes.md").write_text("# Notes\n\nChanged again.\n")  # the update would write a generation
    for args in (("search", "d", "train"), ("index", repo, "--name", "d", "--out", out)):
        line = _one_line_error(cli(*args, *sets))
        assert "corrupt" in line and "generation" in line and "--rebuild --name d" in line
    assert sorted(p.name for p in index_dir.iterdir()) == before
    assert not list(index_dir.glob("*--*"))


def test_file_name_that_is_not_utf8_is_skipped_and_counted(env, cli) -> None:  # noqa: ANN001
    """A name of raw bytes (``\\xff\\xfe.py``) stopped ``ragcode index`` with a UnicodeEncodeError
    traceback; it is now skipped and counted, and the rest is indexed and searchable."""
    repo, out, cfg, sets = env
    with open(os.fsencode(repo) + b"/\xff\xfe.py", "w") as fh:
        fh.write("def hidden_bytes_name():\n    return 1\n")
    os.mkdir(os.fsencode(repo) + b"/\xfadir")
    (repo / "a\nb.md").write_text("# Newline name\nepochs here\n")
    index_dir = _build(cli, repo, out, sets)
    manifest = load_index(index_dir).manifest
    assert manifest.skipped.get("undecodable_name") == 2
    res = cli("search", "d", "train", *sets)
    assert res.exit_code == 0 and "train.py" in res.output, res.output


def test_link_the_process_may_not_resolve_is_skipped_not_a_traceback(env, cli, monkeypatch) -> None:  # noqa: ANN001
    """``ragcode index /proc`` stopped on ``realpath('/proc/1/cwd')``: PermissionError. A link
    that cannot be resolved is now counted as unreadable."""
    from ragcode.chunking import walk

    repo, out, cfg, sets = env
    (repo / "forbidden.md").symlink_to(repo / "README.md")
    (repo / "forbidden_dir").symlink_to(repo, target_is_directory=True)
    real = os.path.realpath

    def guarded(path, *a, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        if "forbidden" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(walk.os.path, "realpath", guarded)
    result = walk.walk_repo(repo)
    assert result.skipped["unreadable"] == 2
    assert any(f.path == "train.py" for f in result.files)
