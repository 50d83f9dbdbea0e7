"""The index over the real chunkers (tree-sitter, markdown, CLI tables and links)."""

from __future__ import annotations

import json

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
                                 "index.cache_dir": str(tmp_path / "cache"),
                                 "embedder.kinds": []})  # vectors for every kind
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
    import ragcode.index.plan as plan
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
    monkeypatch.setattr(plan, "CHUNKING_VERSION", plan.CHUNKING_VERSION + 1)
    bumped = index_repo(repo, config=cfg, out=out, progress=False)
    new_key = bumped.manifest.section_hashes["chunking"]
    assert new_key != old_key and new_key.endswith(f"-v{plan.CHUNKING_VERSION}")
    assert bumped.summary.files_unchanged == 0  # every file was chunked again
    assert bumped.chunk_count == first.chunk_count


def _tiny_repo(root):  # noqa: ANN001, ANN202
    root.mkdir()
    (root / "README.md").write_text(README)
    (root / "train.py").write_text(TRAIN)
    (root / "eval.py").write_text(EVAL)
    return root


def _links(chunks):  # noqa: ANN001, ANN202
    return sorted((c.id, json.dumps([c.metadata.get(k) for k in ("cli_links", "commands")],
                                    sort_keys=True)) for c in chunks)


@pytest.mark.parametrize("link", [True, False])
def test_index_links_exactly_as_chunk_repo_and_honours_link_readme_commands(tmp_path, link):
    """One link pass (``chunking.link_chunks``) for ``chunk_repo`` and ``ragcode index``: the
    setting ``chunking.cli.link_readme_commands`` used to be ignored by the index."""
    from ragcode.chunking import chunk_repo

    repo = _tiny_repo(tmp_path / "tiny")
    cfg = load_config(None, {"index.root": str(tmp_path / "idx"), "embedder.enabled": False,
                             "chunking.cli.link_readme_commands": link})
    index = index_repo(repo, cfg, progress=False)
    chunks = list(index.chunks().values())
    assert _links(chunks) == _links(chunk_repo(repo, cfg.chunking).all_chunks())
    assert any(c.metadata.get("cli_links") for c in chunks) is link
    assert index.manifest.links is link


def test_index_linked_before_the_setting_was_honoured_is_relinked_without_rechunking(tmp_path):
    """An index written before ``Manifest.links`` existed was always linked, whatever
    ``link_readme_commands`` said; the next run with the setting off drops its links."""
    repo = _tiny_repo(tmp_path / "tiny")
    out = tmp_path / "idx"
    off = load_config(None, {"embedder.enabled": False, "chunking.cli.link_readme_commands": False})
    on = load_config(None, {"embedder.enabled": False})
    first = index_repo(repo, on, out=out, progress=False)
    assert any(c.metadata.get("cli_links") for c in first.chunks().values())
    first.close()
    # what the old code wrote for the "off" config: its keys, links anyway, no "links" field
    manifest_file = out / "tiny" / "manifest.json"
    from ragcode.index.plan import chunking_key

    data = json.loads(manifest_file.read_text())
    data["section_hashes"]["chunking"] = chunking_key(off)
    del data["links"]
    manifest_file.write_text(json.dumps(data))
    again = index_repo(repo, off, out=out, progress=False)
    s = again.summary
    assert s.files_unchanged == 3 and s.chunks_added == 0 and s.links_updated > 0
    assert not any(c.metadata.get("cli_links") or c.metadata.get("commands")
                   for c in again.chunks().values())
    assert again.manifest.links is False
    assert index_repo(repo, off, out=out, progress=False).manifest.generation == \
        again.manifest.generation  # up to date now: nothing written
