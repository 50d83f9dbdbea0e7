"""`mlbench prepare`: verifying checkouts and saying what is missing and how to place it."""

from __future__ import annotations

import subprocess

from typer.testing import CliRunner

from ragcode.bench.prepare import prepare_repos, verify_repo
from ragcode.bench.repos import MLBENCH_REPOS, BenchRepo
from ragcode.cli import app


def _git_repo(path):
    path.mkdir(parents=True)

    def run(*a):
        return subprocess.run(["git", "-C", str(path), *a], check=True, capture_output=True, text=True)

    run("init", "-q")
    (path / "f.txt").write_text("x")
    run("add", "f.txt")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return run("rev-parse", "HEAD").stdout.strip()


def test_verify_checks_head_against_the_pin(tmp_path):
    head = _git_repo(tmp_path / "dgl")
    assert verify_repo(tmp_path, BenchRepo(1, "dgl", "dmlc/dgl", head[:7])).state == "ok"
    wrong = verify_repo(tmp_path, BenchRepo(1, "dgl", "dmlc/dgl", "0" * 40))
    assert wrong.state == "wrong-commit" and "checkout" in wrong.detail
    (tmp_path / "bert").mkdir()
    assert verify_repo(tmp_path, MLBENCH_REPOS[2]).state == "unverified"
    assert verify_repo(tmp_path, MLBENCH_REPOS[3]).state == "missing"


def test_prepare_without_cloning_lists_missing_repos_with_manual_steps(tmp_path):
    statuses = prepare_repos(tmp_path, clone=False)
    assert len(statuses) == 14 and all(s.state == "missing" for s in statuses)
    res = CliRunner().invoke(app, ["mlbench", "prepare", "--repos", str(tmp_path), "--no-clone"])
    assert res.exit_code == 1
    assert "14 repositories need placing by hand" in res.output
    assert "git clone https://github.com/dmlc/dgl" in res.output and MLBENCH_REPOS[1].commit in res.output
