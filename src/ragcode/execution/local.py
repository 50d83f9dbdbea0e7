"""The ``local`` executor: a subprocess in a scratch copy, its own session, rlimits, no network.

Layers, strongest available first (``execution.isolation: auto`` picks; the choice is recorded
in every result):

- ``bwrap`` (bubblewrap): new network and pid namespaces, the whole system mounted read-only,
  a private ``/tmp``, only the scratch copy writable;
- ``unshare``: ``unshare -n`` (network namespace only);
- ``none``: no namespaces.

Always: a scratch copy of the repository (the checkout is never touched), a new session so the
whole tree can be killed, CPU-time / address-space / file-size / process-count rlimits, and a
scrubbed environment. When ragcode runs as root the answer runs under a fresh unprivileged uid
(root ignores the process-count limit, and a dedicated uid makes leftovers easy to find).
"""

from __future__ import annotations

import functools
import logging
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ragcode.errors import ExecutionError
from ragcode.execution import ExecResult, ExecSpec
from ragcode.execution.cgroup import PidsCgroup
from ragcode.execution.procs import find_survivors, kill_tree
from ragcode.execution.scratch import scratch_copy

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig

log = logging.getLogger(__name__)

TAIL_CHARS = 4000
_WARNED: set[str] = set()
# capabilities kept inside bwrap: none, or just enough for setpriv to switch to the sandbox uid
# (which then execs with none); bwrap also sets no_new_privs, so setuid binaries stay inert
_CAPS_NONE = ["--cap-drop", "ALL"]
_CAPS_SWITCH_UID = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                    "--cap-add", "CAP_SETPCAP"]
_SETPRIV_DROP = ["--bounding-set=-all", "--inh-caps=-all"]
_BWRAP_BASE = ["--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev",
               "--proc", "/proc", "--tmpfs", "/tmp"]


