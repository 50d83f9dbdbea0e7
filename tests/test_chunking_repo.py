"""Notebooks, line windows, the chunker registry and the whole-repository pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixture_repo import NOTEBOOK, make_fixture_repo
from ragcode.chunking import CHUNKERS, chunk_file, chunk_repo, get_chunker
from ragcode.chunking.lines import chunk_lines, line_windows
from ragcode.config import ChunkingConfig
from ragcode.errors import UnknownNameError
from ragcode.types import Chunk, SourceFile, sha256_text


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text.encode()))


def test_notebook_cells_outputs_dropped_and_lines_are_cell_numbers() -> None:
    chunks = chunk_file(_file("demo.ipynb", json.dumps(NOTEBOOK)), ChunkingConfig())
    assert [(c.kind, c.start_line, c.end_line, c.symbol) for c in chunks] == [
        ("notebook", 1, 4, "Notebook")]
    assert chunks[0].text == (
        "# Notebook\nSome words.\n\n```python\n!python train.py --dataset citeseer\n```\n\n"
        "## Plot\n\n```python\nprint('done')\n```")
    assert "OUTPUT-TEXT" not in chunks[0].text
    assert chunks[0].metadata["cells"] == [1, 4]


def test_notebook_split_keeps_code_cells_whole() -> None:
    cfg = ChunkingConfig.model_validate(
        {"markdown": {"soft_chars": 40, "hard_chars": 60, "min_chars": 1}})
    chunks = chunk_file(_file("demo.ipynb", json.dumps(NOTEBOOK)), cfg)
    assert [(c.start_line, c.end_line, c.symbol) for c in chunks] == [
        (1, 1, "Notebook"), (2, 2, "Notebook"), (3, 4, "Notebook > Plot")]
    assert chunks[1].text == "```python\n!python train.py --dataset citeseer\n```"


def test_invalid_notebook_falls_back_to_lines() -> None:
    chunks = chunk_file(_file("bad.ipynb", "{not json\n"), ChunkingConfig())
    assert [(c.kind, c.metadata) for c in chunks] == [
        ("notebook", {"fallback": "invalid_notebook"})]


def test_line_windows_overlap_and_cover_everything() -> None:
    assert line_windows(10, 4, 1) == [(1, 4), (4, 7), (7, 10)]
    assert line_windows(3, 60, 10) == [(1, 3)]
    assert line_windows(0, 60, 10) == []


def test_shell_and_config_windows_with_char_cap() -> None:
    cfg = ChunkingConfig.model_validate(
        {"text": {"window_lines": 3, "overlap_lines": 1, "max_chars": 13}})
    sh = chunk_lines(_file("run.sh", "echo a\necho b\necho c\necho d\n"), cfg)
    assert [(c.kind, c.start_line, c.end_line, c.language) for c in sh] == [
        ("shell", 1, 2, "bash"), ("shell", 3, 3, "bash"), ("shell", 3, 4, "bash")]
    long = chunk_lines(_file("c.json", '{"k": "' + "v" * 20 + '"}'), cfg)
    assert [(c.kind, c.start_line, c.end_line, len(c.text)) for c in long] == [
        ("config", 1, 1, 13), ("config", 1, 1, 13), ("config", 1, 1, 3)]


def test_registry_names_and_typo_hint() -> None:
    assert {"markdown", "python", "notebook", "lines", "cli"} <= set(CHUNKERS.names())
    with pytest.raises(UnknownNameError, match="Did you mean 'markdown'"):
        get_chunker("markdwon")


class UpperChunker:
    """A user's own chunker, chosen by 'module:Class' path with no registration."""

    def chunk(self, file: SourceFile, cfg: ChunkingConfig) -> list[Chunk]:
        return [Chunk(path=file.path, kind="text", text=file.text.upper(), start_line=1,
                      end_line=1)]


def test_chunker_by_dotted_path_from_config() -> None:
    cfg = ChunkingConfig.model_validate(
        {"chunkers": {"text": "test_chunking_repo:UpperChunker"}})
    assert [c.text for c in chunk_file(_file("a.txt", "hi"), cfg)] == ["HI"]


def test_chunk_repo_counts_and_caps(tmp_path: Path) -> None:
    repo = make_fixture_repo(tmp_path / "repo")
    cfg = ChunkingConfig.model_validate(
        {"walk": {"max_file_bytes": 10_000}, "text": {"config_max_bytes": 10}})
    result = chunk_repo(repo, cfg)
    assert dict(result.files_by_kind()) == {
        "markdown": 1, "python": 6, "config": 1, "notebook": 1, "rst": 1, "text": 3, "shell": 1}
    assert dict(result.counts_by_kind()) == {
        "markdown": 2, "code": 7, "cli": 4, "api": 4, "notebook": 1, "shell": 1, "text": 2}
    assert result.skipped["config_too_large"] == 1  # config.yaml is 19 bytes > 10
    assert "config.yaml" not in result.chunks_by_file
    assert result.chunks_by_file["scripts/.keep"] == []
    assert len(result.all_chunks()) == sum(result.counts_by_kind().values())
    assert set(result.seconds) == {"walk", "chunk", "link"}


def test_chunk_file_is_deterministic(tmp_path: Path) -> None:
    repo = make_fixture_repo(tmp_path / "repo")
    cfg = ChunkingConfig.model_validate({"walk": {"max_file_bytes": 10_000}})
    a = [c.to_dict() for c in chunk_repo(repo, cfg).all_chunks()]
    b = [c.to_dict() for c in chunk_repo(repo, cfg).all_chunks()]
    assert a == b
    assert len({d["id"] for d in a}) == len(a)
