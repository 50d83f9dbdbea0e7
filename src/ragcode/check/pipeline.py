"""Checked generation: sample, check every answer, choose the best first, repair it.

``checked_candidates`` draws ``n`` answers to one prompt (sample 1 greedy, the rest at the
configured temperature, so choosing can only add to the greedy answer), checks each with the
configured checkers, orders them best first (``select``), corrects the first one's certain slips
(``autofix``: a flag spelled with ``-`` for ``_``, a script reached by the wrong path; with ``fill``
also a wrapper script opened and the instruction's left-out values given to their flags), then gives it up to
``repair_rounds`` rounds: its findings go back to the model in the same conversation and a new
answer replaces it when its findings weigh less and it keeps every instruction word the old one
used (``lost_values``). Every candidate's metadata carries its
findings (``check``); the first also the repair rounds (prompt hash, findings, answer,
accepted). A ``Journal`` makes a task resumable mid-way: finished steps are read back, not
generated again.
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

from ragcode.check import CheckContext, Checker, Finding, check_answer, penalty
from ragcode.check.fill import names_said, proper_names
from ragcode.check.repair import prompt_hash, repair_message
from ragcode.check.select import annotate, rank, reannotate
from ragcode.fileio import append_line, read_lines, repair_tail
from ragcode.generation.generate import sample_candidates, to_candidate
from ragcode.generation.llm import LLM, Sampling
from ragcode.types import Candidate


class Journal:
    """Finished steps of one task (``samples``, ``repair-1``...), one JSON line each, appended
    and fsynced; a torn last line from a kill is ignored."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path else None
        self.steps: dict[str, Any] = {}
        if self.path is not None:
            repair_tail(self.path)
            for rec in read_lines(self.path):
                if "step" in rec and "data" in rec:
                    self.steps[rec["step"]] = rec["data"]

    def get(self, step: str) -> Any:
        return self.steps.get(step)

    def put(self, step: str, data: Any) -> None:
        self.steps[step] = data
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            append_line(self.path, {"step": step, "data": data})


def _draw(messages: list[dict[str, str]], meta: dict[str, Any], llm: LLM, n: int, sampling: Sampling,
          journal: Journal) -> list[Candidate]:
    done = journal.get("samples")
    if done is not None:
        return [to_candidate(d["text"], i, dict(meta, **d["meta"])) for i, d in enumerate(done)]
    greedy = dataclasses.replace(sampling, temperature=0.0)
    cands = sample_candidates(messages, meta, llm, 1, greedy)
    if n > 1:
        rest = sample_candidates(messages, meta, llm, n - 1, dataclasses.replace(sampling, seed=sampling.seed + 1))
        cands += [dataclasses.replace(c, sample_index=i + 1) for i, c in enumerate(rest)]
    keep = ("sampling", "seconds", "tokens_per_s", "seed", "answer_tokens")
    journal.put("samples", [{"text": c.text, "meta": {k: c.metadata.get(k) for k in keep}} for c in cands])
    return cands


def checked_candidates(messages: list[dict[str, str]], meta: dict[str, Any], llm: LLM, n: int,
                       sampling: Sampling, ctx: CheckContext, checkers: list[Checker], select: bool = True,
                       repair_rounds: int = 0, journal: Journal | None = None,
                       autofix: bool = False, fill: bool = True) -> list[Candidate]:
    journal = journal or Journal(None)
    started = time.perf_counter()
    cands = _draw(messages, meta, llm, n, sampling, journal)
    findings = [check_answer(c.code, c.answer_type, ctx, checkers) for c in cands]
    if select:
        cands = rank(cands, findings, ctx.instruction)
        findings = [[Finding.from_dict(f) for f in c.metadata["check"]["findings"]] for c in cands]
    else:
        cands = [annotate(c, fs) for c, fs in zip(cands, findings)]
    if autofix and cands:
        cands[0], findings[0] = _autofix(cands[0], findings[0], ctx, checkers, fill)
    if repair_rounds and cands:
        cands[0] = _repair(cands[0], findings[0], messages, llm, sampling, ctx, checkers, repair_rounds, journal)
    cands[0].metadata["check"]["seconds"] = round(time.perf_counter() - started, 3)
    return cands


