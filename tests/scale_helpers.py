"""Helpers for the scale tests: a model whose answers depend only on the task (so any order of
work gives the same records), one that kills its worker at a chosen task, and pool factories."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ragcode.generation.backends.scripted import ScriptedLLM

ANSWER = "```bash\npython train.py --dataset citeseer --variant {v} --sample {s}\n```"


class EchoLLM(ScriptedLLM):
    """Answers ``ANSWER`` for the task's variant number (from its instruction) and the sample.

    ``generation.llm.scripted_answers`` may hold ``"kill:V:once:PATH"`` (on the task of variant V
    the worker process dies, ``os._exit``, and creates PATH first, unless PATH exists) or
    ``"kill:V:while:PATH"`` (it dies on every try while PATH exists). The driver's own process is
    never killed (``RAGCODE_TEST_DRIVER``).
    """

    def __init__(self, llm_config=None, cache_dir=""):
        super().__init__(llm_config, cache_dir, answers=["unused"])
        self.kills = [a.split(":", 3)[1:] for a in getattr(llm_config, "scripted_answers", [])
                      if a.startswith("kill:")]
        self.model_id = "echo"

    def generate(self, messages, n, sampling):  # noqa: ANN001
        text = messages[-1]["content"]
        found = re.findall(r"variant (\d+)", text)
        variant = found[-1] if found else "?"
        for v, mode, path in self.kills:
            if v == variant and os.getpid() != int(os.environ.get("RAGCODE_TEST_DRIVER", "0")):
                if mode == "while" and os.path.exists(path):
                    os._exit(9)
                if mode == "once" and not os.path.exists(path):
                    Path(path).write_text(str(os.getpid()))
                    os._exit(9)
        self.calls.append({"n": n})
        return [ANSWER.format(v=variant, s=i) for i in range(n)]


@dataclass
class Square:
    """A pool factory: squares numbers; dies (once per marker file) on ``die_on``; raises on ``fail_on``."""

    die_on: int = -1
    marker: str = ""
    fail_on: int = -1
    driver: int = 0

    def __call__(self):
        def handle(x):
            if x == self.die_on and os.getpid() != self.driver:
                if self.marker == "always" or not os.path.exists(self.marker):
                    if self.marker != "always":
                        Path(self.marker).write_text("")
                    os._exit(3)
            if x == self.fail_on:
                raise ValueError(f"bad input {x}")
            return x * x

        return handle


def comparable(records: list[dict]) -> list[dict]:
    """Run records without what changes from run to run (timings), sorted by task key."""
    out = []
    for rec in records:
        rec = dict(rec)
        rec.pop("seconds", None)
        rec["candidates"] = [dict(c, metadata={k: v for k, v in c["metadata"].items()
                                               if k not in ("seconds", "tokens_per_s")})
                             for c in rec.get("candidates", [])]
        out.append(rec)
    return sorted(out, key=lambda r: r["key"])
