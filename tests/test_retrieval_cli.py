"""`ragcode search` and `ragcode mlbench retrieve` on a fixture repository built in tmp_path."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragcode.cli import app
from ragcode.config import load_config
from retrieval_helpers import make_gan_repo

runner = CliRunner()
BM25_ONLY = ["--set", "embedder.enabled=false", "--set", "retrieval.mode=bm25"]


@pytest.fixture()
def bm25_index(tmp_path):
    from ragcode.index.build import index_repo

    repo = make_gan_repo(tmp_path / "gan")
    cfg = load_config(None, ["embedder.enabled=false", f"index.cache_dir={tmp_path / 'cache'}"])
    index_repo(repo, cfg, name="gan", out=tmp_path / "indexes", progress=False).close()
    return tmp_path / "indexes" / "gan"


def test_search_json_lists_ranked_hits(bm25_index):
    res = runner.invoke(app, ["search", str(bm25_index), "wasserstein gan weight clipping",
                              "-k", "3", "--json", *BM25_ONLY])
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)
    assert 1 <= len(hits) <= 3
    assert set(hits[0]) >= {"rank", "score", "id", "kind", "path", "start_line", "end_line",
                            "symbol", "text"}
    assert [h["rank"] for h in hits] == list(range(len(hits)))
    assert hits[0]["score"] >= hits[-1]["score"]
    assert any("clip_value" in h["text"] for h in hits)


def test_search_table_shows_score_kind_location_and_heading(bm25_index):
    res = runner.invoke(app, ["search", str(bm25_index), "DCGAN learning rate", *BM25_ONLY])
    assert res.exit_code == 0, res.output
    for column in ("score", "kind", "path:lines", "heading / symbol"):
        assert column in res.stdout
    assert "README.md:" in res.stdout


def test_search_missing_index_is_a_clear_error(tmp_path):
    res = runner.invoke(app, ["search", str(tmp_path / "nope"), "x", *BM25_ONLY])
    assert res.exit_code == 2
    assert "nope" in res.output


def test_mlbench_retrieve_lines_report_and_resume(tmp_path, gan_bench):
    repos, tasks = gan_bench
    out = tmp_path / "out" / "ctx.jsonl"
    args = ["mlbench", "retrieve", "--tasks", str(tasks), "--repos", str(repos), "--budget", "700",
            "--out", str(out), "--index-root", str(tmp_path / "idx"), *BM25_ONLY]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["github_id"], r["id"]) for r in lines] == [(10, 1), (10, 2)]
    for rec in lines:
        assert set(rec) == {"github_id", "id", "context", "chunks"}
        assert 0 < len(rec["context"]) <= 700
        assert rec["chunks"] and all(isinstance(c, str) for c in rec["chunks"])
        assert "SECRET_ORACLE_TOKEN" not in rec["context"]
    assert "python3 dcgan.py" in lines[0]["context"]
    assert "--clip_value" in lines[1]["context"]
    assert "PyTorch-GAN" in res.stdout and "paper BM25" in res.stdout
    report = json.loads((out.parent / "ctx.report.json").read_text())
    assert report["budget"] == 700
    assert set(report["overall"]) == {"ragcode", "paper_bm25"}
    assert report["overall"]["ragcode"]["n"] == 2
    assert set(report["per_repo"]) == {"PyTorch-GAN"}
    assert (tmp_path / "idx" / "PyTorch-GAN" / "manifest.json").exists()

    # resumable: a second run retrieves nothing again and keeps the file as it was
    before = out.read_text()
    res2 = runner.invoke(app, args)
    assert res2.exit_code == 0, res2.output
    assert out.read_text() == before
    report2 = json.loads((out.parent / "ctx.report.json").read_text())
    assert report2["overall"] == report["overall"]
    assert all(t["seconds"] is None for t in report2["tasks"])

    # other settings: refused, not mixed into the same file; --restart starts afresh
    other = [a if a != "700" else "600" for a in args]
    res3 = runner.invoke(app, other)
    assert res3.exit_code != 0
    assert "context.budget: 700 -> 600" in res3.output and "--restart" in res3.output
    assert out.read_text() == before
    res4 = runner.invoke(app, other + ["--restart"])
    assert res4.exit_code == 0, res4.output
    assert all(len(json.loads(x)["context"]) <= 600 for x in out.read_text().splitlines())
    assert json.loads((out.parent / "ctx.report.json").read_text())["budget"] == 600


def test_only_the_instruction_reaches_retrieval(tmp_path, monkeypatch, gan_bench):
    """The oracle, arguments, output and path of a task never reach a retriever."""
    import ragcode.retrieval.search as search_mod
    from ragcode.bench.retrieve import run_retrieve

    seen = []
    real = search_mod.retrieve_context

    def spy(index, instruction, config=None):
        seen.append(instruction)
        return real(index, instruction, config)

    monkeypatch.setattr(search_mod, "retrieve_context", spy)
    repos, tasks = gan_bench
    cfg = load_config(None, ["embedder.enabled=false", "retrieval.mode=bm25", f"index.root={tmp_path / 'idx'}"])
    run_retrieve(tasks, repos, tmp_path / "o.jsonl", cfg)
    raw = [json.loads(x) for x in tasks.read_text().splitlines()]
    assert seen == [t["instruction"] for t in raw]
    for leaked in ("SECRET_ORACLE_TOKEN", "SECRET_OUTPUT_TOKEN", "clip_value': '0.02"):
        assert not any(leaked in s for s in seen)
