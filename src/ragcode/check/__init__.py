"""Answers checked against the repository before they are returned.

A ``Checker`` reads one answer (bash or Python) with a ``CheckContext`` (the repository folder,
the task's working directory inside it, the instruction, the interpreter) and returns typed,
located ``Finding``s: a script that does not exist, a flag its parser does not declare (with the
closest real one), a value outside ``choices``, an import that resolves nowhere, a value the
instruction names that the answer never mentions... Checkers are chosen by name
(``generation.check``), and their findings drive selection among samples and repair rounds
(``ragcode.answer.select``, ``ragcode.answer.repair``). Every finding code is a rule of the
catalogue ``ragcode.check.rules``.

Only the instruction of a task is ever read: never its arguments, reference output or oracle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ragcode.registry import Registry

from ragcode.check.rule import ERROR, WARNING
from ragcode.check.rules import RULES, rule, say

# how much a finding counts against an answer when choosing among samples: each rule's weight,
# declared in the catalogue (``ragcode.check.rules``)
WEIGHTS = {code: r.weight for code, r in RULES.items()}


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

    def __post_init__(self) -> None:
        rule(self.code)  # a code the catalogue does not declare is a mistake, never a silent 1.0

    @property
    def weight(self) -> float:
        declared = RULES[self.code]
        if declared.moved_weight is not None and moved_script(self.target, self.suggestion):
            return declared.moved_weight  # the file exists under another path: a slip autofix corrects
        return declared.weight * (1.0 if self.severity == ERROR else 0.5)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class CheckContext:
    """What the checks may look at: the repository, where the answer runs, the instruction."""

    repo_dir: Path
    workdir: str = "."
    instruction: str = ""
    interpreter: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_repo(cls, repo_dir: str | Path, workdir: str = ".", instruction: str = "", config: Any = None,
                 repo_name: str = "") -> CheckContext:
        """The one way to build a context from settings: the interpreter is the repository's own
        (``execution.envs[repo_name]``; the name defaults to the folder's) or ``execution.python``."""
        name = repo_name or Path(repo_dir).name
        ex = getattr(config, "execution", None)
        interpreter = (ex.envs.get(name) or ex.python) if ex is not None else ""
        return cls(Path(repo_dir), workdir or ".", instruction, interpreter, {"repo_name": name})

    @property
    def task_dir(self) -> Path:
        from ragcode.errors import RepoPathError
        from ragcode.fileio import inside_repo

        rel = (self.workdir or ".").lstrip("/") or "."
        try:
            return inside_repo(self.repo_dir, rel)
        except RepoPathError:  # a task path that leaves the repository: checked from its root
            return Path(self.repo_dir).resolve()

    @property
    def import_roots(self) -> list[Path]:
        """Where a Python answer's imports of the repository resolve: the folder it runs in, the
        repository's root and its ``src/``."""
        repo = Path(self.repo_dir).resolve()
        return [self.task_dir, repo, repo / "src"]


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
    """Every checker's findings for one answer, errors first, then by line. A checker with an
    ``overrule(code, answer_type, ctx, findings)`` method (the ``parse`` checker: what the
    repository's own parser said) then drops the other checkers' guesses it has answered."""
    found: list[Finding] = []
    for checker in checkers:
        found.extend(checker.check(code, answer_type, ctx))
    for checker in checkers:
        overrule = getattr(checker, "overrule", None)
        if overrule is not None:
            found = overrule(code, answer_type, ctx, found)
    return sorted(found, key=lambda f: (f.severity != ERROR, f.line, f.code))


def checkers_keep_fix(before: str, after: str, answer_type: str, ctx: CheckContext,
                      checkers: list[Checker]) -> bool:
    """Whether every checker with a ``keeps_fix(before, after, answer_type, ctx)`` method (the
    ``parse`` checker: the parser accepts the result, and a right answer is never rewritten)
    lets a fix through; True when none has one."""
    return all(keep(before, after, answer_type, ctx) for keep in
               (getattr(c, "keeps_fix", None) for c in checkers) if keep is not None)


def checkers_declared(code: str, answer_type: str, ctx: CheckContext, checkers: list[Checker]) -> list[str]:
    """The flags declared by the parsers that refused ``code``, from every checker with a
    ``declared(code, answer_type, ctx)`` method (the ``parse`` checker); [] when none has one."""
    return [name for read in (getattr(c, "declared", None) for c in checkers) if read is not None
            for name in read(code, answer_type, ctx)]


def checkers_call_slots(code: str, answer_type: str, ctx: CheckContext, checkers: list[Checker]) -> list[dict]:
    """A Python answer's bound calls and their unset parameters, from every checker with a
    ``call_slots(code, answer_type, ctx)`` method (the ``parse`` checker); [] when none has one."""
    return [slot for read in (getattr(c, "call_slots", None) for c in checkers) if read is not None
            for slot in read(code, answer_type, ctx)]


def checkers_accept(code: str, answer_type: str, ctx: CheckContext, checkers: list[Checker]) -> bool:
    """Whether a checker with an ``accepts(code, answer_type, ctx)`` method (the ``parse``
    checker) says the repository's own parser took the answer; False when none has one."""
    return any(accepts(code, answer_type, ctx) for accepts in
               (getattr(c, "accepts", None) for c in checkers) if accepts is not None)


def checkers_parsed_flags(code: str, answer_type: str, ctx: CheckContext,
                          checkers: list[Checker]) -> dict[str, tuple[str, list[dict]]]:
    """The dry run's parameters of the scripts ``code`` runs that no static reading gives flags
    for, from every checker with a ``parsed_flags(code, answer_type, ctx)`` method (the ``parse``
    checker); {} when none has one."""
    out: dict[str, tuple[str, list[dict]]] = {}
    for read in (getattr(c, "parsed_flags", None) for c in checkers):
        out.update(read(code, answer_type, ctx) if read is not None else {})
    return out


def checkers_as_python(code: str, answer_type: str, ctx: CheckContext, checkers: list[Checker]) -> str | None:
    """The Python call a command means, from the first checker with an ``as_python(code,
    answer_type, ctx)`` method that gives one (the ``parse`` checker: a python-fire command);
    None when none does."""
    for read in (getattr(c, "as_python", None) for c in checkers):
        call = read(code, answer_type, ctx) if read is not None else None
        if call is not None:
            return call
    return None


def penalty(findings: list[Finding]) -> float:
    return round(sum(f.weight for f in findings), 3)


__all__ = ["CHECKERS", "DEFAULT_CHECKS", "ERROR", "RULES", "WARNING", "WEIGHTS", "CheckContext", "Checker",
           "Finding", "check_answer", "checkers_accept", "checkers_as_python", "checkers_keep_fix", "checkers_parsed_flags", "load_checkers", "moved_script", "penalty", "say"]
