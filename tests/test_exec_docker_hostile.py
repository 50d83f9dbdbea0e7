"""Hostile answers against the ``docker`` executor, with the sandbox image: each is contained,
leaves no container or process behind, and leaves the repository checkout as it was."""

from __future__ import annotations

import secrets
import socket
import threading
from pathlib import Path

import pytest
from exec_helpers import processes_with, repo  # noqa: F401 (repo: a fixture)
from test_exec_docker import docker_executor, ours, run, sandbox

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def image():
    client, image = sandbox()
    yield image
    assert ours(client) == [], "a container was left behind"


class Listener:
    """A real server on the host (TCP on loopback, a Unix socket file, or an abstract one) that
    records whatever connects."""

    def __init__(self, family: int, address):
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.address = self.sock.getsockname()
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.received.append(conn.recv(100) or b"<connected>")
            except OSError:
                self.received.append(b"<connected>")
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join()
        self.sock.close()


def connect_code(family: str, address) -> str:
    return (f"import socket\ns = socket.socket(socket.{family})\ns.settimeout(2)\n"
            f"try:\n    s.connect({address!r}); s.sendall(b'leak'); print('connected')\n"
            "except OSError as e:\n    print('refused', e)\n")


def test_infinite_loop_is_killed_at_the_timeout_and_its_container_goes(repo, image):
    token = secrets.token_hex(6)
    res = run(docker_executor(image), repo, f"while true; do :; done # {token}", timeout=1)
    assert res.timed_out and res.exit_code is None and not res.infra_error
    assert 1.0 <= res.duration_s < 4.0
    assert processes_with(token) == []


def test_fork_bomb_is_bounded_by_the_pids_cap(repo, image):
    code = ("import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n"
            "            time.sleep(30); os._exit(0)\n        n += 1\n"
            "except OSError as e:\n    print('bounded at', n, e.errno)\n")
    res = run(docker_executor(image, docker_pids=32), repo, code, mode="python", timeout=10)
    assert res.exit_code == 0 and "bounded at" in res.stdout, res
    assert int(res.stdout.split()[2]) < 32
    name = "bomb" + secrets.token_hex(4)
    res = run(docker_executor(image, docker_pids=32), repo, f"{name}(){{ {name}|{name}& }}; {name}; sleep 3",
              timeout=2)
    assert res.timed_out or res.exit_code is not None
    assert processes_with(name) == []


def test_memory_hog_fails_under_the_memory_cap(repo, image):
    res = run(docker_executor(image, memory_mb=128), repo, "x = b'x' * (2 * 1024 ** 3)\nprint('got it')",
              mode="python", timeout=20)
    assert res.exit_code not in (0, None) and "got it" not in res.stdout, res
    assert res.limit_hit == "memory" or "MemoryError" in res.stderr


