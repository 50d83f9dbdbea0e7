"""Helpers for the agent tests: a fixture repository and its index, text-protocol replies, and
scripted models that answer from the conversation (so a resumed episode gets the same replies)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from retrieval_helpers import make_gan_repo

from ragcode.config import load_config
from ragcode.index.build import index_repo

INSTRUCTION = "Train the DCGAN with learning rate 0.001 for 5 epochs"
EXPECTED = "python implementations/dcgan/dcgan.py --lr 0.001 --n_epochs 5"
FALLBACK = "```bash\npython fallback.py --from single-shot\n```"


def agent_config(tmp_path: Path, *overrides: str):
    """Fast settings (BM25 only, no embedder) with the index under ``tmp_path``."""
    return load_config(overrides=[f"index.root={tmp_path / 'indexes'}", f"index.cache_dir={tmp_path / 'cache'}",
                                  "embedder.enabled=false", "retrieval.mode=bm25", *overrides])


def gan_index(tmp_path: Path, *overrides: str):
    """(repo, config, index) of the GAN fixture repository."""
    repo = make_gan_repo(tmp_path / "gan")
    cfg = agent_config(tmp_path, *overrides)
    return repo, cfg, index_repo(repo, cfg, name="gan", progress=False)


def call(name: str, **arguments) -> str:
    """A text-protocol reply calling ``name``."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def user_texts(messages: list[dict]) -> list[str]:
    return [m.get("content") or "" for m in messages if m["role"] in ("user", "tool")]


class ReactiveLLM:
    """Reads each result and acts on it, as a model would: search, open the first script hit,
    read its flag table, check the command built from the flags it found, submit it. A prompt
    without tools (the single-shot fallback) gets ``FALLBACK``."""

    model_id = "reactive"

    def __init__(self, stop_after: int = 0):
        self.calls: list[list[dict]] = []
        self.stop_after = stop_after  # >0: never submit, search again and again

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, messages, n, sampling):  # noqa: ANN001
        self.calls.append([dict(m) for m in messages])
        if "<tool_call>" not in messages[0]["content"]:
            return [FALLBACK] * n
        last = user_texts(messages)[-1]
        step = sum(1 for m in messages if m["role"] == "assistant") + 1
        if self.stop_after:
            return [call("search", query=f"dcgan epochs {step}")]
        if step == 1:
            return [call("search", query="DCGAN learning rate epochs", k=5)]
        if step == 2:
            scripts = re.findall(r"^\[\d+\] ([\w/.-]+\.py):\d+-\d+:", last, re.MULTILINE)
            return [call("open", path=scripts[0], start=1, end=8)]
        if step == 3:
            path = re.search(r"^([\w/.-]+\.py) \(lines", last, re.MULTILINE).group(1)
            assert "argparse" in last
            return [f"Let me read its flags.\n{call('cli', script=path)}"]
        script = re.search(r"Command-line flags of (\S+):", "\n".join(user_texts(messages))).group(1)
        table = "\n".join(user_texts(messages))
        lr = re.search(r"^(--\S+?),? .*learning rate", table, re.MULTILINE).group(1)
        epochs = re.search(r"^(--\S+?),? .*number of epochs", table, re.MULTILINE).group(1)
        answer = f"python {script} {lr} 0.001 {epochs} 5"
        return [call("check" if step == 4 else "submit", answer=answer)]


class StepScriptedLLM:
    """Reply number k of an episode is ``scripted_answers[k % len]`` where k counts the
    assistant messages already in the conversation (a resumed episode continues the script);
    the single-shot fallback prompt gets ``FALLBACK``. With ``$RAGCODE_TEST_BLOCK_AT`` = N it
    creates ``$RAGCODE_TEST_BLOCKED`` and hangs on its N-th call (a test kills it there)."""

    def __init__(self, llm_config=None, cache_dir="", answers=None):  # noqa: ANN001
        self.answers = list(answers if answers is not None else llm_config.scripted_answers)
        self.model_id = "step-scripted"
        self.calls: list[list[dict]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def generate(self, messages, n, sampling):  # noqa: ANN001
        self.calls.append([dict(m) for m in messages])
        block_at = int(os.environ.get("RAGCODE_TEST_BLOCK_AT", "0"))
        if block_at and len(self.calls) == block_at:
            Path(os.environ["RAGCODE_TEST_BLOCKED"]).write_text("blocked")
            while True:
                time.sleep(1)
        if "<tool_call>" not in messages[0]["content"]:
            return [FALLBACK] * n
        k = sum(1 for m in messages if m["role"] == "assistant")
        return [self.answers[k % len(self.answers)]] * n
