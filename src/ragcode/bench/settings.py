"""The context each ML-Bench setting gives the model.

- ``none``: no context (instruction only);
- ``readme``: the README of the task's path if it has one, else of the repository root, cut to
  ``bench.readme_chars`` characters (the paper's 32k / 128k settings);
- ``bm25``: the paper's BM25 retrieval (``ragcode.bench.paper_bm25``) at ``context.budget``;
- ``ragcode``: our retrieval over the repository's index (built on first use under ``index.root``);
- ``oracle``: the task's ``oracle`` field;
- ``agent``: the ``ragcode`` context, which an agent episode falls back on (``ragcode.agent.bench``).

A ``ContextBuilder`` keeps per-repository state (BM25 tables, open indexes) between tasks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragcode.bench.repos import repo_dir_for, require_task_repo, task_dir
from ragcode.config import Config
from ragcode.errors import RagcodeError
from ragcode.types import Context, Task

SETTINGS = ("none", "readme", "bm25", "ragcode", "oracle", "agent")
README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md", "Readme.md")


def find_readme(*dirs: Path) -> Path | None:
    for d in dirs:
        for name in README_NAMES:
            p = d / name
            if p.is_file():
                return p
    return None


class ContextBuilder:
    def __init__(self, setting: str, repos_dir: str | Path, config: Config):
        if setting not in SETTINGS:
            raise RagcodeError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
        self.setting = setting
        self.repos_dir = Path(repos_dir)
        self.config = config
        self._state: dict[str, Any] = {}

    def _repo(self, task: Task) -> tuple[Path, str]:
        repo_dir = require_task_repo(task, self.repos_dir, f"setting {self.setting!r}")
        return repo_dir, repo_dir_for(task, self.repos_dir)[1]

    def build(self, task: Task) -> Context | None:
        s = self.setting
        if s == "none":
            return None
        if s == "oracle":
            return Context(text=task.oracle, chunk_ids=(), budget=len(task.oracle), query=task.instruction)
        repo_dir, folder = self._repo(task)
        if s == "readme":
            limit = self.config.bench.readme_chars
            readme = find_readme(task_dir(repo_dir, task.path), repo_dir)
            text = readme.read_text(encoding="utf-8", errors="replace")[:limit] if readme else ""
            ids = (str(readme.relative_to(repo_dir)),) if readme else ()
            return Context(text=text, chunk_ids=ids, budget=limit, query=task.instruction)
        if s == "bm25":
            from ragcode.bench.paper_bm25 import PaperBM25

            key = f"bm25:{repo_dir}"
            if key not in self._state:
                self._state[key] = PaperBM25.from_repo(repo_dir)
            budget = self.config.context.budget
            text = self._state[key].context(task.instruction, budget)
            return Context(text=text, chunk_ids=(), budget=budget, query=task.instruction)
        # ragcode
        from ragcode.bench.retrieve import open_repo_index
        from ragcode.retrieval.search import retrieve_context

        key = f"index:{repo_dir}"
        if key not in self._state:
            self._state[key] = open_repo_index(repo_dir, folder, Path(self.config.index.root), self.config)
        return retrieve_context(self._state[key], task.instruction, self.config)

    def close(self) -> None:
        for value in self._state.values():
            if hasattr(value, "close"):
                value.close()
        self._state.clear()
