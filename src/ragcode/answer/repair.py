"""Repair: the findings go back to the model, which answers again in the same conversation.

``repair_message(findings, ctx)`` says what is wrong in a few specific lines ("`--epoch` is not
a flag of train.py; did you mean --epochs?") and adds the real flag table of each script a
finding names, so the model sees what it may write. The conversation is extended (prompt,
the model's answer, this message), so a backend that keeps its evaluated prefix (llama.cpp)
reuses it. A repaired answer replaces the old one only when its findings weigh less.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

from ragcode.answer.journal import Journal
from ragcode.answer.run import CheckedRun, Draw
from ragcode.answer.select import reannotate
from ragcode.check import Finding, check_answer, penalty
from ragcode.check.facts import script_flags
from ragcode.check.rules import RULES
from ragcode.check.words import stopwords
from ragcode.chunking.scripts.table import format_flag
from ragcode.generation.generate import to_candidate
from ragcode.generation.llm import LLM, Sampling
from ragcode.types import Candidate

MAX_FLAG_LINES = 40
MAX_FINDINGS = 8


def flag_table(script: str, cwd: Path) -> str:
    """``script``'s declared flags, one line each, or ``""`` when it has no readable parser."""
    path = Path(script) if script.startswith("/") else cwd / script
    flags = script_flags(path) if path.is_file() else None
    if not flags:
        return ""
    lines = [format_flag(f) for f in flags[:MAX_FLAG_LINES]]
    more = f"\n... and {len(flags) - MAX_FLAG_LINES} more" if len(flags) > MAX_FLAG_LINES else ""
    return f"The flags of {script}:\n" + "\n".join(lines) + more


def repair_message(findings: list[Finding], cwd: Path) -> str:
    shown = findings[:MAX_FINDINGS]
    lines = ["Your answer has these problems:"]
    lines += [f"- {f.message}" for f in shown]
    if len(findings) > len(shown):
        lines.append(f"- ... and {len(findings) - len(shown)} more")
    tables = []
    for script in dict.fromkeys(f.target for f in shown if f.target.endswith(".py")):
        table = flag_table(script, cwd)
        if table:
            tables.append(table)
    if not tables:  # an unknown script: show the table of the one it most likely meant
        for f in shown:
            if RULES[f.code].shows_flags and f.suggestion.endswith(".py"):
                table = flag_table(f.suggestion, cwd)
                if table:
                    tables.append(table)
                break
    lines += ["", *tables] if tables else []
    lines += ["", "Write the corrected answer: one code block, using only the repository's real scripts, "
              "flags and values from the task."]
    return "\n".join(lines)


def prompt_hash(messages: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]


def lost_values(old: str, new: str, instruction: str) -> list[str]:
    """Words of the instruction that the old answer used and the new one dropped: a repair that
    silences a finding by giving up the task's own value (``--dataset pubmed`` -> ``citeseer``)
    is no repair."""
    words = {w.lower() for w in re.findall(r"[\w][\w.\-/]*", instruction) if len(w) > 1}

    def used(code: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[\w][\w.\-/]*", code)}

    return sorted((used(old) & words) - used(new) - stopwords() - _COMMAND_WORDS)


# words of every command and task, whose loss is no lost value
_COMMAND_WORDS = {"python", "python3", "bash", "py", "sh", "cd", "model", "train", "data", "run"}


def repair_first(best: Candidate, fs: list[Finding], job: Draw, run: CheckedRun, journal: Journal) -> Candidate:
    """Up to ``run.repair_rounds`` rounds: the findings go back to the model in the same
    conversation; a new answer replaces the old one when its findings weigh less and it keeps
    every instruction word the old one used (``lost_values``)."""
    greedy = dataclasses.replace(job.sampling, temperature=0.0)
    conv = list(job.messages)
    log: list[dict[str, Any]] = []
    current, current_fs = best, fs
    for r in range(1, run.repair_rounds + 1):
        if not penalty(current_fs):
            break  # nothing wrong (a note such as no-own-use weighs nothing)
        conv = [*conv, {"role": "assistant", "content": current.text},
                {"role": "user", "content": repair_message(current_fs, run.ctx.task_dir)}]
        text, seconds = _answer(job.llm, conv, greedy, journal, f"repair-{r}")
        new = to_candidate(text, 0, best.metadata, repaired_round=r)
        new_fs = check_answer(new.code, new.answer_type, run.ctx, run.checkers)
        lost = lost_values(current.code, new.code, run.ctx.instruction)
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


def _answer(llm: LLM, conv: list[dict[str, str]], sampling: Sampling, journal: Journal,
            step: str) -> tuple[str, float | None]:
    """The model's answer to ``conv``: read back from the journal, or asked and journalled."""
    text = journal.get(step)
    if text is not None:
        return text, None
    t0 = time.perf_counter()
    text = llm.generate(conv, 1, sampling)[0]
    seconds = round(time.perf_counter() - t0, 3)
    journal.put(step, text)
    return text, seconds
