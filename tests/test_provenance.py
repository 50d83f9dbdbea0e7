"""ragcode.provenance: what a run record says about the code and machine that made it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import ragcode
from ragcode.provenance import checkout_commit, environment, provenance
from ragcode.version import __version__


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _checkout(tmp_path: Path) -> Path:
    pkg = tmp_path / "clone" / "src" / "ragcode"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    root = tmp_path / "clone"
    _git("init", "-q", cwd=root)
    _git("add", ".", cwd=root)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", cwd=root)
    return pkg


def test_a_checkout_records_its_commit_and_whether_it_is_dirty(tmp_path):
    pkg = _checkout(tmp_path)
    head = _git("rev-parse", "HEAD", cwd=pkg)
    assert checkout_commit(pkg) == (head, False)
    (pkg / "__init__.py").write_text("x = 1\n")
    checkout_commit.cache_clear()
    assert checkout_commit(pkg) == (head, True)


def test_an_installed_package_inside_another_repository_records_no_commit(tmp_path):
    # a wheel installed into .venv/lib/.../ragcode of some unrelated git repository
    other = tmp_path / "project"
    pkg = other / ".venv" / "lib" / "site-packages" / "ragcode"
    pkg.mkdir(parents=True)
    _git("init", "-q", cwd=other)
    assert checkout_commit(pkg) == (None, None)


def test_outside_any_repository_there_is_no_commit(tmp_path):
    pkg = tmp_path / "site-packages" / "ragcode"
    pkg.mkdir(parents=True)
    assert checkout_commit(pkg) == (None, None)


def test_the_record_names_version_python_platform_and_backends():
    record = provenance()
    assert record["ragcode_version"] == __version__ == ragcode.__version__
    env = environment()
    assert env["python"].count(".") == 2 and env["platform"]
    assert "torch" in env["packages"] and "faiss-cpu" in env["packages"]
    assert "vllm" not in env["packages"] or env["packages"]["vllm"]


@pytest.mark.skipif(not (Path(ragcode.__file__).parents[2] / ".git").exists(), reason="not run from a git checkout")
def test_this_checkout_records_its_head():
    root = Path(ragcode.__file__).parents[2]
    assert provenance()["git_commit"] == _git("rev-parse", "HEAD", cwd=root)
