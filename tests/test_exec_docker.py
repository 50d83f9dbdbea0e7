"""The docker executor: runs only where an engine answers; otherwise skipped with the reason."""

from __future__ import annotations

import pytest
from exec_helpers import make_repo, tree_hash

from ragcode.config import ExecutionConfig
from ragcode.errors import ExecutionError
from ragcode.execution import ExecSpec, load_executor


def _engine_or_skip():
    try:
        from ragcode.execution.docker_exec import docker_client

        return docker_client()
    except ExecutionError as exc:
        pytest.skip(str(exc))


def test_docker_without_an_image_is_an_infrastructure_failure(tmp_path):
    ex = load_executor(ExecutionConfig(executor="docker"))
    res = ex.run(ExecSpec(code="echo hi", mode="bash", repo_dir=make_repo(tmp_path), timeout_s=2))
    assert res.exit_code is None and "no docker image" in res.infra_error
    assert "network-none" in ex.isolation()


def test_docker_runs_contained_and_removes_its_container(tmp_path):
    client = _engine_or_skip()
    images = [t for i in client.images.list() for t in i.tags]
    if not images:
        pytest.skip("the docker engine has no local image (no registry is reachable here)")
    repo = make_repo(tmp_path)
    before = tree_hash(repo)
    ex = load_executor(ExecutionConfig(executor="docker", docker_images={"*": images[0]}))
    n_before = len(client.containers.list(all=True))
    res = ex.run(ExecSpec(code="echo hi > x.txt && cat x.txt", mode="bash", repo_dir=repo, timeout_s=10))
    assert res.exit_code == 0 and "hi" in res.stdout
    assert len(client.containers.list(all=True)) == n_before
    assert tree_hash(repo) == before
