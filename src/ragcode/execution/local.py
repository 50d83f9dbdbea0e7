"""The ``local`` executor: an answer runs where it can see only its scratch copy.

Isolation (``execution.isolation``; the choice is recorded in every result):

- ``bwrap`` (bubblewrap; what ``auto`` takes): a new root holding only the system runtime, the
  interpreter, the repository read-only and a private size-bounded tmpfs that holds the scratch
  copy, ``/tmp`` and ``HOME`` (see ``ragcode.execution.bwrap``); new pid, ipc, uts and network
  namespaces; no capabilities.
- ``unshare`` / ``none``, only when asked for by name: the answer runs on the host filesystem
  (``unshare -n`` adds a network namespace) with a host-side scratch copy whose size is watched.
  As root the answer must run under an unprivileged uid or it is refused.

Without a working bubblewrap, ``auto`` refuses to execute: a missing sandbox never silently
becomes a weaker one. Always: a new session so the whole tree can be killed, CPU-time /
address-space / file-size / process-count rlimits, one memory bound for all the answer's
processes together (``execution.memory_mb``: a memory cgroup where one can be made, holding the
bwrap tmpfs's size on top; else a watch of their resident memory that kills the answer when the
sum passes it), a pids cgroup where one can be made, a
scrubbed environment, and (as root) a fresh unprivileged uid. Scratch folders name their owner;
folders and cgroups of dead owners (a scorer killed with SIGKILL) are swept when an executor
starts.
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ragcode import cancel
from ragcode.errors import ExecutionError
from ragcode.execution import ExecResult, ExecSpec
from ragcode.execution.bwrap import (RUN_BASH_FD, SHM_BYTES, START_SCRIPT, STAGE, WORK, View, answer_bytes, bwrap_works,
                                     unshare_works, write_accounts)
from ragcode.execution import gpus
from ragcode.execution.cgroup import AnswerCgroup
from ragcode.execution.limits import apply_rlimits, check_limits
from ragcode.execution.procs import find_survivors, kill_tree
from ragcode.execution.scratch import (marked_dir, scratch_copy, sweep_dead_owners, sweep_uid_files, tmpfs_bytes,
                                      tree_bytes)
from ragcode.execution.watch import Bounds, Tail, descendants, tmpfs_full, wait_sandboxed

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig

log = logging.getLogger(__name__)

MB = 1024 * 1024
DISK_FULL = "No space left on device"
_WARNED: set[str] = set()
_SETPRIV_DROP = ["--bounding-set=-all", "--inh-caps=-all"]
NO_SANDBOX = ("no sandbox for executed answers: bubblewrap (bwrap) is not installed or cannot create "
              "namespaces here. Install it (apt-get install -y bubblewrap), or use "
              "execution.executor=docker; execution.isolation=none runs answers unsandboxed as an "
              "unprivileged user and is only for answers you trust")


def choose_isolation(wanted: str) -> str:
    """``auto`` -> bwrap, or an error naming the fix; an explicit choice must work here."""
    checks: dict[str, Callable[[], bool]] = {"bwrap": bwrap_works, "unshare": unshare_works, "none": lambda: True}
    if wanted == "auto":
        if bwrap_works():
            return "bwrap"
        raise ExecutionError(NO_SANDBOX)
    if wanted not in checks:
        raise ExecutionError(f"execution.isolation {wanted!r} is not one of auto, bwrap, unshare, none")
    if not checks[wanted]():
        hint = "apt-get install -y bubblewrap" if wanted == "bwrap" else "util-linux with user namespaces"
        raise ExecutionError(f"execution.isolation={wanted} does not work on this machine ({hint})")
    return wanted


@functools.cache
def usable_by_other_uid(interpreter: str, uid: int, bwrap: bool = False) -> bool:
    """Can an unprivileged uid run ``interpreter`` (inside the bwrap view when ``bwrap``)?
    A venv whose Python sits under a 0700 /root cannot, outside bwrap.

    Probed through ``sh``: setpriv itself execs with capabilities still effective.
    """
    inner = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *_SETPRIV_DROP,
             "--", "sh", "-c", 'exec "$0" -I -c pass', interpreter]
    argv = View(interpreter, switch_uid=True).argv(inner) if bwrap else inner
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=60, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _kill_answer(leader: int, uid: int | None, cgroup: AnswerCgroup | None) -> None:
    """Kill a running answer from another thread (its work was cancelled); the waiting thread
    then sees it end and cleans up as after any other end."""
    if cgroup is not None:
        cgroup.kill_all()
    kill_tree(leader, uid)


def _write_shims(bindir: Path, interp: str) -> None:
    bindir.mkdir(mode=0o755)
    for name in ("python", "python3"):
        shim = bindir / name
        shim.write_text(f'#!/bin/sh\nexec "{interp}" "$@"\n')
        shim.chmod(0o755)


class LocalExecutor:
    name = "local"

    def __init__(self, config: ExecutionConfig | None = None):
        from ragcode.config import ExecutionConfig

        self.config = config or ExecutionConfig()
        self.mode = choose_isolation(self.config.isolation)
        check_limits(self.config, disk_in_memory=self.mode == "bwrap")
        base = self.config.scratch_dir
        if base and not Path(base).is_dir():
            raise ExecutionError(f"execution.scratch_dir {base} is not a directory; create it or leave it empty")
        missing = [p for p in self.config.ro_paths if not Path(p).exists()]
        if missing:
            raise ExecutionError(f"execution.ro_paths: {missing[0]} does not exist")
        self.run_as_root = os.geteuid() == 0
        self.can_switch_uid = (self.run_as_root and self.config.sandbox_uid_base > 0
                               and bool(shutil.which("setpriv")))
        sweep_dead_owners(base or None)
        AnswerCgroup.sweep_dead_owners()
        probe = AnswerCgroup.create(self.config.max_procs, self.config.memory_mb * MB)
        self.cgroups = probe is not None
        self.memory_cgroup = probe is not None and probe.memory
        self.gpu_nodes = gpus.device_nodes(self.config.gpus)  # execution.gpus; an error when absent
        if probe is not None:
            probe.remove()

    def _uid_for(self, interp: str) -> int | None:
        if not self.can_switch_uid:
            return None
        if not usable_by_other_uid(interp, self.config.sandbox_uid_base, self.mode == "bwrap"):
            if interp not in _WARNED and self.mode == "bwrap":
                _WARNED.add(interp)
                log.warning("interpreter %s is not readable by an unprivileged uid; answers run as a "
                            "capability-less root inside bwrap", interp)
            return None
        return self.config.sandbox_uid_base + 1 + secrets.randbelow(50_000)

    # -- what is in force ---------------------------------------------------------------------
    def isolation(self, interp: str | None = None) -> str:
        interp = interp or self.interpreter("")
        parts = ["session-kill", "rlimits", "env-scrubbed"]
        net = "" if self.config.network else "net,"
        if self.mode == "bwrap":
            parts[:0] = [f"bwrap({net}pid,ipc,fs-minimal,no-caps)", "tmpfs-scratch(disk-capped)"]
        else:
            parts[:0] = ["scratch-copy(disk-watched)"]
            if self.mode == "unshare" and not self.config.network:
                parts.insert(0, "unshare(net)")
        if self.config.network:
            parts.append("network-allowed")
        elif self.mode == "none":
            parts.append("network-open")
        if self.cgroups:
            parts.append("cgroup(pids,memory)" if self.memory_cgroup else "cgroup(pids)")
        if not self.memory_cgroup:
            parts.append("memory-watched")
        if self.config.gpus:
            parts.append(f"gpus({','.join(map(str, self.config.gpus))})")
        if self.can_switch_uid and usable_by_other_uid(interp, self.config.sandbox_uid_base, self.mode == "bwrap"):
            parts.append("own-uid")
        elif self.run_as_root:
            parts.append("root-without-caps")
        return "+".join(parts)

    def isolation_for(self, repo_name: str) -> str:
        """The isolation of answers to ``repo_name``'s tasks (its interpreter decides the uid)."""
        return self.isolation(self.interpreter(repo_name))

    def interpreter(self, repo_name: str) -> str:
        return self.config.envs.get(repo_name) or self.config.python or sys.executable

    # -- running ------------------------------------------------------------------------------
    def run(self, spec: ExecSpec) -> ExecResult:
        """Run one answer; under a cancelled ``ragcode.cancel`` token its processes are killed at
        once and, once everything is cleaned up, ``Cancelled`` is raised instead of a result."""
        cancel.checkpoint()
        result = self._run(spec)
        cancel.checkpoint()
        return result

    def _run(self, spec: ExecSpec) -> ExecResult:
        interp = self.interpreter(spec.repo_name)
        iso = self.isolation(interp)

        def infra(msg: str) -> ExecResult:
            return ExecResult(None, False, iso, infra_error=msg)

        if not Path(interp).exists():
            return infra(f"python interpreter {interp} for repository {spec.repo_name!r} does not exist; "
                         "set execution.envs.<repo>=/path/to/python")
        repo = Path(spec.repo_dir)
        if not repo.is_dir():
            return infra(f"repository {repo} is not a directory; place the checkout there "
                         "(see `ragcode mlbench prepare`) or fix --repos")
        rel = (spec.workdir or ".").lstrip("/") or "."
        if "\0" in rel:
            return infra(f"task path {spec.workdir!r} holds a NUL byte")
        cwd = (repo / rel).resolve()
        if cwd != repo.resolve() and repo.resolve() not in cwd.parents:
            return infra(f"task path {spec.workdir!r} leaves the repository")
        if not cwd.is_dir():
            return infra(f"task path {spec.workdir!r} is not a directory in {repo}; "
                         "is the checkout at the pinned commit?")
        uid = self._uid_for(interp)
        if uid is None and self.run_as_root and self.mode != "bwrap":
            return infra(f"refusing to run an answer as root without bubblewrap (isolation={self.mode}): "
                         f"no unprivileged uid can run {interp}; make it readable by other users, "
                         "or install bubblewrap")
        try:
            if self.mode == "bwrap":
                return self._run_bwrap(spec, repo, rel, uid, interp, iso)
            try:
                with scratch_copy(repo, self.config.scratch_dir or None, owner=uid) as work:
                    return self._run_host(spec, work, rel, uid, interp, iso)
            finally:
                if uid is not None:
                    sweep_uid_files(uid)
        except ExecutionError as exc:
            return infra(str(exc))

    def _run_bwrap(self, spec: ExecSpec, repo: Path, rel: str, uid: int | None, interp: str,
                   iso: str) -> ExecResult:
        with marked_dir(self.config.scratch_dir or None) as root:
            stage = root / "stage"
            stage.mkdir(mode=0o755)
            root.chmod(0o711)
            _write_shims(stage / "bin", interp)
            write_accounts(stage, uid if uid is not None else os.geteuid())
            (stage / "start.sh").write_text(START_SCRIPT)
            (stage / "answer").write_bytes(answer_bytes(spec.code))
            for p in stage.iterdir():
                if p.is_file():
                    p.chmod(0o644)
            size = tmpfs_bytes(repo) + self.config.disk_mb * MB
            view = View(interp, list(self.config.ro_paths), size + size // 100 + MB, self.config.network,
                        uid is not None, repo, stage, self.gpu_nodes, min(SHM_BYTES, self.config.disk_mb * MB))
            r, w = os.pipe()
            inner = ["/bin/bash", f"{STAGE}/start.sh", rel, spec.mode, "", str(w)]
            argv = view.argv(self._as_uid(inner, uid))
            # bwrap's options from a file (--args): its command line, which the answer sees as
            # /proc/1/cmdline, then names none of the host's paths (the command after -- stays)
            cut_at = argv.index("--")
            (root / "bwrap.args").write_bytes(b"".join(os.fsencode(a) + b"\0" for a in argv[1:cut_at]))
            args_fd = os.open(root / "bwrap.args", os.O_RDONLY)
            env = self._env(f"{STAGE}/bin", f"{WORK}/home", f"{WORK}/tmp")
            try:
                return self._spawn([argv[0], "--args", str(args_fd), *argv[cut_at:]], Path("/"), env, spec, uid, iso,
                                   report=(r, w), tmpfs=view.tmp_bytes + view.shm_bytes, keep_fds=(args_fd,))
            finally:
                os.close(args_fd)

    def _run_host(self, spec: ExecSpec, work: Path, rel: str, uid: int | None, interp: str,
                  iso: str) -> ExecResult:
        root = work.parent
        cwd = work / rel
        bindir, home, tmp = root / "bin", root / "home", root / "tmp"
        _write_shims(bindir, interp)
        for d in (home, tmp):
            d.mkdir()
        answer = cwd / "temp.py" if spec.mode == "python" else root / "answer"
        answer.write_bytes(answer_bytes(spec.code))
        answer.chmod(0o644)
        if uid is not None:
            for p in (home, tmp, answer):
                os.chown(p, uid, uid)
        fd = os.open(answer, os.O_RDONLY) if spec.mode == "bash" else None
        # never the answer itself as an argument (NUL bytes, 128 KiB per argument)
        inner = [str(bindir / "python"), "temp.py"] if fd is None else ["bash", "-c", RUN_BASH_FD.format(fd=fd)]
        if self.mode == "unshare" and not self.config.network:
            inner = ["unshare", "-n", "--", *self._as_uid(inner, uid)]
        else:
            inner = self._as_uid(inner, uid)
        env = self._env(str(bindir), str(home), str(tmp))
        limit = tree_bytes(root) + self.config.disk_mb * MB
        try:
            return self._spawn(inner, cwd, env, spec, uid, iso, disk=(root, limit), keep_fds=(fd,) if fd else ())
        finally:
            if fd is not None:
                os.close(fd)

    def _as_uid(self, inner: list[str], uid: int | None) -> list[str]:
        if uid is not None:
            return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *_SETPRIV_DROP, "--", *inner]
        return inner

    def _env(self, bindir: str, home: str, tmp: str) -> dict[str, str]:
        env = {
            "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
            "HOME": home, "TMPDIR": tmp, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONNOUSERSITE": "1",
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "MPLBACKEND": "Agg", "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        }
        gpus.set_visible(env, self.config.gpus)
        env.update(self.config.env)
        return env

    def _memory_watch(self, leader: int, uid: int | None,
                      cgroup: AnswerCgroup | None) -> tuple[Callable[[], list[int]], int] | None:
        """Where no memory cgroup bounds the answer: its processes (its tree, its session, its uid,
        its pids cgroup) and the bytes their resident memory may sum to."""
        if cgroup is not None and cgroup.memory:
            return None

        def members() -> list[int]:
            return [*descendants(leader), *find_survivors(leader, uid), *(cgroup.pids() if cgroup else [])]

        return members, self.config.memory_mb * MB

    def _spawn(self, argv: list[str], cwd: Path, env: dict[str, str], spec: ExecSpec,
               uid: int | None, iso: str, report: tuple[int, int] | None = None,
               disk: tuple[Path, int] | None = None, keep_fds: tuple[int, ...] = (),
               tmpfs: int = 0) -> ExecResult:
        """Start ``argv``, wait for the sandbox to be ready (``report``: the start script's fd),
        give the answer its timeout, then kill everything it left. ``disk``: a host folder whose
        size must stay under a limit (the disk cap where no tmpfs bounds it). The answer's
        output goes to pipes whose tails are kept (``ragcode.execution.watch.Tail``): no log
        file, so nothing of it lands outside the answer's own disk bound."""
        memory = self.config.memory_mb * MB
        # the tmpfs's pages are charged to the group that writes them; its own size bounds them
        cgroup = AnswerCgroup.create(self.config.max_procs, memory + tmpfs) if self.cgroups else None

        def child_setup() -> None:  # in the child, between fork and exec
            if cgroup is not None:
                cgroup.enter()
            apply_rlimits(self.config)

        try:
            try:
                proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                        preexec_fn=child_setup, pass_fds=(*keep_fds, *report[1:]) if report else keep_fds)
            except (OSError, subprocess.SubprocessError) as exc:  # a cgroup or rlimit refused in the child
                return ExecResult(None, False, iso, infra_error=f"cannot start {argv[0]}: {exc}")
            finally:
                if report:
                    os.close(report[1])
            # drain_stdout=False: a pipe nobody reads, exactly like the official harness
            assert proc.stdout is not None and proc.stderr is not None
            out = Tail(proc.stdout, spec.stdout_bytes) if spec.drain_stdout else None
            err = Tail(proc.stderr)
            reader = os.fdopen(report[0], "rb") if report else None
            try:
                with cancel.on_cancel(lambda: _kill_answer(proc.pid, uid, cgroup)):
                    oom = cgroup.oom_killed if cgroup is not None and cgroup.memory else None
                    bounds = Bounds(disk, self._memory_watch(proc.pid, uid, cgroup), oom)
                    code, timed_out, limit, infra, duration = wait_sandboxed(proc, reader, spec.timeout_s, bounds)
                survivors = set(find_survivors(proc.pid, uid))  # session id == leader's pid
                if cgroup is not None:
                    survivors.update(cgroup.pids())
                    cgroup.kill_all()
                kill_tree(proc.pid, uid)
                proc.wait()
                if cgroup is not None and cgroup.oom_killed():
                    limit = limit or "memory"
                if reader is not None and tmpfs_full(reader.read().decode("utf-8", "replace")):
                    limit = limit or "disk"
            finally:
                if reader is not None:
                    reader.close()
                stdout = out.text() if out is not None else ""
                stderr = err.text()
                for tail in (out, err):
                    if tail is not None:
                        tail.close()
                if out is None:
                    proc.stdout.close()
        finally:
            if cgroup is not None:
                cgroup.remove()
        first = stderr.strip().splitlines()[0] if stderr.strip() else f"exit code {proc.returncode}"
        if infra or (code not in (None, 0) and stderr.lstrip().startswith(
                ("bwrap:", "setpriv:", "unshare:", "ragcode-sandbox:"))):
            code, timed_out = None, False
            infra = f"sandbox failed to start: {first}"
        if not limit and DISK_FULL in stderr:
            limit = "disk"
        return ExecResult(code, timed_out, iso, stdout=stdout, stderr=stderr,
                          duration_s=round(duration, 3), infra_error=infra,
                          leftover_killed=len(survivors - {proc.pid}), limit_hit=limit)
