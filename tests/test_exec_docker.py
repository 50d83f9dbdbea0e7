"""The docker executor: infrastructure errors, plain runs, cleanup on every path.

Cases that need an engine and the sandbox image (``scripts/docker_sandbox.sh`` makes both
offline; ``.ci/run`` calls it) skip with the reason where there is none.
"""

from __future__ import annotations

import os
import socket

import pytest
from exec_helpers import make_repo, repo  # noqa: F401 (repo: a fixture)

from ragcode.config import ExecutionConfig
from ragcode.errors import ExecutionError
from ragcode.execution import ExecSpec, load_executor

IMAGE = os.environ.get("RAGCODE_SANDBOX_IMAGE", "ragcode-sandbox:bookworm")


def sandbox():
    """(client, image) of a running engine that holds the sandbox image, or skip saying why."""
    try:
        from ragcode.execution.docker_exec import docker_client

        client = docker_client()
    except ExecutionError as exc:
        pytest.skip(str(exc))
    import docker

    try:
        client.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        pytest.skip(f"the docker engine has no image {IMAGE} (build it: bash scripts/docker_sandbox.sh)")
    return client, IMAGE


def ours(client) -> list:
    """Containers this test process's executors made (running or not)."""
    from ragcode.execution.docker_exec import LABEL

    owner = f"{LABEL}.owner={socket.gethostname()}:{os.getpid()}"
    return client.containers.list(all=True, filters={"label": owner})


def docker_executor(image: str, **kw):
    cfg = dict(executor="docker", docker_images={"*": image}, timeout_s=5, memory_mb=256,
               disk_mb=32, docker_pids=64, docker_cpus=1.0)
    return load_executor(ExecutionConfig(**{**cfg, **kw}))


def run(ex, repo, code, mode="bash", timeout=5.0, workdir="examples/gcn"):
    return ex.run(ExecSpec(code=code, mode=mode, repo_dir=repo, workdir=workdir, timeout_s=timeout))


def test_docker_without_an_image_is_an_infrastructure_failure(tmp_path):
    ex = load_executor(ExecutionConfig(executor="docker"))
    res = ex.run(ExecSpec(code="echo hi", mode="bash", repo_dir=make_repo(tmp_path), timeout_s=2))
    assert res.exit_code is None and "no docker image" in res.infra_error
    assert "network-none" in ex.isolation() and "fs-ro" in ex.isolation()


def test_an_unreachable_engine_is_a_one_line_infrastructure_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    res = run(docker_executor("any:image"), make_repo(tmp_path), "echo hi")
    assert res.exit_code is None and not res.timed_out
    assert res.infra_error.startswith(("no docker engine answers", "the docker executor needs"))
    assert "\n" not in res.infra_error and "Traceback" not in res.infra_error


def test_a_task_path_outside_the_repository_is_refused(tmp_path):
    res = run(docker_executor("any:image"), make_repo(tmp_path), "echo hi", workdir="../..")
    assert "leaves the repository" in res.infra_error


def test_an_image_missing_from_the_engine_is_not_pulled(repo):
    client, _ = sandbox()
    res = run(docker_executor("ragcode-no-such-image:none"), repo, "echo hi")
    assert res.exit_code is None and "not on this engine" in res.infra_error
    assert ours(client) == []


def test_docker_runs_bash_and_python_in_the_task_path(repo):
    client, image = sandbox()
    ex = docker_executor(image)
    res = run(ex, repo, "python train.py --dataset cora && echo hi > x.txt && cat x.txt && pwd")
    assert res.exit_code == 0 and "trained cora" in res.stdout and "hi" in res.stdout, res
    assert res.stdout.strip().endswith("/examples/gcn") and not res.infra_error
    res = run(ex, repo, "import sys\nsys.path.insert(0, '../..')\nimport mylib\nprint('v', mylib.VALUE)",
              mode="python")
    assert res.exit_code == 0 and "v 3" in res.stdout, res
    assert not (repo / "examples" / "gcn" / "temp.py").exists() and not (repo / "examples" / "gcn" / "x.txt").exists()
    assert res.isolation == ex.isolation()
    assert ours(client) == []


def test_exit_codes_and_stderr_come_back(repo):
    _, image = sandbox()
    res = run(docker_executor(image), repo, "echo oops >&2; exit 3")
    assert res.exit_code == 3 and "oops" in res.stderr and not res.timed_out


def test_a_bash_answer_longer_than_one_argument_still_runs(repo):
    _, image = sandbox()
    code = "echo start\n" + ("# padding\n" * 20_000) + "echo end"
    res = run(docker_executor(image), repo, code)
    assert res.exit_code == 0 and "start" in res.stdout and "end" in res.stdout


def test_a_flood_of_output_keeps_only_the_tail(repo):
    _, image = sandbox()
    res = run(docker_executor(image), repo, "yes ragcode-flood", timeout=2)
    assert res.timed_out and 0 < len(res.stdout) <= 4000 and "ragcode-flood" in res.stdout


def test_the_container_goes_when_the_run_is_interrupted(repo, monkeypatch):
    client, image = sandbox()
    from ragcode.execution import docker_exec

    real_wait = docker_exec._Stream.wait
    calls = []

    def interrupted(self, seconds):
        calls.append(seconds)
        if len(calls) == 2:  # the answer's exec (the first one copies the repository in)
            assert len(ours(client)) == 1, "the container should exist while the answer runs"
            raise KeyboardInterrupt
        return real_wait(self, seconds)

    monkeypatch.setattr(docker_exec._Stream, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(docker_executor(image), repo, "sleep 30")
    assert ours(client) == []


def test_the_container_goes_when_the_engine_fails_mid_run(repo, monkeypatch):
    client, image = sandbox()
    from ragcode.execution import docker_exec

    def broken(self, spec, container, cwd):
        raise RuntimeError("engine went away")

    monkeypatch.setattr(docker_exec.DockerExecutor, "_answer_argv", broken)
    res = run(docker_executor(image), repo, "echo hi")
    assert res.exit_code is None and res.infra_error == "docker: RuntimeError: engine went away"
    assert ours(client) == []


def test_an_unreadable_checkout_is_a_clear_infrastructure_error(repo):
    if os.geteuid() != 0:
        pytest.skip("needs root: a checkout owned by root is copied in as uid 65534")
    _, image = sandbox()
    secret = repo / "mylib" / "private.txt"
    secret.write_text("x")
    secret.chmod(0o600)
    try:
        res = run(docker_executor(image), repo, "echo hi")
    finally:
        secret.unlink()
    assert res.exit_code is None and "could not copy the repository in as user 65534:65534" in res.infra_error
    assert "private.txt" in res.infra_error and "chmod" in res.infra_error
