"""LlamaIndex's chunkers behind ragcode's chunker interface (the ablation baselines)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("llama_index.core")

from ragcode.integrations.llamaindex.chunkers import (  # noqa: E402
    LlamaIndexCodeChunker,
    LlamaIndexMarkdownChunker,
)
from ragcode.config import ChunkingConfig  # noqa: E402
from ragcode.errors import RagcodeError  # noqa: E402
from ragcode.types import SourceFile, sha256_text  # noqa: E402

README = textwrap.dedent("""\
    Intro paragraph before any heading.

    # Project

    Some words about the project.

    ## Install

    ```bash
    # a comment, not a heading
    pip install -e .
    ```

    ### From source

    Clone it first.

    ## Usage

    python train.py --lr 0.1 --epochs 3
    """)

CODE = textwrap.dedent('''\
    """Training script."""
    import argparse


    def build_parser():
        parser = argparse.ArgumentParser()
        parser.add_argument("--lr", type=float, default=0.1)
        parser.add_argument("--epochs", type=int, default=3)
        return parser


    class Trainer:
        """Trains a model."""

        def __init__(self, lr):
            self.lr = lr

        def fit(self, data):
            total = 0
            for item in data:
                total += item * self.lr
            return total


    if __name__ == "__main__":
        args = build_parser().parse_args()
        print(Trainer(args.lr).fit([1, 2, 3]))
    ''')


def source(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def lines_of(text: str, start: int, end: int) -> str:
    return "\n".join(text.split("\n")[start - 1:end])


def test_markdown_sections_have_exact_line_ranges_and_heading_paths():
    chunks = LlamaIndexMarkdownChunker().chunk(source("docs/README.md", README), ChunkingConfig())
    assert [c.symbol for c in chunks] == [
        "", "Project", "Project > Install", "Project > Install > From source", "Project > Usage",
    ]
    for chunk in chunks:
        assert chunk.kind == "markdown" and chunk.path == "docs/README.md"
        assert lines_of(README, chunk.start_line, chunk.end_line) == chunk.text
        assert chunk.metadata["chunker"] == "llamaindex-markdown"
    install = chunks[2]
    assert install.start_line == 7 and "pip install -e ." in install.text  # fence kept whole
    assert chunks[-1].start_line == 18 and chunks[-1].end_line == 20


def test_code_splitter_pieces_map_back_to_their_lines_and_respect_max_chars():
    cfg = ChunkingConfig.model_validate({"code": {"max_chars": 250}})
    chunks = LlamaIndexCodeChunker().chunk(source("pkg/train.py", CODE), cfg)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.kind == "code" and chunk.language == "python"
        assert chunk.header == "pkg/train.py"
        assert len(chunk.text) <= 250
        # CodeSplitter strips each piece, so its text sits inside (and spans) its line range
        span = lines_of(CODE, chunk.start_line, chunk.end_line)
        assert chunk.text in span and span.strip() == chunk.text
    assert [c.start_line for c in chunks] == sorted(c.start_line for c in chunks)
    fit = next(c for c in chunks if "def fit" in c.text)
    assert CODE.split("\n")[fit.start_line - 1].strip().startswith(("def fit", "class Trainer", '"""'))


def test_code_splitter_follows_max_chars_setting():
    small = LlamaIndexCodeChunker().chunk(source("t.py", CODE),
                                          ChunkingConfig.model_validate({"code": {"max_chars": 120}}))
    large = LlamaIndexCodeChunker().chunk(source("t.py", CODE),
                                          ChunkingConfig.model_validate({"code": {"max_chars": 4000}}))
    assert len(large) == 1 and large[0].start_line == 1
    assert len(small) > 3


def test_unparsable_python_falls_back_to_line_windows():
    broken = ")))) this is not python\n" + "x = 1\n" * 5
    chunks = LlamaIndexCodeChunker().chunk(source("bad.py", broken), ChunkingConfig())
    assert chunks and chunks[0].start_line == 1
    assert "not python" in chunks[0].text


def test_code_chunker_refuses_a_language_without_grammar():
    with pytest.raises(RagcodeError, match="chunking.chunkers"):
        LlamaIndexCodeChunker().chunk(source("main.rs", "fn main() {}\n"), ChunkingConfig())


def test_empty_files_give_no_chunks():
    assert LlamaIndexMarkdownChunker().chunk(source("a.md", "\n\n"), ChunkingConfig()) == []
    assert LlamaIndexCodeChunker().chunk(source("a.py", ""), ChunkingConfig()) == []


def test_importing_ragcode_chunking_does_not_import_llama_index():
    code = "import sys, ragcode.chunking; assert 'llama_index' not in sys.modules, 'imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_extra_names_the_pip_command():
    code = textwrap.dedent("""\
        import sys
        sys.modules["llama_index"] = None
        sys.modules["llama_index.core"] = None
        from ragcode.errors import RagcodeError
        for mod in ("ragcode.integrations.llamaindex", "ragcode.integrations.llamaindex.chunkers"):
            try:
                __import__(mod)
            except ImportError as exc:
                assert isinstance(exc, RagcodeError), type(exc)
                assert "pip install 'ragcode[llamaindex]'" in str(exc), str(exc)
            else:
                raise SystemExit(mod + " imported without llama_index")
        from ragcode.chunking import get_chunker
        from ragcode.errors import UnknownNameError
        try:
            get_chunker("llamaindex-code")
        except UnknownNameError as exc:  # the registry keeps the extra's message
            assert "pip install 'ragcode[llamaindex]'" in str(exc), str(exc)
        else:
            raise SystemExit("llamaindex-code loaded without llama_index")
        """)
    subprocess.run([sys.executable, "-c", code], check=True)


def with_chunkers(**names: str) -> ChunkingConfig:
    cfg = ChunkingConfig()
    cfg.chunkers = {**cfg.chunkers, **names}
    return cfg


def test_registry_names_select_the_llamaindex_chunkers_per_file_kind():
    from ragcode.chunking import CHUNKERS, chunk_file, get_chunker

    assert {"llamaindex-markdown", "llamaindex-code"} <= set(CHUNKERS.names())
    assert isinstance(get_chunker("llamaindex-code"), LlamaIndexCodeChunker)
    cfg = with_chunkers(markdown="llamaindex-markdown", python="llamaindex-code")
    md = chunk_file(source("README.md", README), cfg)
    assert [c.symbol for c in md] == [c.symbol for c in LlamaIndexMarkdownChunker().chunk(
        source("README.md", README), cfg)]
    assert {c.metadata["chunker"] for c in md} == {"llamaindex-markdown"}
    py = chunk_file(source("train.py", CODE), cfg)
    code = [c for c in py if c.kind == "code"]
    assert code and {c.metadata["chunker"] for c in code} == {"llamaindex-code"}
    # ragcode's CLI table still comes with every Python file, whichever code chunker runs
    assert any(c.kind == "cli" and "--epochs" in c.text for c in py)


def test_default_chunking_is_not_llamaindex():
    from ragcode.chunking import chunk_file

    chunks = chunk_file(source("README.md", README), ChunkingConfig())
    assert chunks and all(c.metadata.get("chunker") != "llamaindex-markdown" for c in chunks)
