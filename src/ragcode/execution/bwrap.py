"""The bubblewrap sandbox's view of the machine: what an answer can see, and nothing else.

An answer inside bwrap sees a new root built from nothing, not the host's ``/`` read-only:

- the system's read-only runtime: ``/usr`` (and the ``/bin``, ``/lib``, ``/sbin`` links or
  folders), a few ``/etc`` files programs need (loader cache, alternatives, timezone, hosts), and
  a ``passwd``/``group`` written for the sandbox (no host accounts, no ``/etc/shadow``);
- the interpreter and its environment, read-only: every prefix ``sys.prefix``,
  ``sys.base_prefix``... of the configured Python, found by asking it once;
- ``execution.ro_paths``, read-only (datasets, model caches the user chooses to expose);
- the repository, read-only, at ``/ragcode/src`` (``.git`` left out), and the small staging
  folder of this run at ``/ragcode/stage`` (shims, the answer, the start script);
- ``/tmp``: a private tmpfs whose size is the scratch copy plus ``execution.disk_mb``; the
  start script copies the repository into ``/tmp/ragcode/repo`` and runs the answer there, so
  everything an answer can write (its copy, ``/tmp``, ``HOME``, ``TMPDIR``) shares one bound;
  ``/dev/shm`` is a tmpfs of its own of at most 64 MB (``disk_mb`` when smaller); the new root
  and ``/dev`` are read-only once built, so a capability-less root cannot write there either;
- a minimal ``/dev`` and its own ``/proc`` (new pid namespace); with ``execution.gpus``, the
  chosen GPUs' device nodes too (``ragcode.execution.gpus``).

Nothing else of the host exists inside: not ``/home``, ``/root``, working trees, ``/var``,
``/run`` (so no host Unix socket can be reached by path), other runs' folders. The network
namespace is new (no interfaces but loopback, no abstract sockets of the host) unless
``execution.network`` is on. Written by hand because bwrap's argument list is the interface;
no Python library wraps it.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# The folders an answer sees at the same path as on the host; a link (merged /usr) stays a link.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# /etc entries a program commonly needs; anything else of /etc (shadow, ssh keys, the machine's
# configuration) stays out. passwd and group are written for the sandbox instead.
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone",
               "hosts", "nsswitch.conf", "host.conf", "mime.types", "os-release", "ssl", "ca-certificates",
               "environment", "matplotlibrc", "gai.conf", "protocols", "services")
SRC = "/ragcode/src"
STAGE = "/ragcode/stage"
WORK = "/tmp/ragcode"
# How a bash answer runs: read from its file by the shell itself, then evaluated like ``bash -c``
# would ($0 stays "bash"). A process argument cannot carry a NUL byte nor more than 128 KiB in
# one string; a file can (the shell drops NUL bytes with a warning, as it does in a script).
RUN_BASH = 'eval "$(< {path})"'
# The same from a file the parent opened (a scratch folder under a 0700 parent is not reachable
# by path for the answer's uid); the descriptor is closed before the answer runs.
RUN_BASH_FD = 'eval "$(< /dev/fd/{fd})" {fd}<&-'
SHM_BYTES = 64 << 20  # /dev/shm's size at most (docker's default too)
# capabilities kept inside bwrap: none, or just enough for setpriv to switch to the sandbox uid
# (which then execs with none); bwrap also sets no_new_privs, so setuid binaries stay inert
CAPS_NONE = ["--cap-drop", "ALL"]
CAPS_SWITCH_UID = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                   "--cap-add", "CAP_SETPCAP"]
NAMESPACES = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
              "--die-with-parent", "--new-session"]


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
    return _probe("bwrap", "--unshare-net", *NAMESPACES, *system_binds(), "--proc", "/proc",
                  "--dev", "/dev", "--size", str(1 << 20), "--tmpfs", "/tmp", "true")


@functools.cache
def unshare_works() -> bool:
    return _probe("unshare", "-n", "true")


def system_binds() -> list[str]:
    """``/usr`` and friends, read-only; on a merged-/usr system ``/bin`` etc. are links."""
    args: list[str] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            args += ["--ro-bind", d, d]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC_ENTRIES:
        p = Path("/etc") / name
        if p.exists():
            args += ["--ro-bind", str(p), str(p)]
    return args


@functools.cache
def interpreter_prefixes(interpreter: str) -> tuple[str, ...]:
    """The folders a Python interpreter needs (its venv, its base installation), asked of it
    once; the interpreter's own folder when it cannot be asked. Asked with ``-I -S`` from ``/``:
    nothing of the current folder nor of the environment's ``site`` runs outside the sandbox
    (the venv, which only ``site`` would report, is found by its ``pyvenv.cfg`` instead)."""
    code = ("import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, "
            "sys.exec_prefix, sys.base_exec_prefix]))")
    here = {Path(interpreter).absolute().parent, Path(interpreter).resolve().parent}
    paths = {str(p) for p in here} | {str(p.parent) for p in here if (p.parent / "pyvenv.cfg").is_file()}
    try:
        proc = subprocess.run([interpreter, "-I", "-S", "-c", code], capture_output=True, text=True,
                              timeout=60, cwd="/")
        if proc.returncode == 0:
            found = json.loads(proc.stdout)
            paths.add(str(Path(found[0]).resolve().parent))
            paths.update(found[1:])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        pass
    return _outermost(p for p in paths if p and p != "/" and not _is_system(p))


def _is_system(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS)


def _outermost(paths) -> tuple[str, ...]:
    """Drop the paths that lie inside another one of the set."""
    out: list[str] = []
    for p in sorted(set(paths), key=len):
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return tuple(out)


def parent_dirs(paths) -> list[str]:
    """``--dir`` for every folder above the given mount points, world-traversable (bwrap would
    make them 0700, so an unprivileged uid could not reach what is bound below them)."""
    seen: list[str] = []
    for p in paths:
        for parent in reversed(Path(p).parents):
            d = str(parent)
            if d not in ("/", "/tmp") and d not in seen and not _is_system(d):
                seen.append(d)
    return [a for d in seen for a in ("--perms", "0755", "--dir", d)]


def repo_binds(repo_dir: Path, dest: str = SRC) -> list[str]:
    """The repository's top-level entries, read-only, under ``dest``; ``.git`` left out and a
    top-level link recreated as a link (a bind would follow it out of the repository)."""
    args = ["--perms", "0755", "--dir", dest]
    for entry in sorted(Path(repo_dir).iterdir()):
        if entry.name == ".git":
            continue
        target = f"{dest}/{entry.name}"
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), target]
        else:
            args += ["--ro-bind", str(entry), target]
    return args


@dataclass
class View:
    """Everything that decides one sandbox's mounts."""

    interpreter: str
    ro_paths: list[str] = field(default_factory=list)
    tmp_bytes: int = 1 << 30
    network: bool = False
    switch_uid: bool = False
    repo_dir: Path | None = None
    stage_dir: Path | None = None
    devices: list[str] = field(default_factory=list)  # host device nodes bound in (execution.gpus)
    shm_bytes: int = SHM_BYTES  # /dev/shm: its own small tmpfs (POSIX shared memory, semaphores)

    def argv(self, inner: list[str], chdir: str = "/tmp") -> list[str]:
        args = ["bwrap", *(CAPS_SWITCH_UID if self.switch_uid else CAPS_NONE), *NAMESPACES]
        if not self.network:
            args.append("--unshare-net")
        args += system_binds()
        # the private /tmp first: an interpreter that lives under the host's /tmp (a CI clone's
        # venv) is then bound on top of it instead of being hidden by it
        args += ["--dev", "/dev", "--proc", "/proc",
                 "--perms", "1777", "--size", str(self.tmp_bytes), "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", str(self.shm_bytes), "--tmpfs", "/dev/shm"]
        binds = _outermost((*interpreter_prefixes(self.interpreter), *self.ro_paths))
        args += parent_dirs([*binds, STAGE, SRC])
        for p in binds:
            args += ["--ro-bind", p, p]
        for node in self.devices:
            args += ["--dev-bind", node, node]
        if self.stage_dir is not None:
            args += ["--ro-bind", str(self.stage_dir), STAGE]
            for name in ("passwd", "group"):
                args += ["--ro-bind", str(self.stage_dir / name), f"/etc/{name}"]
        if self.repo_dir is not None:
            args += repo_binds(self.repo_dir)
        # the new root and /dev are tmpfs of their own, writable by a capability-less root:
        # read-only once built, so /tmp and /dev/shm (both sized) are all an answer can fill
        args += ["--remount-ro", "/dev", "--remount-ro", "/"]
        return [*args, "--chdir", chdir, "--", *inner]


