"""Answers checked against the repository before they are returned.

A ``Checker`` reads one answer (bash or Python) with a ``CheckContext`` (the repository folder,
the task's working directory inside it, the instruction, the interpreter) and returns typed,
located ``Finding``s: a script that does not exist, a flag its parser does not declare (with the
closest real one), a value outside ``choices``, an import that resolves nowhere, a value the
instruction names that the answer never mentions... Checkers are chosen by name
(``generation.check``), and their findings drive selection among samples and repair rounds
(``ragcode.check.select``, ``ragcode.check.repair``).

Only the instruction of a task is ever read: never its arguments, reference output or oracle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ragcode.registry import Registry

ERROR, WARNING = "error", "warning"

# how much a finding counts against an answer when choosing among samples
WEIGHTS = {
    "syntax-error": 3.0, "unknown-script": 3.0, "not-a-script": 3.0, "unknown-module": 2.0, "no-command": 2.0,
    "wrong-launcher": 2.0, "unresolved-import": 1.5, "no-repo-use": 1.5, "own-cli": 1.5, "run-error": 1.5,
    "unknown-flag": 1.0, "bad-choice": 1.0, "bad-type": 1.0, "missing-required": 1.0, "positional-count": 1.0,
    "missing-symbol": 1.0, "library-file": 1.0, "ignored-args": 1.0, "missing-flag-value": 1.0,
    "cd-from-root": 1.0, "missing-value": 0.5, "respelled-value": 0.5, "duplicate-flag": 0.3,
    "no-own-use": 0.0,  # a note for selection (the greedy answer's kind is no evidence): weighs nothing
}
# an unknown script whose file of the same name exists elsewhere in the repository weighs less
# than one that exists nowhere (measured on the dev runs: 1.5 to 2.0 choose alike, 3.0 loses three tasks)
MOVED_SCRIPT_WEIGHT = 2.0


def moved_script(target: str, suggestion: str) -> bool:
    """``suggestion`` is a file of the same name as the missing ``target``, reached by another
    path (``implementations/gan/gan.py`` run from ``implementations/gan`` -> ``gan.py``)."""
    return bool(suggestion) and Path(target).name == Path(suggestion).name and target != suggestion


@dataclass(frozen=True)
class Finding:
    """One thing wrong with an answer, located and typed.

    ``code`` names the kind (``unknown-flag``...), ``message`` says it in one line the way a
    repair prompt would, ``line`` is 1-based in the answer (0 = the whole answer), ``target``
    the script or module concerned, ``suggestion`` the closest real spelling when there is one.
    """

    check: str
    code: str
    message: str
    severity: str = ERROR
    line: int = 0
    target: str = ""
    suggestion: str = ""

    @property
    def weight(self) -> float:
        if self.code == "unknown-script" and moved_script(self.target, self.suggestion):
            return MOVED_SCRIPT_WEIGHT  # the file exists under another path: a slip autofix corrects
        return WEIGHTS.get(self.code, 1.0) * (1.0 if self.severity == ERROR else 0.5)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class CheckContext:
    """What the checks may look at: the repository, where the answer runs, the instruction."""

    repo_dir: Path
    workdir: str = "."
    instruction: str = ""
    interpreter: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def task_dir(self) -> Path:
        rel = (self.workdir or ".").lstrip("/") or "."
        return (Path(self.repo_dir) / rel).resolve()


@runtime_checkable
class Checker(Protocol):
    name: str

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        ...


CHECKERS = Registry("checker", {
    "bash": "ragcode.check.bash:BashChecker",
    "python": "ragcode.check.python_code:PythonChecker",
    "coverage": "ragcode.check.coverage:CoverageChecker",
    "executed": "ragcode.check.executed:ExecutedChecker",
    "parse": "ragcode.dryrun.checker:ParseChecker",  # the script's own parser, parse-only in the sandbox
})
DEFAULT_CHECKS = ("bash", "python", "coverage")


def load_checkers(names: list[str] | tuple[str, ...], config: Any = None) -> list[Checker]:
    out = []
    for name in names:
        cls = CHECKERS.get(name)
        out.append(cls(config) if getattr(cls, "takes_config", False) else cls())
    return out


def check_answer(code: str, answer_type: str, ctx: CheckContext, checkers: list[Checker]) -> list[Finding]:
    """Every checker's findings for one answer, errors first, then by line."""
    found: list[Finding] = []
    for checker in checkers:
        found.extend(checker.check(code, answer_type, ctx))
    return sorted(found, key=lambda f: (f.severity != ERROR, f.line, f.code))


def penalty(findings: list[Finding]) -> float:
    return round(sum(f.weight for f in findings), 3)


__all__ = ["CHECKERS", "DEFAULT_CHECKS", "ERROR", "WARNING", "CheckContext", "Checker", "Finding",
           "check_answer", "load_checkers", "moved_script", "penalty"]
