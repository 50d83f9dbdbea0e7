"""The ``docker`` executor: each answer in a fresh, locked-down container of the repository's image.

What is in force (``isolation()`` names it in every result):

- no network (``network_mode: none``: only a loopback of its own) unless ``execution.network``;
- a read-only root filesystem; the checkout bind-mounted read-only at ``/source`` is the only
  host path the container sees (besides the ``/etc/hosts``-like files docker writes itself);
- one private tmpfs at ``/tmp`` holding the answer's copy of the repository
  (``/tmp/workspace``, made inside the container, ``.git`` left out), ``HOME`` and temp files;
  it is sized so that the copy plus ``execution.disk_mb`` fit, with a small ``/dev/shm`` taken
  from the same budget: an answer can write at most ``disk_mb`` in all, then gets ENOSPC;
- memory (``memory_mb`` plus the tmpfs, whose pages count as the container's memory; no swap),
  CPU (``docker_cpus``) and process (``docker_pids``) caps; every capability dropped,
  ``no-new-privileges``, a non-root uid (the checkout's owner, or 65534 when root owns it);
- the timeout is kept on the host: at the deadline the container is killed; output is read as a
  stream and only its tails are kept (a chatty answer cannot fill ragcode's memory);
- the container's first process is ``sleep`` (a dead-man switch: the container ends and is
  auto-removed by itself even if ragcode is killed; as the namespace's init it ignores signals
  from the answer), carries the label ``ragcode.sandbox`` plus ``ragcode.sandbox.owner``
  (host:pid), and is force-removed on every path (timeout, error, KeyboardInterrupt).

Output is always drained (``ExecSpec.drain_stdout`` is a ``local`` executor notion).

Images come from ``execution.docker_images`` (repo folder, or ``"*"`` for all); they are never
pulled. ``scripts/docker_sandbox.sh`` builds a minimal Debian one offline.
"""

from __future__ import annotations

import base64
import logging
import os
import shlex
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragcode import cancel
from ragcode.errors import ExecutionError
from ragcode.execution import ExecResult, ExecSpec
from ragcode.execution.bwrap import RUN_BASH, answer_bytes
from ragcode.execution.gpus import docker_requests

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig

log = logging.getLogger(__name__)

SOURCE = "/source"  # the checkout, read-only
WORK = "/tmp/workspace"  # the answer's copy, on the tmpfs
HOME = "/tmp/home"
LABEL = "ragcode.sandbox"
NOBODY = 65534
MB = 1024 * 1024
PAGE = 4096
TAIL_CHARS = 4000
SETUP_TIMEOUT_S = 300.0  # copying the repository in, before the answer's clock starts
KILL_GRACE_S = 10.0  # how long to wait for the output stream to end after a kill
ANSWER_FILE = "/tmp/.ragcode-answer.sh"
MAX_ARG = 100_000  # what one chunk of a written file may hold (one argv string may hold 128 KiB)
DISK_FULL = "No space left on device"

# Runs as the sandbox user: copy the checkout (without .git) onto the tmpfs.
COPY_SCRIPT = r"""
dst=$1
mkdir -p "$dst" /tmp/home || exit 1
cd /source || exit 1
set --
for f in * .[!.]* ..?*; do
  if [ -e "$f" ] || [ -L "$f" ]; then [ "$f" = .git ] || set -- "$@" "$f"; fi
done
[ $# -eq 0 ] || exec cp -RP --preserve=mode,timestamps,links -- "$@" "$dst"/
"""
# Writes a file from base64 chunks (any bytes, no argv size limit per chunk).
WRITE_SCRIPT = 'f=$1; shift; printf %s "$@" | base64 -d > "$f"'
# Free space on the tmpfs, and the OOM-kill count of the container's memory cgroup (v1 or v2).
PROBE_SCRIPT = ("stat -f -c '%a %S' /tmp; cat /sys/fs/cgroup/memory/memory.oom_control "
                "/sys/fs/cgroup/memory.events 2>/dev/null")


