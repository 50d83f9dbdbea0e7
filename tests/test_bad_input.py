"""Bad input through the real command line: a one-line error and exit 2 (never a traceback) for
bad settings; malformed or duplicate records skipped, counted and reported, never fatal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bench_helpers import cli_argv, cli_env, make_bench, one_line_error

from ragcode.bench.dataset import load_tasks
from ragcode.bench.runner import run_bench
from ragcode.config import load_config

ANSWER = "python train.py --dataset citeseer --epochs 1"
SCRIPTED = f"generation.llm.scripted_answers=[{json.dumps(ANSWER)}]"


def ragcode(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(cli_argv(*args), env=cli_env(), capture_output=True, text=True, timeout=120)


def run_args(tasks: Path, repos: Path, out: Path, *extra: str) -> list[str]:
    return ["mlbench", "run", "--tasks", str(tasks), "--repos", str(repos), "--out", str(out),
            "--setting", "none", "--llm", "scripted", "-n", "1", "-q", "--set", SCRIPTED, *extra]


def score_json(*args: str) -> dict:
    res = ragcode("mlbench", "score", *args, "--no-exec", "--json")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    return json.loads(res.stdout)


# --- settings: one line, exit 2, nothing written ------------------------------------------------

@pytest.mark.parametrize("override, expected", [
    ("retrieval.k=[1,", "not valid YAML"),  # an unclosed flow list
    ("generation.n={a: 1", "not valid YAML"),
    ("execution.max_procs=-5", "execution.max_procs = -5: must be > 0"),
    ("execution.memory_mb=-1", "execution.memory_mb = -1: must be > 0"),
    ("retrieval.dense_weight=2", "retrieval.dense_weight = 2: must be in [0, 1]"),
    ("execution.scratch_dir=/nonexistent/ragcode-scratch", "execution.scratch_dir"),
])
def test_bad_setting_on_the_command_line_is_one_line_and_exit_2(tmp_path, override, expected):
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    out = tmp_path / "run"
    line = one_line_error(ragcode(*run_args(tasks, repos, out, "--set", override)))
    assert expected in line
    assert not out.exists()


def test_config_file_that_is_not_yaml_is_one_line_and_exit_2(tmp_path):
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval:\n  k: [1, 2\n  mode: bm25\n")
    line = one_line_error(ragcode(*run_args(tasks, repos, tmp_path / "run", "--config", str(bad))))
    assert "bad.yaml is not valid YAML" in line


def test_error_text_that_looks_like_markup_is_printed_as_is(tmp_path):
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    line = one_line_error(ragcode(*run_args(tasks, repos, tmp_path / "run", "--set",
                                            "retrieval.mode=[bold]x")))
    assert "[bold]x" in line


# --- task records: the bad one skipped and counted, the rest run ----------------------------------

def test_task_with_a_non_integer_repo_id_is_skipped_and_counted(tmp_path):
    tasks, repos = make_bench(tmp_path, n_tasks=4)
    rows = [json.loads(line) for line in tasks.read_text().splitlines()]
    rows[1]["repo_id"] = "seven"
    rows[2]["path"] = ["./examples/gcn"]  # a list where a string belongs
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows) + "[1, 2]\n")
    out = tmp_path / "run"
    res = ragcode(*run_args(tasks, repos, out))
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert "2 tasks: 0 already done, 2 generated" in res.stdout
    assert "skipped 3 malformed task record(s)" in res.stderr and "repo_id 'seven'" in res.stderr
    loaded = load_tasks(tasks)
    assert [t.id for t in loaded.tasks] == [100, 103] and len(loaded.skipped) == 3


# --- outputs records: malformed and duplicate ones skipped, counted, reported ---------------------

def test_outputs_with_a_non_integer_github_id_or_an_array_line_are_skipped_and_counted(tmp_path):
    tasks, repos = make_bench(tmp_path, n_tasks=2)
    outputs = tmp_path / "outputs.jsonl"
    good = [{"id": 100 + i, "github_id": 1, "output": [f"python train.py --dataset citeseer --x {i}"] * 5}
            for i in range(2)]
    outputs.write_text(json.dumps(good[0]) + "\n"
                       + json.dumps({"id": 101, "github_id": "one", "output": ["x"] * 5}) + "\n"
                       + json.dumps(["id", 101, "github_id", 1]) + "\n"
                       + json.dumps({"id": 101, "github_id": 1, "output": "not a list"}) + "\n"
                       + "{not json\n"
                       + json.dumps(good[1]) + "\n")
    report = score_json(str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                        "--set", f"index.cache_dir={tmp_path / 'cache'}")
    assert report["n"] == 2 and report["pass@1"] == 1.0
    assert report["skipped"] == {"duplicates": 0, "malformed": 4}
    assert any("github_id 'one' is not an integer" in m for m in report["malformed"])
    assert any("line 3: a JSON array, not an object" in m for m in report["malformed"])


def test_duplicate_records_are_scored_once_and_the_count_reported(tmp_path):
    tasks, repos = make_bench(tmp_path, n_tasks=2)
    outputs = tmp_path / "outputs.jsonl"
    first = {"id": 100, "github_id": 1, "output": ["python train.py --dataset citeseer"] * 5}
    later = {"id": "100", "github_id": "1", "output": ["python train.py --dataset cora"] * 5}  # same key
    other = {"id": 101, "github_id": 1, "output": ["python train.py --dataset citeseer"] * 5}
    outputs.write_text("".join(json.dumps(r) + "\n" for r in (first, other, later, other)))
    common = [str(outputs), "--tasks", str(tasks), "--repos", str(repos),
              "--set", f"index.cache_dir={tmp_path / 'cache'}"]
    report = score_json(*common)
    assert report["n"] == 2 and report["samples"]["total"] == 10
    assert report["pass@1"] == 1.0  # the first record of 1:100 is scored, not the later one
    assert report["skipped"]["duplicates"] == 2 and sorted(report["duplicates"]) == ["1:100", "1:101"]
    table = ragcode("mlbench", "score", *common, "--no-exec")
    assert table.returncode == 0, table.stderr[-2000:]
    assert "left out: 2 duplicate record(s) (first kept), 0 malformed record(s)" in table.stdout
    assert "| **all** | 2 |" in table.stdout
    assert "2 duplicate record(s)" in table.stderr


def test_a_run_folder_generated_twice_is_scored_once(tmp_path):
    """What two runs on one folder used to leave: every task's record twice in samples.jsonl."""
    tasks_file, repos = make_bench(tmp_path, n_tasks=3)
    out = tmp_path / "run"
    cfg = load_config(overrides=["generation.llm.backend=scripted", "generation.n=5",
                                 "bench.setting=none", SCRIPTED])
    run_bench(load_tasks(tasks_file).tasks, repos, out, cfg)
    samples = out / "samples.jsonl"
    samples.write_text(samples.read_text() * 2)
    report = score_json(str(out), "--tasks", str(tasks_file), "--repos", str(repos))
    assert report["n"] == 3 and report["samples"]["total"] == 15
    assert report["skipped"] == {"duplicates": 3, "malformed": 0}
    saved = json.loads((out / "report-mlbench-legacy-noexec.json").read_text())
    assert saved["skipped"]["duplicates"] == 3
    assert "left out: 3 duplicate" in (out / "report-mlbench-legacy-noexec.md").read_text()


