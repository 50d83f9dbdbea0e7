"""Append-only JSONL files that survive a kill; the helpers live in ``ragcode.fileio`` (below
every stage, so agent trajectories use them too) and are re-exported here for bench's modules."""

from __future__ import annotations

from ragcode.fileio import append_line, read_lines, repair_tail

__all__ = ["append_line", "read_lines", "repair_tail"]
