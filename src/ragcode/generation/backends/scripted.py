"""A deterministic model for tests and dry runs: replays canned answers in order.

Every call is recorded in ``calls`` (messages, n, sampling), so tests can check exactly what
reached the prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragcode.errors import ConfigError
from ragcode.generation.llm import Message, Sampling


class ScriptedLLM:
    def __init__(self, llm_config: Any = None, cache_dir: str | Path = "", answers: list[str] | None = None):
        answers = list(answers if answers is not None else getattr(llm_config, "scripted_answers", []))
        if not answers:
            raise ConfigError(
                "the 'scripted' llm backend needs answers: set generation.llm.scripted_answers "
                "(a list of strings) or pass answers=[...]"
            )
        self.answers = answers
        self.model_id = "scripted"
        self.calls: list[dict[str, Any]] = []
        self._next = 0

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        self.calls.append({"messages": [dict(m) for m in messages], "n": n, "sampling": sampling})
        out = []
        for _ in range(n):
            out.append(self.answers[self._next % len(self.answers)])
            self._next += 1
        return out

    def count_tokens(self, text: str) -> int:
        return len(text.split())
