"""`ragcode index` through typer's CliRunner (stand-in chunker, real MiniLM/FAISS/SQLite)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from index_helpers import make_repo, use_simple_chunking
from ragcode.cli import app


def test_index_cli_json_then_incremental(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    use_simple_chunking(monkeypatch)
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path / "cache"))
    repo = make_repo(tmp_path / "demo")
    runner = CliRunner()
    args = ["index", str(repo), "--out", str(tmp_path / "idx"), "--name", "d",
            "--set", "embedder.kinds=[]", "--json", "--set", f"index.cache_dir={tmp_path / 'cache'}"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    s = json.loads(first.stdout)
    assert (s["files"], s["chunks"], s["embedded"], s["name"]) == (4, 9, 9, "d")
    assert (tmp_path / "idx" / "d" / "manifest.json").exists()

    (repo / "notes.md").write_text("# Notes\n\nThe generator uses tanh.\n")
    second = runner.invoke(app, args)
    s2 = json.loads(second.stdout)
    assert (s2["files_changed"], s2["embedded"], s2["cached"]) == (1, 1, 1)

    table = runner.invoke(app, args[:-3] + ["--set", f"index.cache_dir={tmp_path / 'cache'}"])
    assert table.exit_code == 0 and "unchanged 4" in table.stdout


def test_index_cli_missing_repo_exits_nonzero_with_message(tmp_path) -> None:  # noqa: ANN001
    result = CliRunner().invoke(app, ["index", str(tmp_path / "nowhere"), "--out", str(tmp_path)])
    out = " ".join(result.output.split())  # rich wraps long lines
    assert result.exit_code == 2
    assert "does not exist" in out and "nowhere" in out


def test_index_cli_rejects_unknown_config_field(tmp_path) -> None:  # noqa: ANN001
    repo = make_repo(tmp_path / "demo")
    result = CliRunner().invoke(app, ["index", str(repo), "--set", "embedder.colour=red"])
    assert result.exit_code == 2 and "embedder.colour" in " ".join(result.output.split())
