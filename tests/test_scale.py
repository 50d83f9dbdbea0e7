"""--workers N: pools, the driver loop, and mlbench run / score / ablate on several workers.

Every parallel run is compared with a one-worker run record for record (timings aside): the
driver writes each record once, in any order, and resumes exactly as before."""

from __future__ import annotations

import json
import logging
import os

import pytest
from bench_helpers import make_bench
from scale_helpers import Square, comparable

from ragcode.bench.dataset import load_tasks
from ragcode.bench.runner import run_bench
from ragcode.config import load_config
from ragcode.scale.pool import ProcessPool, SerialPool, ThreadPool, fan_out
from ragcode.types import Candidate

ECHO = "scale_helpers:EchoLLM"


@pytest.fixture(autouse=True)
def _driver_pid(monkeypatch):
    monkeypatch.setenv("RAGCODE_TEST_DRIVER", str(os.getpid()))


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def cfg(*extra, backend="scripted"):
    answer = json.dumps("```bash\npython train.py --dataset citeseer\n```")
    return load_config(overrides=[f"generation.llm.backend={backend}", "generation.n=2", "bench.setting=oracle",
                                  "generation.check=[]",
                                  f"generation.llm.scripted_answers=[{answer}]", *extra])


def collect(pool, items, **kw):
    got, lost = {}, []
    fan_out(pool, items, lambda d: lost.append(d) if d.lost else got.__setitem__(d.tag, d.value), **kw)
    return got, lost


# --- pools -----------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda f: SerialPool(f), lambda f: ThreadPool(f, 3),
                                  lambda f: ProcessPool(f, 2)], ids=["serial", "threads", "processes"])
def test_every_pool_returns_each_result_once(make):
    got, lost = collect(make(Square(driver=os.getpid())), ((i, i) for i in range(30)))
    assert got == {i: i * i for i in range(30)} and not lost


def test_a_killed_worker_process_loses_only_its_payload_which_is_run_again(tmp_path):
    pool = ProcessPool(Square(die_on=7, marker=str(tmp_path / "died"), driver=os.getpid()), 2)
    first = pool.pids()
    got, lost = collect(pool, ((i, i) for i in range(20)))
    assert (tmp_path / "died").exists()  # a worker really died on 7
    assert got == {i: i * i for i in range(20)} and not lost
    assert len(first) == 2


def test_a_payload_whose_worker_always_dies_is_reported_lost_after_the_retries(tmp_path, caplog):
    pool = ProcessPool(Square(die_on=3, marker="always", driver=os.getpid()), 2)
    with caplog.at_level(logging.WARNING, logger="ragcode.scale.pool"):
        got, lost = collect(pool, ((i, i) for i in range(8)))
    assert sorted(got) == [0, 1, 2, 4, 5, 6, 7]
    (done,) = lost
    assert done.tag == 3 and done.attempts == 3 and "died (exit code 3)" in done.lost
    assert sum("running its work (3) again" in r.message for r in caplog.records) == 2


@pytest.mark.parametrize("make", [lambda f: ThreadPool(f, 2), lambda f: ProcessPool(f, 2)],
                         ids=["threads", "processes"])
def test_a_handler_error_stops_new_work_and_is_raised_after_the_work_in_flight(make):
    got = {}
    with pytest.raises(ValueError, match="bad input 4"):
        fan_out(make(Square(fail_on=4, driver=os.getpid())), ((i, i) for i in range(50)),
                lambda d: got.__setitem__(d.tag, d.value))
    assert 4 not in got and len(got) < 50 and all(got[k] == k * k for k in got)


def test_an_error_while_building_a_payload_is_raised_like_a_handler_error():
    def items():
        yield 0, 0
        yield 1, 1
        raise RuntimeError("no context for task 2")

    got = {}
    with pytest.raises(RuntimeError, match="no context"):
        fan_out(SerialPool(Square()), items(), lambda d: got.__setitem__(d.tag, d.value))
    assert got == {0: 0, 1: 1}  # a one-worker run writes what came before the failure, as today


# --- mlbench run -----------------------------------------------------------------------------

