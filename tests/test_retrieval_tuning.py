"""Retrieval tuning mechanisms: heading prior, near-duplicate demotion, documentation query."""

from __future__ import annotations

import pytest

from ragcode.config import load_config
from ragcode.retrieval.ranking import apply_priors, demote_near_duplicates, heading_weight
from ragcode.retrieval.search import Searcher
from ragcode.types import Chunk, Hit

from retrieval_helpers import ListCorpus


def _chunk(path, start, text, kind="markdown", symbol=""):
    end = start + len(text.split("\n")) - 1
    return Chunk(path=path, kind=kind, text=text, start_line=start, end_line=end, symbol=symbol)


def _hits(chunks, scores):
    return [Hit(chunk=c, score=s, rank=i, source="test") for i, (c, s) in enumerate(zip(chunks, scores))]


def test_heading_weight_matches_whole_words_of_the_innermost_heading():
    weights = {"usage": 2.0, "quick start": 1.5, "run": 1.2}
    usage = _chunk("README.md", 1, "text", symbol="Tool > Usage")
    quick = _chunk("README.md", 5, "text", symbol="Tool > Quick-Start guide")
    parent_only = _chunk("README.md", 9, "text", symbol="Usage > Citation")
    partial_word = _chunk("README.md", 12, "text", symbol="Tool > Runtime numbers")
    code = _chunk("train.py", 1, "def usage(): pass", kind="code", symbol="Usage")
    assert heading_weight(usage, weights) == 2.0
    assert heading_weight(quick, weights) == 1.5
    assert heading_weight(parent_only, weights) == 1.0  # only the innermost heading counts
    assert heading_weight(partial_word, weights) == 1.0  # "run" is not "runtime"
    assert heading_weight(code, weights) == 1.0  # documentation chunks only
    assert heading_weight(usage, {}) == 1.0


def test_heading_prior_lifts_a_usage_section_over_a_better_matching_one():
    cite = _chunk("README.md", 1, "cite", symbol="Tool > Citation")
    usage = _chunk("README.md", 5, "run it", symbol="Tool > Usage")
    out = apply_priors(_hits([cite, usage], [1.0, 0.8]), {}, {}, 1.0, {"usage": 1.5})
    assert [h.chunk.symbol for h in out] == ["Tool > Usage", "Tool > Citation"]
    assert out[0].score == pytest.approx(1.2)


def test_near_duplicates_are_demoted_below_a_distinct_hit():
    script = "python run.py --task classification --model {} --data UEA --batch_size 16 --lr 0.001"
    a = _chunk("scripts/A.sh", 1, script.format("A"), kind="shell")
    b = _chunk("scripts/B.sh", 1, script.format("B"), kind="shell")
    doc = _chunk("README.md", 1, "Train and evaluate: bash scripts/A.sh", symbol="Usage")
    out = demote_near_duplicates(_hits([a, b, doc], [1.0, 0.9, 0.6]), 0.7, 0.5)
    assert [h.chunk.path for h in out] == ["scripts/A.sh", "README.md", "scripts/B.sh"]
    assert out[2].score == pytest.approx(0.45)
    assert [h.rank for h in out] == [0, 1, 2]
    # off: unchanged
    same = demote_near_duplicates(_hits([a, b, doc], [1.0, 0.9, 0.6]), 0.0, 0.5)
    assert [h.chunk.path for h in same] == ["scripts/A.sh", "scripts/B.sh", "README.md"]


