"""Hostile answers that go after the host itself: its files, its sockets, its disk, a missing
sandbox, and what a killed scorer leaves behind. Each names the attack it stands for."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from exec_helpers import interpreter_for_other_uid, processes_with, repo  # noqa: F401 (repo: a fixture)

from ragcode.config import ExecutionConfig
from ragcode.errors import ExecutionError
from ragcode.execution import ExecSpec
from ragcode.execution import local as local_mod
from ragcode.execution.bwrap import interpreter_prefixes
from ragcode.execution.cgroup import _ROOTS
from ragcode.execution.local import LocalExecutor, bwrap_works

needs_bwrap = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap does not work on this machine")


def executor(**kw) -> LocalExecutor:
    base = {"timeout_s": 3, "memory_mb": 1024, "cpu_s": 20, "max_procs": 64}
    return LocalExecutor(ExecutionConfig(**{**base, **kw}))


def run(ex: LocalExecutor, repo: Path, code: str, mode: str = "bash", timeout: float = 3.0):
    return ex.run(ExecSpec(code=code, mode=mode, repo_dir=repo, workdir="examples/gcn", timeout_s=timeout))


@pytest.fixture
def host_secret():
    """A world-readable secret in the host's /var/tmp, a neighbouring run's samples.jsonl and a
    neighbouring checkout, outside any /tmp (bwrap's old view only hid /tmp and /root)."""
    token = secrets.token_hex(8)
    folder = Path("/var/tmp") / f"ragcode-host-{token}"
    (folder / "runs" / "other").mkdir(parents=True)
    (folder / "checkout").mkdir()
    for f in (folder / "secret.txt", folder / "runs" / "other" / "samples.jsonl", folder / "checkout" / "README.md"):
        f.write_text(token)
        f.chmod(0o644)
    for d in (folder, folder / "runs", folder / "runs" / "other", folder / "checkout"):
        d.chmod(0o755)
    yield folder, token
    subprocess.run(["rm", "-rf", str(folder)], check=False)


@needs_bwrap
def test_host_file_read_sees_nothing_of_the_host(repo, host_secret):
    folder, token = host_secret
    code = (f"cat {folder}/secret.txt {folder}/runs/other/samples.jsonl {folder}/checkout/README.md; "
            f"cat /etc/shadow; grep -rs {token} /var /home /run /opt /srv /mnt; "
            "ls -a / /etc; echo done")
    res = run(executor(), repo, code)
    assert res.exit_code == 0 and "done" in res.stdout
    assert token not in res.stdout
    listing = res.stdout.split("/etc:")
    top = set(listing[0].split()) - {"/:", ".", ".."}
    interp_tops = {Path(p).parts[1] for p in interpreter_prefixes(sys.executable)}
    assert top <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev", "proc", "tmp", "ragcode",
                   *interp_tops}
    assert "shadow" not in listing[1] and "ssh" not in listing[1]
    assert repo.parent.name not in res.stdout  # the checkout's own host path is not shown either


@needs_bwrap
def test_neighbours_of_the_interpreter_stay_hidden(repo):
    """The venv is visible read-only; the working tree around it (other checkouts) is not."""
    venv = Path(sys.prefix)
    res = run(executor(), repo, f"ls -a {venv.parent}; touch {venv}/x 2>/dev/null || echo readonly")
    assert res.exit_code == 0
    assert set(res.stdout.split()) - {".", ".."} == {venv.name, "readonly"}


@needs_bwrap
def test_host_unix_socket_cannot_be_reached(repo):
    sock_dir = Path("/var/tmp") / f"ragcode-sock-{secrets.token_hex(6)}"
    sock_dir.mkdir(mode=0o777)
    sock_dir.chmod(0o777)
    path = sock_dir / "agent.sock"
    abstract = f"\0ragcode-{secrets.token_hex(6)}"
    servers, hits = [], []
    for addr in (str(path), abstract):
        s = socket.socket(socket.AF_UNIX)
        s.bind(addr)
        s.listen(2)
        s.settimeout(5)
        servers.append(s)
    if path.exists():
        path.chmod(0o777)

    def accept(s):
        try:
            conn, _ = s.accept()
            hits.append(conn.recv(10))
        except OSError:
            pass

    threads = [threading.Thread(target=accept, args=(s,)) for s in servers]
    for t in threads:
        t.start()
    code = textwrap.dedent(f"""
        import socket
        for addr in ({str(path)!r}, {abstract!r}):
            try:
                s = socket.socket(socket.AF_UNIX); s.settimeout(1); s.connect(addr); s.sendall(b'leak')
                print('connected', repr(addr))
            except OSError as e:
                print('refused', type(e).__name__)
        """)
    try:
        res = run(executor(), repo, code, mode="python")
    finally:
        for s in servers:
            s.close()
        for t in threads:
            t.join()
        subprocess.run(["rm", "-rf", str(sock_dir)], check=False)
    assert res.exit_code == 0, res.stderr
    assert "connected" not in res.stdout and res.stdout.count("refused") == 2
    assert hits == []


