"""The checks never run anything of the current folder, a repository or its environment
outside the sandbox, and never read a file outside the repository."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from exec_helpers import make_repo

from ragcode.bench.scoring import ScoreContext, load_scorer
from ragcode.check.facts_env import env_has_modules
from ragcode.config import load_config
from ragcode.types import Task


@pytest.fixture
def trap(tmp_path, monkeypatch):
    """A current folder holding ``json.py``, ``importlib.py`` and ``sitecustomize.py`` that each
    leave a mark outside it when run; a configured interpreter other than this one."""
    mark = tmp_path / "marks"
    mark.mkdir()
    here = tmp_path / "cwd"
    here.mkdir()
    for name in ("json", "importlib", "sitecustomize", "usercustomize"):
        (here / f"{name}.py").write_text(f"open({str(mark / name)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(here)
    link = tmp_path / "env" / "bin" / "python"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.realpath(sys.executable))
    return str(link), mark


def test_import_probe_never_runs_a_json_py_of_the_current_folder(trap):
    interpreter, mark = trap
    found = env_has_modules(interpreter, ("json", "ragcode_no_such_module_xyz"))
    assert found == {"json": True, "ragcode_no_such_module_xyz": False}
    assert list(mark.iterdir()) == []


def test_probe_answers_read_the_last_line_printed_and_nothing_from_a_failed_run(trap):
    from ragcode.execution.probe import ask_json

    interpreter, mark = trap
    # a package or the interpreter's site may print a banner before the answer
    assert ask_json(interpreter, "print('Welcome!'); print('{\"a\": 1}')") == {"a": 1}
    assert ask_json(interpreter, "import sys; print('{}'); sys.exit(3)") is None
    assert ask_json(interpreter, "print('no json here')") is None
    assert list(mark.iterdir()) == []


def test_static_policy_with_its_own_interpreter_never_runs_the_current_folder(trap, tmp_path):
    interpreter, mark = trap
    repo = make_repo(tmp_path / "src")
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "dgl").symlink_to(repo, target_is_directory=True)
    cfg = load_config(overrides=[f"execution.python={interpreter}"])
    task = Task(id=1, github_id=1, instruction="train", path="./examples/gcn", type="Python Code",
                arguments={})
    verdict = load_scorer("static").score_sample(
        task, "import json, ragcode_no_such_module_xyz\nprint(1)", 0, ScoreContext(repos_dir=repos, config=cfg))
    assert verdict.checks.get("imports_resolve") is False
    assert list(mark.iterdir()) == []


def test_interpreter_prefixes_run_nothing_of_the_current_folder(trap):
    from ragcode.execution.bwrap import interpreter_prefixes

    interpreter, mark = trap
    assert interpreter_prefixes(interpreter)
    assert list(mark.iterdir()) == []
    assert not any(Path(p) == Path.cwd() for p in interpreter_prefixes(interpreter))