def test_run_on_threads_equals_a_one_worker_run(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=40)
    tasks = load_tasks(tasks_file).tasks
    one = run_bench(tasks, repos, tmp_path / "one", cfg())
    four = run_bench(tasks, repos, tmp_path / "four", cfg("scale.workers=4"))
    assert one.generated == four.generated == 40
    a, b = lines(tmp_path / "one" / "samples.jsonl"), lines(tmp_path / "four" / "samples.jsonl")
    assert comparable(a) == comparable(b) and len({r["key"] for r in b}) == 40
    assert sorted(map(json.dumps, lines(tmp_path / "one" / "outputs.jsonl"))) == \
        sorted(map(json.dumps, lines(tmp_path / "four" / "outputs.jsonl")))
    # the same run.json: workers are not part of a run's identity
    assert json.loads((tmp_path / "one" / "run.json").read_text())["config_hash"] == \
        json.loads((tmp_path / "four" / "run.json").read_text())["config_hash"]


def test_run_on_processes_with_a_worker_killed_mid_run(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=12)
    tasks = load_tasks(tasks_file).tasks
    marker = tmp_path / "killed"
    run_bench(tasks, repos, tmp_path / "one", cfg(backend=ECHO))
    kill = json.dumps([f"kill:5:once:{marker}"])
    summary = run_bench(tasks, repos, tmp_path / "two",
                        cfg("scale.workers=2", "scale.max_local_models=2", f"generation.llm.scripted_answers={kill}",
                            backend=ECHO))
    assert marker.exists() and summary.generated == 12 and summary.lost == 0
    a, b = lines(tmp_path / "one" / "samples.jsonl"), lines(tmp_path / "two" / "samples.jsonl")
    assert [r["output"] for r in comparable(a)] == [r["output"] for r in comparable(b)]
    assert sorted(r["key"] for r in b) == sorted(t.key for t in tasks)  # nothing lost or twice
    assert b[0]["candidates"][0]["metadata"]["model"] == "echo"


def test_a_task_that_always_kills_its_worker_is_recorded_and_done_by_the_next_run(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=6)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"
    down = tmp_path / "node-down"
    down.write_text("")
    dying = cfg("scale.workers=2", "scale.max_local_models=2",
                f"generation.llm.scripted_answers={json.dumps([f'kill:2:while:{down}'])}", backend=ECHO)
    summary = run_bench(tasks, repos, out, dying)
    assert summary.generated == 5 and summary.lost == 1
    (failure,) = lines(out / "failures.jsonl")
    assert failure["key"] == tasks[2].key and "3 time(s)" in failure["error"]
    assert tasks[2].key not in {r["key"] for r in lines(out / "samples.jsonl")}
    down.unlink()  # the node is back
    again = run_bench(tasks, repos, out, dying)
    assert again.done_before == 5 and again.generated == 1 and again.keys == [tasks[2].key]


def test_local_models_never_exceed_max_local_models(tmp_path, caplog):
    tasks_file, repos = make_bench(tmp_path, n_tasks=3)
    with caplog.at_level(logging.INFO, logger="ragcode.scale.jobs"):
        run_bench(load_tasks(tasks_file).tasks, repos, tmp_path / "run", cfg("scale.workers=4", backend=ECHO))
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "1 worker(s), not 4: scale.max_local_models=1" in text
    assert "mlbench run: 1 worker(s)" in text


def test_an_error_on_workers_keeps_finished_tasks_and_resume_does_only_the_rest(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=10)
    tasks = load_tasks(tasks_file).tasks
    out = tmp_path / "run"

    def flaky(task, context):
        if task.key == tasks[6].key:
            raise RuntimeError("injected crash")
        return [Candidate(text="x", code=f"python train.py --dataset citeseer --k {task.id}",
                          answer_type="bash", sample_index=i) for i in range(2)]

    with pytest.raises(RuntimeError, match="injected"):
        run_bench(tasks, repos, out, cfg("scale.workers=3"), generate_fn=flaky)
    first = {r["key"] for r in lines(out / "samples.jsonl")}
    assert tasks[6].key not in first and 0 < len(first) < 10
    summary = run_bench(tasks, repos, out, cfg("scale.workers=3"),
                        generate_fn=lambda t, c: flaky(t, c) if t.key != tasks[6].key else flaky(tasks[0], c))
    assert summary.done_before == len(first) and summary.generated == 10 - len(first)
    keys = [r["key"] for r in lines(out / "samples.jsonl")]
    assert sorted(keys) == sorted(t.key for t in tasks)  # each exactly once


