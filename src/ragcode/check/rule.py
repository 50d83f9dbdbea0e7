"""What a rule of the answer checks is: one finding code, declared once (``ragcode.check.rules``).

A ``Rule`` says everything the rest of the library needs about a finding code: the checker that
emits it, its usual severity, how much it weighs when choosing among samples, its message
templates, whether a fix can correct it (``none``, ``certain``: a slip with one right spelling,
``guessing``: a deterministic fix whose result is kept only when it checks better) and which fix
steps read it, what a greedy sample with it says about the answer's kind (``greedy``), its
documentation, and test cases as data (an answer, a fixture repository by name, the expected
finding) with, in ``quiet``, right answers it must leave alone: no finding of the code, and no
rewrite by the default fixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FixKind = Literal["none", "certain", "guessing"]
# what a greedy sample with this finding says about the kind of answer the task wants: "bash" or
# "python" (the model meant the other kind), "none" (no evidence: the findings alone decide)
GreedyKind = Literal["", "bash", "python", "none"]
ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class RuleCase:
    """An answer that must emit the rule's finding: checked in the fixture repository ``repo``
    (a name of ``tests/golden_repos.py``), run from ``path``, for ``instruction``. ``stderr``
    instead: what a run printed, for the rules the executed check reads from it."""

    answer: str = ""
    repo: str = "check"
    answer_type: str = "bash"
    path: str = "."
    instruction: str = ""
    stderr: str = ""
    target: str = ""  # the expected finding's target, when it says one


@dataclass(frozen=True)
class Rule:
    code: str
    checker: str
    severity: str
    weight: float
    messages: dict[str, str]  # template by variant ("" = the usual one), filled by ``say``
    doc: str
    cases: tuple[RuleCase, ...]
    fix: FixKind = "none"
    fixed_by: tuple[str, ...] = ()  # the fix steps that read this finding (``ragcode.answer.fixes``)
    greedy: GreedyKind = ""
    moved_weight: float | None = None  # unknown-script: its weight when the file exists elsewhere
    shows_flags: bool = False  # repair shows the flag table of the script the finding suggests
    quiet: tuple[RuleCase, ...] = ()  # right answers: no finding of this code, no rewrite by the fixes

    def say(self, variant: str = "", **fields: object) -> str:
        return self.messages[variant].format(**fields)
