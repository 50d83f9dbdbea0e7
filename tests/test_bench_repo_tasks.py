"""Task files whose records name their repository (owner/name, a folder name, a folder path)
instead of an ML-Bench github_id: loaded, run, resumed and scored like ML-Bench tasks."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from bench_helpers import cli_argv, cli_env, one_line_error, write_jsonl
from exec_helpers import make_repo
from typer.testing import CliRunner

from ragcode.bench.dataset import load_tasks
from ragcode.bench.repos import require_task_repos
from ragcode.cli import app
from ragcode.errors import RepoCommitError, RepoNotFoundError

ANSWER = "python train.py --dataset citeseer --epochs 3"


def git_checkout(repo: Path) -> str:
    """Make ``repo`` a git checkout with one commit; returns the commit id."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                              env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                                   "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}).stdout.strip()
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "fixture")
    return git("rev-parse", "HEAD")


def record(id: str, repo: str, instruction: str, **fields) -> dict:  # noqa: A002
    return {"id": id, "repo": repo, "path": "examples/gcn", "type": "bash", "instruction": instruction,
            **fields}


def make_world(tmp_path: Path) -> tuple[Path, Path, str]:
    """(tasks.jsonl, repos/, commit): task 'a' and 'b' on acme/demo (a git checkout under
    repos/demo), task 'c' on ./mine (a folder beside the task file), same ids as no ML-Bench task."""
    repos = tmp_path / "repos"
    commit = git_checkout(make_repo(tmp_path / "src"))
    shutil.copytree(tmp_path / "src" / "repo", repos / "demo", symlinks=True)
    make_repo(tmp_path / "m")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "m" / "repo").rename(tmp_path / "tasks" / "mine")
    rows = [
        record("a", "acme/demo", "Train on citeseer for 3 epochs.", commit=commit, reference=ANSWER,
               params={"dataset": "citeseer", "epochs": 3, "batch_size": 2}),
        record("b", "acme/demo", "Train on citeseer for 5 epochs.", commit=commit[:10],
               reference="python train.py --dataset citeseer --epochs 5", params={"dataset": "citeseer", "epochs": 5}),
        record("a", "./mine", "Train on citeseer for 3 epochs.", reference=ANSWER,
               params={"dataset": "citeseer", "epochs": 3}),
    ]
    return write_jsonl(tmp_path / "tasks" / "tasks.jsonl", rows), repos, commit


def test_records_map_to_the_fields_ml_bench_tasks_have(tmp_path):
    tasks_file, repos, commit = make_world(tmp_path)
    a, b, c = load_tasks(tasks_file).tasks
    assert (a.key, b.key, c.key) == ("acme/demo:a", "acme/demo:b", "./mine:a")
    assert a.type == "Bash Script" and a.output == ANSWER and a.path == "examples/gcn" and a.github_id == 0
    # the legacy text check looks for the values the reference spells out, not a default it keeps
    assert a.arguments == {"dataset": "citeseer", "epochs": 3} and a.params["batch_size"] == 2
    assert c.repo_path == str(tmp_path / "tasks" / "mine")  # a folder path is relative to the task file