def docker_client() -> Any:
    """A connected docker client, or ExecutionError saying why there is none."""
    try:
        import docker
    except ImportError:
        raise ExecutionError("the docker executor needs the docker SDK: pip install 'ragcode[docker]'") from None
    try:
        client = docker.from_env(timeout=60)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - the SDK raises many kinds
        raise ExecutionError(f"no docker engine answers ({exc.__class__.__name__}: {exc}); start one "
                             "(scripts/docker_sandbox.sh) or use execution.executor=local") from None
    return client


def tmpfs_bytes(repo: Path) -> int:
    """What a copy of ``repo`` (without its top-level ``.git``) takes on a tmpfs: whole pages."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(repo):
        if dirpath == str(repo) and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            total += -(-st.st_size // PAGE) * PAGE + (PAGE if not st.st_size else 0)
    return total


def _tail(buf: bytearray) -> str:
    return bytes(buf).decode("utf-8", "replace")[-TAIL_CHARS:]


def _chunks(data: bytes, size: int = MAX_ARG) -> list[str]:
    text = base64.b64encode(data).decode("ascii")
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


class _Stream:
    """Reads one exec's output in a thread, keeping only the tails; ``wait`` keeps a deadline."""

    def __init__(self, stream: Any):
        self.out, self.err = bytearray(), bytearray()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: Any) -> None:
        keep = 4 * TAIL_CHARS
        try:
            for out, err in stream:
                for buf, chunk in ((self.out, out), (self.err, err)):
                    if chunk:
                        buf += chunk
                        if len(buf) > 2 * keep:
                            del buf[:-keep]
        except Exception as exc:  # noqa: BLE001 - a killed container may end the stream rudely
            self.error = exc

    def wait(self, seconds: float) -> bool:
        """True when the output ended within ``seconds``."""
        self._thread.join(max(0.0, seconds))
        return not self._thread.is_alive()