def test_writes_outside_the_scratch_copy_do_not_land_on_the_host(repo, image, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    var_tmp = Path("/var/tmp") / f"ragcode-escape-{secrets.token_hex(6)}"
    code = (f"mkdir -p {outside}; echo pwned > {outside}/pwned.txt; echo pwned > {repo}/pwned.txt; "
            f"echo pwned > /source/examples/gcn/train.py; echo pwned > /source/pwned.txt; "
            f"echo pwned > {var_tmp}; echo pwned > /pwned.txt; echo pwned > /etc/pwned; "
            "echo ok > local.txt && cat local.txt")
    try:
        res = run(docker_executor(image), repo, code)
        assert "ok" in res.stdout  # the scratch copy itself is writable
        assert not (outside / "pwned.txt").exists() and not (repo / "pwned.txt").exists()
        assert not var_tmp.exists() and not Path("/pwned.txt").exists() and not Path("/etc/pwned").exists()
        assert "pwned" not in (repo / "examples" / "gcn" / "train.py").read_text()
        assert "Read-only file system" in res.stderr
    finally:
        var_tmp.unlink(missing_ok=True)


def test_only_the_tmpfs_is_writable(repo, image):
    code = ("import os\nseen = []\nfor line in open('/proc/self/mounts'):\n    mp = line.split()[1]\n"
            "    p = os.path.join(mp, '.probe%d' % os.getpid())\n    try:\n        open(p, 'w').close()\n"
            "        os.unlink(p)\n        seen.append(mp)\n    except OSError:\n        pass\n"
            "print('writable', sorted(set(seen)))\n")
    res = run(docker_executor(image), repo, code, mode="python")
    assert res.exit_code == 0 and "writable" in res.stdout, res
    writable = set(eval(res.stdout.split("writable", 1)[1]))  # noqa: S307 - our own printout
    assert "/tmp" in writable and writable <= {"/tmp", "/dev/shm", "/dev/mqueue"}


def test_host_files_cannot_be_read(repo, image, tmp_path):
    token = secrets.token_hex(16)
    secret = tmp_path / "secret.txt"
    secret.write_text(f"SECRET={token}\n")
    # the token is searched for in two quoted halves: the answer reaches the container as a file, and
    # a search for the whole token would find that file (the answer's own text), not the host's secret
    code = (f"cat {secret}; cat /proc/1/root{secret}; cat /etc/shadow; "
            f"grep -rs \"{token[:16]}\"\"{token[16:]}\" / --exclude-dir=proc --exclude-dir=sys | head -n 3; echo done")
    res = run(docker_executor(image), repo, code, timeout=30)
    assert "done" in res.stdout, res
    assert token not in res.stdout + res.stderr
    try:
        host_shadow = [ln for ln in Path("/etc/shadow").read_text().splitlines() if ln.split(":")[1:2] != ["*"]]
    except OSError:
        host_shadow = []
    assert not any(ln and ln in res.stdout for ln in host_shadow)


def test_privileges_are_gone(repo, image):
    code = ("id -u; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; "
            "mount -o remount,rw / 2>&1; touch /remount-worked 2>&1; "
            "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null")
    res = run(docker_executor(image, docker_pids=48), repo, code)
    lines = res.stdout.splitlines()
    assert lines[0] != "0"
    assert "CapEff:\t0000000000000000" in res.stdout and "CapBnd:\t0000000000000000" in res.stdout
    assert "NoNewPrivs:\t1" in res.stdout and "48" in lines
    assert not Path("/remount-worked").exists()


def test_a_host_unix_socket_is_not_reachable(repo, image, tmp_path):
    listener = Listener(socket.AF_UNIX, str(tmp_path / "host.sock"))
    abstract = Listener(socket.AF_UNIX, f"\0ragcode-{secrets.token_hex(6)}")
    try:
        ex = docker_executor(image)
        for address in (str(tmp_path / "host.sock"), abstract.address, "/var/run/docker.sock",
                        "/run/docker.sock"):
            res = run(ex, repo, connect_code("AF_UNIX", address), mode="python")
            assert "refused" in res.stdout and "connected" not in res.stdout, (address, res)
    finally:
        listener.close()
        abstract.close()
    assert listener.received == [] and abstract.received == []


def test_a_host_tcp_server_on_loopback_is_not_reachable(repo, image):
    listener = Listener(socket.AF_INET, ("127.0.0.1", 0))
    try:
        res = run(docker_executor(image), repo, connect_code("AF_INET", listener.address), mode="python")
        gateway = run(docker_executor(image), repo, connect_code("AF_INET", ("172.17.0.1", listener.address[1])),
                      mode="python")
    finally:
        listener.close()
    assert listener.received == []
    assert "refused" in res.stdout and "connected" not in res.stdout, res
    assert "Network is unreachable" in gateway.stdout, gateway  # no route off the container at all


def test_disk_fill_fails_at_disk_mb_in_total_and_not_on_the_host(repo, image):
    name = f"ragcode-fill-{secrets.token_hex(6)}"
    code = (f"dd if=/dev/zero of=fill-{name} bs=1M count=12 status=none && echo first-ok; "
            f"dd if=/dev/zero of=/tmp/{name} bs=1M count=12 status=none && echo second-ok; "
            f"dd if=/dev/zero of=/dev/shm/{name} bs=1M count=12 status=none && echo third-ok; exit 1")
    res = run(docker_executor(image, disk_mb=16), repo, code)
    assert "first-ok" in res.stdout and "second-ok" not in res.stdout and "third-ok" not in res.stdout, res
    assert "No space left on device" in res.stderr and res.limit_hit == "disk"
    assert not Path("/tmp", name).exists() and not Path("/dev/shm", name).exists()
    assert not list(repo.rglob(f"fill-{name}"))


def test_background_children_die_with_the_container(repo, image):
    token = str(900000 + secrets.randbelow(99999))
    code = f"sleep {token} & (sleep {token} &) ; setsid sleep {token} & nohup sleep {token} >/dev/null 2>&1 & echo started"
    res = run(docker_executor(image), repo, code)
    assert res.exit_code == 0 and "started" in res.stdout
    assert processes_with(f"sleep {token}") == []


def test_the_dead_man_switch_cannot_be_killed_from_inside(repo, image):
    res = run(docker_executor(image), repo, "kill -9 1; kill -TERM 1; sleep 0.5; kill -0 1 && echo alive")
    assert res.exit_code == 0 and "alive" in res.stdout and not res.infra_error, res


def test_no_container_of_this_process_outlives_a_run(repo, image):
    import docker

    client = docker.from_env()
    ex = docker_executor(image)
    for code in ("echo ok", "exit 7", "while :; do :; done"):
        run(ex, repo, code, timeout=1)
        assert ours(client) == []
