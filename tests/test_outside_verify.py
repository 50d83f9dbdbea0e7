"""benchmarks/outside_verify.py: every reference of a task file dry-run against a checkout made
here (a tiny argparse repository), verdicts reported, ``--write`` filling params and dryrun."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from dryrun_helpers import needs_bwrap, write

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "outside_verify.py"

TRAIN = """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.1)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--model", choices=["small", "large"], default="small")
args = p.parse_args()
raise SystemExit("the program body ran")
"""
MODEL = """
def build(width, depth=2, dropout=0.0):
    raise SystemExit("the program body ran")
"""


def _verify():
    spec = importlib.util.spec_from_file_location("outside_verify", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _task(id_: str, type_: str, reference: str, **extra) -> dict:
    return {"id": id_, "repo": "someone/tiny", "commit": "0" * 40, "path": ".", "type": type_,
            "instruction": "train it", "reference": reference, "params": {}, "dryrun": "", **extra}


def _tasks_file(tmp_path: Path, tasks: list[dict]) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path


@needs_bwrap
def test_reports_accepted_and_rejected_and_write_fills_params(tmp_path, capsys):
    repos = tmp_path / "repos"
    write(repos / "tiny", {"train.py": TRAIN, "model.py": MODEL})
    tasks = _tasks_file(tmp_path, [
        _task("tiny-01", "bash", "python train.py --lr 0.01 --model large", note="kept"),
        _task("tiny-02", "bash", "python train.py --learning-rate 0.01"),
        _task("tiny-03", "python", "from model import build\n\nnet = build(64, depth=4)"),
    ])
    rc = _verify().main(["--tasks", str(tasks), "--repos", str(repos), "--write",
                         "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    assert rc == 1  # one reference is not accepted
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines() if line.startswith("tiny-")}
    assert rows == {"tiny-01": "accepted", "tiny-02": "rejected", "tiny-03": "accepted"}
    assert "not accepted 1: tiny-02" in out
    written = [json.loads(line) for line in tasks.read_text(encoding="utf-8").splitlines()]
    assert [t["id"] for t in written] == ["tiny-01", "tiny-02", "tiny-03"]
    first, second, third = written
    assert first["params"] == {"lr": 0.01, "model": "large"} and first["dryrun"] == "argparse"
    assert first["note"] == "kept" and first["reference"] == "python train.py --lr 0.01 --model large"
    assert second["params"] == {} and second["dryrun"] == ""  # not accepted: left as it was
    assert third["dryrun"] == "signature"
    assert third["params"] == {"build.width": 64, "build.depth": 4}


@needs_bwrap
def test_all_accepted_exits_0_and_leaves_file_without_write(tmp_path, capsys):
    repos = tmp_path / "repos"
    write(repos / "tiny", {"train.py": TRAIN})
    tasks = _tasks_file(tmp_path, [_task("tiny-01", "bash", "python train.py --epochs 5")])
    before = tasks.read_text(encoding="utf-8")
    assert _verify().main(["--tasks", str(tasks), "--repos", str(repos), "--cache-dir", str(tmp_path / "c")]) == 0
    assert "accepted 1" in capsys.readouterr().out
    assert tasks.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("content, why", [
    ("{not json\n", "not JSON"),
    (json.dumps({"id": "x"}) + "\n", "missing or empty field"),
    (json.dumps(_task("a", "ruby", "x")) + "\n", "type must be"),
    (json.dumps(_task("a", "bash", "x")) + "\n" + json.dumps(_task("a", "bash", "y")) + "\n", "duplicate id"),
])
def test_bad_input_exits_2_in_one_line(tmp_path, capsys, content, why):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(content, encoding="utf-8")
    (tmp_path / "repos").mkdir()
    assert _verify().main(["--tasks", str(tasks), "--repos", str(tmp_path / "repos")]) == 2
    err = capsys.readouterr().err.strip()
    assert why in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_missing_checkout_exits_2(tmp_path, capsys):
    tasks = _tasks_file(tmp_path, [_task("tiny-01", "bash", "python train.py")])
    (tmp_path / "repos").mkdir()
    assert _verify().main(["--tasks", str(tasks), "--repos", str(tmp_path / "repos")]) == 2
    assert "checkout(s) missing" in capsys.readouterr().err
