"""Repair: the findings go back to the model, which answers again in the same conversation.

``repair_message(findings, ctx)`` says what is wrong in a few specific lines ("`--epoch` is not
a flag of train.py; did you mean --epochs?") and adds the real flag table of each script a
finding names, so the model sees what it may write. The conversation is extended (prompt,
the model's answer, this message), so a backend that keeps its evaluated prefix (llama.cpp)
reuses it. A repaired answer replaces the old one only when its findings weigh less.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ragcode.check import Finding
from ragcode.check.facts import script_flags
from ragcode.check.rules import RULES
from ragcode.chunking.scripts.table import format_flag

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
