"""``execution.gpus``: which GPUs an executed answer may use (``[]`` none, the default; ``[all]``;
or indices such as ``[0, 1]``).

- local executor: the chosen ``/dev/nvidiaN`` nodes and the driver's control nodes
  (``nvidiactl``, ``nvidia-uvm``, ...) are bound into the bubblewrap sandbox (``View.devices``),
  and ``CUDA_VISIBLE_DEVICES`` names the chosen indices; without bubblewrap the answer runs on the
  host, where only ``CUDA_VISIBLE_DEVICES`` applies. The driver's libraries must be readable in
  the sandbox: under ``/usr`` they are; elsewhere (``/usr/local/nvidia``) add them to
  ``execution.ro_paths``.
- docker executor: a device request for those GPUs (the engine needs the NVIDIA container
  toolkit).

Asking for GPUs on a machine without NVIDIA device nodes is an ``ExecutionError`` when the
executor is built: one line, before any answer runs.
"""

from __future__ import annotations

import glob
import os
import re
from typing import Any

from ragcode.errors import ExecutionError

DEV = "/dev"
CONTROL = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset")


def cards(dev: str = DEV) -> list[int]:
    """Indices of the ``/dev/nvidiaN`` nodes present."""
    found = (re.fullmatch(r"nvidia(\d+)", os.path.basename(p)) for p in glob.glob(f"{dev}/nvidia*"))
    return sorted(int(m.group(1)) for m in found if m)


def chosen(gpus: list[Any], dev: str = DEV) -> list[int]:
    """The card indices ``gpus`` names; ``ExecutionError`` when they are not all present."""
    if not gpus:
        return []
    present = cards(dev)
    if not present:
        raise ExecutionError(f"execution.gpus={list(gpus)} but this machine has no {dev}/nvidia* device "
                             "(no NVIDIA GPU or driver); set execution.gpus=[] or score where a GPU is")
    if "all" in gpus:
        return present
    missing = [i for i in gpus if i not in present]
    if missing:
        raise ExecutionError(f"execution.gpus names GPU {missing[0]} but only {dev}/nvidia"
                             f"{{{','.join(map(str, present))}}} exist here")
    return sorted(set(gpus))


def device_nodes(gpus: list[Any], dev: str = DEV) -> list[str]:
    """The device nodes to bind into a sandbox for ``gpus`` (none when ``gpus`` is empty)."""
    picked = chosen(gpus, dev)
    if not picked:
        return []
    nodes = [f"{dev}/{name}" for name in CONTROL if os.path.exists(f"{dev}/{name}")]
    nodes += sorted(glob.glob(f"{dev}/nvidia-caps/*"))  # MIG capabilities
    return nodes + [f"{dev}/nvidia{i}" for i in picked]


def set_visible(env: dict[str, str], gpus: list[Any], dev: str = DEV) -> None:
    """``CUDA_VISIBLE_DEVICES`` in an answer's environment for ``gpus`` (left as it is for [])."""
    if not gpus:
        return
    if "all" in gpus:
        host = os.environ.get("CUDA_VISIBLE_DEVICES")
        if host:
            env["CUDA_VISIBLE_DEVICES"] = host
        else:
            env.pop("CUDA_VISIBLE_DEVICES", None)
        return
    env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in chosen(gpus, dev))


def docker_requests(gpus: list[Any]) -> list[Any]:
    """``device_requests`` for ``docker.containers.create``."""
    if not gpus:
        return []
    import docker

    if "all" in gpus:
        return [docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])]
    return [docker.types.DeviceRequest(device_ids=[str(i) for i in sorted(set(gpus))], capabilities=[["gpu"]])]
