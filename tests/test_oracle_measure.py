"""The oracle measure of issue 3, on hand-computed cases."""

from __future__ import annotations

import pytest

from ragcode.bench.oracle_measure import (
    RepoOracle, attainable, coverage, normalized, score_context, summarize, tokens,
)


def test_tokens_are_lowercased_word_dash_dot_runs():
    assert tokens("Run: python3 train.py --Dataset cora, (lr=0.01)") == {
        "run", "python3", "train.py", "--dataset", "cora", "lr", "0.01"}


def test_coverage_counts_shared_oracle_tokens():
    oracle = tokens("python train.py --dataset cora")  # 4 tokens
    assert coverage(oracle, "see train.py, use --dataset CORA") == pytest.approx(3 / 4)
    assert coverage(oracle, "nothing here") == 0.0
    assert coverage(frozenset(), "anything") == 1.0


def test_attainable_is_best_single_file_and_normalized_is_capped():
    oracle = tokens("a b c d e")
    files = ["a b", "a b c d", "e"]  # best single file: 4/5, never the union
    assert attainable(oracle, files) == pytest.approx(0.8)
    assert normalized(0.6, 0.8) == pytest.approx(0.75)
    assert normalized(1.0, 0.8) == 1.0
    assert normalized(0.0, 0.0) == 1.0


def test_found_at_ninety_percent_of_attainable():
    repo = RepoOracle(["alpha beta gamma delta edited", "unrelated"])
    oracle = "alpha beta gamma delta ANNOTATOR"  # 5 tokens, best file has 4: attainable 0.8
    s = repo.score(oracle, "alpha beta gamma")  # coverage 0.6 -> normalized 0.75
    assert (s.coverage, s.attainable) == (pytest.approx(0.6), pytest.approx(0.8))
    assert s.normalized == pytest.approx(0.75) and not s.found
    s2 = repo.score(oracle, "alpha beta gamma delta")  # 0.8 / 0.8
    assert s2.normalized == pytest.approx(1.0) and s2.found
    s3 = score_context("a b c d e f g h i j", "a b c d e f g h i", attain=1.0)
    assert s3.normalized == pytest.approx(0.9) and s3.found


def test_summary_rates():
    repo = RepoOracle(["x y"])
    scores = [repo.score("x y", "x y"), repo.score("x y", "x")]
    summary = summarize(scores)
    assert summary.n == 2
    assert summary.found_rate == pytest.approx(0.5)
    assert summary.mean_normalized == pytest.approx(0.75)


def test_paper_bm25_dump_windows_and_budget(tmp_path):
    pytest.importorskip("rank_bm25")
    from ragcode.bench.paper_bm25 import WINDOW, PaperBM25, repo_dump

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("print('code first alphabetically')\n")
    (tmp_path / "README.md").write_text(
        " ".join(f"Sentence number {i} talks about topic{i}." for i in range(30)))
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00binary")
    dump = repo_dump(tmp_path)
    assert dump.index("README.md") < dump.index("a.py")  # READMEs first
    assert "binary" not in dump
    base = PaperBM25.from_repo(tmp_path, n_sentences=25)
    assert len(base.sentences) == 25
    assert all(len(w) <= WINDOW for w in base.windows) and len(base.windows) == 25
    ctx = base.context("what about topic17.", budget=300)  # whitespace tokens, as the paper
    assert len(ctx) <= 300
    assert "topic17" in ctx
    assert len(base.context("topic3. topic4.", budget=100_000).split("Sentence number 5 ")) == 2
