"""Fixtures shared by the test files: ML-Bench-shaped task files on fixture repositories, and the
real ML-Bench data, which is opt-in (``RAGCODE_MLBENCH_DATA=DIR``; never read by an absolute path).
Exported models (the ONNX embedder of the default ``embedder.backend: auto``) go to one folder per
test session (``$RAGCODE_MODELS``), so the 10-20 s export runs at most once although tests set
``RAGCODE_CACHE`` per test.

The builders behind them live in ``bench_helpers`` (task records, JSONL files, the dgl-named bench
repository), ``retrieval_helpers`` (a GAN repository and its two tasks) and ``ablation_helpers``
(two repositories, three tasks), so helpers and subprocess tests can import them too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench_helpers import make_bench, task_record, write_jsonl
from retrieval_helpers import make_gan_repo
from retrieval_helpers import write_tasks as write_gan_tasks

MLBENCH_DATA_ENV = "RAGCODE_MLBENCH_DATA"  # a folder with dev.jsonl and reference_outputs/


@pytest.fixture(scope="session", autouse=True)
def shared_models(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    """``$RAGCODE_MODELS`` for the whole session (subprocesses inherit it): one fresh folder."""
    folder = tmp_path_factory.mktemp("models")
    before = os.environ.get("RAGCODE_MODELS")
    os.environ["RAGCODE_MODELS"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("RAGCODE_MODELS", None)
    else:
        os.environ["RAGCODE_MODELS"] = before


@pytest.fixture
def write_tasks(tmp_path: Path) -> Callable[..., Path]:
    """``write_tasks([(github_id, id, instruction, {field: value}), ...], name="tasks.jsonl")``:
    a task file of ML-Bench records (every dataset field, defaults filled in) under tmp_path."""

    def write(rows: list[tuple[Any, ...]], name: str = "tasks.jsonl") -> Path:
        records = [task_record(r[0], r[1], r[2], **(r[3] if len(r) > 3 else {})) for r in rows]
        return write_jsonl(tmp_path / name, records)

    return write


@pytest.fixture
def bench(tmp_path: Path) -> tuple[Path, Path]:
    """(tasks.jsonl, repos/): four bash tasks on a small repository in dgl's folder."""
    return make_bench(tmp_path)


@pytest.fixture
def gan_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(repos/, tasks.jsonl): the GAN fixture repository in PyTorch-GAN's folder and its two
    tasks; the embedding cache goes to tmp_path."""
    monkeypatch.setenv("RAGCODE_CACHE", str(tmp_path / "cache"))
    repos = tmp_path / "repos"
    make_gan_repo(repos / "PyTorch-GAN")  # github_id 10's ML-Bench folder name
    return repos, write_gan_tasks(tmp_path / "tasks.jsonl")


@pytest.fixture
def mlbench_data() -> Path:
    """The real ML-Bench dev data (``$RAGCODE_MLBENCH_DATA``); the test is skipped without it."""
    folder = os.environ.get(MLBENCH_DATA_ENV, "")
    if not folder or not (Path(folder) / "dev.jsonl").is_file():
        pytest.skip(f"real ML-Bench data is opt-in: set {MLBENCH_DATA_ENV} to a folder with dev.jsonl")
    return Path(folder)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="store the golden replay's new fingerprint (tests/data/golden/fingerprint.json)")
