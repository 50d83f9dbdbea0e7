"""What one checked task is given: the draw (prompt, model, how many samples, how) and the checked
run (where the answers are checked, by which checkers, which fixes, how many repair rounds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragcode.answer.fixes import DEFAULT_FIXES
from ragcode.check import CheckContext, Checker
from ragcode.generation.llm import LLM, Sampling


@dataclass(frozen=True)
class Draw:
    """What to ask the model: the prompt's messages and metadata, how many samples, how."""

    messages: list[dict[str, str]]
    meta: dict[str, Any]
    llm: LLM
    n: int
    sampling: Sampling
    more: int = 0  # drawn after the n when the best of them is still refused (``generation.more_samples``)


@dataclass(frozen=True)
class CheckedRun:
    """How the drawn answers are checked and improved: where (``ctx``), by which checkers, whether
    they are ordered best first, which fixes the first one gets (when ``autofix``), and how many
    repair rounds."""

    ctx: CheckContext
    checkers: list[Checker]
    select: bool = True
    autofix: bool = False
    fixes: tuple[str, ...] = DEFAULT_FIXES
    repair_rounds: int = 0
    fix_each: bool = False  # every sample through the fixes before the order is made, not only the first
