"""The fixes: named, registered steps that correct an answer after its checks, and the one rule
that says whether a fixed answer is kept.

``generation.fixes`` names the steps, in order (default: ``DEFAULT_FIXES``):

- ``certain``: the certain slips of ``ragcode.check.autofix`` (each rule with ``fix="certain"``
  in ``ragcode.check.rules``), applied until none is left (a fixed script path can show its
  flags' slips);
- the guessing steps, for bash answers, tried together on a copy and kept only when the result is
  ``better`` than the certain fixes alone: ``expand`` (open an argument-less wrapper script,
  ``ragcode.check.expand``), ``retarget`` (move to the sibling script the instruction names,
  ``ragcode.check.retarget``), ``unlaunch`` (a cluster launcher the user never asked for moved to the
  script it wraps, ``ragcode.check.launcher``), ``switch`` (the documented sibling command that takes the
  instruction's values, ``ragcode.check.switch``), ``refile`` (a config file that is not there
  written as the one the task's words name, ``ragcode.check.repo_files``), ``rename`` (a refused
  flag the user asked
  for, given the declared name it abbreviates: ``--lr`` -> ``--learning_rate``,
  ``ragcode.check.rename``), ``drop`` (the flags the script refuses and
  the instruction never asked for, taken out: ``ragcode.check.drop``), ``fill`` (the
  instruction's left-out values to their flags, ``ragcode.check.fill``), ``fill_vars`` (the
  variables the documents export, ``ragcode.check.fill_vars``); for Python answers (the steps
  of ``PYTHON_STEPS``): ``fill_calls`` (the left-out values to the unset parameters of the calls
  the dry run bound, ``ragcode.check.fill_calls``).

``keep_fixed`` is the keep rule that checked generation, ``ragcode check --fix`` and the agent's
``check`` tool all apply: a fixed answer is kept when a certain fix was made (a script reached by
its real path may show flag slips the missing one hid: the answer is still closer to running) or
when it is ``better``. A new step is a function ``step(trial: Trial) -> None`` registered in
``FIXES`` under its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragcode.check import (CheckContext, Checker, Finding, check_answer, checkers_call_slots, checkers_declared,
                           checkers_keep_fix, checkers_parsed_flags, penalty)
from ragcode.check.fill import names_said
from ragcode.check.instruction import read_instruction
from ragcode.registry import Registry

DEFAULT_FIXES = ("certain", "expand", "retarget", "unlaunch", "switch", "refile", "rename", "drop", "fill", "fill_vars",
                 "fill_calls")
GUESSING = ("expand", "retarget", "unlaunch", "switch", "refile", "rename", "drop", "fill", "fill_vars", "fill_calls")


@dataclass
class Trial:
    """An answer on its way through the guessing steps: its code and findings now, whether the
    instruction's values have a gap (a missing value, a capitalised name not said), whether a
    sibling was proposed, and what each step did (``record``)."""

    code: str
    findings: list[Finding]
    ctx: CheckContext
    checkers: list[Checker]
    answer_type: str = "bash"
    gaps: bool = False
    moved: bool = False
    record: dict[str, Any] = field(default_factory=dict)

    def check(self, code: str) -> list[Finding]:
        return check_answer(code, self.answer_type, self.ctx, self.checkers)

    def take(self, code: str, findings: list[Finding] | None = None) -> None:
        self.code, self.findings = code, self.check(code) if findings is None else findings


@dataclass(frozen=True)
class Fixed:
    """What the fixes made of an answer: the code, its findings, and the record of what was done
    (``pairs``: the certain fixes; ``expanded``, ``retargeted``, ``unlaunched``, ``switched``, ``refiled``, ``renamed``,
    ``dropped``,
    ``filled``, ``exported``: the guessing steps kept)."""

    code: str
    findings: list[Finding]
    record: dict[str, Any]


def certain_fixes(code: str, answer_type: str, fs: list[Finding], ctx: CheckContext,
                  checkers: list[Checker]) -> tuple[str, list[Finding], list[list[str]]]:
    """``code`` with ``ragcode.check.autofix``'s certain corrections applied until none is left
    (a fixed script path can reveal its flags' slips), its findings, and the pairs used."""
    from ragcode.check.autofix import autofix as fix

    pairs: list[list[str]] = []
    for _ in range(3):
        code, more = fix(code, fs)
        if not more:
            break
        pairs += [list(p) for p in more]
        fs = check_answer(code, answer_type, ctx, checkers)
    return code, fs, pairs


def expand_step(trial: Trial) -> None:
    from ragcode.check.expand import expand_wrappers

    inner = expand_wrappers(trial.code, trial.ctx) if trial.gaps else None
    if inner is not None:
        trial.record["expanded"] = inner
        trial.take(inner)


def retarget_step(trial: Trial) -> None:
    from ragcode.check.retarget import retarget_script

    moved = retarget_script(trial.code, trial.ctx)
    if moved is None:
        return
    trial.moved = True
    # the sibling's parser can show slips of its own
    moved, moved_fs, _ = certain_fixes(moved, trial.answer_type, trial.check(moved), trial.ctx, trial.checkers)
    if penalty(moved_fs) <= penalty(trial.findings):
        trial.record["retargeted"] = moved
        trial.take(moved, moved_fs)


def _take_suggestions(trial: Trial, code_name: str, key: str) -> bool:
    """Each ``code_name`` finding's target written as its suggestion, wherever it stands as a word;
    the pairs recorded under ``key``. Whether the code changed."""
    from ragcode.check.retarget import replace_word

    moves = [(f.target, f.suggestion) for f in trial.findings if f.code == code_name and f.suggestion]
    code = trial.code
    for old, new in moves:
        code = replace_word(code, old, new, count=0)
    if code == trial.code:
        return False
    trial.record[key] = [list(m) for m in moves]
    trial.take(code)
    return True


def unlaunch_step(trial: Trial) -> None:
    """A cluster launcher the user never asked for (``cluster-launcher``) moved to the script it
    wraps (``ragcode.check.launcher``); ``drop`` then takes out the cluster flags it refuses."""
    if _take_suggestions(trial, "cluster-launcher", "unlaunched"):
        trial.moved = True


def switch_step(trial: Trial) -> None:
    from ragcode.check.switch import switch_command

    switched = switch_command(trial.code, trial.ctx, trial.checkers) if trial.gaps and not trial.moved else None
    if switched is not None:
        switched_fs = trial.check(switched)
        if penalty(switched_fs) < penalty(trial.findings):
            trial.record["switched"] = switched
            trial.take(switched, switched_fs)


def refile_step(trial: Trial) -> None:
    """A missing config-like file the task's words name another file for (``missing-file`` with
    a suggestion, ``ragcode.check.repo_files``) written as that file."""
    _take_suggestions(trial, "missing-file", "refiled")


def rename_step(trial: Trial) -> None:
    from ragcode.check.rename import rename_refused

    code, findings, pairs = rename_refused(
        trial.code, trial.findings, trial.ctx, trial.check,
        lambda code: checkers_declared(code, trial.answer_type, trial.ctx, trial.checkers))
    if pairs:
        trial.record["renamed"] = pairs
        trial.take(code, findings)


def drop_step(trial: Trial) -> None:
    from ragcode.check.drop import drop_refused

    code, findings, dropped = drop_refused(trial.code, trial.findings, trial.ctx, trial.check)
    if dropped:
        trial.record["dropped"] = dropped
        trial.take(code, findings)


def _fill_gaps(trial: Trial, fill: Any, key: str) -> None:
    """Where values are missing (or the answer moved), ``fill(code, findings, ctx) -> (code,
    pairs)``; what it set is recorded under ``key``."""
    if trial.gaps or trial.moved:
        code, pairs = fill(trial.code, trial.findings, trial.ctx)
        if pairs:
            trial.record[key] = [list(p) for p in pairs]
            trial.take(code)


def fill_step(trial: Trial) -> None:
    """A left-out value given to its flag; the flags of a fire or configurator script, which no
    static reading finds, from the dry run (``ragcode.check.spec_flags``)."""
    from ragcode.check.fill import fill_values

    parsed = checkers_parsed_flags(trial.code, trial.answer_type, trial.ctx, trial.checkers) if (
        trial.gaps or trial.moved) else {}
    _fill_gaps(trial, lambda code, findings, ctx: fill_values(code, findings, ctx, parsed), "filled")


def fill_calls_step(trial: Trial) -> None:
    """Python: a missing value given to the one unset parameter of a bound call it belongs to."""
    from ragcode.check.fill_calls import fill_calls

    slots = checkers_call_slots(trial.code, trial.answer_type, trial.ctx, trial.checkers) if trial.gaps else []
    _fill_gaps(trial, lambda code, findings, ctx: fill_calls(code, findings, ctx, slots), "filled_calls")


def fill_vars_step(trial: Trial) -> None:
    from ragcode.check.fill_vars import fill_vars

    _fill_gaps(trial, fill_vars, "exported")


FIXES = Registry("fix", {
    "certain": "ragcode.answer.fixes:certain_fixes",  # always first, before the guessing steps
    "expand": "ragcode.answer.fixes:expand_step",
    "retarget": "ragcode.answer.fixes:retarget_step",
    "unlaunch": "ragcode.answer.fixes:unlaunch_step",
    "switch": "ragcode.answer.fixes:switch_step",
    "refile": "ragcode.answer.fixes:refile_step",
    "rename": "ragcode.answer.fixes:rename_step",
    "drop": "ragcode.answer.fixes:drop_step",
    "fill": "ragcode.answer.fixes:fill_step",
    "fill_vars": "ragcode.answer.fixes:fill_vars_step",
    "fill_calls": "ragcode.answer.fixes:fill_calls_step",
})
PYTHON_STEPS = frozenset({"fill_calls"})  # the steps that read Python answers; the others read commands


def has_gaps(code: str, fs: list[Finding], instruction: str) -> bool:
    """A value of the instruction is missing, or a capitalised name of it (``Informer``) unsaid."""
    return (any(f.code == "missing-value" for f in fs)
            or names_said(code, instruction) < len(read_instruction(instruction).names))


def fix_answer(code: str, answer_type: str, fs: list[Finding], ctx: CheckContext, checkers: list[Checker],
               fixes: tuple[str, ...] | list[str] = DEFAULT_FIXES) -> tuple[str, list[Finding], dict[str, Any]]:
    """``code`` through the ``fixes`` named: the certain ones first, then the guessing steps in
    their order, kept only when ``better``. The new code, its findings, and what was done."""
    named = {name: FIXES.get(name) for name in fixes}  # an unknown name: one line with the known ones
    pairs: list[list[str]] = []
    if "certain" in named:
        code, fs, pairs = certain_fixes(code, answer_type, fs, ctx, checkers)
    record: dict[str, Any] = {"pairs": pairs}
    steps = [step for name, step in named.items()
             if name != "certain" and (name in PYTHON_STEPS) == (answer_type == "python")]
    if steps and answer_type in ("bash", "python"):
        trial = Trial(code, fs, ctx, checkers, answer_type, gaps=has_gaps(code, fs, ctx.instruction))
        for step in steps:
            step(trial)
        if trial.record and better(trial.code, trial.findings, code, fs, ctx.instruction):
            code, fs = trial.code, trial.findings
            record.update(trial.record)
    return code, fs, record


def better(code: str, fs: list[Finding], old: str, old_fs: list[Finding], instruction: str) -> bool:
    """Findings that weigh less, or as much while naming more of the instruction's capitalised
    names (``Informer``, which the coverage check does not count as a value), then more of the
    scripts it names."""
    if penalty(fs) != penalty(old_fs):
        return penalty(fs) < penalty(old_fs)
    from ragcode.check.retarget import scripts_named

    said, said_old = names_said(code, instruction), names_said(old, instruction)
    if said != said_old:
        return said > said_old
    return scripts_named(code, instruction) > scripts_named(old, instruction)


def keep_fixed(old: str, old_fs: list[Finding], fixed: Fixed, instruction: str) -> bool:
    """The one keep rule: the fixed answer differs and a certain fix was made or it is ``better``."""
    if fixed.code == old:
        return False
    return bool(fixed.record.get("pairs")) or better(fixed.code, fixed.findings, old, old_fs, instruction)


def fix_and_keep(code: str, answer_type: str, fs: list[Finding], ctx: CheckContext, checkers: list[Checker],
                 fixes: tuple[str, ...] | list[str] = DEFAULT_FIXES) -> Fixed | None:
    """The fixed answer when ``keep_fixed`` keeps it, else None (the answer stands as it is)."""
    fixed = Fixed(*fix_answer(code, answer_type, fs, ctx, checkers, fixes))
    if not keep_fixed(code, fs, fixed, ctx.instruction):
        return None
    return fixed if checkers_keep_fix(code, fixed.code, answer_type, ctx, checkers) else None
