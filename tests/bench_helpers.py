"""Helpers for the bench tests: fixture tasks and repositories, and a slow scripted model."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from exec_helpers import make_repo

from ragcode.generation.backends.scripted import ScriptedLLM


def make_bench(tmp_path: Path, n_tasks: int = 4) -> tuple[Path, Path]:
    """(tasks.jsonl, repos dir) with ``n_tasks`` bash tasks on a fixture repo named like dgl."""
    repo = make_repo(tmp_path / "src")
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "dgl").symlink_to(repo, target_is_directory=True)
    tasks = tmp_path / "tasks.jsonl"
    rows = []
    for i in range(n_tasks):
        rows.append({"github_id": 1, "github": "https://github.com/dmlc/dgl", "repo_id": i, "id": 100 + i,
                     "path": "./examples/gcn", "arguments": "{'dataset': 'citeseer'}",
                     "instruction": f"Train a GCN on citeseer (variant {i}).",
                     "oracle": "python train.py --dataset cora", "type": "Bash Script",
                     "output": "python train.py --dataset citeseer", "prefix_code": ""})
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tasks, repos


class BlockingScriptedLLM(ScriptedLLM):
    """The scripted model that hangs on call number ``$RAGCODE_TEST_BLOCK_AT`` (1-based) after
    creating the file ``$RAGCODE_TEST_BLOCKED``, so a test can kill a run at a known point."""

    def generate(self, messages, n, sampling):  # noqa: ANN001
        block_at = int(os.environ.get("RAGCODE_TEST_BLOCK_AT", "0"))
        if block_at and len(self.calls) + 1 == block_at:
            Path(os.environ["RAGCODE_TEST_BLOCKED"]).write_text("blocked")
            while True:
                time.sleep(1)
        return super().generate(messages, n, sampling)