def _probe(tool: str, *args: str) -> bool:
    """Whether ``tool`` is installed and ``tool ARGS`` exits 0 within 20 s here."""
    exe = shutil.which(tool)
    if not exe:
        return False
    try:
        proc = subprocess.run([exe, *args], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


@functools.cache
def bwrap_works() -> bool:
    return _probe("bwrap", "--unshare-net", *_BWRAP_BASE, "true")


@functools.cache
def unshare_works() -> bool:
    return _probe("unshare", "-n", "true")


# Inside bwrap these host folders are replaced by empty tmpfs (/tmp by _BWRAP_BASE, /root here).
_HIDDEN_DIRS = ("/root", "/tmp")


def hidden_dir_binds(interpreter: str) -> list[str]:
    """bwrap arguments that hide root's home (``--tmpfs /root``; the host's /tmp is hidden by
    ``_BWRAP_BASE``) but keep the interpreter reachable when it lives there (a venv in a checkout
    under /tmp or /root): its top-level folder under the hidden one is bound back read-only, so
    an unprivileged uid can run it and nothing else of those folders is visible."""
    binds: list[str] = ["--tmpfs", "/root"]
    seen: set[str] = set()
    for p in (Path(interpreter).absolute(), Path(interpreter).resolve()):
        for hidden in _HIDDEN_DIRS:
            try:
                rel = p.relative_to(hidden)
            except ValueError:
                continue
            top = f"{hidden}/{rel.parts[0]}" if rel.parts else ""
            if top and top not in seen:
                seen.add(top)
                binds += ["--ro-bind", top, top]
    return binds


@functools.cache
def usable_by_other_uid(interpreter: str, uid: int, bwrap: bool = False) -> bool:
    """Can an unprivileged uid run ``interpreter`` (inside bwrap's mounts when ``bwrap``)?
    A venv whose Python sits under a 0700 /root cannot, outside bwrap.

    Probed through ``sh``: setpriv itself execs with capabilities still effective.
    """
    wrap = ["bwrap", *_CAPS_SWITCH_UID, *_BWRAP_BASE, *hidden_dir_binds(interpreter), "--"] if bwrap else []
    try:
        proc = subprocess.run([*wrap, "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                               *_SETPRIV_DROP, "--", "sh", "-c", 'exec "$0" -c pass', interpreter],
                              capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def choose_isolation(wanted: str) -> str:
    """``auto`` -> the strongest that works here; an explicit choice must work or it is an error."""
    if wanted == "auto":
        if bwrap_works():
            return "bwrap"
        if unshare_works():
            return "unshare"
        return "none"
    checks = {"bwrap": bwrap_works, "unshare": unshare_works, "none": lambda: True}
    if wanted not in checks:
        raise ExecutionError(f"execution.isolation {wanted!r} is not one of auto, bwrap, unshare, none")
    if not checks[wanted]():
        hint = "apt-get install -y bubblewrap" if wanted == "bwrap" else "util-linux with user namespaces"
        raise ExecutionError(f"execution.isolation={wanted} does not work on this machine ({hint}); "
                             "use execution.isolation=auto to take the strongest available")
    return wanted


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_CHARS))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


class LocalExecutor:
    name = "local"

    def __init__(self, config: ExecutionConfig | None = None):
        from ragcode.config import ExecutionConfig

        self.config = config or ExecutionConfig()
        self.mode = choose_isolation(self.config.isolation)
        self.run_as_root = os.geteuid() == 0
        self.can_switch_uid = (self.run_as_root and self.config.sandbox_uid_base > 0
                               and bool(shutil.which("setpriv")))
        probe = PidsCgroup.create(self.config.max_procs)
        self.cgroups = probe is not None
        if probe is not None:
            probe.remove()

    def _uid_for(self, interp: str) -> int | None:
        if not self.can_switch_uid:
            return None
        if not usable_by_other_uid(interp, self.config.sandbox_uid_base, self.mode == "bwrap"):
            if interp not in _WARNED:
                _WARNED.add(interp)
                log.warning("interpreter %s is not readable by an unprivileged uid; answers run as "
                            "root (process cap from the pids cgroup only)", interp)
            return None
        return self.config.sandbox_uid_base + 1 + secrets.randbelow(50_000)

    # -- what is in force ---------------------------------------------------------------------
    def isolation(self, interp: str | None = None) -> str:
        interp = interp or self.interpreter("")
        parts = ["scratch-copy", "session-kill", "rlimits", "env-scrubbed"]
        if self.mode == "bwrap":
            parts.insert(0, "bwrap(" + ("" if self.config.network else "net,") + "pid,fs-ro,no-caps)")
        elif self.mode == "unshare" and not self.config.network:
            parts.insert(0, "unshare(net)")
        if self.config.network:
            parts.append("network-allowed")
        elif self.mode == "none":
            parts.append("network-open")
        if self.cgroups:
            parts.append("cgroup(pids)")
        if self.can_switch_uid and (usable_by_other_uid(
                interp, self.config.sandbox_uid_base, self.mode == "bwrap")):
            parts.append("own-uid")
        elif self.run_as_root:
            parts.append("root-without-caps")
        return "+".join(parts)

    def interpreter(self, repo_name: str) -> str:
        return self.config.envs.get(repo_name) or self.config.python or sys.executable

    # -- running ------------------------------------------------------------------------------
    def run(self, spec: ExecSpec) -> ExecResult:
        interp = self.interpreter(spec.repo_name)
        iso = self.isolation(interp)
        if spec.mode == "python" and not Path(interp).exists():
            return ExecResult(None, False, iso, infra_error=(
                f"python interpreter {interp} for repository {spec.repo_name!r} does not exist; "
                "set execution.envs.<repo>=/path/to/python"))
        uid = self._uid_for(interp)
        try:
            with scratch_copy(spec.repo_dir, self.config.scratch_dir or None, owner=uid) as work:
                return self._run_in(spec, work, uid, interp, iso)
        except ExecutionError as exc:
            return ExecResult(None, False, iso, infra_error=str(exc))

    def _run_in(self, spec: ExecSpec, work: Path, uid: int | None, interp: str, iso: str) -> ExecResult:
        root = work.parent
        rel = (spec.workdir or ".").lstrip("/") or "."
        cwd = (work / rel).resolve()
        if cwd != work.resolve() and work.resolve() not in cwd.parents:
            return ExecResult(None, False, iso, infra_error=f"task path {spec.workdir!r} leaves the repository")
        if not cwd.is_dir():
            return ExecResult(None, False, iso, infra_error=(
                f"task path {spec.workdir!r} is not a directory in {spec.repo_dir}; "
                "is the checkout at the pinned commit?"))
        bindir, home, tmp = root / "bin", root / "home", root / "tmp"
        for d in (bindir, home, tmp):
            d.mkdir()
        for name in ("python", "python3"):
            shim = bindir / name
            shim.write_text(f'#!/bin/sh\nexec "{interp}" "$@"\n')
            shim.chmod(0o755)
        if spec.mode == "python":
            (cwd / "temp.py").write_text(spec.code, encoding="utf-8")
            inner = [str(bindir / "python"), "temp.py"]
        else:
            inner = ["bash", "-c", spec.code]
        if uid is not None:
            for p in (bindir, home, tmp, *([cwd / "temp.py"] if spec.mode == "python" else [])):
                os.chown(p, uid, uid)
            inner = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *_SETPRIV_DROP,
                     "--", *inner]
        elif self.run_as_root and self.mode != "bwrap" and shutil.which("setpriv"):
            # still root: at least drop every capability (no remounts, no raw sockets, no ptrace)
            inner = ["setpriv", *_SETPRIV_DROP, "--", *inner]
        argv = self._wrap(inner, root, cwd, interp, uid)
        env = self._env(bindir, home, tmp)
        logdir = Path(tempfile.mkdtemp(prefix="ragcode-log-"))
        try:
            return self._spawn(argv, cwd, env, logdir, spec, uid, iso)
        finally:
            shutil.rmtree(logdir, ignore_errors=True)

    def _wrap(self, inner: list[str], root: Path, cwd: Path, interp: str, uid: int | None) -> list[str]:
        if self.mode == "bwrap":
            net = [] if self.config.network else ["--unshare-net"]
            caps = _CAPS_SWITCH_UID if uid is not None else _CAPS_NONE
            return ["bwrap", *caps, *net, *_BWRAP_BASE, *hidden_dir_binds(interp), "--bind", str(root), str(root),
                    "--chdir", str(cwd), "--", *inner]
        if self.mode == "unshare" and not self.config.network:
            return ["unshare", "-n", "--", *inner]
        return inner

    def _env(self, bindir: Path, home: Path, tmp: Path) -> dict[str, str]:
        env = {
            "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONNOUSERSITE": "1",
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "MPLBACKEND": "Agg", "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        }
        env.update(self.config.env)
        return env

    def _limits(self) -> None:  # runs in the child between fork and exec
        c = self.config
        mb = 1024 * 1024
        resource.setrlimit(resource.RLIMIT_CPU, (c.cpu_s, c.cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (c.memory_mb * mb, c.memory_mb * mb))
        resource.setrlimit(resource.RLIMIT_FSIZE, (c.file_mb * mb, c.file_mb * mb))
        resource.setrlimit(resource.RLIMIT_NPROC, (c.max_procs, c.max_procs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def _spawn(self, argv: list[str], cwd: Path, env: dict[str, str], logdir: Path, spec: ExecSpec,
               uid: int | None, iso: str) -> ExecResult:
        out_path, err_path = logdir / "stdout", logdir / "stderr"
        cgroup = PidsCgroup.create(self.config.max_procs) if self.cgroups else None

        def child_setup() -> None:  # in the child, between fork and exec
            if cgroup is not None:
                cgroup.enter()
            self._limits()

        start = time.monotonic()
        try:
            with open(out_path, "wb") as out_fh, open(err_path, "wb") as err_fh:
                # drain_stdout=False: a pipe nobody reads, exactly like the official harness
                stdout = out_fh if spec.drain_stdout else subprocess.PIPE
                try:
                    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                            stdout=stdout, stderr=err_fh, start_new_session=True,
                                            preexec_fn=child_setup)
                except OSError as exc:
                    return ExecResult(None, False, iso, infra_error=f"cannot start {argv[0]}: {exc}")
                timed_out, code = False, None
                try:
                    code = proc.wait(timeout=spec.timeout_s)
                except subprocess.TimeoutExpired:
                    timed_out = True
                duration = time.monotonic() - start
                survivors = set(find_survivors(proc.pid, uid))  # session id == leader's pid
                if cgroup is not None:
                    survivors.update(cgroup.pids())
                    cgroup.kill_all()
                kill_tree(proc.pid, uid)
                proc.wait()
                if proc.stdout is not None:
                    proc.stdout.close()
        finally:
            if cgroup is not None:
                cgroup.remove()
        stderr = _tail(err_path)
        infra = ""
        if code not in (None, 0) and stderr.lstrip().startswith(("bwrap:", "setpriv:", "unshare:")):
            infra = f"sandbox failed to start: {stderr.strip().splitlines()[0]}"
        return ExecResult(code, timed_out, iso, stdout=_tail(out_path), stderr=stderr,
                          duration_s=round(duration, 3), infra_error=infra,
                          leftover_killed=len(survivors - {proc.pid}))
