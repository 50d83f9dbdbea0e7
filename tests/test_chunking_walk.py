"""File walking: ignore rules, guards, skip counts by reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_repo import make_fixture_repo
from ragcode.chunking import walk
from ragcode.chunking.walk import file_kind, walk_repo
from ragcode.config import WalkConfig
from ragcode.errors import RepoNotFoundError

CFG = WalkConfig(max_file_bytes=10_000)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    return make_fixture_repo(tmp_path / "repo")


def test_walk_accepts_exactly_the_chunkable_files(repo: Path) -> None:
    result = walk_repo(repo, CFG)
    assert [f.path for f in result.files] == [
        "README.md", "broken.py", "config.yaml", "demo.ipynb", "docs/guide.rst", "latin1.txt",
        "model.py", "run.sh", "scripts/.keep", "sub/keep.log", "tools/absl_cli.py",
        "tools/click_cli.py", "tools/typer_cli.py", "train.py",
    ]


def test_walk_counts_every_skip_by_reason(repo: Path) -> None:
    result = walk_repo(repo, CFG)
    # gitignored: debug.log, ignored_dir/, sub/secret.txt; excluded: node_modules;
    # too_large: big.txt; binary: blob.dat; unsupported_type: image.png; loop: ./loop
    assert dict(result.skipped) == {
        "gitignored": 3, "excluded_dir": 1, "too_large": 1, "binary": 1,
        "unsupported_type": 1, "symlink_loop": 1,
    }


def test_nested_gitignore_negation_reincludes_a_file(repo: Path) -> None:
    paths = {f.path for f in walk_repo(repo, CFG).files}
    assert "sub/keep.log" in paths  # root ignores *.log, sub/.gitignore says !keep.log
    assert "debug.log" not in paths and "sub/secret.txt" not in paths


def test_gitignore_can_be_turned_off(repo: Path) -> None:
    result = walk_repo(repo, WalkConfig(max_file_bytes=10_000, respect_gitignore=False))
    paths = {f.path for f in result.files}
    assert {"debug.log", "ignored_dir/x.py", "sub/secret.txt"} <= paths
    assert "gitignored" not in result.skipped


def test_exclude_globs_count_as_gitignored(repo: Path) -> None:
    cfg = WalkConfig(max_file_bytes=10_000, exclude_globs=["tools/"])
    result = walk_repo(repo, cfg)
    assert not any(f.path.startswith("tools/") for f in result.files)
    assert result.skipped["gitignored"] == 4


def test_invalid_utf8_is_replaced_and_flagged_and_crlf_normalised(repo: Path) -> None:
    files = {f.path: f for f in walk_repo(repo, CFG).files}
    latin = files["latin1.txt"]
    assert latin.decode_errors is True
    assert latin.text == "caf\ufffd au lait\nsecond line\n"
    assert files["README.md"].decode_errors is False


def test_unreadable_file_is_counted_not_fatal(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = open

    def fake_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("config.yaml"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(walk, "open", fake_open, raising=False)
    result = walk_repo(repo, CFG)
    assert result.skipped["unreadable"] == 1
    assert "config.yaml" not in {f.path for f in result.files}


def test_symlinks_not_followed_when_disabled(repo: Path) -> None:
    result = walk_repo(repo, WalkConfig(max_file_bytes=10_000, follow_symlinks=False))
    assert result.skipped["symlink"] == 1
    assert "symlink_loop" not in result.skipped


def test_missing_repo_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RepoNotFoundError, match="does not exist"):
        walk_repo(tmp_path / "nope", CFG)


@pytest.mark.parametrize(("path", "kind"), [
    ("README.md", "markdown"), ("docs/README", "markdown"), ("a/b.rst", "rst"),
    ("x.py", "python"), ("n.ipynb", "notebook"), ("run.bash", "shell"), ("c.yml", "config"),
    ("pyproject.toml", "config"), ("notes.txt", "text"), ("Makefile", "text"),
    ("w.pth", "skip"), ("img.PNG", "skip"),
])
def test_file_kind(path: str, kind: str) -> None:
    assert file_kind(path) == kind


def test_walk_result_kinds(repo: Path) -> None:
    result = walk_repo(repo, CFG)
    assert result.file_kind("demo.ipynb") == "notebook"
    assert result.kind_counts()["python"] == 6
