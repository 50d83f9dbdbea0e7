"""Fixtures for the ablation tests: a tiny ML-Bench-like world built in a temp dir, and stages.

The stand-in retrieval stage is made of real parts (line-window chunking, bm25s through
``BM25Retriever``, the real context packer) but needs no index build, so the grid engine can be
tested on its own; calls are counted and a failure can be injected after N calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from bench_helpers import write_jsonl

from ragcode.ablation.stages import RetrievalBatch, TaskGeneration, TaskRetrieval
from ragcode.bench.repos import MLBENCH_REPOS
from ragcode.config import Config
from ragcode.types import Chunk, SourceFile, Task, sha256_text

README_GCN = """# Graph convolution examples

## Install

pip install dgl torch

## How to run

Train a GCN on a citation dataset (available: cora, citeseer, pubmed):

    python3 train.py --dataset cora

## Notes

Accuracy is reported on the test split after 200 epochs.
"""

TRAIN_GCN = """import argparse

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="cora")
    parser.add_argument("--epochs", type=int, default=200)
    args = parser.parse_args()
    print(args.dataset)

if __name__ == "__main__":
    main()
"""

README_BERT = """# BERT

## Fine-tuning on GLUE

Run the classifier on MRPC with a base model:

    python run_classifier.py --task_name=MRPC --do_train=true --bert_model=base

## Pre-training

Pre-training needs TPUs and is not covered here.
"""


def make_world(root: Path) -> tuple[Path, Path]:
    """Two fixture repositories under ML-Bench folder names, and a 3-task JSONL file."""
    repos = root / "repos"
    dgl = repos / MLBENCH_REPOS[1].folder
    (dgl / "examples" / "gcn").mkdir(parents=True)
    (dgl / "examples" / "gcn" / "README.md").write_text(README_GCN)
    (dgl / "examples" / "gcn" / "train.py").write_text(TRAIN_GCN)
    (dgl / "README.md").write_text("# DGL\n\nA graph library.\n")
    bert = repos / MLBENCH_REPOS[2].folder
    bert.mkdir(parents=True)
    (bert / "README.md").write_text(README_BERT)
    tasks = [
        {"github_id": 1, "github": "https://github.com/dmlc/dgl", "repo_id": 1,
         "path": "./examples/gcn", "arguments": "{'dataset': 'citeseer'}",
         "instruction": "Train a graph convolutional network GCN on the citeseer dataset.",
         "oracle": "How to run\npython3 train.py --dataset cora", "type": "Bash Script", "id": 1,
         "prefix_code": "", "output": "python3 train.py --dataset citeseer"},
        {"github_id": 1, "github": "https://github.com/dmlc/dgl", "repo_id": 1,
         "path": "./examples/gcn", "arguments": "{'dataset': 'pubmed', 'epochs': '50'}",
         "instruction": "Run GCN training on pubmed for 50 epochs.",
         "oracle": "python3 train.py --dataset cora", "type": "Bash Script", "id": 2,
         "prefix_code": "", "output": "python3 train.py --dataset pubmed --epochs 50"},
        {"github_id": 2, "github": "https://github.com/google-research/bert", "repo_id": 2,
         "path": "./", "arguments": "{'task_name': 'MRPC'}",
         "instruction": "Fine-tune BERT base on the MRPC GLUE task with the classifier.",
         "oracle": "python run_classifier.py --task_name=MRPC --do_train=true",
         "type": "Bash Script", "id": 3, "prefix_code": "",
         "output": "python run_classifier.py --task_name=MRPC --do_train=true"},
    ]
    return repos, write_jsonl(root / "tasks.jsonl", tasks)


class CountingRetrieval:
    """Real line chunking + BM25 + packing over the fixture repos; counts calls, can fail."""

    def __init__(self, fail_after: int | None = None):
        self.calls: list[str] = []  # config hash of each call
        self.fail_after = fail_after

    def __call__(self, tasks: Sequence[Task], repos: Path, config: Config) -> RetrievalBatch:
        from ragcode.chunking.lines import chunk_lines
        from ragcode.retrieval.base import Filters
        from ragcode.retrieval.bm25 import BM25Retriever
        from ragcode.retrieval.packing import PackSettings, pack

        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt("injected failure: the grid is killed here")
        self.calls.append(config.hash())
        pools: dict[int, list[Chunk]] = {}
        results = []
        for task in tasks:
            if task.github_id not in pools:
                folder = repos / MLBENCH_REPOS[task.github_id].folder
                chunks: list[Chunk] = []
                for f in sorted(folder.rglob("*")):
                    if f.is_file():
                        text = f.read_text()
                        rel = f.relative_to(folder).as_posix()
                        sf = SourceFile(path=rel, text=text, sha256=sha256_text(text), size=len(text))
                        chunks += chunk_lines(sf, config.chunking)
                pools[task.github_id] = chunks
            retriever = BM25Retriever(_Corpus(pools[task.github_id]), config,
                                      cache_dir=Path(config.index.root) / "bm25")
            hits = retriever.retrieve(task.instruction, config.retrieval.k, Filters())
            ctx = pack(hits, PackSettings(budget=config.context.budget, unit=config.context.unit))
            results.append(TaskRetrieval(task=task, context=ctx.text,
                                         ranked_ids=tuple(h.chunk.id for h in hits),
                                         context_ids=ctx.chunk_ids))
        return RetrievalBatch(results=results, pools=pools)


class _Corpus:
    def __init__(self, chunks: list[Chunk]):
        self._chunks = chunks

    def chunks(self) -> list[Chunk]:
        return self._chunks


class CountingGeneration:
    """The default generation stage (configured LLM + named scoring policy), calls counted."""

    def __init__(self):
        self.calls: list[dict[str, Any]] = []

    def __call__(self, retrievals: Sequence[TaskRetrieval], repos: Path, config: Config,
                 policy: str, run_dir: Path, execute: bool = True) -> list[TaskGeneration]:
        from ragcode.ablation.adapters import default_generation_stage

        self.calls.append({"config": config.hash(), "policy": policy, "execute": execute})
        return default_generation_stage(retrievals, repos, config, policy, run_dir, execute=execute)
