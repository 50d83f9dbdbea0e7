"""Trajectories as text: one step at a time (``ragcode agent``) or a task's whole file
(``ragcode mlbench show RUN --task ID``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcode.errors import RagcodeError

PREVIEW_LINES = 12


def call_text(call: dict[str, Any] | None) -> str:
    if not call:
        return "(no tool call)"
    args = call.get("arguments")
    if isinstance(args, dict):
        shown = ", ".join(f"{k}={_short(v)}" for k, v in args.items())
        return f"{call.get('name')}({shown})"
    return f"{call.get('name')}(<unreadable arguments>)"


def step_lines(rec: dict[str, Any], full: bool = False, resumed: bool = False) -> list[str]:
    tokens = rec.get("tokens") or {}
    head = (f"step {rec.get('step')}: {call_text(rec.get('call'))}  "
            f"[{rec.get('observation_chars', 0)} chars, {tokens.get('prompt', 0)}+"
            f"{tokens.get('completion', 0)} tokens, {rec.get('seconds', 0)}s"
            + (", recorded" if resumed else "") + "]")
    obs = str(rec.get("observation", "")).splitlines()
    if not full and len(obs) > PREVIEW_LINES:
        obs = obs[:PREVIEW_LINES] + [f"... ({len(obs) - PREVIEW_LINES} more lines)"]
    label = "error" if rec.get("error") else "result"
    return [head, *(f"  {label}: {line}" if i == 0 else f"    {line}" for i, line in enumerate(obs))]


def final_lines(final: dict[str, Any]) -> list[str]:
    agent = (final.get("metadata") or {}).get("agent", {})
    return [f"final: {final.get('stop')} -> answer from {final.get('source')} "
            f"({agent.get('steps')} steps, {agent.get('tokens')} tokens, {agent.get('seconds')}s)",
            *("  " + line for line in str(final.get("text", "")).splitlines())]


def find_task_file(run_dir: str | Path, task: str) -> Path:
    """The trajectory file of ``task`` in a run: a key (``1:100``), its file name, or an id
    (``100``) that names one task."""
    from ragcode.agent.bench import TRAJECTORIES
    from ragcode.agent.trajectory import safe_name

    folder = Path(run_dir) / TRAJECTORIES
    if not folder.is_dir():
        raise RagcodeError(f"{run_dir} has no {TRAJECTORIES}/ folder; it is not an agent run "
                           "(`ragcode mlbench run --setting agent`)")
    exact = folder / f"{safe_name(task.removesuffix('.jsonl'))}.jsonl"
    if exact.is_file():
        return exact
    matches = sorted(folder.glob(f"*_{safe_name(task)}.jsonl"))
    if len(matches) == 1:
        return matches[0]
    known = sorted(p.stem.replace("_", ":", 1) for p in folder.glob("*.jsonl"))
    what = "several tasks" if matches else "no task"
    raise RagcodeError(f"{what} in {run_dir} match {task!r}; give a task key such as "
                       f"{', '.join(known[:5]) or '1:100'}")


def show_file(path: Path, full: bool = False) -> list[str]:
    from ragcode.agent.trajectory import episodes

    lines: list[str] = []
    for number, ep in episodes(path).items():
        header = ep["header"] or {}
        lines.append(f"episode {number}: model {header.get('model')}, protocol {header.get('protocol')}, "
                     f"tools {', '.join(header.get('tools') or [])}")
        for rec in ep["steps"]:
            lines += step_lines(rec, full)
        lines += final_lines(ep["final"]) if ep["final"] else ["(unfinished: the run resumes it)"]
        lines.append("")
    return lines


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
