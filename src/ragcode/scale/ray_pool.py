"""The worker pool as Ray actors (optional extra ``ragcode[ray]``).

``--ray ADDRESS``: ``local`` starts a Ray runtime on this machine for the command (as many CPUs
as ``--workers``, or all of them) and stops it afterwards; ``auto`` joins the cluster this
machine belongs to (``ray start`` ran here); ``ray://host:port`` connects to a cluster's client
server. Each actor builds its handler once (one model per actor) and takes one payload at a
time; results come back to the driver, which alone writes the output folder. An actor that dies
(its node went away, it was killed, it ran out of memory) loses only the payload it held: a new
actor is started and ``fan_out`` runs that payload again, a bounded number of times.

Workers must be able to import ragcode (and a ``package.module:Class`` backend) and to read the
same paths as the driver (repository checkouts, indexes, model files): see docs/scale.md.
"""

from __future__ import annotations

import collections
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from ragcode.errors import ConfigError, RagcodeError
from ragcode.scale.pool import Done, Factory

log = logging.getLogger(__name__)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RagcodeError("--ray needs Ray on this machine: pip install 'ragcode[ray]' (and on "
                           "every node of the cluster)") from None
    return ray


def connect(address: str, cpus: int) -> tuple[Any, bool]:
    """(ray, whether this call started the runtime). ``cpus``: a local runtime's CPUs (0 = all)."""
    if address != "local" and address != "auto" and not address.startswith("ray://"):
        raise ConfigError(f"--ray / scale.ray_address must be local, auto or ray://host:port, "
                          f"got {address!r}")
    ray = _import_ray()
    if ray.is_initialized():
        return ray, False
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address == "local":
            # workers import what the driver can: its sys.path (a checkout, a tests folder)
            paths = [p for p in sys.path if p and os.path.isdir(p)]
            env = {"PYTHONPATH": os.pathsep.join(paths)}
            for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "RAGCODE_CACHE",
                         "RAGCODE_MODELS"):
                if name in os.environ:
                    env[name] = os.environ[name]
            ray.init(num_cpus=cpus or os.cpu_count(), include_dashboard=False,
                     runtime_env={"env_vars": env}, **quiet)
            return ray, True
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RagcodeError(f"could not reach a Ray cluster at {address!r}: {first}; start one with "
                           "`ray start --head` (then --ray auto on that machine), or use --ray local") from None
    return ray, False


class _Actor:
    """One Ray worker: the handler is built on the first payload, as in a pool process."""

    def __init__(self, factory: Factory):
        self._factory = factory
        self._handler: Callable[[Any], Any] | None = None

    def pid(self) -> int:
        return os.getpid()

    def run(self, payload: Any) -> Any:
        if self._handler is None:
            self._handler = self._factory()
        return self._handler(payload)


class RayPool:
    def __init__(self, factory: Factory, slots: int, address: str, resources: dict[str, float],
                 cap: int | None = None):
        self._ray, self._started = connect(address, slots if slots > 1 else 0)
        ray = self._ray
        if slots <= 1:
            slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.slots = slots = min(slots, cap or slots)
        opts = {"num_cpus": 1, **resources}
        self._cls = ray.remote(**opts)(_Actor)
        self._factory_ref = ray.put(factory)
        self._actors = [self._cls.remote(self._factory_ref) for _ in range(slots)]
        self._busy: dict[int, tuple[Any, Any]] = {}  # actor index -> (object ref, tag)
        self._backlog: collections.deque = collections.deque()
        log.info("ray: %d actor(s) on %s", slots, address)

    def pids(self) -> list[int]:
        return self._ray.get([a.pid.remote() for a in self._actors])

    def submit(self, tag: Any, payload: Any) -> None:
        self._backlog.append((tag, payload))
        self._dispatch()

    def _dispatch(self) -> None:
        for i, actor in enumerate(self._actors):
            if not self._backlog:
                return
            if i not in self._busy:
                tag, payload = self._backlog.popleft()
                self._busy[i] = (actor.run.remote(payload), tag)

    def wait(self) -> list[Done]:
        ray = self._ray
        refs = {ref: i for i, (ref, _) in self._busy.items()}
        ready, _ = ray.wait(list(refs), num_returns=1)
        more, _ = ray.wait([r for r in refs if r not in ready], num_returns=len(refs) - 1, timeout=0) \
            if len(refs) > 1 else ([], [])
        out = []
        for ref in [*ready, *more]:
            i = refs[ref]
            _, tag = self._busy.pop(i)
            try:
                out.append(Done(tag, ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:  # the handler raised: the driver re-raises it
                cause = getattr(exc, "cause", None)
                out.append(Done(tag, error=cause if isinstance(cause, BaseException) else exc))
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                    ray.exceptions.ObjectLostError) as exc:
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
                out.append(Done(tag, lost=f"ray worker died ({type(exc).__name__}: {first})"))
                self._replace(i)
        self._dispatch()
        return out

    def _replace(self, i: int) -> None:
        try:
            self._ray.kill(self._actors[i], no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        self._actors[i] = self._cls.remote(self._factory_ref)

    def close(self, cancel: bool = False) -> None:
        for actor in self._actors:
            try:
                self._ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001
                pass
        self._actors = []
        if self._started:
            self._ray.shutdown()