# --- mlbench score and ablate ----------------------------------------------------------------

def test_score_with_execution_on_worker_processes_equals_one_worker(tmp_path):
    from ragcode.bench.evaluate import score

    tasks_file, repos = make_bench(tmp_path, n_tasks=6)
    tasks = load_tasks(tasks_file).tasks
    run_bench(tasks, repos, tmp_path / "run", cfg(backend=ECHO))
    import shutil

    shutil.copytree(tmp_path / "run", tmp_path / "run2")
    opts = ["bench.legacy_require_n=0", "execution.timeout_s=30"]
    one = score(tmp_path / "run", tasks, repos, "mlbench-legacy", load_config(overrides=opts))
    two = score(tmp_path / "run2", tasks, repos, "mlbench-legacy", load_config(overrides=[*opts, "scale.workers=2"]))
    assert one["executed"] and two["executed"]
    strip = lambda r: {k: v for k, v in r.items() if k not in ("source",)}  # noqa: E731
    assert strip(one) == strip(two)
    cache = lines(tmp_path / "run2" / "verdicts.jsonl")
    assert len(cache) == 12 and len({c["key"] for c in cache}) == 12  # each verdict written once


def test_ablation_cells_on_workers_equal_a_one_worker_grid(tmp_path):
    from ablation_helpers import make_world

    from ragcode.ablation import grid_from_dict, run_grid

    repos, tasks_file = make_world(tmp_path)
    tasks = load_tasks(tasks_file).tasks
    good = "```bash\npython3 train.py --dataset citeseer --dataset pubmed --epochs 50 --task_name=MRPC \n```"
    spec = {"measure": "generation", "execute": False,
            "set": {"embedder.enabled": False, "retrieval.mode": "bm25", "retrieval.multi_query": False,
                    "generation.llm.backend": "scripted", "generation.n": 2},
            "axes": {"context.budget": [120, 2000], "generation.llm.scripted_answers": [[good], ["no"]]}}
    one = run_grid(grid_from_dict(spec), tasks, repos, tmp_path / "one", progress=False)
    two = run_grid(grid_from_dict(spec), tasks, repos, tmp_path / "two", progress=False,
                   overrides={"scale.workers": 2})
    drop = ("seconds", "retrieval_cached")
    assert [{k: v for k, v in r.items() if k not in drop} for r in one.rows] == \
        [{k: v for k, v in r.items() if k not in drop} for r in two.rows]
    assert one.retrieval_runs == two.retrieval_runs == 2  # two budgets: retrieval once each
    assert len(two.computed) == 4 and not two.cached
    again = run_grid(grid_from_dict(spec), tasks, repos, tmp_path / "two", progress=False,
                     overrides={"scale.workers": 2})
    assert len(again.cached) == 4 and not again.computed


def test_cli_workers_and_ray_flags_and_their_errors(tmp_path):
    from bench_helpers import cli_argv, cli_env, one_line_error
    import subprocess

    tasks_file, repos = make_bench(tmp_path, n_tasks=5)
    base = ["mlbench", "run", "--tasks", str(tasks_file), "--repos", str(repos), "--setting", "oracle",
            "--llm", "scripted", "-n", "1", "--set", 'generation.llm.scripted_answers=["```bash\\nls\\n```"]']
    ok = subprocess.run(cli_argv(*base, "--out", str(tmp_path / "r"), "--workers", "3"),
                        capture_output=True, text=True, env=cli_env(), timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "5 generated" in ok.stdout and ok.stderr.count("done ") == 5 and "ETA" in ok.stderr
    bad = subprocess.run(cli_argv(*base, "--out", str(tmp_path / "b"), "--workers", "0"),
                         capture_output=True, text=True, env=cli_env(), timeout=300)
    assert "scale.workers" in one_line_error(bad)
    bad = subprocess.run(cli_argv(*base, "--out", str(tmp_path / "c"), "--ray", "somewhere"),
                         capture_output=True, text=True, env=cli_env(), timeout=300)
    assert "must be local, auto or ray://host:port" in one_line_error(bad)
