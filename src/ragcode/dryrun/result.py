"""What a dry run says of one entry point (see ``ragcode.dryrun``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ACCEPTED, REJECTED, UNREACHED = "accepted", "rejected", "unreached"


@dataclass(frozen=True)
class Entry:
    """One Python entry point an answer runs: ``kind`` ``script`` (``target`` a path from
    ``workdir``), ``module`` (``python -m target``), ``console`` (a command the repository
    installs: ``target`` its ``module:function``, ``argv`` the whole command, its name first) or
    ``calls`` (a Python answer's calls into the repository, in ``calls``); ``workdir`` is relative
    to the repository; ``line`` 1-based."""

    kind: str
    target: str
    argv: tuple[str, ...] = ()
    workdir: str = "."
    env: tuple[tuple[str, str], ...] = ()
    line: int = 0
    calls: tuple[dict[str, Any], ...] = ()
    shown: str = ""  # the command as the answer wrote it (the wrapper script it went through)


@dataclass(frozen=True)
class ParseResult:
    status: str
    entry: Entry
    params: dict[str, Any] = field(default_factory=dict)
    explicit: list[str] = field(default_factory=list)
    unrecognized: list[str] = field(default_factory=list)
    message: str = ""
    parser: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    stubbed: list[str] = field(default_factory=list)
    cut: str = ""  # the sandbox ended the run before a final verdict: "timeout", "limit" or "crash"
    cause: str = ""  # what cut it, in words: the limit ("30 s", "4096 MB memory") or the crash ("killed by SIGKILL")
    # the parameters the parser declares, as plain strings (name, type, choices, default, required, help)
    spec: list[dict[str, Any]] = field(default_factory=list)
    # a refusing parser's fields that an installed library declares ("transformers 5.2.0's TrainingArguments")
    versioned: list[str] = field(default_factory=list)
    # accepted by the parser, then refused after it by a library's look at this machine (no GPU):
    # that refusal's message ("ValueError: Your setup doesn't support bf16/gpu. ...")
    machine: str = ""
    # python-fire only: the function the command calls (``module:qualname``) and the arguments it
    # gave, each ``[name, parameter kind, value as Python source or None]`` (``ragcode.dryrun.as_call``)
    callee: str = ""
    given: list[list[Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
