"""An answer's per-process limits (rlimits), and the check, when an executor is built, that this
machine accepts every ``execution.*`` bound: a value the OS would refuse (above a hard limit, too
large for the kernel, more disk than there is) is a one-line error then, not a failure of every
answer later."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING

import psutil

from ragcode.errors import ConfigError

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig

MB = 1024 * 1024
# setting, rlimit, unit of the setting in the rlimit's terms
RLIMITS = (("cpu_s", resource.RLIMIT_CPU, 1), ("memory_mb", resource.RLIMIT_AS, MB),
           ("file_mb", resource.RLIMIT_FSIZE, MB), ("max_procs", resource.RLIMIT_NPROC, 1))
_MAX_RLIMIT = 2**63 - 1


def apply_rlimits(config: ExecutionConfig) -> None:
    """Set the answer's rlimits (in the child between fork and exec)."""
    for name, res, unit in RLIMITS:
        value = getattr(config, name) * unit
        resource.setrlimit(res, (value, value))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def check_limits(config: ExecutionConfig, disk_in_memory: bool) -> None:
    """Raise ``ConfigError`` (one line) for the first ``execution.*`` bound this machine refuses.
    ``disk_in_memory``: the disk cap is a tmpfs (bubblewrap), held by memory and swap; otherwise
    it is watched on the scratch folder's filesystem."""
    for name, res, unit in RLIMITS:
        value = getattr(config, name)
        if value * unit > _MAX_RLIMIT:
            raise _refused(name, value, "more than the kernel can set")
        hard = resource.getrlimit(res)[1]
        if hard != resource.RLIM_INFINITY and value * unit > hard and os.geteuid() != 0:
            raise _refused(name, value, f"above this machine's hard limit ({hard // unit})")
        why = _refused_by_kernel(res, value * unit)
        if why:
            raise _refused(name, value, f"the kernel refuses it ({why})")
    pid_max = _read_int("/proc/sys/kernel/pid_max")
    if pid_max and config.max_procs > pid_max:
        raise _refused("max_procs", config.max_procs, f"more than this machine's pid_max ({pid_max})")
    _check_disk(config, disk_in_memory)


def _check_disk(config: ExecutionConfig, disk_in_memory: bool) -> None:
    want = config.disk_mb * MB
    if disk_in_memory:
        room = psutil.virtual_memory().total + psutil.swap_memory().total
        if want > room:
            raise _refused("disk_mb", config.disk_mb, f"more than this machine's memory and swap ({room // MB} MB), "
                           "which hold the sandbox's tmpfs")
        return
    base = config.scratch_dir or tempfile.gettempdir()
    free = shutil.disk_usage(base).free
    if want > free:
        raise _refused("disk_mb", config.disk_mb, f"more than the free space under {base} ({free // MB} MB)")


def _refused_by_kernel(res: int, value: int) -> str:
    """Why ``setrlimit(res, value)`` fails in a child process; empty when it is accepted."""
    def child() -> None:
        resource.setrlimit(res, (value, value))

    try:
        subprocess.run(["true"], preexec_fn=child, check=False, timeout=30)  # noqa: PLW1509
    except subprocess.SubprocessError as exc:
        return str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
    except OSError:
        return ""
    return ""


def _read_int(path: str) -> int:
    try:
        with open(path) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return 0


def _refused(name: str, value: int, why: str) -> ConfigError:
    return ConfigError(f"execution.{name} = {value}: {why}; lower it")
