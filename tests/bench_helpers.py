"""Helpers for the bench tests: ML-Bench task records and files, fixture tasks and repositories,
and a slow scripted model. (``conftest.py`` wraps the builders as fixtures; they stay importable
here for helpers and for tests that run the CLI in a subprocess.)"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from exec_helpers import make_repo

from ragcode.generation.backends.scripted import ScriptedLLM

TASK_DEFAULTS: dict[str, Any] = {"github": "", "repo_id": 1, "path": "./", "arguments": "{}", "oracle": "",
                                 "type": "Bash Script", "output": "", "prefix_code": ""}


def task_record(github_id: int, id: int | str, instruction: str, **fields: Any) -> dict[str, Any]:  # noqa: A002
    """One ML-Bench-shaped task record (every field of the dataset; ``fields`` override defaults)."""
    return {"github_id": github_id, "id": id, "instruction": instruction, **TASK_DEFAULTS, **fields}


def write_jsonl(path: Path, records: list[Any]) -> Path:
    """``records`` as a JSONL file (one JSON value a line); returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def make_bench(tmp_path: Path, n_tasks: int = 4) -> tuple[Path, Path]:
    """(tasks.jsonl, repos dir) with ``n_tasks`` bash tasks on a fixture repo named like dgl."""
    repo = make_repo(tmp_path / "src")
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "dgl").symlink_to(repo, target_is_directory=True)
    rows = [task_record(1, 100 + i, f"Train a GCN on citeseer (variant {i}).",
                        github="https://github.com/dmlc/dgl", repo_id=i, path="./examples/gcn",
                        arguments="{'dataset': 'citeseer'}", oracle="python train.py --dataset cora",
                        output="python train.py --dataset citeseer")
            for i in range(n_tasks)]
    return write_jsonl(tmp_path / "tasks.jsonl", rows), repos


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


def cli_argv(*args: str) -> list[str]:
    """The real ``ragcode`` command line in a fresh interpreter (``subprocess.run(cli_argv(...))``)."""
    import sys

    return [sys.executable, "-c", "import sys; from ragcode.cli import main; main(sys.argv[1:])", *args]


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for ``cli_argv``: offline, with the tests folder importable (for
    ``--llm bench_helpers:BlockingScriptedLLM``)."""
    here = str(Path(__file__).parent)
    return dict(os.environ, PYTHONPATH=f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                HF_HUB_OFFLINE="1", **extra)


def one_line_error(proc) -> str:  # noqa: ANN001 - a CompletedProcess with text output
    """The single stderr line of a command that failed on bad input (exit 2, no traceback)."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr[-2000:]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]
