"""Markdown / rst sections: heading paths, fences kept whole, sizes, exact line ranges."""

from __future__ import annotations

from ragcode.chunking.markdown import chunk_markdown_text, markdown_headings, rst_headings
from ragcode.config import ChunkingConfig
from ragcode.types import SourceFile, sha256_text

from fixture_repo import GUIDE_RST, README

SMALL = ChunkingConfig.model_validate(
    {"markdown": {"soft_chars": 150, "hard_chars": 300, "min_chars": 40}})


def _file(path: str, text: str) -> SourceFile:
    return SourceFile(path=path, text=text, sha256=sha256_text(text), size=len(text))


def _shape(chunks):  # type: ignore[no-untyped-def]
    return [(c.start_line, c.end_line, c.symbol) for c in chunks]


def test_headings_ignore_fenced_lines_and_find_setext() -> None:
    lines = README.split("\n")
    assert markdown_headings(lines) == [
        (0, 1, "Demo"), (4, 1, "Install"), (14, 2, "Training"), (25, 3, "Tips"),
        (29, 2, "Evaluation"),
    ]


def test_readme_sections_exact_chunks() -> None:
    chunks = chunk_markdown_text("README.md", README, SMALL)
    assert _shape(chunks) == [
        (1, 3, "Demo"),
        (5, 13, "Install"),
        (15, 21, "Install > Training"),
        (23, 28, "Install > Training"),  # tiny "Tips" merged into the paragraph before it
        (30, 36, "Install > Evaluation"),
    ]
    assert chunks[2].text == (
        "## Training\n\nTrain the model with:\n\n```bash\npython train.py --lr 0.1\n```")
    assert chunks[3].metadata["sections"] == ["Install > Training", "Install > Training > Tips"]
    assert chunks[1].header == "README.md :: Install"
    assert all(c.kind == "markdown" and c.language == "markdown" for c in chunks)
    lines = README.split("\n")
    for c in chunks:  # text is exactly the lines the range names
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])


def test_whole_document_under_soft_is_one_chunk_named_by_its_title() -> None:
    chunks = chunk_markdown_text("README.md", README, ChunkingConfig())
    assert _shape(chunks) == [(1, 36, "Demo")]


def test_a_fence_is_never_split_even_over_hard() -> None:
    body = "\n".join(f"x_{i} = {i}  # padding padding" for i in range(40))
    fence = f"```python\n{body}\n```"
    text = f"# Big\n\nIntro line.\n\n{fence}\n\nAfter the fence.\n"
    chunks = chunk_markdown_text("a.md", text, SMALL)
    fence_chunks = [c for c in chunks if "```python" in c.text]
    assert len(fence_chunks) == 1 and fence_chunks[0].text.endswith("```")
    assert len(fence_chunks[0].text) > SMALL.markdown.hard_chars
    assert fence_chunks[0].text.count("x_") == 40


def test_long_section_splits_at_paragraphs_under_soft() -> None:
    paras = [f"Paragraph {i} " + "word " * 20 for i in range(6)]
    text = "# Long\n\n" + "\n\n".join(paras) + "\n"
    chunks = chunk_markdown_text("a.md", text, SMALL)
    assert len(chunks) > 1
    assert all(c.symbol == "Long" for c in chunks)
    assert all(len(c.text) <= SMALL.markdown.soft_chars for c in chunks)
    joined = "\n\n".join(c.text for c in chunks)
    assert all(p.strip() in joined for p in paras)  # nothing lost, no paragraph cut


def test_command_stays_with_the_sentence_that_introduces_it() -> None:
    text = "# Run\n\n" + "Some words. " * 10 + "\n\nRun it like this:\n\n```bash\n" \
        + "python main.py --flag value --other thing\n" * 2 + "```\n"
    chunks = chunk_markdown_text("a.md", text, SMALL)
    with_cmd = [c for c in chunks if "python main.py" in c.text]
    assert len(with_cmd) == 1 and "Run it like this:" in with_cmd[0].text


def test_rst_titles_with_overline_and_literal_blocks() -> None:
    lines = GUIDE_RST.split("\n")
    assert rst_headings(lines) == [(0, 1, "Guide"), (6, 2, "Usage"), (13, 3, "Details")]
    chunks = chunk_markdown_text("docs/guide.rst", GUIDE_RST, SMALL, rst=True)
    assert _shape(chunks) == [(1, 17, "Guide")]
    tiny = ChunkingConfig.model_validate(
        {"markdown": {"soft_chars": 40, "hard_chars": 80, "min_chars": 1}})
    chunks = chunk_markdown_text("docs/guide.rst", GUIDE_RST, tiny, rst=True)
    assert _shape(chunks) == [(1, 5, "Guide"), (7, 12, "Guide > Usage"),
                              (14, 17, "Guide > Usage > Details")]


def test_registry_chunker_uses_rst_rules_for_rst_files() -> None:
    from ragcode.chunking import chunk_file

    chunks = chunk_file(_file("docs/guide.rst", GUIDE_RST), SMALL)
    assert chunks[0].language == "rst" and chunks[0].symbol == "Guide"


LISTED = """# Setup

- Cityscapes
  - Download the model by:
    ```bash
    python scripts/download_models.py
    # Title-like comment

    python scripts/check.py
    ```
  - Test it:
    ```bash
    python test.py --name label2city
    ```

> Note: run this first
> ```sh
> export CUDA_VISIBLE_DEVICES=0
>
> # Not a heading
> ```

1. ```bash
   mkdir data
   ```
"""


def test_fences_in_list_items_and_block_quotes_stay_whole() -> None:
    from ragcode.chunking.markdown import fence_mask, fence_spans

    lines = LISTED.split("\n")
    assert fence_spans(lines) == [(4, 10), (11, 14), (16, 21), (22, 25)]
    assert markdown_headings(lines) == [(0, 1, "Setup")]  # `# ...` inside fences is code
    mask = fence_mask(lines)
    assert mask[4] and mask[9] and not mask[10] and mask[20] and not mask[15]
    tiny = ChunkingConfig.model_validate(
        {"markdown": {"soft_chars": 60, "hard_chars": 90, "min_chars": 0}})
    chunks = chunk_markdown_text("README.md", LISTED, tiny)
    assert len(chunks) > 1
    for a, b in fence_spans(lines):  # every fence lies inside one chunk
        assert any(c.start_line <= a + 1 and b <= c.end_line for c in chunks), (a, b)
