"""Commands a repository installs (``[project.scripts]``, ``console_scripts``): the dry run starts
the ``module:function`` they run, the parse check reads their flags, and the ``parsed`` policy takes
``python -m pkg`` and the command as one entry point when ``pkg/__main__.py`` calls that function."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import needs_bwrap, one, runner, write
from ragcode.bench.parsed import console_aliases
from ragcode.bench.scoring import ScoreContext, load_scorer
from ragcode.check import CheckContext, check_answer
from ragcode.check.facts import console_targets
from ragcode.config import Config
from ragcode.dryrun.checker import ParseChecker
from ragcode.types import Task

CLI = """
import argparse

def cli():
    parser = argparse.ArgumentParser(prog="speech")
    parser.add_argument("audio", nargs="+")
    parser.add_argument("--model", default="small")
    args = parser.parse_args()
    import time
    time.sleep(600)
"""
PYPROJECT = '[project]\nname = "speech"\n[project.scripts]\nspeech = "speech.transcribe:cli"\n'


def _repo(root: Path) -> Path:
    return write(root, {"pyproject.toml": PYPROJECT, "speech/__init__.py": "", "speech/transcribe.py": CLI,
                        "speech/__main__.py": "from .transcribe import cli\n\ncli()\n"})


def test_console_targets_are_read_from_each_packaging_file(tmp_path: Path):
    assert console_targets(_repo(tmp_path / "a")) == {"speech": "speech.transcribe:cli"}
    setup = write(tmp_path / "b", {"setup.py": "setup(entry_points={'console_scripts': ['tool-x = pkg.cli:main']})\n"})
    assert console_targets(setup) == {"tool-x": "pkg.cli:main"}
    cfg = write(tmp_path / "c", {"setup.cfg": "[options.entry_points]\nconsole_scripts =\n    tool = pkg.m:run\n"})
    assert console_targets(cfg) == {"tool": "pkg.m:run"}


@needs_bwrap
def test_an_installed_command_is_parsed_by_its_functions_parser(tmp_path: Path):
    repo, run = _repo(tmp_path / "repo"), runner(tmp_path)
    ok = one("speech a.wav b.wav --model base", repo, run)
    assert (ok.status, ok.entry.kind, ok.entry.target) == ("accepted", "console", "speech.transcribe:cli")
    assert ok.params["audio"] == ["a.wav", "b.wav"] and ok.params["model"] == "base"
    bad = one("speech a.wav --modle base", repo, run)
    assert bad.status == "rejected" and "unrecognized arguments: --modle" in bad.message


@needs_bwrap
def test_the_parse_check_reports_an_installed_commands_refusal(tmp_path: Path):
    checker = ParseChecker(Config())
    checker.runner = runner(tmp_path)
    (f,) = check_answer("speech a.wav --modle base", "bash", CheckContext(_repo(tmp_path / "repo")), [checker])
    assert f.code == "parse-rejected" and "--modle" in f.message


@needs_bwrap
def test_python_m_and_the_installed_command_are_one_entry_point(tmp_path: Path):
    repos = tmp_path / "repos"
    repo = _repo(repos / "9999")
    assert console_aliases(repo) == {("module", "speech"): ("console", "speech.transcribe:cli")}
    task = Task(id=1, github_id=9999, instruction="transcribe a.wav with the base model", type="Bash Script",
                output="python -m speech a.wav --model base")
    config = Config()
    config.index.cache_dir = str(tmp_path / "cache")
    scorer, ctx = load_scorer("parsed"), ScoreContext(repos, config)
    assert scorer.score_sample(task, "```bash\nspeech a.wav --model base\n```", 0, ctx).passed
    wrong = scorer.score_sample(task, "```bash\nspeech a.wav --model tiny\n```", 0, ctx)
    assert not wrong.passed and "model='base'" in wrong.detail