class DockerExecutor:
    name = "docker"

    def __init__(self, config: ExecutionConfig | None = None):
        from ragcode.config import ExecutionConfig

        self.config = config or ExecutionConfig()
        self._client: Any = None
        self._images: set[str] = set()

    def isolation(self) -> str:
        c = self.config
        net = "network-allowed" if c.network else "network-none"
        return (f"docker({net},fs-ro,no-caps,no-new-privs,non-root,mem={c.memory_mb}m,"
                f"cpus={c.docker_cpus},pids={c.docker_pids})+tmpfs-copy(disk={c.disk_mb}m)"
                "+host-timeout+env-scrubbed+container-removed"
                + (f"+gpus({','.join(map(str, c.gpus))})" if c.gpus else ""))

    def image_for(self, repo_name: str) -> str:
        image = self.config.docker_images.get(repo_name) or self.config.docker_images.get("*")
        if not image:
            raise ExecutionError(f"no docker image for repository {repo_name!r}; set "
                                 f"execution.docker_images.{repo_name or '*'}=IMAGE")
        return image

    # -- running ------------------------------------------------------------------------------
    def run(self, spec: ExecSpec) -> ExecResult:
        """Run one answer; a cancelled ``ragcode.cancel`` token kills the container and raises
        ``Cancelled`` once it is removed."""
        cancel.checkpoint()
        result = self._run_checked(spec)
        cancel.checkpoint()
        return result

    def _run_checked(self, spec: ExecSpec) -> ExecResult:
        iso = self.isolation()
        try:
            image = self.image_for(spec.repo_name)
            repo, rel = self._paths(spec)
            if self._client is None:
                self._client = docker_client()
            self._check_image(image)
            return self._run(spec, repo, rel, image, iso)
        except ExecutionError as exc:
            return ExecResult(None, False, iso, infra_error=str(exc))

    @staticmethod
    def _paths(spec: ExecSpec) -> tuple[Path, str]:
        repo = Path(spec.repo_dir).resolve()
        if not repo.is_dir():
            raise ExecutionError(f"repository {spec.repo_dir} is not a directory; place the checkout "
                                 "there (see `ragcode mlbench prepare`) or fix --repos")
        cwd = (repo / ((spec.workdir or ".").lstrip("/") or ".")).resolve()
        if cwd != repo and repo not in cwd.parents:
            raise ExecutionError(f"task path {spec.workdir!r} leaves the repository")
        if not cwd.is_dir():
            raise ExecutionError(f"task path {spec.workdir!r} is not a directory in {spec.repo_dir}; "
                                 "is the checkout at the pinned commit?")
        return repo, cwd.relative_to(repo).as_posix()

    def _check_image(self, image: str) -> None:
        if image in self._images:
            return
        import docker

        try:
            self._client.images.get(image)
        except docker.errors.ImageNotFound:
            raise ExecutionError(f"docker image {image!r} is not on this engine (images are never "
                                 "pulled); build it with scripts/docker_sandbox.sh or `docker load` it") from None
        except Exception as exc:  # noqa: BLE001 - an engine that went away, an API error
            raise ExecutionError(f"docker: cannot inspect image {image!r}: {exc.__class__.__name__}: {exc}") from None
        self._images.add(image)

    def _create_kwargs(self, repo: Path) -> dict[str, Any]:
        import docker

        c = self.config
        shm_mb = max(1, min(64, c.disk_mb // 8))
        tmp_mb = -(-tmpfs_bytes(repo) // MB) + max(1, c.disk_mb - shm_mb) + 1
        st = repo.stat()
        uid, gid = (st.st_uid, st.st_gid) if st.st_uid else (NOBODY, NOBODY)
        env = {"HOME": HOME, "TMPDIR": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONNOUSERSITE": "1",
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "MPLBACKEND": "Agg", **c.env}
        mem = f"{c.memory_mb + tmp_mb + shm_mb}m"
        return dict(
            user=f"{uid}:{gid}", working_dir="/tmp", environment=env, hostname="sandbox",
            network_mode="bridge" if c.network else "none", read_only=True,
            mounts=[docker.types.Mount(SOURCE, str(repo), type="bind", read_only=True)],
            tmpfs={"/tmp": f"rw,exec,nosuid,nodev,size={tmp_mb}m,mode=1777"}, shm_size=f"{shm_mb}m",
            mem_limit=mem, memswap_limit=mem, nano_cpus=int(c.docker_cpus * 1e9),
            pids_limit=c.docker_pids, cap_drop=["ALL"], security_opt=["no-new-privileges"],
            ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0)], auto_remove=True,
            labels={LABEL: "1", f"{LABEL}.owner": f"{socket.gethostname()}:{os.getpid()}"},
            device_requests=docker_requests(c.gpus))  # execution.gpus: [] asks for none

    def _run(self, spec: ExecSpec, repo: Path, rel: str, image: str, iso: str) -> ExecResult:
        timeout = max(0.1, float(spec.timeout_s))
        container = None
        try:
            container = self._client.containers.create(
                image, ["sleep", str(int(timeout + SETUP_TIMEOUT_S + 120))], **self._create_kwargs(repo))
            container.start()
            with cancel.on_cancel(lambda: self._kill(container)):
                return self._answer(spec, container, rel, timeout, iso)
        except ExecutionError as exc:
            return ExecResult(None, False, iso, infra_error=str(exc))
        except Exception as exc:  # noqa: BLE001 - docker errors are infrastructure failures
            return ExecResult(None, False, iso, infra_error=f"docker: {exc.__class__.__name__}: {exc}")
        finally:
            if container is not None:
                self._remove(container)

    def _answer(self, spec: ExecSpec, container: Any, rel: str, timeout: float, iso: str) -> ExecResult:
        """Copy the repository in, then run the answer in the started ``container``."""
        cwd = WORK if rel == "." else f"{WORK}/{rel}"
        self._setup(container, ["sh", "-c", COPY_SCRIPT, "sh", WORK], "copy the repository in",
                    " (the checkout must be readable by that uid: chmod -R o+rX)")
        argv = self._answer_argv(spec, container, cwd)
        start = time.monotonic()
        code, stream, timed_out = self._exec(container, argv, cwd, timeout)
        duration = round(time.monotonic() - start, 3)
        stderr = _tail(stream.err)
        # checked after an exit 0 too: an answer that hid its "No space left" still failed
        hit = self._limit_hit(container, stderr)
        return ExecResult(None if timed_out else code, timed_out, iso, stdout=_tail(stream.out),
                          stderr=stderr, duration_s=duration, limit_hit=hit)

    def _answer_argv(self, spec: ExecSpec, container: Any, cwd: str) -> list[str]:
        python = self.config.envs.get(spec.repo_name)
        prefix = f"export PATH={shlex.quote(str(python).rsplit('/', 1)[0])}:$PATH; " if python else ""
        if spec.mode == "python":
            self._write(container, f"{cwd}/temp.py", spec.code)
            return ["bash", "-c", prefix + "exec python temp.py"]
        # always through a file: an argument carries no NUL byte and at most 128 KiB
        self._write(container, ANSWER_FILE, spec.code)
        return ["bash", "-c", prefix + RUN_BASH.format(path=ANSWER_FILE)]

    def _write(self, container: Any, path: str, text: str) -> None:
        data = answer_bytes(text)
        self._setup(container, ["sh", "-c", WRITE_SCRIPT, "sh", path, *_chunks(data)], f"write {path}")

    def _setup(self, container: Any, argv: list[str], what: str, hint: str = "") -> None:
        code, stream, timed_out = self._exec(container, argv, "/tmp", SETUP_TIMEOUT_S)
        if timed_out or code != 0:
            why = (_tail(stream.err).strip().splitlines() or [f"exit {code}"])[-1]
            if timed_out:
                why = f"it took over {SETUP_TIMEOUT_S:.0f}s"
            raise ExecutionError(f"docker: could not {what} as user {container.attrs['Config']['User']}: "
                                 f"{why}{hint}")

    def _exec(self, container: Any, argv: list[str], cwd: str, timeout: float) -> tuple[int | None, _Stream, bool]:
        """Run ``argv`` in the container; kill the container if it outlives ``timeout``."""
        api = self._client.api
        exec_id = api.exec_create(container.id, argv, workdir=cwd, stdin=False, tty=False)["Id"]
        stream = _Stream(api.exec_start(exec_id, stream=True, demux=True))
        if not stream.wait(timeout):
            self._kill(container)
            stream.wait(KILL_GRACE_S)
            return None, stream, True
        if stream.error is not None:
            raise stream.error
        info = api.exec_inspect(exec_id)
        for _ in range(50):  # the stream can end a moment before the exit code is recorded
            if not info.get("Running"):
                break
            time.sleep(0.02)
            info = api.exec_inspect(exec_id)
        if info.get("Running") or info.get("ExitCode") is None:
            raise ExecutionError(f"docker: the output of {argv[0]} ended but no exit code came")
        return info["ExitCode"], stream, False

    def _limit_hit(self, container: Any, stderr: str) -> str:
        """Which bound an answer ran into: ``disk`` (the tmpfs is full), ``memory`` (the
        OOM killer struck in the container's cgroup), or ``""``."""
        if DISK_FULL in stderr:
            return "disk"
        try:
            _, out = container.exec_run(["sh", "-c", PROBE_SCRIPT])
            words = out.decode("utf-8", "replace").split()
            free_blocks, block = int(words[0]), int(words[1])
            oom = [int(words[i + 1]) for i, w in enumerate(words[:-1]) if w == "oom_kill"]
        except Exception:  # noqa: BLE001 - only a hint for the result
            return ""
        if free_blocks * block < MB:
            return "disk"
        return "memory" if any(oom) else ""

    @staticmethod
    def _kill(container: Any) -> None:
        try:
            container.kill()
        except Exception as exc:  # noqa: BLE001 - already gone is fine
            log.debug("kill %s: %s", container.id[:12], exc)

    @staticmethod
    def _remove(container: Any) -> None:
        import docker

        try:
            container.remove(force=True)
            return
        except docker.errors.NotFound:
            return  # auto-remove was quicker
        except docker.errors.APIError as exc:
            if "already in progress" not in str(exc):
                log.warning("could not remove container %s: %s", container.id[:12], exc)
                return
        for _ in range(100):  # auto-remove is under way: return once it is done
            try:
                container.reload()
            except docker.errors.NotFound:
                return
            time.sleep(0.05)
        log.warning("container %s is still being removed", container.id[:12])
