"""`mlbench run --setting agent`: n episodes per task, trajectories in the run folder, resumable
after a kill mid-episode, shown by `mlbench show`."""

from __future__ import annotations

import json
import signal
import subprocess

from agent_helpers import call
from bench_helpers import cli_argv, cli_env, make_bench
from typer.testing import CliRunner

from ragcode.bench.dataset import load_tasks
from ragcode.bench.runner import run_bench
from ragcode.cli import app
from ragcode.config import load_config

ANSWER = "python train.py --dataset citeseer"
REPLIES = [call("ls", path="examples/gcn"), call("cli", script="examples/gcn/train.py"), call("submit", answer=ANSWER)]


def _sets(tmp_path) -> list[str]:  # noqa: ANN001
    return [f"index.root={tmp_path / 'indexes'}", f"index.cache_dir={tmp_path / 'cache'}",
            "embedder.enabled=false", "retrieval.mode=bm25", "bench.setting=agent",
            "generation.llm.backend=agent_helpers:StepScriptedLLM",
            f"generation.llm.scripted_answers={json.dumps(REPLIES)}"]


def _lines(path):  # noqa: ANN001, ANN202
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_agent_setting_runs_n_episodes_per_task_and_records_them(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    out = tmp_path / "run"
    cfg = load_config(overrides=[*_sets(tmp_path), "generation.n=2"])
    summary = run_bench(load_tasks(tasks_file).tasks, repos, out, cfg)
    assert summary.generated == 2
    samples = _lines(out / "samples.jsonl")
    assert [s["setting"] for s in samples] == ["agent", "agent"]
    assert all(s["output"] == [ANSWER, ANSWER] for s in samples)
    assert samples[0]["context"]["chunk_ids"]  # the retrieved context a fallback would use
    meta = samples[0]["candidates"][1]["metadata"]
    assert meta["agent"]["episode"] == 1 and meta["agent"]["source"] == "submit"
    assert meta["trajectory"] == {"file": "trajectories/1_100.jsonl", "episode": 1, "steps": 3}
    records = _lines(out / "trajectories" / "1_100.jsonl")
    steps = [(r["episode"], r["step"]) for r in records if r["type"] == "step"]
    assert steps == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]
    seeds = [r["seed"] for r in records if r["type"] == "episode"]
    assert seeds == [0, 1]  # independent episodes
    cli_obs = next(r for r in records if r["type"] == "step" and r["step"] == 2)["observation"]
    assert "--dataset" in cli_obs and "--batch-size" in cli_obs

    runner = CliRunner()
    shown = runner.invoke(app, ["mlbench", "show", str(out), "--task", "100"])
    assert shown.exit_code == 0, shown.output
    assert "episode 0: model step-scripted, protocol text" in shown.stdout
    assert 'step 2: cli(script="examples/gcn/train.py")' in shown.stdout
    assert shown.stdout.count("final: submitted -> answer from submit (3 steps") == 2
    by_key = runner.invoke(app, ["mlbench", "show", str(out), "--task", "1:101", "--json"])
    assert by_key.exit_code == 0 and len(by_key.stdout.splitlines()) == 2 * 5  # header, 3 steps, final
    for bad, message in ((["--task", "999"], "no task in"), ([], "")):
        res = runner.invoke(app, ["mlbench", "show", str(out if bad else tmp_path), *(bad or ["--task", "1"])])
        assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
        assert message in res.stderr and ("1:100" in res.stderr if bad else "not an agent run" in res.stderr)
    scored = runner.invoke(app, ["mlbench", "score", str(out), "--tasks", str(tasks_file), "--repos", str(repos),
                                 "--policy", "mlbench-legacy", "--no-exec", "--json",
                                 "--set", "bench.legacy_require_n=0"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["pass@1"] == 1.0


def test_a_run_killed_mid_episode_resumes_without_repeating_a_step(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    out = tmp_path / "run"
    blocked = tmp_path / "blocked"
    argv = cli_argv("mlbench", "run", "--tasks", str(tasks_file), "--repos", str(repos), "--out", str(out),
                    "-n", "1", "-q", *[x for s in _sets(tmp_path) for x in ("--set", s)])
    env = cli_env(RAGCODE_TEST_BLOCKED=str(blocked), RAGCODE_TEST_BLOCK_AT="3")
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(1200):
            if blocked.exists() or proc.poll() is not None:
                break
            subprocess.run(["sleep", "0.1"])
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert blocked.exists(), proc.stderr.read().decode()[-2000:]
    traj = out / "trajectories" / "1_100.jsonl"
    before = traj.read_text().splitlines()
    assert [json.loads(x)["type"] for x in before] == ["episode", "step", "step"]  # killed in step 3
    assert not (out / "samples.jsonl").exists() or not _lines(out / "samples.jsonl")
    env["RAGCODE_TEST_BLOCK_AT"] = "0"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    after = traj.read_text().splitlines()
    assert after[:3] == before  # the finished steps are kept as they were, not redone
    kinds = [(r["type"], r.get("step")) for r in map(json.loads, after)]
    assert kinds == [("episode", None), ("step", 1), ("step", 2), ("step", 3), ("final", None)]
    samples = _lines(out / "samples.jsonl")
    assert [s["key"] for s in samples] == ["1:100", "1:101"] and all(s["output"] == [ANSWER] for s in samples)


def test_the_default_repository_locator_is_mlbench_folder_table():
    """agent does not import bench (bench is above it); the ML-Bench folder table is reached by
    name, so a rename of ``repo_dir_for`` fails here, not mid-run."""
    from ragcode.agent.bench import LOCATORS
    from ragcode.bench.repos import repo_dir_for

    assert LOCATORS.get("mlbench") is repo_dir_for
