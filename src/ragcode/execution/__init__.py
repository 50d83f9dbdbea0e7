"""Running an answer in a sandbox: the ``Executor`` protocol, its request/result, and executors by name.

An executor takes one ``ExecSpec`` (the answer text, bash or python, the repository and the
working directory inside it, a timeout) and returns an ``ExecResult`` (exit code, whether the
timeout hit, output tails, the isolation that was in force, and an ``infra_error`` when the
sandbox itself could not run the answer). Executors never modify the repository checkout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ragcode.registry import Registry

if TYPE_CHECKING:
    from ragcode.config import ExecutionConfig


@dataclass(frozen=True)
class ExecSpec:
    """One answer to run.

    ``mode`` is ``"bash"`` (run with ``bash -c``) or ``"python"`` (written to ``temp.py`` in the
    working directory and run with the repository's interpreter). ``workdir`` is the task's
    ``path`` relative to ``repo_dir``. ``drain_stdout=False`` reproduces the official ML-Bench
    harness, which connects stdout to a pipe it never reads (a chatty answer then blocks).
    ``stdout_bytes``: how much of stdout's end the result keeps (the local executor).
    """

    code: str
    mode: str
    repo_dir: Path
    workdir: str = "."
    timeout_s: float = 10.0
    repo_name: str = ""
    drain_stdout: bool = True
    stdout_bytes: int = 4000  # what is kept of stdout (its end); the dry run's record needs more


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None
    timed_out: bool
    isolation: str
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    infra_error: str = ""
    leftover_killed: int = 0  # processes still alive after the answer ended and then killed
    limit_hit: str = ""  # a sandbox bound the answer ran into ("disk"); the answer then fails
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@runtime_checkable
class Executor(Protocol):
    name: str

    def isolation(self) -> str:
        """Words naming the isolation this executor puts in force (recorded in every result)."""
        ...

    def run(self, spec: ExecSpec) -> ExecResult:
        ...


EXECUTORS = Registry("executor", {
    "local": "ragcode.execution.local:LocalExecutor",
    "docker": "ragcode.execution.docker_exec:DockerExecutor",
})


def load_executor(config: ExecutionConfig | None = None, name: str | None = None) -> Executor:
    """Build the executor named by ``config.executor`` (or ``name``)."""
    from ragcode.config import ExecutionConfig

    config = config or ExecutionConfig()
    cls = EXECUTORS.get(name or config.executor)
    return cls(config)


__all__ = ["EXECUTORS", "ExecResult", "ExecSpec", "Executor", "load_executor"]
