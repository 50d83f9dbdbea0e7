"""Worker counts are capped by the work and by the machine: ``--workers 40`` for one sample,
``scale.workers=1000000`` for a few, start no more workers than there is work or CPUs."""

from __future__ import annotations

import json
import logging

import psutil
import pytest
from scale_helpers import Square

from ragcode.config import load_config
from ragcode.scale.jobs import machine_slots, open_for
from ragcode.scale.pool import SerialPool


def _children() -> int:
    """Worker processes (spawned) of this test process; multiprocessing's resource tracker is not one."""
    return sum("spawn_main" in " ".join(c.cmdline()) for c in psutil.Process().children(recursive=True))


def test_workers_beyond_the_work_start_no_process(caplog):
    cfg = load_config(overrides=["scale.workers=40"])
    before = _children()
    pool = open_for(cfg, "processes", 1 << 20, {}, Square(), "mlbench score", pending=1)
    try:
        assert isinstance(pool, SerialPool) and _children() == before
    finally:
        pool.close()


@pytest.mark.parametrize("kind", ["processes", "threads"])
def test_a_million_workers_start_no_more_than_the_machine_runs(kind, caplog):
    cfg = load_config(overrides=["scale.workers=1000000"])
    before = _children()
    with caplog.at_level(logging.WARNING, logger="ragcode.scale.jobs"):
        pool = open_for(cfg, kind, 1 << 20, {}, Square(), "mlbench score", pending=10_000)
    try:
        assert pool.slots == min(machine_slots(kind), 10_000)
        if kind == "processes":
            assert _children() - before <= machine_slots("processes")
        assert "not 1000000: this machine runs at most" in caplog.text
    finally:
        pool.close(cancel=True)


def test_score_with_more_workers_than_samples_runs_them_serially(tmp_path):
    import subprocess

    from bench_helpers import cli_argv, cli_env, make_bench

    tasks, repos = make_bench(tmp_path, n_tasks=1)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps({"id": 100, "github_id": 1, "output": ["python train.py --dataset citeseer"] * 5})
                       + "\n")
    res = subprocess.run(cli_argv("mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                  "--workers", "40", "--json", "--set", f"index.cache_dir={tmp_path / 'cache'}"),
                         env=cli_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert json.loads(res.stdout)["pass@1"] == 1.0
