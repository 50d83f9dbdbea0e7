"""Python via tree-sitter: units, split/merge by non-whitespace size, symbols, fallbacks."""

from __future__ import annotations

from ragcode.chunking import chunk_file
from ragcode.chunking.code import chunk_python
from ragcode.config import ChunkingConfig
from ragcode.types import SourceFile, sha256_text

from fixture_repo import TRAIN_PY, _model_py


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _cfg(max_chars: int, min_chars: int, header: bool = True) -> ChunkingConfig:
    return ChunkingConfig.model_validate(
        {"code": {"max_chars": max_chars, "min_chars": min_chars, "header": header}})


def _shape(chunks):  # type: ignore[no-untyped-def]
    return [(c.start_line, c.end_line, c.symbol, c.metadata.get("unit")) for c in chunks]


def test_units_and_oversized_function_split_at_statements() -> None:
    text = _model_py()
    chunks = chunk_python(_file("model.py", text), _cfg(300, 60))
    assert _shape(chunks) == [
        (1, 9, "Base", "mixed"),  # docstring + import (small) merged into class Base
        (12, 20, "Net", "class"),
        (23, 24, "oversized", "function"),  # signature + docstring
        (25, 38, "oversized", "body"),
        (39, 51, "oversized", "body"),
        (52, 64, "oversized", "body"),
        (65, 77, "oversized", "body"),
        (78, 86, "oversized", "body"),
    ]
    lines = text.split("\n")
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])
        assert c.kind == "code" and c.language == "python"
        nws = sum(not ch.isspace() for ch in c.text)
        assert nws <= 300
    assert chunks[3].header == "# model.py :: def oversized(x):"
    assert chunks[1].header == "# model.py"


def test_class_split_into_methods_with_ancestor_path() -> None:
    chunks = chunk_python(_file("model.py", _model_py()), _cfg(100, 20))
    assert _shape(chunks)[:4] == [
        (1, 2, "", "module"),
        (5, 9, "Base", "class"),
        (12, 15, "Net", "class"),  # class line + __init__
        (17, 20, "Net.forward", "method"),
    ]
    assert chunks[2].metadata["symbols"] == ["Net", "Net.__init__"]
    assert chunks[3].header == "# model.py :: class Net(Base):"


def test_small_siblings_merge_and_symbol_follows_the_larger_part() -> None:
    chunks = chunk_python(_file("train.py", TRAIN_PY), _cfg(300, 60))
    assert _shape(chunks) == [(1, 11, "main", "mixed"), (12, 20, "main", "mixed")]
    assert chunks[1].header == "# train.py :: def main():"


def test_whole_small_file_is_one_chunk_and_header_can_be_off() -> None:
    text = "import os\n\n\ndef f():\n    return os.sep\n"
    chunks = chunk_python(_file("a/b.py", text), _cfg(1500, 200, header=False))
    assert _shape(chunks) == [(1, 5, "f", "mixed")]
    assert chunks[0].header == ""


def test_comments_above_a_definition_stay_with_it() -> None:
    body = "\n".join(f"    y = y + {i}" for i in range(12))
    text = f"import os\n\n# helper comment\n@staticmethod\ndef g(y):\n{body}\n    return y\n"
    chunks = chunk_python(_file("c.py", text), _cfg(100, 5))
    assert [(c.start_line, c.end_line) for c in chunks][:2] == [(1, 1), (3, 5)]
    assert chunks[1].text == "# helper comment\n@staticmethod\ndef g(y):"
    assert chunks[1].symbol == "g"


def test_syntax_errors_fall_back_to_line_windows() -> None:
    broken = "def broken(:\n    ((((\n  ]]] }}}\nclass\n  ::\n"
    chunks = chunk_file(_file("broken.py", broken), ChunkingConfig())
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 5)]
    assert chunks[0].metadata == {"fallback": "syntax_error"}
    assert chunks[0].kind == "code" and chunks[0].header == "# broken.py"


def test_empty_file_has_no_chunks() -> None:
    assert chunk_python(_file("e.py", "\n\n"), ChunkingConfig()) == []
