"""Hostile answer texts: bytes and sizes a process argument cannot carry, answers that reach for
more than their bounds as a whole. Each is run and scored, never an error of the scorer."""

from __future__ import annotations

import json
import subprocess

import pytest
from bench_helpers import cli_argv, cli_env, make_bench
from exec_helpers import repo  # noqa: F401  (a fixture)
from test_exec_hostile import MODES, executor, run


@pytest.mark.parametrize("mode", MODES)
def test_nul_byte_in_bash_answer_runs(repo, mode):  # noqa: F811
    res = run(executor(mode), repo, "python train.py --dataset citeseer \u0000; echo after", timeout=20)
    assert not res.infra_error, res.infra_error
    assert res.exit_code == 0 and "trained citeseer" in res.stdout and "after" in res.stdout


@pytest.mark.parametrize("mode", MODES)
def test_bash_answer_over_128k_runs(repo, mode):  # noqa: F811
    code = "# " + "x" * 300_000 + "\npython train.py --dataset pubmed"
    res = run(executor(mode), repo, code, timeout=20)
    assert not res.infra_error, res.infra_error
    assert res.exit_code == 0 and "trained pubmed" in res.stdout


def test_lone_surrogate_in_python_answer_runs(repo):  # noqa: F811
    res = run(executor(), repo, "print('ok')  # \ud800", mode="python", timeout=20)
    assert not res.infra_error and res.exit_code == 0 and "ok" in res.stdout


def test_nul_byte_in_bash_answer_is_scored(tmp_path):
    """The ML-Bench outputs line with a NUL byte is executed and scored by ``mlbench score``."""
    tasks, repos = make_bench(tmp_path, n_tasks=1)
    outputs = tmp_path / "outputs.jsonl"
    answers = ["python train.py --dataset citeseer \u0000", "# " + "y" * 200_000 + "\npython train.py --dataset citeseer"] * 2 + ["python train.py --dataset citeseer"]
    outputs.write_text(json.dumps({"id": 100, "github_id": 1, "output": answers}) + "\n")
    res = subprocess.run(cli_argv("mlbench", "score", str(outputs), "--tasks", str(tasks), "--repos", str(repos),
                                  "--json", "--set", f"index.cache_dir={tmp_path / 'cache'}",
                                  "--set", "execution.timeout_s=30"),
                         env=cli_env(), capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    report = json.loads(res.stdout)
    assert report["n"] == 1 and report["pass@1"] == 1.0, {k: report[k] for k in report if k != "isolation"}


@pytest.mark.parametrize("mode", MODES)
def test_huge_output_never_lands_on_the_host_disk(repo, mode, tmp_path):  # noqa: F811
    """200 MB on stdout and stderr: kept as 4 KB tails, never written to a log file of the host
    (it was 1 GB per answer in the host's /tmp, outside the disk cap)."""
    import threading

    from ragcode.execution.scratch import tree_bytes

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    peak, stop = [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], tree_bytes(scratch))
            stop.wait(0.05)

    watcher = threading.Thread(target=sample)
    watcher.start()
    try:
        res = run(executor(mode, scratch_dir=str(scratch), disk_mb=20), repo,
                  "head -c 100000000 /dev/zero | tr '\\0' o; head -c 100000000 /dev/zero | tr '\\0' e >&2; "
                  "echo END; echo END >&2", timeout=60)
    finally:
        stop.set()
        watcher.join()
    assert res.exit_code == 0 and not res.limit_hit, (res.infra_error, res.stderr[-300:])
    assert res.stdout.endswith("END\n") and res.stderr.endswith("END\n")
    assert len(res.stdout) <= 4000 and len(res.stderr) <= 4000
    assert peak[0] < 20 * 1024 * 1024


HOG = ("for i in 1 2 3; do python -c \"import time; b = b'x' * (250 * 2**20); print('held', flush=True); "
       "time.sleep(8)\" & done; wait; echo survived")


@pytest.mark.parametrize("bound", ["cgroup", "watch"])
def test_three_processes_of_one_answer_share_one_memory_bound(repo, bound, monkeypatch):  # noqa: F811
    """3 x 250 MB against memory_mb=512: each process is under its address-space limit, their
    sum is not; the answer fails with limit_hit "memory" (it held 6 GB with 4096 before)."""
    from ragcode.bench.scoring import ExecStrictScorer, LegacyScorer
    from ragcode.execution.cgroup import AnswerCgroup

    ex = executor(disk_mb=16)
    if bound == "cgroup" and not ex.memory_cgroup:
        pytest.skip("no memory cgroup can be made here")
    if bound == "watch":
        make = AnswerCgroup.create
        monkeypatch.setattr(AnswerCgroup, "create", classmethod(lambda cls, pids, memory=0: make(pids, 0)))
    res = run(ex, repo, HOG, timeout=30)
    assert res.limit_hit == "memory", (res.exit_code, res.stdout[-300:], res.stderr[-300:])
    assert not LegacyScorer().run_passed(res) and not ExecStrictScorer().run_passed(res)
    assert res.stdout.count("held") < 3 or "survived" not in res.stdout


def test_capability_less_root_cannot_fill_the_root_dev_or_shm_past_the_cap(repo):  # noqa: F811
    """As a capability-less root (no uid switch), the sandbox's own root, /etc and /dev were
    writable tmpfs outside the disk cap; now they are read-only and /dev/shm is sized."""
    from ragcode.execution.bwrap import bwrap_works

    if not bwrap_works():
        pytest.skip("bubblewrap does not work here")
    code = ("for f in /x /etc/x /dev/x; do touch $f 2>/dev/null && echo WROTE $f; done; "
            "dd if=/dev/zero of=/dev/shm/big bs=1M count=60 2>/dev/null; du -sm /dev/shm; rm -f /dev/shm/big; "
            "python -c \"import multiprocessing as m; q = m.Queue(); q.put(1); print('queue', q.get())\"")
    res = run(executor(sandbox_uid_base=0, disk_mb=16), repo, code, timeout=30)
    assert "WROTE" not in res.stdout, res.stdout
    assert int(res.stdout.split("\n")[0].split()[0]) <= 16
    assert "queue 1" in res.stdout  # POSIX shared memory and semaphores still work


def test_unsandboxed_answer_leaves_nothing_in_the_hosts_shared_folders(repo):  # noqa: F811
    """isolation=none (answers you trust) runs under a fresh uid; what that uid left in /tmp,
    /var/tmp and /dev/shm is removed after the answer."""
    import os
    import secrets
    from pathlib import Path

    if os.geteuid() != 0:
        pytest.skip("a fresh uid is used only as root")
    tag = secrets.token_hex(6)
    places = [Path(p) / f"ragcode-left-{tag}" for p in ("/tmp", "/var/tmp", "/dev/shm")]
    code = "; ".join(f"echo x > {p}" for p in places) + f"; mkdir /tmp/ragcode-dir-{tag}; echo ok"
    try:
        res = run(executor("none"), repo, code, timeout=20)
        assert res.exit_code == 0 and "ok" in res.stdout, res.stderr
        assert not any(p.exists() for p in places) and not Path(f"/tmp/ragcode-dir-{tag}").exists()
    finally:
        for p in places:
            p.unlink(missing_ok=True)
