"""The dev split ships as task keys only; `--split dev` selects those tasks from the hub's full
split or from a local copy of it (a fixture here, never the network)."""

from __future__ import annotations

import json
import logging
import sys
import types
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcode.bench.dataset import HF_DATASET_ID, dev_keys, load_tasks
from ragcode.bench.repos import repo_for
from ragcode.cli import app
from ragcode.errors import TaskFormatError

FULL = Path(__file__).parent / "data" / "mlbench_full_fixture.jsonl"  # synthetic records
DEV_IN_FIXTURE = ["1:2", "1:9", "3:81", "7:201", "15:274"]  # in the dev split's order


def test_shipped_dev_keys_are_the_88_tasks_per_repository_as_documented():
    keys = dev_keys()
    assert len(keys) == len(set(keys)) == 88
    per_repo = Counter(repo_for(int(k.split(":")[0])).folder for k in keys)
    assert per_repo == {"dgl": 7, "bert": 7, "lavis": 9, "if": 7, "vid2vid": 4, "esm": 6, "open_clip": 4,
                        "Time-Series-Library": 5, "External-Attention-pytorch": 8, "PyTorch-GAN": 10,
                        "pytorch-image-models": 2, "learning3d": 6, "muzic": 6,
                        "Grounded-Segment-Anything": 7}


def test_shipped_file_holds_keys_only_no_task_text():
    from importlib.resources import files

    data = json.loads(files("ragcode.bench").joinpath("mlbench_dev.json").read_text())
    assert set(data) == {"about", "dataset", "split", "licence", "count", "keys"}
    assert data["dataset"] == HF_DATASET_ID and data["licence"] == "MIT"
    assert all(len(k) == 2 and all(isinstance(x, int) for x in k) for k in data["keys"])


def test_split_dev_selects_the_dev_tasks_of_a_local_full_split_in_dev_order(caplog):
    assert len(load_tasks(FULL)) == 8  # a local file is otherwise read whole
    with caplog.at_level(logging.WARNING):
        dev = load_tasks(FULL, split="dev")
    assert [t.key for t in dev] == DEV_IN_FIXTURE
    assert "83 of the 88 dev tasks are not in it" in caplog.text


def test_a_local_file_without_dev_tasks_or_with_a_hub_split_is_refused(write_tasks):
    other = write_tasks([(1, 900, "not a dev task"), (10, 1, "nor this one")], "other.jsonl")
    with pytest.raises(TaskFormatError, match="none of the 88 dev tasks"):
        load_tasks(other, split="dev")
    with pytest.raises(TaskFormatError, match="names a hub split"):
        load_tasks(FULL, split="quarter")
    with pytest.raises(TaskFormatError, match="unknown split 'test'"):
        load_tasks(FULL, split="test")


@pytest.fixture
def fake_hub(monkeypatch):
    """A stand-in ``datasets`` module serving the fixture as the hub's splits; records calls."""
    calls: list[tuple[str, str]] = []
    rows = [json.loads(line) for line in FULL.read_text().splitlines()]

    def load_dataset(dataset_id, split):
        calls.append((dataset_id, split))
        return rows if split == "full" else rows[:2]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return calls


def test_tasks_dev_reads_the_hub_full_split_and_keeps_the_dev_tasks(fake_hub):
    assert [t.key for t in load_tasks("dev")] == DEV_IN_FIXTURE
    assert [t.key for t in load_tasks(HF_DATASET_ID, split="dev")] == DEV_IN_FIXTURE
    assert len(load_tasks(HF_DATASET_ID, split="quarter")) == 2  # a hub split, taken whole
    assert fake_hub == [(HF_DATASET_ID, "full"), (HF_DATASET_ID, "full"), (HF_DATASET_ID, "quarter")]
    with pytest.raises(TaskFormatError, match="takes no --split quarter"):
        load_tasks("dev", split="quarter")


def test_score_with_split_dev_on_the_command_line_scores_only_dev_tasks(tmp_path):
    outputs = tmp_path / "outputs.jsonl"
    rows = [json.loads(line) for line in FULL.read_text().splitlines()]
    outputs.write_text("".join(json.dumps({"id": r["id"], "github_id": r["github_id"],
                                           "output": [r["output"] + " "] * 5}) + "\n" for r in rows))
    res = CliRunner().invoke(app, ["mlbench", "score", str(outputs), "--tasks", str(FULL), "--split", "dev",
                                   "--repos", str(tmp_path), "--no-exec", "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["n"] == 5 and report["pass@1"] == 1.0
    assert set(report["unmatched"]) == {"1:900", "10:901", "15:902"}