def lost_values(old: str, new: str, instruction: str) -> list[str]:
    """Words of the instruction that the old answer used and the new one dropped: a repair that
    silences a finding by giving up the task's own value (``--dataset pubmed`` -> ``citeseer``)
    is no repair."""
    words = {w.lower() for w in re.findall(r"[\w][\w.\-/]*", instruction) if len(w) > 1}
    def used(code: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[\w][\w.\-/]*", code)}
    return sorted((used(old) & words) - used(new) - _COMMON)


_COMMON = {"python", "python3", "bash", "the", "and", "to", "of", "in", "on", "for", "with", "a", "an", "is",
           "py", "sh", "cd", "model", "train", "data", "run", "use", "i", "it", "my"}


def fix_answer(code: str, answer_type: str, fs: list[Finding], ctx: CheckContext, checkers: list[Checker],
               fill: bool = True) -> tuple[str, list[Finding], dict[str, Any]]:
    """``code`` with its certain slips corrected (``ragcode.check.autofix``) and, with ``fill``, a
    wrapper script opened (``check.expand``) and the instruction's values it left out given to
    their flags (``check.fill``): the new code, its findings, and what was done."""
    code, new_fs, pairs = _certain_fixes(code, answer_type, fs, ctx, checkers)
    record: dict[str, Any] = {"pairs": pairs}
    if fill and answer_type == "bash":
        from ragcode.check.expand import expand_wrappers
        from ragcode.check.fill import fill_values
        from ragcode.check.fill_vars import fill_vars
        from ragcode.check.retarget import retarget_script
        from ragcode.check.switch import switch_command

        gaps = (any(f.code == "missing-value" for f in new_fs)
                or names_said(code, ctx.instruction) < len(proper_names(ctx.instruction)))
        step: dict[str, Any] = {}
        inner = expand_wrappers(code, ctx) if gaps else None
        filled_code, filled_fs = code, new_fs
        if inner is not None:
            step["expanded"] = inner
            filled_code, filled_fs = inner, check_answer(inner, answer_type, ctx, checkers)
        moved = retarget_script(filled_code, ctx)
        if moved is not None:
            moved, moved_fs, _ = _certain_fixes(moved, answer_type, check_answer(moved, answer_type, ctx, checkers),
                                                ctx, checkers)  # the sibling's parser can show slips of its own
            if penalty(moved_fs) <= penalty(filled_fs):
                step["retargeted"] = moved
                filled_code, filled_fs = moved, moved_fs
        switched = switch_command(filled_code, ctx, checkers) if gaps and moved is None else None
        if switched is not None:
            switched_fs = check_answer(switched, answer_type, ctx, checkers)
            if penalty(switched_fs) < penalty(filled_fs):
                step["switched"] = switched
                filled_code, filled_fs = switched, switched_fs
        if gaps or moved is not None:
            filled_code, filled = fill_values(filled_code, filled_fs, ctx)
            if filled:
                step["filled"] = [list(p) for p in filled]
                filled_fs = check_answer(filled_code, answer_type, ctx, checkers)
            filled_code, exported = fill_vars(filled_code, filled_fs, ctx)
            if exported:
                step["exported"] = [list(p) for p in exported]
                filled_fs = check_answer(filled_code, answer_type, ctx, checkers)
        if step and better(filled_code, filled_fs, code, new_fs, ctx.instruction):  # else: the certain fixes only
            code, new_fs = filled_code, filled_fs
            record.update(step)
    return code, new_fs, record


def _certain_fixes(code: str, answer_type: str, fs: list[Finding], ctx: CheckContext,
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


def better(code: str, fs: list[Finding], old: str, old_fs: list[Finding], instruction: str) -> bool:
    """Findings that weigh less, or as much while naming more of the instruction's capitalised
    names (``Informer``, which the coverage check does not count as a value)."""
    if penalty(fs) != penalty(old_fs):
        return penalty(fs) < penalty(old_fs)
    from ragcode.check.retarget import scripts_named

    said, said_old = names_said(code, instruction), names_said(old, instruction)
    if said != said_old:
        return said > said_old
    return scripts_named(code, instruction) > scripts_named(old, instruction)


def _autofix(cand: Candidate, fs: list[Finding], ctx: CheckContext, checkers: list[Checker],
             fill: bool = True) -> tuple[Candidate, list[Finding]]:
    """The first answer through ``fix_answer``, kept when a certain fix was made (a script reached
    by its real path may show flag slips the missing one hid: the answer is still closer to
    running) or when it is ``better``."""
    code, new_fs, record = fix_answer(cand.code, cand.answer_type, fs, ctx, checkers, fill)
    if code == cand.code or not record["pairs"] and not better(code, new_fs, cand.code, fs, ctx.instruction):
        return cand, fs
    fixed = dataclasses.replace(cand, code=code)
    out = reannotate(fixed, new_fs, cand)
    out.metadata["check"]["autofix"] = {"previous": cand.code, **record,
                                        "findings_before": [f.to_dict() for f in fs]}
    return out, new_fs


def _repair(best: Candidate, fs: list[Finding], messages: list[dict[str, str]], llm: LLM, sampling: Sampling,
            ctx: CheckContext, checkers: list[Checker], rounds: int, journal: Journal) -> Candidate:
    greedy = dataclasses.replace(sampling, temperature=0.0)
    conv = list(messages)
    log: list[dict[str, Any]] = []
    current, current_fs = best, fs
    for r in range(1, rounds + 1):
        if not penalty(current_fs):
            break  # nothing wrong (a note such as no-own-use weighs nothing)
        conv = [*conv, {"role": "assistant", "content": current.text},
                {"role": "user", "content": repair_message(current_fs, ctx.task_dir)}]
        step = f"repair-{r}"
        text, seconds = journal.get(step), None
        if text is None:
            t0 = time.perf_counter()
            text = llm.generate(conv, 1, greedy)[0]
            seconds = round(time.perf_counter() - t0, 3)
            journal.put(step, text)
        new = to_candidate(text, 0, best.metadata, repaired_round=r)
        new_fs = check_answer(new.code, new.answer_type, ctx, checkers)
        lost = lost_values(current.code, new.code, ctx.instruction)
        accepted = penalty(new_fs) < penalty(current_fs) and not lost
        log.append({"round": r, "prompt_sha": prompt_hash(conv), "previous": current.code,
                    "findings_before": [f.to_dict() for f in current_fs], "answer": text, "code": new.code,
                    "findings_after": [f.to_dict() for f in new_fs], "accepted": accepted, "seconds": seconds,
                    "lost_values": lost})
        if not accepted:
            break
        current, current_fs = new, new_fs
    out = reannotate(current, current_fs, best)
    out.metadata["check"]["repair"] = log
    return dataclasses.replace(out, sample_index=0)
