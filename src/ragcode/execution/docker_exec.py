"""The ``docker`` executor: each answer in a fresh container of the repository's image.

The container starts with ``sleep`` as a dead-man switch (it ends by itself even if ragcode
dies), has no network, memory / cpu / pids caps, the scratch copy mounted at ``/workspace``,
and is removed on every path. The answer runs with ``exec`` under ``timeout -s KILL``.
Images come from ``execution.docker_images`` (repo folder, or ``"*"`` for all).
"""

from __future__ import annotations

import logging
import shlex
import time
from typing import TYPE_CHECKING, Any

from ragcode.errors import ExecutionError
from ragcode.execution import ExecResult, ExecSpec
from ragcode.execution.scratch import scratch_copy

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig

log = logging.getLogger(__name__)
MOUNT = "/workspace"


def docker_client() -> Any:
    """A connected docker client, or ExecutionError saying why there is none."""
    try:
        import docker
    except ImportError:
        raise ExecutionError("the docker executor needs the docker SDK: pip install 'ragcode[docker]'") from None
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # noqa: BLE001 - the SDK raises many kinds
        raise ExecutionError(f"no docker engine answers ({exc.__class__.__name__}: {exc}); start "
                             "dockerd or use execution.executor=local") from None
    return client


class DockerExecutor:
    name = "docker"

    def __init__(self, config: ExecutionConfig | None = None):
        from ragcode.config import ExecutionConfig

        self.config = config or ExecutionConfig()
        self._client: Any = None

    def isolation(self) -> str:
        net = "network-allowed" if self.config.network else "network-none"
        return f"docker({net},mem={self.config.memory_mb}m,cpus={self.config.docker_cpus},pids={self.config.docker_pids})+scratch-copy"

    def image_for(self, repo_name: str) -> str:
        image = self.config.docker_images.get(repo_name) or self.config.docker_images.get("*")
        if not image:
            raise ExecutionError(f"no docker image for repository {repo_name!r}; set "
                                 f"execution.docker_images.{repo_name or '*'}=IMAGE")
        return image

    def run(self, spec: ExecSpec) -> ExecResult:
        iso = self.isolation()
        try:
            image = self.image_for(spec.repo_name)
            if self._client is None:
                self._client = docker_client()
            with scratch_copy(spec.repo_dir, self.config.scratch_dir or None) as work:
                return self._run(spec, work, image, iso)
        except ExecutionError as exc:
            return ExecResult(None, False, iso, infra_error=str(exc))

    def _run(self, spec: ExecSpec, work: Any, image: str, iso: str) -> ExecResult:
        rel = (spec.workdir or ".").lstrip("/") or "."
        cwd = f"{MOUNT}/{rel}".rstrip("/.") or MOUNT
        if spec.mode == "python":
            (work / rel / "temp.py").write_text(spec.code, encoding="utf-8")
            inner = "python temp.py"
        else:
            inner = spec.code
        python = self.config.envs.get(spec.repo_name)
        prefix = f"export PATH={shlex.quote(str(python).rsplit('/', 1)[0])}:$PATH; " if python else ""
        timeout = max(1, int(round(spec.timeout_s)))
        cmd = ["timeout", "-s", "KILL", str(timeout), "bash", "-c", prefix + inner]
        container = None
        start = time.monotonic()
        try:
            container = self._client.containers.run(
                image, ["sleep", str(timeout + 120)], detach=True, remove=False,
                network_mode="bridge" if self.config.network else "none",
                mem_limit=f"{self.config.memory_mb}m", nano_cpus=int(self.config.docker_cpus * 1e9),
                pids_limit=self.config.docker_pids,
                volumes={str(work): {"bind": MOUNT, "mode": "rw"}}, working_dir=MOUNT,
                environment={"HF_HUB_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1", **self.config.env})
            code, output = container.exec_run(cmd, workdir=cwd, demux=True)
            out, err = output if isinstance(output, tuple) else (output, b"")
            timed_out = code == 137 or code == 124
            return ExecResult(None if timed_out else code, timed_out, iso,
                              stdout=(out or b"").decode("utf-8", "replace")[-4000:],
                              stderr=(err or b"").decode("utf-8", "replace")[-4000:],
                              duration_s=round(time.monotonic() - start, 3))
        except Exception as exc:  # noqa: BLE001 - docker errors are infrastructure failures
            return ExecResult(None, False, iso, infra_error=f"docker: {exc.__class__.__name__}: {exc}")
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception as exc:  # noqa: BLE001
                    log.warning("could not remove container %s: %s", container.id[:12], exc)
