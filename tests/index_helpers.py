"""Helpers for the index tests: fixture repositories and a tiny deterministic stand-in chunker.

The stand-in (``use_simple_chunking``) isolates the index stage from the chunkers' details: one
chunk per blank-line-separated paragraph, kind by extension, and a link pass that marks chunks
mentioning another file's name. ``tests/test_index_chunking.py`` runs the real chunkers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ragcode.types import Chunk, SourceFile, sha256_text

KINDS = {".md": "markdown", ".py": "python"}


@dataclass
class SimpleWalk:
    files: list[SourceFile]
    skipped: Counter = field(default_factory=Counter)

    def file_kind(self, path: str) -> str:
        return KINDS.get(Path(path).suffix, "text")


def simple_walk(root, cfg=None) -> SimpleWalk:  # noqa: ANN001
    root = Path(root)
    out = SimpleWalk(files=[])
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        raw = p.read_bytes()
        if b"\0" in raw:
            out.skipped["binary"] += 1
            continue
        text = raw.decode("utf-8", "replace")
        rel = p.relative_to(root).as_posix()
        out.files.append(SourceFile(path=rel, text=text, sha256=sha256_text(text), size=len(raw)))
    return out


def simple_chunk(file: SourceFile, cfg=None) -> list[Chunk]:  # noqa: ANN001
    kind = "markdown" if file.path.endswith(".md") else "code"
    chunks, start, buf = [], 1, []
    lines = file.text.splitlines()
    for n, line in enumerate(lines + [""], start=1):
        if line.strip():
            if not buf:
                start = n
            buf.append(line)
        elif buf:
            chunks.append(Chunk(path=file.path, kind=kind, text="\n".join(buf),
                                start_line=start, end_line=n - 1))
            buf = []
    return chunks


def simple_link(chunks: list[Chunk]) -> list[Chunk]:
    names = {Path(c.path).name for c in chunks if c.kind == "code"}
    out = []
    for c in chunks:
        links = sorted(n for n in names if n in c.text and Path(c.path).name != n)
        meta = dict(c.metadata)
        if links:
            meta["cli_links"] = links
        out.append(dataclasses.replace(c, metadata=meta))
    return out


def use_simple_chunking(monkeypatch) -> None:  # noqa: ANN001
    import ragcode.chunking as chunking
    import ragcode.chunking.pipeline as pipeline

    monkeypatch.setattr(chunking, "walk_repo", simple_walk, raising=False)
    monkeypatch.setattr(chunking, "chunk_file", simple_chunk, raising=False)
    monkeypatch.setattr(pipeline, "link_cli", simple_link)  # inside link_chunks, the index's link step


def make_repo(root: Path) -> Path:
    """README (2 sections), train.py (2 blocks), model.py (2 blocks), notes.md, a binary file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(
        "# Demo\n\nTrain a small GAN on MNIST.\n\n"
        "Run `python train.py --epochs 5 --lr 0.001` to train.\n")
    (root / "train.py").write_text(
        "import argparse\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--epochs', type=int, default=5)\n\n"
        "def main():\n    print('training')\n")
    (root / "model.py").write_text(
        "class Generator:\n    def forward(self, z):\n        return z\n\n"
        "class Discriminator:\n    def forward(self, x):\n        return x\n")
    (root / "notes.md").write_text("# Notes\n\nThe discriminator uses leaky relu.\n")
    (root / "logo.bin").write_bytes(b"\x89PNG\0\0\0binary")
    return root
