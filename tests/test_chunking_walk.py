"""File walking: ignore rules, guards, skip counts by reason."""

from __future__ import annotations

import os
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


# --- hostile repositories: links out of the repository, pipes, sockets ----------------------

SECRET = "TOKEN_7f3a_do_not_index"


def _outside_secrets(tmp_path: Path) -> Path:
    """A folder next to the repository holding a secret file and a secret folder."""
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "shadow.txt").write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    (outside / "dir" / "id_rsa.md").write_text(f"# key\n\n{SECRET}\n")
    return outside


def test_symlinks_to_an_outside_file_and_folder_are_skipped_not_read(
        repo: Path, tmp_path: Path) -> None:
    outside = _outside_secrets(tmp_path)
    (repo / "shadow.txt").symlink_to(outside / "shadow.txt")
    (repo / "keys").symlink_to(outside / "dir", target_is_directory=True)
    (repo / "sneaky").mkdir()  # a relative link climbing out from a subfolder
    (repo / "sneaky" / "up.txt").symlink_to(Path("..") / ".." / "outside" / "shadow.txt")
    result = walk_repo(repo, CFG)
    assert not any(SECRET in f.text for f in result.files)
    assert not any(p.startswith(("shadow", "keys", "sneaky")) for p in result.kinds)
    assert result.skipped["symlink_outside"] == 3  # two files and one folder


def test_symlinks_inside_the_repository_are_still_followed(repo: Path) -> None:
    (repo / "train_link.py").symlink_to("train.py")
    (repo / "vendor" / "lib").mkdir(parents=True)  # vendor/ itself is an excluded dir
    (repo / "vendor" / "lib" / "util.py").write_text("def util():\n    return 1\n")
    (repo / "lib").symlink_to(Path("vendor") / "lib", target_is_directory=True)
    result = walk_repo(repo, CFG)
    assert {"train_link.py", "lib/util.py"} <= {f.path for f in result.files}
    assert "symlink_outside" not in result.skipped


def test_link_into_a_folder_named_like_the_repo_prefix_is_outside(repo: Path) -> None:
    sibling = repo.parent / (repo.name + "2")  # "/x/repo2" starts with "/x/repo"
    sibling.mkdir()
    (sibling / "leak.txt").write_text(SECRET)
    (repo / "leak.txt").symlink_to(sibling / "leak.txt")
    result = walk_repo(repo, CFG)
    assert "leak.txt" not in result.kinds and result.skipped["symlink_outside"] == 1


def _walk_with_timeout(repo: Path, seconds: float = 20.0):  # noqa: ANN202
    """``walk_repo`` in a daemon thread, so a walk blocked in ``open()`` fails the test."""
    import threading

    box: dict = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", walk_repo(repo, CFG)),
                              daemon=True)
    thread.start()
    thread.join(seconds)
    return thread, box.get("r")


def test_fifo_in_the_repository_does_not_hang_the_walk(repo: Path) -> None:
    fifo = repo / "pipe.txt"
    os.mkfifo(fifo)
    (repo / "pipe_link.py").symlink_to("pipe.txt")  # an allowed link to a pipe
    thread, result = _walk_with_timeout(repo)
    if thread.is_alive():  # release the blocked reader before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("walk_repo blocked on a FIFO")
    assert result.skipped["not_regular"] == 2
    assert not {"pipe.txt", "pipe_link.py"} & set(result.kinds)


def test_unix_socket_in_the_repository_is_skipped(repo: Path) -> None:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(repo / "daemon.sock"))
    except OSError as exc:  # path too long for AF_UNIX on this machine
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    try:
        result = walk_repo(repo, CFG)
    finally:
        sock.close()
    assert result.skipped["not_regular"] == 1 and "daemon.sock" not in result.kinds


def test_gitignore_linked_from_outside_is_not_read(repo: Path, tmp_path: Path) -> None:
    outside = _outside_secrets(tmp_path)
    (outside / "rules").write_text("*.py\n")
    (repo / "docs" / ".gitignore").symlink_to(outside / "rules")
    (repo / "docs" / "extra.py").write_text("x = 1\n")
    assert "docs/extra.py" in {f.path for f in walk_repo(repo, CFG).files}
