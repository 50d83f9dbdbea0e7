"""Hostile answers against the ``local`` executor: each is contained, leaves no process behind,
and leaves the repository as it was."""

from __future__ import annotations

import os
import secrets
import socket
import threading
from pathlib import Path

import pytest
from exec_helpers import interpreter_for_other_uid, processes_with, repo  # noqa: F401 (repo: a fixture)

from ragcode.bench.scoring import ScoreContext, load_scorer
from ragcode.config import ExecutionConfig, load_config
from ragcode.execution import ExecSpec
from ragcode.execution.local import LocalExecutor, bwrap_works, unshare_works
from ragcode.types import Task

MODES = ["bwrap", "unshare", "none"]


def _available(mode: str) -> bool:
    return {"bwrap": bwrap_works, "unshare": unshare_works, "none": lambda: True}[mode]()


def executor(mode: str = "auto", **kw) -> LocalExecutor:
    if mode != "auto" and not _available(mode):
        pytest.skip(f"isolation {mode} does not work on this machine")
    if mode in ("unshare", "none") and "python" not in kw:
        kw["python"] = interpreter_for_other_uid()
    cfg = ExecutionConfig(isolation=mode, timeout_s=2, memory_mb=512, cpu_s=10, max_procs=64, **kw)
    return LocalExecutor(cfg)


def run(ex: LocalExecutor, repo: Path, code: str, mode: str = "bash", timeout: float = 2.0, workdir="examples/gcn"):
    return ex.run(ExecSpec(code=code, mode=mode, repo_dir=repo, workdir=workdir, timeout_s=timeout))


@pytest.mark.parametrize("mode", MODES)
def test_infinite_loop_is_killed_at_the_timeout(repo, mode):
    token = secrets.token_hex(6)
    res = run(executor(mode), repo, f"while true; do :; done # {token}", timeout=1)
    assert res.timed_out and res.exit_code is None
    assert processes_with(token) == []


@pytest.mark.parametrize("mode", MODES)
def test_fork_bomb_is_bounded_and_swept(repo, mode):
    ex = executor(mode)
    if not (ex.cgroups or ex._uid_for("/bin/sh") is not None):
        pytest.skip("neither a pids cgroup nor a separate uid: a fork bomb cannot be bounded here")
    name = "bomb" + secrets.token_hex(4)
    res = run(ex, repo, f"{name}(){{ {name}|{name}& }}; {name}; sleep 3", timeout=1)
    assert res.timed_out or res.exit_code is not None
    assert processes_with(name) == []
    assert not ex.cgroups or not list(Path("/sys/fs/cgroup/pids").glob(f"ragcode-{os.getpid()}-*"))


def test_memory_hog_fails_under_the_address_space_limit(repo):
    res = run(executor(), repo, "x = bytearray(3 * 1024 ** 3)\nprint('got it')", mode="python")
    assert res.exit_code not in (0, None) and "got it" not in res.stdout
    assert "MemoryError" in res.stderr


def test_writes_outside_the_scratch_copy_do_not_land(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    code = (f"echo pwned > {outside}/pwned.txt; echo pwned > {repo}/pwned.txt; "
            f"echo pwned > {repo}/examples/gcn/train.py; echo ok > local.txt && cat local.txt")
    res = run(executor(), repo, code)
    assert not (outside / "pwned.txt").exists()
    assert not (repo / "pwned.txt").exists()
    assert "pwned" not in (repo / "examples" / "gcn" / "train.py").read_text()
    assert "ok" in res.stdout  # the scratch copy itself is writable


def test_network_attempt_is_blocked(repo):
    ex = executor()
    if "net" not in ex.isolation() or "network-open" in ex.isolation():
        pytest.skip(f"no network isolation here ({ex.isolation()})")
    received: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(4)
    port = server.getsockname()[1]

    def accept():
        try:
            conn, _ = server.accept()
            received.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    t = threading.Thread(target=accept)
    t.start()
    code = ("import socket\ns = socket.create_connection(('127.0.0.1', %d), timeout=1)\n"
            "s.sendall(b'leak')\nprint('connected')\n" % port)
    res = run(ex, repo, code, mode="python")
    t.join()
    server.close()
    assert received == []
    assert res.exit_code != 0 and "connected" not in res.stdout


@pytest.mark.parametrize("mode", MODES)
def test_orphaned_background_children_are_gone_after_the_answer(repo, mode):
    token = str(900000 + secrets.randbelow(99999))
    code = (f"sleep {token} & (sleep {token} &) ; setsid sleep {token} & "
            f"nohup sleep {token} >/dev/null 2>&1 & echo started")
    res = run(executor(mode), repo, code, timeout=5)
    assert res.exit_code == 0 and "started" in res.stdout
    assert processes_with(f"sleep {token}") == []


def test_grading_spoofed_output(repo):
    """An answer that prints what a grader might look for must not pass on that account."""
    task = Task(id=1, github_id=1, instruction="train", path="./examples/gcn", type="Python Code",
                arguments={"dataset": "cora"})
    answer = "import sys\nprint('PASSED'); print('cora')\nprint('1 passed in 0.01s')\nsys.exit(1)"
    cfg = load_config(overrides=["execution.timeout_s=2", "execution.memory_mb=1024"])
    ctx = ScoreContext(repos_dir=repo.parent, config=cfg, executor=executor())
    # the fixture folder is "repo"; map github_id 1's folder by scoring through a renamed copy
    (repo.parent / "dgl").symlink_to(repo, target_is_directory=True)
    for policy in ("mlbench-legacy", "exec-strict"):
        v = load_scorer(policy).score_sample(task, answer, 0, ctx)
        assert v.checks["arguments"] and v.checks["type"]
        assert v.passed is False and v.exit_code == 1 and not v.infra_error


def test_repository_never_gets_temp_py(repo):
    res = run(executor(), repo, "open('temp_marker.txt', 'w').write('x')\nprint('ran')", mode="python")
    assert res.exit_code == 0 and "ran" in res.stdout
    assert not (repo / "examples" / "gcn" / "temp.py").exists()
    assert not (repo / "examples" / "gcn" / "temp_marker.txt").exists()


@pytest.mark.parametrize("mode", MODES)
def test_remount_and_privilege_tricks_do_not_escape(repo, mode):
    """Root inside the sandbox keeps no capabilities: remounting / read-write fails."""
    target = Path("/var/tmp") / f"ragcode-escape-{secrets.token_hex(6)}"
    code = f"mount -o remount,rw / 2>/dev/null; touch {target} 2>/dev/null; grep CapEff /proc/self/status"
    try:
        ex = executor(mode)
        res = run(ex, repo, code)
        if mode == "bwrap":
            assert not target.exists()
        elif os.geteuid() == 0:  # the host's world-writable /var/tmp is writable, but never as root
            assert "own-uid" in ex.isolation(ex.interpreter(""))
            assert not target.exists() or target.stat().st_uid != 0
        assert "CapEff:\t0000000000000000" in res.stdout
    finally:
        if target.exists():
            target.unlink()
