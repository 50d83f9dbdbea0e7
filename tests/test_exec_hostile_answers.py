"""Hostile answer texts: bytes and sizes a process argument cannot carry, answers that reach for
more than their bounds as a whole. Each is run and scored, never an error of the scorer."""

from __future__ import annotations

import json
import subprocess

import pytest
from bench_helpers import cli_argv, cli_env, make_bench
from exec_helpers import repo  # noqa: F401  (a fixture)
from test_exec_hostile import MODES, executor, run


@pytest.mark.parametrize("mode", MODES)
def test_nul_byte_in_bash_answer_runs(repo, mode):  # noqa: F811
    res = run(executor(mode), repo, "python train.py --dataset citeseer \u0000; echo after", timeout=20)
    assert not res.infra_error, res.infra_error
    assert res.exit_code == 0 and "trained citeseer" in res.stdout and "after" in res.stdout


@pytest.mark.parametrize("mode", MODES)
def test_bash_answer_over_128k_runs(repo, mode):  # noqa: F811
    code = "# " + "x" * 300_000 + "\npython train.py --dataset pubmed"
    res = run(executor(mode), repo, code, timeout=20)
    assert not res.infra_error, res.infra_error
    assert res.exit_code == 0 and "trained pubmed" in res.stdout


def test_lone_surrogate_in_python_answer_runs(repo):  # noqa: F811
    res = run(executor(), repo, "print('ok')  # \ud800", mode="python", timeout=20)
    assert not res.infra_error and res.exit_code == 0 and "ok" in res.stdout


def test_nul_byte_in_bash_answer_is_scored(tmp_path):
    """The ML-Bench outputs line with a NUL byte is executed and scored by ``mlbench score``."""
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    outputs = tmp_path / "outputs.jsonl"
    answers = ["python train.py --dataset citeseer \u0000", "# " + "y" * 200_000 + "\npython train.py --dataset citeseer"] * 2 + ["python train.py --dataset citeseer"]
    outputs.write_text(json.dumps({"id": 100, "github_id": 1, "output": answers}) + "\n")
    res = subprocess.run(cli_argv("mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                  "--json", "--set", f"index.cache_dir={tmp_path / 'cache'}",
                                  "--set", "execution.timeout_s=30"),
                         env=cli_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    report = json.loads(res.stdout)
    assert report["n"] == 1 and report["pass@1"] == 1.0, {k: report[k] for k in report if k != "isolation"}
