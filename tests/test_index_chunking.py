"""The index over the real chunkers (tree-sitter, markdown, CLI tables and links)."""

from __future__ import annotations

import pytest

from ragcode.config import EmbedderConfig, load_config
from ragcode.embedding import load_embedder
from ragcode.index.build import index_repo

README = """# Tiny

Train the model with:

```bash
python train.py --epochs 3 --lr 0.01
```

## Evaluate

Run `python eval.py --checkpoint ckpt.pt` after training.
"""

TRAIN = '''import argparse


def build_parser():
    parser = argparse.ArgumentParser(description="train")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the data")
    parser.add_argument("--lr", type=float, default=0.001, help="learning rate")
    return parser


class Trainer:
    def __init__(self, lr):
        self.lr = lr

    def fit(self, epochs):
        for _ in range(epochs):
            pass


if __name__ == "__main__":
    args = build_parser().parse_args()
    Trainer(args.lr).fit(args.epochs)
'''

EVAL = '''import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", required=True)
args = parser.parse_args()
print(args.checkpoint)
'''


@pytest.fixture(scope="session")
def minilm():  # noqa: ANN201
    return load_embedder(EmbedderConfig())


def test_real_chunkers_index_and_one_file_edit(tmp_path, minilm) -> None:  # noqa: ANN001
    repo = tmp_path / "tiny"
    repo.mkdir()
    (repo / "README.md").write_text(README)
    (repo / "train.py").write_text(TRAIN)
    (repo / "eval.py").write_text(EVAL)
    (repo / "weights.bin").write_bytes(bytes(range(256)) * 4)
    cfg = load_config(overrides={"index.root": str(tmp_path / "idx"),
                                 "index.cache_dir": str(tmp_path / "cache")})
    index = index_repo(repo, cfg, progress=False)
    s = index.summary
    assert s.files_by_kind == {"markdown": 1, "python": 2}
    assert sum(s.skipped.values()) == 1
    kinds = s.chunks_by_kind
    assert kinds.get("cli") == 2 and kinds.get("markdown", 0) >= 1 and kinds.get("code", 0) >= 2
    assert index.vector_count == index.chunk_count == s.embedded
    chunks = index.chunks()
    cli = {c.path: c for c in chunks.values() if c.kind == "cli"}
    assert set(cli) == {"train.py", "eval.py"}
    assert "--epochs" in cli["train.py"].text and cli["train.py"].metadata.get("cli_links")
    # the README chunk that runs train.py is linked too
    assert any(c.metadata.get("cli_links") for c in chunks.values() if c.kind == "markdown")

    # edit eval.py only: only eval.py's chunks are re-chunked; new texts are embedded
    before = {i: c for i, c in chunks.items() if c.path != "eval.py"}
    index.close()
    (repo / "eval.py").write_text(EVAL.replace("required=True", "required=True, help='model file'"))
    again = index_repo(repo, cfg, progress=False)
    a = again.summary
    assert (a.files_changed, a.files_unchanged) == (1, 2)
    n_eval = sum(1 for c in again.chunks().values() if c.path == "eval.py")
    assert a.chunks_added == n_eval and a.embedded + a.cached == n_eval and a.embedded >= 1
    after = again.chunks()
    assert all(after[i].text == c.text for i, c in before.items())  # untouched ids kept



def test_chunker_version_change_invalidates_the_index(tmp_path, monkeypatch):
    """A chunker code change (CHUNKING_VERSION bump) must not leave a stale index in use."""
    import ragcode.index.build as build
    from ragcode.config import load_config
    from ragcode.index.build import index_repo

    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "README.md").write_text("# Demo\n\nRun `python train.py --lr 0.1` to train.\n")
    (repo / "pkg" / "m.py").write_text("def f(x):\n    return x + 1\n")
    cfg = load_config(None, {"index.cache_dir": str(tmp_path / "cache"), "embedder.enabled": False})
    out = tmp_path / "idx"
    first = index_repo(repo, config=cfg, out=out, progress=False)
    old_key = first.manifest.section_hashes["chunking"]
    monkeypatch.setattr(build, "CHUNKING_VERSION", build.CHUNKING_VERSION + 1)
    bumped = index_repo(repo, config=cfg, out=out, progress=False)
    new_key = bumped.manifest.section_hashes["chunking"]
    assert new_key != old_key and new_key.endswith(f"-v{build.CHUNKING_VERSION}")
    assert bumped.summary.files_unchanged == 0  # every file was chunked again
    assert bumped.chunk_count == first.chunk_count
