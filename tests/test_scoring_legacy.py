"""mlbench-legacy without execution reproduces the official text checks verdict for verdict.

Hermetic tests compare it with an independent transcription of the official rules on generated
answers; the same comparison on the real dev data and ML-Agent's published answers runs when
``RAGCODE_MLBENCH_DATA`` names a folder holding them (the ``mlbench_data`` fixture)."""

from __future__ import annotations

import ast
import json
import random

import pytest

from ragcode.bench import legacy
from ragcode.bench.dataset import load_tasks, task_from_record
from ragcode.bench.evaluate import load_outputs, score_outputs
from ragcode.bench.passk import pass_at_k, pass_rates, passed_at
from ragcode.config import load_config
from ragcode.types import Task

REF5 = "reference_outputs/mlagent_agent_pass5_output.jsonl"
REF_DGL = "reference_outputs/mlagent_agent_dgl_full.jsonl"


def official_text_verdict(output: str, arguments: str, out_type: str) -> bool:
    """Independent transcription of utils/exec.py validate_arguments + validate_output_type."""
    args = ast.literal_eval(arguments)
    for name in args:
        if str(args[name]).lower() not in output.lower():
            return False
    if out_type == "Bash Script":
        return ".sh " in output or ".py " in output
    return ".sh " not in output and ".py " not in output


def official_positions(verdicts: list[bool]) -> tuple[int, int, int]:
    """Transcription of assess_output's res/dyn bookkeeping."""
    res, dyn = [0, 0, 0], 0
    for point, ok in enumerate(verdicts):
        if ok:
            if point == 0:
                res, dyn = [1, 1, 1], 1
            elif point == 1 and dyn != 1:
                res, dyn = [0, 1, 1], 1
            elif point <= 4 and dyn != 1:
                res, dyn = [0, 0, 1], 1
    return res[0], res[1], res[2]


# answers shaped like the quirks: a trailing space or not after .py/.sh, list and bool values,
# upper case, python code that shells out, values only in a comment
ANSWER_POOL = [
    "python train.py --dataset citeseer --lr 0.1", "python train.py --dataset citeseer",
    "python train.py --dataset citeseer --lr 0.1\n", "python train.py", "python train.py\n",
    "bash run.sh --ids [1, 2] --flag True", "bash run.sh 1 2", "import esm\nmodel = esm.load('ESM2')",
    "import os\nos.system('python a.py --model esm2')", "# lr 0.1 citeseer\nprint('x')",
    "python main.py --Name CORA --epochs 5 ", "cd examples && python main.py --model esm2 --ids [1, 2]",
]
TASK_POOL = [
    ("{'dataset': 'citeseer', 'lr': 0.1}", "Bash Script"), ("{'ids': [1, 2], 'flag': True}", "Bash Script"),
    ("{'model': 'esm2'}", "Python Code"), ("{}", "Bash Script"), ("{'Name': 'CORA'}", "Python Code"),
    ("{'name': 'cora'}", "Bash Script"),
]


def generated(seed: int = 7, n_tasks: int = 40) -> tuple[list[dict], list[dict]]:
    """(raw task records, 5-sample output records) drawn from the pools."""
    rng = random.Random(seed)
    raw, records = [], []
    for i in range(n_tasks):
        arguments, out_type = rng.choice(TASK_POOL)
        raw.append({"github_id": 1 + i % 3, "id": i, "instruction": f"task {i}", "arguments": arguments,
                    "type": out_type, "path": "./"})
        records.append({"id": i, "github_id": 1 + i % 3, "output": [rng.choice(ANSWER_POOL) for _ in range(5)]})
    return raw, records


def test_generated_answers_get_the_official_text_verdict_and_positions():
    raw, records = generated()
    tasks = [task_from_record(r) for r in raw]
    report = score_outputs(records, tasks, "/nonexistent", execute=False)
    by_key = {t["key"]: t for t in report["tasks"]}
    expect = [0, 0, 0]
    for r, rec in zip(raw, records):
        official = [official_text_verdict(o, r["arguments"], r["type"]) for o in rec["output"]]
        assert by_key[f"{r['github_id']}:{r['id']}"]["passes"] == official, (r, rec)
        expect = [a + b for a, b in zip(expect, official_positions(official))]
    assert report["n"] == 40
    assert [round(report[f"pass@{k}"] * 40) for k in (1, 2, 5)] == expect
    assert 0 < expect[0] < expect[2] < 40  # the draw exercises passes, late passes and failures


def test_records_without_five_samples_are_dropped_unless_told_otherwise():
    raw, records = generated(n_tasks=6)
    tasks = [task_from_record(r) for r in raw]
    short = [dict(rec, output=rec["output"][:1]) for rec in records]
    report = score_outputs(short, tasks, "/nonexistent", execute=False)
    assert report["n"] == 0 and len(report["dropped"]) == 6 and "dropped" in report["note"]
    kept = score_outputs(short, tasks, "/nonexistent", execute=False,
                         config=load_config(overrides=["bench.legacy_require_n=0"]))
    assert kept["n"] == 6 and kept["samples_per_task"] == 1


