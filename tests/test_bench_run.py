"""`mlbench run`: resumable, config-guarded, ML-Bench outputs format; `mlbench score` on a run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bench_helpers import cli_argv, cli_env, make_bench, one_line_error
from typer.testing import CliRunner

from ragcode.bench.dataset import load_tasks
from ragcode.bench.runner import run_bench
from ragcode.bench.settings import ContextBuilder
from ragcode.version import __version__
from ragcode.cli import app
from ragcode.config import load_config
from ragcode.errors import OutputBusyError, RunConfigMismatchError
from ragcode.fileio import FOLDER_LOCK, exclusive_output
from ragcode.types import Candidate

ANSWER = "```bash\npython train.py --dataset citeseer --epochs 1\n```"


def cfg(**extra):
    overrides = ["generation.llm.backend=scripted", "generation.n=2", "bench.setting=oracle",
                 f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"]
    overrides += [f"{k}={v}" for k, v in extra.items()]
    return load_config(overrides=overrides)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_run_writes_samples_outputs_and_run_json(tmp_path):
    tasks_file, repos = make_bench(tmp_path)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"
    summary = run_bench(tasks, repos, out, cfg())
    assert summary.generated == 4
    samples, outputs = lines(out / "samples.jsonl"), lines(out / "outputs.jsonl")
    assert [s["key"] for s in samples] == [t.key for t in tasks]
    assert all(set(o) == {"id", "github_id", "output"} and len(o["output"]) == 2 for o in outputs)
    assert outputs[0]["output"][0].startswith("python train.py --dataset citeseer")
    assert samples[0]["context"]["chars"] == len(tasks[0].oracle)
    assert samples[0]["candidates"][0]["metadata"]["model"] == "scripted"
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["config_hash"] == cfg().hash() and run_json["setting"] == "oracle" and run_json["n"] == 2
    assert run_json["ragcode_version"] == __version__ and run_json["environment"]["python"]


def test_run_killed_by_a_failure_resumes_without_redoing_or_losing_tasks(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=5)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"
    calls: list[str] = []
    crash = {"at": 3}

    def flaky(task, context):
        calls.append(task.key)
        if len(calls) == crash["at"]:
            raise RuntimeError("injected crash")
        return [Candidate(text=ANSWER, code=f"python train.py --dataset citeseer --seed {i}",
                          answer_type="bash", sample_index=i) for i in range(2)]

    with pytest.raises(RuntimeError, match="injected"):
        run_bench(tasks, repos, out, cfg(), generate_fn=flaky)
    assert len(lines(out / "samples.jsonl")) == 2
    calls.clear()
    crash["at"] = -1
    summary = run_bench(tasks, repos, out, cfg(), generate_fn=flaky)
    assert summary.done_before == 2 and summary.generated == 3
    assert calls == [t.key for t in tasks[2:]]  # only the missing ones
    keys = [s["key"] for s in lines(out / "samples.jsonl")]
    assert sorted(keys) == sorted(t.key for t in tasks) and len(set(keys)) == 5
    assert len(lines(out / "outputs.jsonl")) == 5
    again = run_bench(tasks, repos, out, cfg(), generate_fn=flaky)
    assert again.generated == 0


def test_torn_last_line_is_cut_and_redone(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=3)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"
    run_bench(tasks, repos, out, cfg(), limit=2)
    with (out / "samples.jsonl").open("a") as fh:
        fh.write('{"id": 102, "github_id": 1, "key": "1:102", "out')  # a kill mid-write
    summary = run_bench(tasks, repos, out, cfg())
    assert summary.done_before == 2 and summary.generated == 1
    samples = lines(out / "samples.jsonl")  # every line parses again
    assert [s["key"] for s in samples] == [t.key for t in tasks]
    assert [o["id"] for o in lines(out / "outputs.jsonl")] == [100, 101, 102]


def test_a_changed_config_is_refused(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    tasks = load_tasks(tasks_file).tasks
    run_bench(tasks, repos, tmp_path / "run", cfg(), limit=1)
    with pytest.raises(RunConfigMismatchError, match="generation.n"):
        run_bench(tasks, repos, tmp_path / "run", cfg(**{"generation.n": 3}))
    assert run_bench(tasks, repos, tmp_path / "run2", cfg(**{"generation.n": 3})).generated == 2


def test_run_killed_with_sigkill_resumes(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=6)
    out = tmp_path / "run"
    here = Path(__file__).parent
    blocked = tmp_path / "blocked"
    argv = [sys.executable, "-c", "import sys; from ragcode.cli import main; main(sys.argv[1:])", "mlbench",
            "run", "--tasks", str(tasks_file), "--repos", str(repos), "--out", str(out), "--setting", "none",
            "--llm", "bench_helpers:BlockingScriptedLLM", "-n", "1", "-q",
            "--set", f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"]
    env = dict(os.environ, PYTHONPATH=f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               HF_HUB_OFFLINE="1", RAGCODE_TEST_BLOCKED=str(blocked), RAGCODE_TEST_BLOCK_AT="4")
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(blocked, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert blocked.exists(), proc.stderr.read().decode()[-2000:]
    samples = out / "samples.jsonl"
    assert len(lines(samples)) == 3  # killed while generating the 4th task
    env["RAGCODE_TEST_BLOCK_AT"] = "0"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "3 already done, 3 generated" in done.stdout
    keys = [s["key"] for s in lines(samples)]
    assert len(keys) == len(set(keys)) == 6


def _wait_for(path: Path, proc: subprocess.Popen, give_up_s: float = 120) -> None:
    """Poll until ``path`` exists or ``proc`` ends (a safety stop, not a timing check)."""
    stop = time.monotonic() + give_up_s
    while proc.poll() is None and not path.exists() and time.monotonic() < stop:
        time.sleep(0.05)


def test_context_settings(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=1)
    task = load_tasks(tasks_file).tasks[0]
    assert ContextBuilder("none", repos, cfg()).build(task) is None
    oracle = ContextBuilder("oracle", repos, cfg()).build(task)
    assert oracle.text == task.oracle
    readme = ContextBuilder("readme", repos, cfg(**{"bench.readme_chars": 10})).build(task)
    assert readme.text == "# demo\nRun"[:10] and readme.chunk_ids == ("README.md",)


def test_score_cli_json_on_a_run_directory_and_the_verdict_cache(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=3)
    out = tmp_path / "run"
    run_bench(load_tasks(tasks_file).tasks, repos, out, cfg(**{"generation.n": 5}))
    runner = CliRunner()
    args = ["mlbench", "score", str(out), "--tasks", str(tasks_file), "--repos", str(repos),
            "--policy", "mlbench-legacy", "--no-exec", "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["policy"] == "mlbench-legacy" and report["n"] == 3
    assert report["pass@1"] == report["pass@2"] == report["pass@5"] == 1.0
    assert set(report["per_repo"]) == {"dgl"} and report["setting"] == "oracle"
    assert (out / "report-mlbench-legacy-noexec.md").read_text().count("| dgl |") == 1
    cached = (out / "verdicts.jsonl").read_text()
    assert len(cached.splitlines()) == 1  # 15 samples, one distinct answer text
    assert runner.invoke(app, args).exit_code == 0
    assert (out / "verdicts.jsonl").read_text() == cached  # nothing re-scored


def test_score_cli_on_an_outputs_file_with_execution(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(
        json.dumps({"id": 100, "github_id": 1, "output": ["python train.py --dataset citeseer --epochs 1"] * 5}) + "\n"
        + json.dumps({"id": 101, "github_id": 1, "output": ["python train.py --dataset citeseer --nope 1"] * 5}) + "\n")
    res = CliRunner().invoke(app, ["mlbench", "score", str(outputs), "--tasks", str(tasks_file), "--repos",
                                   str(repos), "--policy", "exec-strict", "--json",
                                   "--set", f"index.cache_dir={tmp_path / 'cache'}"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["executed"] and report["n"] == 2 and report["pass@1"] == 0.5
    assert report["failures"] == {"model": 1, "infra": 0} and report["isolation"]


def test_report_compares_scored_runs_by_setting_and_policy(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    runner = CliRunner()
    for setting in ("none", "oracle"):
        out = tmp_path / setting
        run_bench(load_tasks(tasks_file).tasks, repos, out,
                  cfg(**{"generation.n": 5, "bench.setting": setting}))
        for policy in ("mlbench-legacy", "static"):
            res = runner.invoke(app, ["mlbench", "score", str(out), "--tasks", str(tasks_file), "--repos",
                                      str(repos), "--policy", policy, "--no-exec", "--json"])
            assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["mlbench", "report", str(tmp_path / "none"), str(tmp_path / "oracle")])
    assert res.exit_code == 0, res.output
    rows = [line for line in res.stdout.splitlines() if line.startswith("| none") or line.startswith("| oracle")]
    assert len(rows) == 4 and any("| static |" in r for r in rows)
    assert runner.invoke(app, ["mlbench", "report", str(tmp_path / "nothing")]).exit_code == 2


def test_bm25_setting_gives_the_paper_retrieval_context(tmp_path):
    pytest.importorskip("rank_bm25")
    tasks_file, repos = make_bench(tmp_path, n_tasks=1)
    task = load_tasks(tasks_file).tasks[0]
    ctx = ContextBuilder("bm25", repos, cfg(**{"context.budget": 300})).build(task)
    assert 0 < len(ctx.text) <= 300
    assert "train.py" in ctx.text or "cora" in ctx.text


# --- one writer per run folder --------------------------------------------------------------

def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_second_run_on_a_folder_a_run_is_writing_exits_2_and_writes_nothing(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=3)
    out, blocked = tmp_path / "run", tmp_path / "blocked"
    args = ["mlbench", "run", "--tasks", str(tasks_file), "--repos", str(repos), "--out", str(out),
            "--setting", "none", "--llm", "bench_helpers:BlockingScriptedLLM", "-n", "1", "-q",
            "--set", f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"]
    first = subprocess.Popen(cli_argv(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=cli_env(RAGCODE_TEST_BLOCKED=str(blocked), RAGCODE_TEST_BLOCK_AT="2"))
    try:
        _wait_for(blocked, first)  # the first run has written task 1 and is generating task 2
        assert blocked.exists(), first.stderr.read().decode()[-2000:]
        before = snapshot(out)
        second = subprocess.run(cli_argv(*args), env=cli_env(), capture_output=True, text=True,
                                timeout=120)
        line = one_line_error(second)
        assert "in use by another ragcode process" in line and f"pid {first.pid}" in line
        assert str(out) in line and "mlbench run" in line
        assert snapshot(out) == before  # not one task generated twice, nothing rewritten
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    # the lock died with its holder: the next run finishes the folder, every task once
    done = subprocess.run(cli_argv(*args), env=cli_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "1 already done, 2 generated" in done.stdout
    keys = [s["key"] for s in lines(out / "samples.jsonl")]
    assert len(keys) == len(set(keys)) == 3


def test_run_and_score_on_a_folder_another_process_holds_are_refused(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=2)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"
    run_bench(tasks, repos, out, cfg(**{"generation.n": 5}), limit=1)
    with exclusive_output(out / FOLDER_LOCK, "test holder"):  # as a running `mlbench run` does
        before = snapshot(out)
        with pytest.raises(OutputBusyError, match=f"pid {os.getpid()}"):
            run_bench(tasks, repos, out, cfg(**{"generation.n": 5}))
        res = CliRunner().invoke(app, ["mlbench", "score", str(out), "--tasks", str(tasks_file),
                                       "--repos", str(repos), "--no-exec", "--json"])
        assert res.exit_code == 2 and "in use by another ragcode process" in res.stderr
        assert snapshot(out) == before  # no verdicts, no report
    assert run_bench(tasks, repos, out, cfg(**{"generation.n": 5})).generated == 1  # released


def test_retrieve_into_an_output_another_retrieve_writes_is_refused(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=1)
    out = tmp_path / "contexts.jsonl"
    with exclusive_output(out.with_name(out.name + ".lock"), "test holder"):
        res = CliRunner().invoke(app, ["mlbench", "retrieve", "--tasks", str(tasks_file), "--repos",
                                       str(repos), "--out", str(out), "-q"])
    assert res.exit_code == 2 and "in use by another ragcode process" in res.stderr
    assert "Traceback" not in res.output and not out.exists()


def test_ablation_grid_on_a_results_folder_another_grid_writes_is_refused(tmp_path):
    from ablation_helpers import CountingRetrieval, make_world

    from ragcode.ablation import grid_from_dict, run_grid

    repos, tasks_file = make_world(tmp_path)
    spec = grid_from_dict({"name": "t", "set": {"embedder.enabled": False, "retrieval.mode": "bm25"},
                           "axes": {"context.budget": [120, 2000]}, "ks": [1]})
    out, stage = tmp_path / "results", CountingRetrieval()
    with exclusive_output(out / FOLDER_LOCK, "test holder"):
        with pytest.raises(OutputBusyError, match="results folder"):
            run_grid(spec, load_tasks(tasks_file).tasks, repos, out, retrieval_stage=stage,
                     progress=False)
    assert stage.calls == []
