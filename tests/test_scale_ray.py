"""--ray: the same work as Ray actors on a local Ray runtime with 2 CPUs (skipped without Ray).

The driver alone writes the run folder; an actor that dies loses only its in-flight task, which
is run again (bounded) and, failing that, recorded as an infrastructure failure."""

from __future__ import annotations

import json
import os
import shutil

import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install 'ragcode[ray]'")

from bench_helpers import make_bench  # noqa: E402
from scale_helpers import comparable  # noqa: E402

from ragcode.bench.dataset import load_tasks  # noqa: E402
from ragcode.bench.runner import run_bench  # noqa: E402
from ragcode.config import load_config  # noqa: E402

ECHO = "scale_helpers:EchoLLM"
RAY = ["scale.ray_address=local", "scale.workers=2", "scale.max_local_models=2"]


@pytest.fixture(scope="module", autouse=True)
def ray_runtime():
    from ragcode.scale.ray_pool import connect

    os.environ["RAGCODE_TEST_DRIVER"] = str(os.getpid())
    ray, started = connect("local", 2)  # what --ray local starts, kept for the module's tests
    assert ray.cluster_resources()["CPU"] == 2
    yield ray
    if started:
        ray.shutdown()


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def cfg(*extra, backend=ECHO):
    answer = json.dumps("```bash\npython train.py --dataset citeseer\n```")
    return load_config(overrides=[f"generation.llm.backend={backend}", "generation.n=2", "bench.setting=oracle",
                                  "generation.check=[]",
                                  f"generation.llm.scripted_answers=[{answer}]", *extra])


def test_a_few_hundred_scripted_tasks_on_ray_equal_a_one_worker_run(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=300)
    tasks = load_tasks(tasks_file).tasks
    run_bench(tasks, repos, tmp_path / "one", cfg(backend="scripted"))
    summary = run_bench(tasks, repos, tmp_path / "ray", cfg(*RAY, backend="scripted"))
    assert summary.generated == 300 and summary.lost == 0
    a, b = lines(tmp_path / "one" / "samples.jsonl"), lines(tmp_path / "ray" / "samples.jsonl")
    assert comparable(a) == comparable(b)


def test_an_actor_killed_mid_run_is_retried_and_nothing_is_lost_or_doubled(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=200)
    tasks = load_tasks(tasks_file).tasks
    marker = tmp_path / "killed"
    run_bench(tasks, repos, tmp_path / "one", cfg())
    kill = json.dumps([f"kill:120:once:{marker}"])
    summary = run_bench(tasks, repos, tmp_path / "ray", cfg(*RAY, f"generation.llm.scripted_answers={kill}"))
    assert marker.exists()  # an actor process really died on task 120
    assert summary.generated == 200 and summary.lost == 0
    a, b = lines(tmp_path / "one" / "samples.jsonl"), lines(tmp_path / "ray" / "samples.jsonl")
    assert [r["output"] for r in comparable(a)] == [r["output"] for r in comparable(b)]
    keys = [r["key"] for r in b]
    assert len(keys) == len(set(keys)) == 200
    assert len(lines(tmp_path / "ray" / "outputs.jsonl")) == 200


def test_a_task_that_kills_every_actor_is_an_infrastructure_failure_then_resumed(tmp_path):
    tasks_file, repos = make_bench(tmp_path, n_tasks=8)
    tasks = load_tasks(tasks_file).tasks
    down = tmp_path / "node-down"
    down.write_text("")
    dying = cfg(*RAY, f"generation.llm.scripted_answers={json.dumps([f'kill:3:while:{down}'])}")
    out = tmp_path / "run"
    summary = run_bench(tasks, repos, out, dying)
    assert summary.generated == 7 and summary.lost == 1
    (failure,) = lines(out / "failures.jsonl")
    assert failure["key"] == tasks[3].key and "ray worker died" in failure["error"] and "3 time(s)" in failure["error"]
    down.unlink()
    again = run_bench(tasks, repos, out, dying)
    assert again.done_before == 7 and again.keys == [tasks[3].key]
    assert sorted(r["key"] for r in lines(out / "samples.jsonl")) == sorted(t.key for t in tasks)


def test_score_with_execution_on_ray_equals_one_worker(tmp_path):
    from ragcode.bench.evaluate import score

    tasks_file, repos = make_bench(tmp_path, n_tasks=8)
    tasks = load_tasks(tasks_file).tasks
    run_bench(tasks, repos, tmp_path / "run", cfg())
    shutil.copytree(tmp_path / "run", tmp_path / "run2")
    opts = ["bench.legacy_require_n=0", "execution.timeout_s=30"]
    one = score(tmp_path / "run", tasks, repos, "mlbench-legacy", load_config(overrides=opts))
    two = score(tmp_path / "run2", tasks, repos, "mlbench-legacy", load_config(overrides=[*opts, *RAY[:2]]))
    assert one["executed"] and two["executed"] and one["tasks"] == two["tasks"]
    assert {k: v for k, v in one.items() if k != "source"} == {k: v for k, v in two.items() if k != "source"}
    assert len(lines(tmp_path / "run2" / "verdicts.jsonl")) == 16


def test_ablation_cells_on_ray_equal_a_one_worker_grid(tmp_path):
    from ablation_helpers import make_world

    from ragcode.ablation import grid_from_dict, run_grid

    repos, tasks_file = make_world(tmp_path)
    tasks = load_tasks(tasks_file).tasks
    spec = {"measure": "generation", "execute": False,
            "set": {"embedder.enabled": False, "retrieval.mode": "bm25", "retrieval.multi_query": False,
                    "generation.llm.backend": "scripted", "generation.n": 2},
            "axes": {"context.budget": [120, 2000], "generation.llm.scripted_answers": [["```bash\nls\n```"], ["no"]]}}
    one = run_grid(grid_from_dict(spec), tasks, repos, tmp_path / "one", progress=False)
    two = run_grid(grid_from_dict(spec), tasks, repos, tmp_path / "two", progress=False,
                   overrides={"scale.ray_address": "local", "scale.workers": 2})
    drop = ("seconds", "retrieval_cached")
    assert [{k: v for k, v in r.items() if k not in drop} for r in one.rows] == \
        [{k: v for k, v in r.items() if k not in drop} for r in two.rows]
    assert two.retrieval_runs == 2 and len(two.computed) == 4
