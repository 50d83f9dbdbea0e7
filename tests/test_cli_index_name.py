"""An index name already used for another repository is refused (exit 2, one line) unless
--rebuild; the same repository updates as before; ``Index`` closes as a context manager."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from index_helpers import make_repo, use_simple_chunking
from ragcode.cli import app
from ragcode.config import load_config
from ragcode.index.build import index_repo
from ragcode.index.store import load_index

runner = CliRunner()


def _args(repo, tmp_path, *extra):  # noqa: ANN001, ANN202
    return ["index", str(repo), "--out", str(tmp_path / "idx"), "--name", "shared", "--json",
            "--set", "embedder.kinds=[]", "--set", f"index.cache_dir={tmp_path / 'cache'}", *extra]


def test_index_name_of_another_repository_is_refused_unless_rebuild(tmp_path, monkeypatch):
    use_simple_chunking(monkeypatch)
    first, other = make_repo(tmp_path / "first"), make_repo(tmp_path / "other")
    assert runner.invoke(app, _args(first, tmp_path)).exit_code == 0
    refused = runner.invoke(app, _args(other, tmp_path))
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    line = " ".join(refused.stderr.split())
    assert "'shared'" in line and str(first) in line and "--rebuild" in line and "--name" in line
    assert json.loads((tmp_path / "idx" / "shared" / "manifest.json").read_text())["repo"] == str(first)

    again = runner.invoke(app, _args(first, tmp_path))  # the same repository: an update, as before
    assert again.exit_code == 0 and json.loads(again.stdout)["files_unchanged"] == 4

    replaced = runner.invoke(app, _args(other, tmp_path, "--rebuild"))
    assert replaced.exit_code == 0, replaced.output
    assert json.loads((tmp_path / "idx" / "shared" / "manifest.json").read_text())["repo"] == str(other)


def test_index_is_a_context_manager_that_closes(tmp_path, monkeypatch):
    use_simple_chunking(monkeypatch)
    repo = make_repo(tmp_path / "demo")
    cfg = load_config(None, ["embedder.kinds=[]", f"index.cache_dir={tmp_path / 'cache'}"])
    index_repo(repo, config=cfg, name="cm", out=tmp_path / "idx", progress=False).close()
    with load_index(tmp_path / "idx" / "cm") as index:
        assert index.chunk_count > 0
        store = index._store
    assert _closed(store.db)


def _closed(db) -> bool:  # noqa: ANN001
    import sqlite3

    try:
        db.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False