@needs_bwrap
def test_disk_fill_is_capped_and_fails_the_answer(repo):
    """4 x 40 MB against a 50 MB cap, into the copy, /tmp and HOME: the tmpfs stops it, the
    answer's 'exit 0' does not make it pass, and nothing lands on the host."""
    code = ("dd if=/dev/zero of=big1 bs=1M count=40 2>/dev/null; dd if=/dev/zero of=/tmp/big2 bs=1M count=40 2>/dev/null; "
            "dd if=/dev/zero of=$HOME/big3 bs=1M count=40 2>/dev/null; dd if=/dev/zero of=$TMPDIR/big4 bs=1M count=40 2>/dev/null; "
            "du -smx /tmp; exit 0")  # -x: the tmpfs only, not a venv bound under /tmp
    res = run(executor(disk_mb=50), repo, code, timeout=20)
    assert res.exit_code == 0 and res.limit_hit == "disk"
    used = int(res.stdout.split()[0])
    assert used <= 52  # the copy (a few KB) + 50 MB, never 160


def test_disk_fill_without_bwrap_is_watched_and_stopped(repo):
    ex = executor(isolation="none", disk_mb=20, python=interpreter_for_other_uid())
    res = run(ex, repo, "for i in 1 2 3 4 5 6 7 8; do dd if=/dev/zero of=big$i bs=1M count=10 2>/dev/null; sleep 0.3; done; exit 0",
              timeout=20)
    assert res.limit_hit == "disk" and res.exit_code is None


def test_legacy_scorer_fails_an_answer_that_hit_the_disk_cap():
    from ragcode.bench.scoring import ExecStrictScorer, LegacyScorer
    from ragcode.execution import ExecResult

    full = ExecResult(0, False, "test", limit_hit="disk")
    assert not LegacyScorer().run_passed(full) and not ExecStrictScorer().run_passed(full)
    assert LegacyScorer().run_passed(ExecResult(0, False, "test"))


def test_no_bubblewrap_refuses_to_execute(monkeypatch):
    monkeypatch.setattr(local_mod, "bwrap_works", lambda: False)
    with pytest.raises(ExecutionError) as err:
        LocalExecutor(ExecutionConfig(isolation="auto"))
    msg = str(err.value)
    assert "bubblewrap" in msg and "executor=docker" in msg and "isolation=none" in msg and "\n" not in msg


def test_no_bubblewrap_through_the_cli_is_one_line_exit_2(tmp_path, monkeypatch):
    """`mlbench score` with execution on a machine without bubblewrap: one line, exit 2."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("sh", "bash", "cp", "setpriv", "unshare", "env", "true"):  # everything but bwrap
        exe = subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if exe:
            (bindir / tool).symlink_to(exe)
    outputs = tmp_path / "out.jsonl"
    outputs.write_text(json.dumps({"github_id": 1, "id": 1, "output": ["python train.py"] * 5}) + "\n")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"github_id": 1, "id": 1, "repo_id": 1, "instruction": "train", "path": ".",
                                 "type": "Bash Script", "arguments": "{}", "output": "python train.py"}) + "\n")
    env = {**os.environ, "PATH": str(bindir)}
    proc = subprocess.run([str(Path(sys.executable).parent / "ragcode"), "mlbench", "score", str(outputs), "--tasks", str(tasks),
                           "--repos", str(tmp_path)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "bubblewrap" in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.strip()]) == 1


def test_isolation_none_as_root_runs_as_an_unprivileged_uid(repo):
    if os.geteuid() != 0:
        pytest.skip("only root can switch to another uid")
    ex = executor(isolation="none", python=interpreter_for_other_uid())
    res = run(ex, repo, "id -u")
    assert res.exit_code == 0 and int(res.stdout.strip()) >= 200_000


def test_isolation_none_as_root_refuses_an_interpreter_no_other_uid_can_run(repo, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can switch to another uid")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    (private / "python").symlink_to(sys.executable)
    res = run(executor(isolation="none", python=str(private / "python")), repo, "id -u")
    assert res.exit_code is None and "refusing to run an answer as root" in res.infra_error


def test_missing_interpreter_is_an_infrastructure_failure(repo):
    """Exit 127 from a missing interpreter is the machine's fault, for bash answers too."""
    res = run(executor(python="/nonexistent/bin/python"), repo, "python train.py --dataset cora")
    assert res.exit_code is None and "does not exist" in res.infra_error