def answer_bytes(code: str) -> bytes:
    """The answer as the bytes of its file: UTF-8, undecodable input kept as it came
    (surrogate escapes), a lone surrogate that no encoding can carry replaced."""
    try:
        return code.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return code.encode("utf-8", "replace")


def write_accounts(stage: Path, uid: int) -> None:
    """The sandbox's own /etc/passwd and /etc/group: root, nobody and the answer's uid."""
    home = f"{WORK}/home"
    (stage / "passwd").write_text(f"root:x:0:0:root:/root:/bin/sh\nsandbox:x:{uid}:{uid}:sandbox:{home}:/bin/sh\n"
                                  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    (stage / "group").write_text(f"root:x:0:\nsandbox:x:{uid}:\nnogroup:x:65534:\n")


# Runs inside the sandbox as the answer's uid: copy the repository onto the bounded tmpfs, say
# "ready" on the report fd (the answer's time starts then), run the answer with that fd closed,
# then report the tmpfs usage so a full disk is seen even when the answer hides the error.
# Run with bash (dash takes no fd number above 9): $1 task path, $2 bash|python, $3 unused, $4 report fd.
# The answer itself is always read from /ragcode/stage/answer, never passed as an argument.
START_SCRIPT = r"""set -u
W=/tmp/ragcode
RUN_BASH='@RUN_BASH@'
FD=$4
mkdir -p "$W/home" "$W/tmp" "$W/repo" || exit 125
if ! cp -R -P --preserve=mode,timestamps,links /ragcode/src/. "$W/repo/" 2>"$W/copy.err"; then
  echo "ragcode-sandbox: cannot copy the repository into the sandbox: $(head -c 400 "$W/copy.err")" >&2
  exit 125
fi
rm -f "$W/copy.err"
cd "$W/repo/$1" || { echo "ragcode-sandbox: task path $1 is missing in the copy" >&2; exit 125; }
eval "echo ready >&$FD"
if [ "$2" = python ]; then
  cp /ragcode/stage/answer temp.py || exit 125
  eval "python temp.py $FD>&-"
else
  eval "bash -c '$RUN_BASH' $FD>&-"
fi
rc=$?
eval "df -Pk /tmp | tail -n 1 >&$FD"
exit $rc
""".replace("@RUN_BASH@", RUN_BASH.format(path=f"{STAGE}/answer"))