@pytest.mark.parametrize("override, expected", [
    ("execution.memory_mb=10000000000000", "execution.memory_mb = 10000000000000: more than the kernel can set"),
    ("execution.cpu_s=100000000000000000000", "execution.cpu_s = 100000000000000000000"),
    ("execution.file_mb=99999999999999", "execution.file_mb = 99999999999999"),
    ("execution.max_procs=99999999999", "execution.max_procs = 99999999999"),
    ("execution.disk_mb=99999999999", "execution.disk_mb = 99999999999: more than this machine's"),
])
def test_huge_execution_limit_is_refused_at_load_in_one_line(tmp_path, override, expected):
    """Values the OS would refuse used to end in a preexec_fn traceback (or, for disk_mb, make
    every answer an infrastructure failure); now the executor refuses them when it is built."""
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps({"id": 100, "github_id": 1, "output": [ANSWER] * 5}) + "\n")
    line = one_line_error(ragcode("mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                  "--set", f"index.cache_dir={tmp_path / 'cache'}", "--set", override))
    assert expected in line


@pytest.mark.parametrize("which", ["--config", "--tasks"])
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_config_or_tasks_that_is_a_device_or_a_fifo_is_one_line_not_a_hang(tmp_path, which, special):
    """``--config /dev/zero`` read forever, a FIFO blocked forever; both are refused at once."""
    import os

    tasks, repos = make_bench(tmp_path, n_tasks=1)
    path = special
    if special == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    args = run_args(tasks, repos, tmp_path / "run")
    args[args.index("--tasks") + 1] = path if which == "--tasks" else str(tasks)
    if which == "--config":
        args += ["--config", path]
    line = one_line_error(ragcode(*args))
    assert path in line and "not a regular file" in line