def test_reference_outputs_of_every_dev_task_match_the_official_text_verdict(mlbench_data):
    DEV = mlbench_data / "dev.jsonl"
    raw = [json.loads(line) for line in DEV.read_text().splitlines() if line.strip()]
    tasks = load_tasks(DEV).tasks
    assert len(tasks) == 88
    records = [{"id": r["id"], "github_id": r["github_id"], "output": [r["output"]] * 5} for r in raw]
    report = score_outputs(records, tasks, "/nonexistent", execute=False)
    by_key = {t["key"]: t for t in report["tasks"]}
    expected_pass = 0
    for r in raw:
        official = official_text_verdict(r["output"], r["arguments"], r["type"])
        expected_pass += official
        got = by_key[f"{r['github_id']}:{r['id']}"]
        assert got["passes"] == [official] * 5, (r["github_id"], r["id"])
    assert report["n"] == 88
    assert report["passed"] == expected_pass == 77  # pinned: 11 reference answers fail the text checks
    assert report["pass@1"] == pytest.approx(77 / 88)


def test_mlagent_published_outputs_score_like_the_official_scorer(mlbench_data):
    DEV = mlbench_data / "dev.jsonl"
    tasks = load_tasks(DEV).tasks
    records, _ = load_outputs(mlbench_data / REF5)
    report = score_outputs(records, tasks, "/nonexistent", execute=False)
    raw_tasks = {(json.loads(line)["id"], json.loads(line)["github_id"]): json.loads(line)
                 for line in DEV.read_text().splitlines() if line.strip()}
    expect = [0, 0, 0]
    for rec in records:
        t = raw_tasks[(rec["id"], rec["github_id"])]
        pos = official_positions([official_text_verdict(o, t["arguments"], t["type"]) for o in rec["output"]])
        expect = [a + b for a, b in zip(expect, pos)]
    assert report["n"] == len(records) == 19
    assert [round(report[f"pass@{k}"] * 19) for k in (1, 2, 5)] == expect == [10, 13, 13]
    assert report["failures"] == {"model": 6, "infra": 0}
    assert report["per_repo"]["dgl"]["n"] == 2


def test_records_without_five_samples_are_dropped_like_the_official_scorer(mlbench_data):
    tasks = load_tasks(mlbench_data / "dev.jsonl").tasks
    records, _ = load_outputs(mlbench_data / REF_DGL)
    report = score_outputs(records, tasks, "/nonexistent", execute=False)
    assert report["n"] == 0 and len(report["dropped"]) == 7 and "dropped" in report["note"]
    kept = score_outputs(records, tasks, "/nonexistent", execute=False,
                         config=load_config(overrides=["bench.legacy_require_n=0"]))
    assert kept["n"] == 7 and kept["samples_per_task"] == 1
    assert kept["pass@1"] == kept["pass@5"] == pytest.approx(4 / 7)


@pytest.mark.parametrize("output,typ,ok", [
    ("python train.py --x 1", "Bash Script", True),
    ("python train.py", "Bash Script", False),          # no trailing space after .py
    ("python train.py\n", "Bash Script", False),        # a newline is not a space
    ("bash run.sh a", "Bash Script", True),
    ("import x\nx.run()", "Python Code", True),
    ("import os\nos.system('python a.py --b')", "Python Code", False),
])
def test_type_check_is_the_official_substring_rule(output, typ, ok):
    assert legacy.type_ok(output, typ) is ok


def test_arguments_check_uses_str_lower_of_values_only():
    args = {"lr": 0.1, "flag": True, "ids": [1, 2], "Name": "CORA"}
    assert legacy.arguments_ok("python a.py --lr 0.1 --flag true --ids [1, 2] --data cora", args)
    assert not legacy.arguments_ok("python a.py --lr 0.1 --flag true --ids 1 2 --data cora", args)
    assert legacy.arguments_ok("anything", {})


def test_run_mode_is_decided_by_the_text_not_the_task_type():
    assert legacy.run_mode("python main.py --a b") == "bash"
    assert legacy.run_mode("import main\nmain.run()") == "python"
    assert legacy.run_mode("python main.py") == "python"  # quirk: no trailing space -> temp.py


def test_timeouts_are_keyed_by_repository_and_mode():
    assert legacy.legacy_timeout(5, "bash") == legacy.legacy_timeout(5, "python") == 4
    assert legacy.legacy_timeout(11, "python") == 7 and legacy.legacy_timeout(11, "bash") == 10
    assert legacy.legacy_timeout(1, "python") == 10


@pytest.mark.parametrize("passes", [
    [True] * 5, [False, True, False, False, False], [False, False, False, True, True],
    [False] * 5, [False, False, True, True, True],
])
def test_pass_positions_match_the_official_bookkeeping(passes):
    assert tuple(int(passed_at(passes, k)) for k in (1, 2, 5)) == official_positions(passes)
    assert tuple(pass_rates([passes]).values()) == official_positions(passes)


def test_pass_rates_divide_by_the_given_task_count():
    rates = pass_rates([[False, True], [True, False], [False, False]], ks=(1, 2), n_tasks=4)
    assert rates == {"pass@1": 0.25, "pass@2": 0.5}
    assert pass_rates([], ks=(1,)) == {"pass@1": 0.0}


def test_unbiased_estimator():
    assert pass_at_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 5, 5) == 1.0
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert pass_at_k(1, 1, 5) is None


def test_unmatched_outputs_are_not_counted():
    t = Task(id=1, github_id=1, instruction="x", arguments={"a": "b"}, type="Bash Script", path="./")
    report = score_outputs([{"id": 99, "github_id": 1, "output": ["python b.py "] * 5},
                            {"id": 1, "github_id": 1, "output": ["python b.py "] * 5}],
                           [t], "/nonexistent", execute=False)
    assert report["n"] == 1 and report["unmatched"] == ["1:99"] and report["pass@1"] == 1.0
