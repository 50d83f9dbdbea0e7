"""An episode's record, one JSON line per event, appended and fsynced as it happens.

A file holds every episode of one task (``mlbench run`` writes ``RUN/trajectories/TASK.jsonl``),
each line tagged with its ``episode``:

- ``{"type": "episode", ...}``: what the episode is (instruction hash, model, protocol, tools,
  agent settings, seed); a resumed episode must match it;
- ``{"type": "step", "step": k, ...}``: one model call: the hashes of the messages it was sent,
  the reply, the tool call, the observation and its length, tokens, seconds, and the messages
  it added to the conversation (so a resume rebuilds the conversation without calling again);
- ``{"type": "final", ...}``: the answer, why the episode stopped and where the answer came from.

A kill leaves at most a torn last line, which is cut off; the episode resumes after its last
finished step.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcode.fileio import append_line, read_lines, repair_tail
from ragcode.errors import RagcodeError

IDENTITY = ("instruction_sha256", "model", "protocol", "tools", "agent", "seed")


def message_hash(message: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(message, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def safe_name(key: str) -> str:
    """A task key (``"1:100"``) as a file name (``"1_100"``)."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in str(key)) or "task"


@dataclass
class Episode:
    """What a trajectory file already holds of one episode."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None


class Trajectory:
    """The record of one task's episodes at ``path``, or only in memory when ``path`` is None.

    ``path`` must be a regular file that can be appended to (or not exist yet) in a folder that
    exists; ``make_parent`` creates that folder (a run folder's own ``trajectories/``), never a
    user's path, so a mistyped ``--trajectory`` creates no folders anywhere."""

    def __init__(self, path: str | Path | None = None, make_parent: bool = False):
        self.path = Path(path) if path else None
        self.records: list[dict[str, Any]] = []
        if self.path is not None:
            writable_file(self.path, make_parent)
            repair_tail(self.path)
            self.records = read_lines(self.path)

    def open_episode(self, episode: int, header: dict[str, Any]) -> Episode:
        """The finished steps (and the final record, if any) of ``episode``; its header is
        written when the file has none, and must match when it has one."""
        mine = [r for r in self.records if r.get("episode") == episode]
        old = next((r for r in mine if r.get("type") == "episode"), None)
        if old is None:
            self.append(dict(header, type="episode", episode=episode))
            return Episode()
        diff = [k for k in IDENTITY if old.get(k) != header.get(k)]
        if diff:
            where = self.path or "the trajectory"
            raise RagcodeError(f"{where}: episode {episode} was recorded with other settings "
                               f"({', '.join(diff)} differ); delete the file to start over, or use "
                               "the settings it was recorded with to resume it")
        out = Episode()
        for r in mine:
            if r.get("type") == "step" and r.get("step") == len(out.steps) + 1:
                out.steps.append(r)
            elif r.get("type") == "final":
                out.final = r
        return out

    def append(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        if self.path is not None:
            append_line(self.path, record)


def writable_file(path: Path, make_parent: bool = False) -> None:
    """Raise a one-line ``RagcodeError`` unless ``path`` is, or can become, a regular file that
    this process can append to."""
    try:
        if path.exists() and not path.is_file():
            raise RagcodeError(f"trajectory {path} is not a regular file; name a .jsonl file")
        if not path.parent.is_dir():
            if not make_parent:
                raise RagcodeError(f"trajectory {path}: the folder {path.parent} does not exist; create it first")
            path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab"):
            pass
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RagcodeError(f"trajectory {path} cannot be written: {why}") from None


def episodes(path: str | Path) -> dict[int, dict[str, Any]]:
    """Every episode in a trajectory file: ``{episode: {"header", "steps", "final"}}``."""
    out: dict[int, dict[str, Any]] = {}
    for r in read_lines(Path(path)):
        ep = out.setdefault(int(r.get("episode", 0)), {"header": None, "steps": [], "final": None})
        kind = r.get("type")
        if kind == "episode":
            ep["header"] = r
        elif kind == "step":
            ep["steps"].append(r)
        elif kind == "final":
            ep["final"] = r
    return dict(sorted(out.items()))