def test_killed_scorer_leaves_nothing_behind_after_the_next_start(repo, tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    token = str(800000 + secrets.randbelow(99999))
    script = textwrap.dedent(f"""
        from pathlib import Path
        from ragcode.config import ExecutionConfig
        from ragcode.execution import ExecSpec
        from ragcode.execution.local import LocalExecutor
        ex = LocalExecutor(ExecutionConfig(scratch_dir={str(scratch)!r}, isolation={_mode()!r},
                                           python={interpreter_for_other_uid()!r}))
        ex.run(ExecSpec(code="sleep " + "{token[:3]}" + "{token[3:]}", mode="bash", repo_dir=Path({str(repo)!r}), workdir=".", timeout_s=120))
        """)
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not processes_with(f"sleep {token}"):
            time.sleep(0.1)
        assert processes_with(f"sleep {token}"), "the answer never started"
        left = list(scratch.glob(f"ragcode-exec-{child.pid}-*"))
        assert left
        cgroups = [p for root in _ROOTS for p in root.glob(f"ragcode-{child.pid}-*")]
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert all(p.exists() for p in left)  # SIGKILL: nothing could clean up
    executor(scratch_dir=str(scratch), isolation=_mode(), python=interpreter_for_other_uid())
    assert not any(p.exists() for p in left)
    assert not any(p.exists() for p in cgroups)
    deadline = time.monotonic() + 10
    while processes_with(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(f"sleep {token}") == []


def _mode() -> str:
    return "bwrap" if bwrap_works() else "none"


@needs_bwrap
def test_report_isolation_comes_from_each_repositorys_own_interpreter(tmp_path):
    """A repository whose interpreter no other uid can run is labelled as run by a capability-less
    root, not with the default interpreter's own-uid."""
    from ragcode.bench.evaluate import isolation_by_repo, one_isolation

    if os.geteuid() != 0:
        pytest.skip("uids are switched only as root")
    shared = "/usr/bin/python3"
    if not Path(shared).exists():
        pytest.skip("no system python3")
    hidden = tmp_path / "private"
    (hidden / "bin").mkdir(parents=True)
    (hidden / "bin" / "python").symlink_to(os.path.realpath(shared))
    (hidden / "bin").chmod(0o700)  # bound as it is into the sandbox: no other uid gets through
    ex = LocalExecutor(ExecutionConfig(python=shared, envs={"dgl": str(hidden / "bin" / "python")}))
    labels = isolation_by_repo(ex, {"dgl", "esm"})
    if "own-uid" not in labels["esm"]:
        pytest.skip("the system python3 is not usable by another uid here")
    assert "root-without-caps" in labels["dgl"] and "own-uid" not in labels["dgl"]
    joined = one_isolation(labels)
    assert joined.startswith("dgl: ") and "; esm: " in joined


@needs_bwrap
def test_sandbox_init_command_line_names_no_host_path(repo):
    """/proc/1/cmdline inside is bubblewrap's own: it named the repository's and the staging
    folder's host paths; its options now come from a file (--args)."""
    res = run(executor(), repo, "tr '\\0' ' ' < /proc/1/cmdline")
    assert res.exit_code == 0 and res.stdout.startswith("bwrap --args"), res.stdout
    assert str(repo) not in res.stdout and "ragcode-exec-" not in res.stdout