def test_docs_query_brings_a_readme_section_into_the_candidates():
    scripts = [_chunk(f"scripts/m{i}.sh", 1,
                      f"python run.py --task_name classification --model M{i} classification "
                      f"evaluate performance classification", kind="shell") for i in range(6)]
    readme = _chunk("README.md", 1, "Usage\nTrain and evaluate a classification model:\n"
                    "bash ./scripts/m0.sh", symbol="Tool > Usage")
    chunks = scripts + [readme]

    def top(weight):
        cfg = load_config(None, ["retrieval.mode=bm25", "embedder.enabled=false",
                                 "retrieval.candidates=3", "retrieval.k=3",
                                 f"retrieval.docs_query_weight={weight}"])
        return [h.chunk.path for h in Searcher(ListCorpus(chunks), cfg).search(
            "evaluate classification performance", 3)]

    assert "README.md" not in top(0)
    assert "README.md" in top(2.0)


def test_top_hit_brings_its_whole_section_in_file_order():
    title = _chunk("README.md", 1, "# Tool\nA tool.", symbol="Tool")
    usage = _chunk("README.md", 3, "## Usage\nInstall first.", symbol="Tool > Usage")
    train = _chunk("README.md", 5, "### Train\npython train.py --epochs 3",
                   symbol="Tool > Usage > Train")
    test = _chunk("README.md", 7, "### Test\npython test.py --ckpt best.pt",
                  symbol="Tool > Usage > Test")
    cite = _chunk("README.md", 9, "## Citation\n@article{tool}", symbol="Tool > Citation")
    chunks = [title, usage, train, test, cite]

    def searcher(**sets):
        cfg = load_config(None, ["retrieval.mode=bm25", "embedder.enabled=false",
                                 "context.expand_top=0"] + [f"context.{k}={v}" for k, v in sets.items()])
        return Searcher(ListCorpus(chunks), cfg)

    s = searcher(section_top=1, section_depth=2, section_chars=5000)
    assert [c.start_line for c in s.assembler.section_of(test, 2)] == [3, 5, 7]
    assert [c.start_line for c in s.assembler.section_of(test, 3)] == [7]
    assert [c.start_line for c in s.assembler.section_of(title, 2)] == [1, 3, 5, 7, 9]  # the title's section is the document
    hits = _hits([test, cite], [1.0, 0.5])
    out = s.assembler.whole_sections(hits)
    assert [h.chunk.start_line for h in out] == [7, 3, 5, 9]
    assert all(h.rank == 0 for h in out[:3])
    # too long, or off: unchanged
    assert [h.chunk.start_line for h in searcher(section_top=1, section_chars=20).assembler.whole_sections(hits)] == [7, 9]
    assert [h.chunk.start_line for h in searcher(section_top=0).assembler.whole_sections(hits)] == [7, 9]
    ctx = s.context("python test.py ckpt")
    assert "python train.py" in ctx.text and "python test.py" in ctx.text


def test_strip_filler_removes_request_wording_only():
    from ragcode.retrieval.query import strip_filler

    text = "Could you kindly help me train StarGAN on CelebA? I need assistance."
    out = strip_filler(text, ["could you", "kindly", "help me", "i need", "assistance"])
    assert out == "train StarGAN on CelebA? ."
    assert strip_filler("Kindlyness stays", ["kindly"]) == "Kindlyness stays"  # whole words
    assert strip_filler("please", ["please"]) == "please"  # never an empty query
    assert strip_filler(text, []) == text


def test_piece_header_shows_only_the_innermost_headings():
    from ragcode.retrieval.packing import PackSettings, pack

    c = _chunk("README.md", 1, "python demo.py", symbol="A Very Long Project Title > Usage > Demo")
    full = pack(_hits([c], [1.0]), PackSettings(budget=500)).text
    short = pack(_hits([c], [1.0]), PackSettings(budget=500, heading_levels=1)).text
    two = pack(_hits([c], [1.0]), PackSettings(budget=500, heading_levels=2)).text
    assert full.splitlines()[0] == "### README.md:1-1 (A Very Long Project Title > Usage > Demo)"
    assert short.splitlines()[0] == "### README.md:1-1 (Demo)"
    assert two.splitlines()[0] == "### README.md:1-1 (Usage > Demo)"
    assert "python demo.py" in short