def test_run_resume_and_score_a_task_file_that_names_its_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path / "cache"))
    tasks_file, repos, _ = make_world(tmp_path)
    out = tmp_path / "run"
    run = ["mlbench", "run", "--tasks", str(tasks_file), "--repos", str(repos), "--out", str(out),
           "--setting", "ragcode", "--llm", "scripted", "-n", "2", "-q",
           "--set", "embedder.enabled=false", "--set", "retrieval.mode=bm25",
           "--set", f"index.root={tmp_path / 'idx'}", "--set", "generation.check=[]",
           "--set", f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"]
    runner = CliRunner()
    res = runner.invoke(app, run)
    assert res.exit_code == 0, res.output
    assert "3 tasks: 0 already done, 3 generated" in res.stdout
    outputs = [json.loads(line) for line in (out / "outputs.jsonl").read_text().splitlines()]
    assert sorted((o["repo"], o["id"]) for o in outputs) == [("./mine", "a"), ("acme/demo", "a"), ("acme/demo", "b")]
    assert all(set(o) == {"id", "repo", "output"} and o["output"] == [ANSWER] * 2 for o in outputs), outputs
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert all(s["context"]["chunk_ids"] for s in samples)  # retrieval over each task's own repository
    assert {p.name for p in (tmp_path / "idx").iterdir()} == {"demo", "mine"}

    res = runner.invoke(app, run)  # resume: nothing left to do
    assert res.exit_code == 0 and "3 tasks: 3 already done, 0 generated" in res.stdout

    for policy, extra in (("mlbench-legacy", []), ("static", [])):
        res = runner.invoke(app, ["mlbench", "score", str(out), "--tasks", str(tasks_file), "--repos", str(repos),
                                  "--policy", policy, "--json", *extra, "--set", "bench.legacy_require_n=0"])
        assert res.exit_code == 0, res.output
        report = json.loads(res.stdout)
        assert report["n"] == 3 and report["unmatched"] == [] and report["missing"] == []
        assert report["pass@1"] == pytest.approx(2 / 3), policy  # b asks for 5 epochs, the answer has 3
        assert set(report["per_repo"]) == {"acme/demo", "mine"}
    legacy = json.loads((out / "report-mlbench-legacy.json").read_text())
    assert legacy["executed"]  # the answers ran in the sandbox, in each task's own repository
    by_key = {t["key"]: t for t in legacy["tasks"]}
    assert by_key["acme/demo:a"]["checks"][0] == {"arguments": True, "type": True, "executes": True}
    assert by_key["acme/demo:b"]["checks"][0]["arguments"] is False


def test_a_missing_repository_stops_run_with_one_line_naming_it(tmp_path):
    repos = tmp_path / "repos"
    repos.mkdir()
    tasks = write_jsonl(tmp_path / "tasks.jsonl", [record("x", "acme/gone", "Train.", commit="abcdef1")])
    proc = subprocess.run(cli_argv("mlbench", "run", "--tasks", str(tasks), "--repos", str(repos), "--out",
                                   str(tmp_path / "run"), "--llm", "scripted", "--setting", "none", "-q",
                                   "--set", 'generation.llm.scripted_answers=["x"]'),
                          capture_output=True, text=True, env=cli_env(), timeout=300)
    line = one_line_error(proc)
    assert "acme/gone" in line and "git clone https://github.com/acme/gone" in line and "abcdef1" in line
    assert not (tmp_path / "run").exists()  # stopped before the run folder was made
    outputs = write_jsonl(tmp_path / "o.jsonl", [{"id": "x", "repo": "acme/gone", "output": ["python t.py "]}])
    res = CliRunner().invoke(app, ["mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                   "--policy", "static", "--json"])
    assert res.exit_code == 2 and "acme/gone" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(app, ["mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                   "--policy", "mlbench-legacy", "--no-exec", "--json",
                                   "--set", "bench.legacy_require_n=0", "--set", f"index.cache_dir={tmp_path / 'c'}"])
    assert res.exit_code == 0 and json.loads(res.stdout)["n"] == 1  # the text checks need no checkout


def test_a_checkout_at_another_commit_is_refused_by_git_or_by_commits_txt(tmp_path):
    tasks_file, repos, commit = make_world(tmp_path)
    tasks = load_tasks(tasks_file).tasks[:2]
    require_task_repos(tasks, repos)  # the git checkout is at the pin (full and short)
    wrong = write_jsonl(tmp_path / "w.jsonl", [record("a", "acme/demo", "T.", commit="0" * 40)])
    with pytest.raises(RepoCommitError, match="0000000000"):
        require_task_repos(load_tasks(wrong).tasks, repos)
    shutil.rmtree(repos / "demo" / ".git")  # no .git: the commit comes from ROOT/commits.txt
    require_task_repos(load_tasks(wrong).tasks, repos)  # nothing tells the commit: not checked
    (repos / "commits.txt").write_text(f"acme+demo {commit} 3/3\n")
    require_task_repos(tasks, repos)
    with pytest.raises(RepoCommitError):
        require_task_repos(load_tasks(wrong).tasks, repos)
    (repos / "demo").rename(repos / "acme+demo")  # owner+name is found too
    require_task_repos(tasks, repos)
    with pytest.raises(RepoNotFoundError, match="nor"):
        require_task_repos(tasks, tmp_path / "elsewhere")


def test_records_of_the_wrong_shape_are_skipped_counted_and_reported(tmp_path, caplog):
    good = record("ok", "acme/demo", "Train.")
    rows = [good, {**good, "id": "t1", "type": "perl"}, {**good, "id": "t2", "params": [1, 2]},
            {**good, "id": "t3", "repo": ""}, {**good, "id": "t4", "commit": "HEAD"},
            {**good, "id": "t5", "instruction": 7}]
    with caplog.at_level("WARNING"):
        loaded = load_tasks(write_jsonl(tmp_path / "t.jsonl", rows))
    assert [t.id for t in loaded.tasks] == ["ok"]
    assert [s[0] for s in loaded.skipped] == ["t1", "t2", "t3", "t4", "t5"]
    assert "skipped 5 malformed task record(s)" in caplog.text and "perl" in caplog.text


def test_workers_run_and_score_repository_tasks_as_one_worker_does(tmp_path):
    from ragcode.bench.evaluate import score
    from ragcode.bench.runner import run_bench
    from ragcode.config import load_config

    tasks_file, repos, _ = make_world(tmp_path)
    tasks = load_tasks(tasks_file).tasks
    reports = []
    for workers in (1, 2):
        cfg = load_config(overrides=["generation.llm.backend=scripted", "generation.n=2", "bench.setting=readme",
                                     "generation.check=[]", f"scale.workers={workers}", "bench.legacy_require_n=0",
                                     f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"])
        out = tmp_path / f"run{workers}"
        assert run_bench(tasks, repos, out, cfg).generated == 3
        samples = {json.loads(x)["key"]: json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()}
        assert samples["./mine:a"]["context"]["chunk_ids"] == ["README.md"]
        report = score(out, tasks, repos, "static", cfg)
        reports.append(sorted((t["key"], t["passes"]) for t in report["tasks"]))
    assert reports[0] == reports[1]
    assert reports[0] == [("./mine:a", [True, True]), ("acme/demo:a", [True, True]), ("acme/demo:b", [False, False])]
