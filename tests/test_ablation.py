"""Ablation grids: spec expansion, metrics, the results table, caching and resume."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from ablation_helpers import CountingGeneration, CountingRetrieval, make_world

from ragcode.ablation import grid_from_dict, load_grid, run_grid
from ragcode.ablation.measures import TaskRetrievalScore, score_task, summarize
from ragcode.bench.dataset import load_tasks
from ragcode.errors import ConfigError

RETRIEVAL_GRID = {
    "name": "tiny",
    "set": {"embedder.enabled": False, "retrieval.mode": "bm25", "retrieval.multi_query": False},
    "axes": {"chunking.text.window_lines": [3, 40], "context.budget": [120, 2000]},
    "ks": [1, 3],
}


@pytest.fixture()
def world(tmp_path):
    repos, tasks_file = make_world(tmp_path)
    return repos, load_tasks(tasks_file).tasks, tmp_path


# --- spec -----------------------------------------------------------------------------------

def test_full_grid_and_listed_cells_expand_to_validated_configs():
    spec = grid_from_dict({
        "axes": {"retrieval.mode": ["bm25", "dense"], "rerank.enabled": [False, True]},
        "cells": [{"name": "no-cli", "set": {"chunking.cli.enabled": False}}],
    })
    cells = spec.expand()
    assert [c.name for c in cells] == [
        "mode=bm25,enabled=False", "mode=bm25,enabled=True", "mode=dense,enabled=False",
        "mode=dense,enabled=True", "no-cli"]
    assert cells[3].config.retrieval.mode == "dense" and cells[3].config.rerank.enabled is True
    assert cells[4].config.chunking.cli.enabled is False
    assert len({c.config_hash for c in cells}) == 5
    assert spec.varied_keys() == ["retrieval.mode", "rerank.enabled", "chunking.cli.enabled"]


def test_setting_one_key_of_a_mapping_field_keeps_the_others():
    cell = grid_from_dict({"axes": {"chunking.chunkers.markdown": ["lines"]}}).expand()[0]
    assert cell.config.chunking.chunkers["markdown"] == "lines"
    assert cell.config.chunking.chunkers["python"] == "python"


def test_unknown_field_fails_before_any_work():
    spec = grid_from_dict({"axes": {"retrieval.modee": ["bm25"]}}, source="bad.yaml")
    with pytest.raises(ConfigError, match=r"(?s)bad.yaml.*retrieval.modee: Extra inputs"):
        spec.expand()
    with pytest.raises(ConfigError, match="unknown key"):
        grid_from_dict({"axis": {}})


def test_shipped_presets_load_and_expand():
    from pathlib import Path

    presets = sorted((Path(__file__).parents[1] / "configs" / "ablation").glob("*.yaml"))
    assert {p.stem for p in presets} >= {"chunking", "retrieval_mode", "rerank", "budget"}
    for path in presets:
        cells = load_grid(path).expand()
        assert len(cells) >= 2, path
        assert len({c.config_hash for c in cells}) == len(cells), f"{path}: two cells are equal"


# --- measures -------------------------------------------------------------------------------

def test_chunk_metrics_by_hand():
    # oracle tokens {python, train.py, --dataset, cora}; chunk a holds all 4, b holds 2, c none
    pool = [("a", "f1", frozenset({"python", "train.py", "--dataset", "cora"})),
            ("b", "f2", frozenset({"python", "cora"})),
            ("c", "f3", frozenset({"pip"}))]
    s = score_task("t", "python train.py --dataset cora", "pip python", ["c", "b", "a"], pool)
    assert s.n_relevant == 2  # b carries 2/4 = 0.5 of the oracle: counts
    assert s.ranks == (2, 3)
    assert s.normalized_coverage == pytest.approx(0.25)
    assert not s.found
    assert s.rr() == pytest.approx(0.5)
    assert s.recall(2) == pytest.approx(0.5) and s.precision(2) == pytest.approx(0.5)
    ideal = 1 + 1 / math.log2(3)
    assert s.ndcg(3) == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / ideal)
    empty = TaskRetrievalScore("u", 1.0, True, 0, ())
    summary = summarize([s, empty], ks=[2])
    assert summary.found_rate == pytest.approx(0.5)
    assert summary.n_no_relevant == 1
    assert summary.at_k["recall@2"] == pytest.approx(0.5)  # the empty task is left out


def test_no_chunk_carries_an_oracle_that_no_file_shares():
    s = score_task("t", "zzz qqq", "", ["a"], [("a", "f", frozenset({"x"}))])
    assert s.n_relevant == 0 and s.ranks == ()


# --- the grid engine ------------------------------------------------------------------------

def test_tiny_grid_writes_rows_table_and_plots(world):
    repos, tasks, tmp = world
    out = tmp / "results"
    stage = CountingRetrieval()
    result = run_grid(grid_from_dict(RETRIEVAL_GRID), tasks, repos, out, retrieval_stage=stage,
                      progress=False)
    assert len(result.rows) == 4 and len(result.computed) == 4
    with open(out / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["cell"] for r in rows] == [r["cell"] for r in result.rows]
    for row in rows:
        assert len(row["config_hash"]) == 16
        assert row["chunking.text.window_lines"] in ("3", "40")
        assert 0.0 <= float(row["found_rate"]) <= 1.0
        assert {"recall@1", "precision@3", "ndcg@3", "mrr"} <= set(row)
    # the tiny budget holds less of the oracle than the large one, same chunking
    by_cell = {(r["chunking.text.window_lines"], r["context.budget"]): r for r in result.rows}
    assert by_cell[(40, 2000)]["mean_coverage"] > by_cell[(40, 120)]["mean_coverage"]
    assert by_cell[(40, 2000)]["found_rate"] == 1.0
    payload = json.loads((out / "results.json").read_text())
    assert payload["ragcode_version"] and payload["measure"] == "retrieval"
    assert "torch" in payload["environment"]["packages"] and all(r["ragcode_version"] for r in rows)
    assert payload["best"] == max(result.rows, key=lambda r: r["found_rate"])["cell"]
    table = (out / "results.md").read_text()
    assert table.count("★") == 2  # the legend and the best row
    assert f"**{payload['best']}**" in table
    for name in ("cells.png", "axis_chunking.text.window_lines.png", "axis_context.budget.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"


def test_rerun_of_a_finished_grid_does_nothing(world):
    repos, tasks, tmp = world
    spec = grid_from_dict(RETRIEVAL_GRID)
    first = run_grid(spec, tasks, repos, tmp / "r", retrieval_stage=CountingRetrieval(), progress=False)
    again = CountingRetrieval()
    second = run_grid(spec, tasks, repos, tmp / "r", retrieval_stage=again, progress=False)
    assert again.calls == []
    assert second.computed == [] and len(second.cached) == 4
    assert second.rows == first.rows
    # a setting retrieval does not read leaves a finished retrieval grid finished
    later = CountingRetrieval()
    run_grid(spec, tasks, repos, tmp / "r", retrieval_stage=later, progress=False,
             overrides={"generation.n": 3})
    assert later.calls == []
    # a changed task set is new work, never a stale hit
    third = CountingRetrieval()
    run_grid(spec, tasks[:2], repos, tmp / "r", retrieval_stage=third, progress=False)
    assert len(third.calls) == 4


def test_the_specs_own_index_root_wins_over_the_default_one(world):
    """From Python, without index_root: the spec's ``set: index.root`` is where indexes go (not
    OUT/indexes); an explicit index_root, then an ``index.root`` override, win over the spec."""
    repos, tasks, tmp = world
    seen: list[str] = []
    counting = CountingRetrieval()

    def stage(tasks_, repos_, config):  # noqa: ANN001, ANN202
        seen.append(config.index.root)
        return counting(tasks_, repos_, config)

    spec = grid_from_dict({**RETRIEVAL_GRID, "axes": {"context.budget": [120]},
                           "set": {**RETRIEVAL_GRID["set"], "index.root": str(tmp / "spec-idx")}})
    for out, kwargs, want in (
            ("a", {}, tmp / "spec-idx"),
            ("b", {"index_root": tmp / "arg-idx"}, tmp / "arg-idx"),
            ("c", {"overrides": {"index.root": str(tmp / "set-idx")}}, tmp / "set-idx")):
        seen.clear()
        run_grid(spec, tasks, repos, tmp / out, retrieval_stage=stage, progress=False, report=False,
                 **kwargs)
        assert seen == [str(want.resolve())], out
    seen.clear()
    plain = grid_from_dict({**RETRIEVAL_GRID, "axes": {"context.budget": [120]}})
    run_grid(plain, tasks, repos, tmp / "d", retrieval_stage=stage, progress=False, report=False)
    assert seen == [str((tmp / "d" / "indexes").resolve())]


def test_cells_sharing_retrieval_settings_share_one_retrieval(world):
    repos, tasks, tmp = world
    good = "```bash\npython3 train.py --dataset citeseer --dataset pubmed --epochs 50 --task_name=MRPC \n```"
    bad = "```bash\necho hello\n```"
    spec = grid_from_dict({
        "measure": "generation", "execute": False,
        "set": {**RETRIEVAL_GRID["set"], "generation.llm.backend": "scripted", "generation.n": 2,
                "generation.check": []},
        "axes": {"context.budget": [120, 2000], "generation.llm.scripted_answers": [[bad, good], [bad]]},
    })
    retrieval, generation = CountingRetrieval(), CountingGeneration()
    result = run_grid(spec, tasks, repos, tmp / "g", retrieval_stage=retrieval,
                      generation_stage=generation, progress=False)
    assert len(retrieval.calls) == 2  # two budgets; the answers axis reuses retrieval
    assert len(generation.calls) == 4
    assert sum(r["retrieval_cached"] for r in result.rows) == 2
    for row in result.rows:
        good_answers = "pubmed" in row["generation.llm.scripted_answers"]
        assert row["pass@1"] == 0.0  # sample 1 is always the bad answer
        assert row["pass@2"] == (1.0 if good_answers else 0.0)
        assert row["policy"] == "mlbench-legacy (no execution)"
    assert (tmp / "g" / "found_vs_pass.png").is_file()
    runs = sorted((tmp / "g" / "runs").glob("*/samples.jsonl"))
    assert len(runs) == 4  # one resumable run per cell, every task's answers kept
    assert all(len(p.read_text().splitlines()) == 3 for p in runs)


def test_killed_grid_resumes_without_redoing_finished_cells(world):
    repos, tasks, tmp = world
    spec = grid_from_dict(RETRIEVAL_GRID)
    dying = CountingRetrieval(fail_after=1)
    with pytest.raises(KeyboardInterrupt):
        run_grid(spec, tasks, repos, tmp / "k", retrieval_stage=dying, progress=False)
    assert len(dying.calls) == 1
    assert len(list((tmp / "k" / "cells").glob("*.json"))) == 1
    assert not list((tmp / "k").rglob("*.tmp"))
    resumed = CountingRetrieval()
    result = run_grid(spec, tasks, repos, tmp / "k", retrieval_stage=resumed, progress=False)
    assert len(resumed.calls) == 3
    assert dying.calls[0] not in resumed.calls
    assert result.cached == [result.rows[0]["cell"]] and len(result.computed) == 3


# --- the default stages and the CLI ---------------------------------------------------------

def test_cli_runs_a_grid_with_the_default_stages_and_reuses_indexes(world):
    from typer.testing import CliRunner

    from ragcode.cli import app

    repos, _tasks, tmp = world
    spec = tmp / "spec.yaml"
    spec.write_text(json.dumps({
        "name": "cli", "set": {"embedder.enabled": False, "retrieval.mode": "bm25"},
        "cells": [{"name": "md", "set": {"chunking.cli.enabled": False}},
                  {"name": "md+cli", "set": {"chunking.cli.enabled": True}},
                  {"name": "md+cli-2k", "set": {"chunking.cli.enabled": True, "context.budget": 2000}}],
    }))
    args = ["ablate", str(spec), "--tasks", str(tmp / "tasks.jsonl"), "--repos", str(repos),
            "--out", str(tmp / "out"), "--index-root", str(tmp / "idx"), "--json"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert [r["cell"] for r in data["rows"]] == ["md", "md+cli", "md+cli-2k"]
    assert all(r["n_tasks"] == 3 for r in data["rows"])
    # every row shows the resolved value of every varied field, also where its cell did not set it
    assert [r["context.budget"] for r in data["rows"]] == [6000, 6000, 2000]
    # two chunking settings -> two indexes per repository, shared by the cells that agree
    assert len(list((tmp / "idx").iterdir())) == 4
    second = json.loads(CliRunner().invoke(app, args).output)
    assert second["computed"] == [] and second["cached"] == ["md", "md+cli", "md+cli-2k"]
    assert second["rows"] == data["rows"]


def test_cli_lists_cells_without_running_and_names_missing_options(tmp_path):
    from typer.testing import CliRunner

    from ragcode.cli import app

    spec = tmp_path / "s.yaml"
    spec.write_text("axes:\n  retrieval.mode: [bm25, dense]\n")
    listed = CliRunner().invoke(app, ["ablate", str(spec), "--list", "--json"])
    assert listed.exit_code == 0, listed.output
    cells = json.loads(listed.output)["cells"]
    assert [c["retrieval.mode"] for c in cells] == ["bm25", "dense"]
    assert not (tmp_path / "out").exists()
    refused = CliRunner().invoke(app, ["ablate", str(spec), "--out", str(tmp_path / "out")])
    assert refused.exit_code == 2 and "--tasks, --repos" in refused.output


def test_generation_run_of_a_cell_resumes_task_by_task(world):
    from ragcode.ablation.adapters import bench_generation
    from ragcode.ablation.stages import TaskRetrieval
    from ragcode.config import load_config

    repos, tasks, tmp = world
    answer = "```bash\npython3 train.py --dataset citeseer \n```"
    cfg = load_config(overrides={"generation.llm.backend": "scripted", "generation.n": 2,
                                 "generation.llm.scripted_answers": [answer]})
    retrievals = [TaskRetrieval(task=t, context="", ranked_ids=()) for t in tasks]
    run_dir = tmp / "run"
    first = bench_generation(retrievals[:1], repos, cfg, "mlbench-legacy", run_dir, execute=False)
    assert first[0].passed == (True, True)
    # no answers configured now: loading the model would fail, so finished tasks must be reused
    bare = load_config(overrides={"generation.llm.backend": "scripted", "generation.n": 2})
    again = bench_generation(retrievals[:1], repos, bare, "mlbench-legacy", run_dir, execute=False)
    assert again == first
    with pytest.raises(ConfigError, match="scripted_answers"):
        bench_generation(retrievals[:2], repos, bare, "mlbench-legacy", run_dir, execute=False)


def test_default_retrieval_stage_records_the_hits_and_context_of_one_ranking(tmp_path, monkeypatch):
    """ranked_ids and context come from the same ranking, as ``ragcode search`` and
    ``retrieve_context`` give them, and each query is ranked once (issue 16)."""
    from retrieval_helpers import make_gan_repo, write_tasks

    from ragcode.ablation.adapters import bench_retrieval, index_name
    from ragcode.config import load_config
    from ragcode.index.store import load_index
    from ragcode.retrieval import ranking
    from ragcode.retrieval.search import retrieve_context, search

    repos = tmp_path / "repos"
    make_gan_repo(repos / "PyTorch-GAN")  # github_id 10's folder
    tasks = load_tasks(write_tasks(tmp_path / "tasks.jsonl")).tasks
    cfg = load_config(None, {"embedder.enabled": False, "retrieval.mode": "bm25",
                             "index.root": str(tmp_path / "idx"),
                             "index.cache_dir": str(tmp_path / "cache")})
    ranked: list[str] = []
    real_rank = ranking.Ranker.rank

    def counting_rank(self, query, k):  # noqa: ANN001, ANN202
        ranked.append(query.text)
        return real_rank(self, query, k)

    monkeypatch.setattr(ranking.Ranker, "rank", counting_rank)
    batch = bench_retrieval(tasks, repos, cfg)
    monkeypatch.undo()
    assert ranked == [t.instruction for t in tasks]
    index = load_index(tmp_path / "idx" / index_name("PyTorch-GAN", cfg), cfg)
    for r in batch.results:
        assert r.ranked_ids == tuple(h.chunk.id for h in search(index, r.task.instruction,
                                                                cfg.retrieval.k, cfg))
        assert r.context == retrieve_context(index, r.task.instruction, cfg).text


def test_the_agent_preset_runs_single_checked_and_agent_cells(world):
    repos, tasks, tmp = world
    preset = load_grid(Path(__file__).parents[1] / "configs" / "ablation" / "agent.yaml")
    assert [c.name for c in preset.expand()] == ["single", "checked", "agent"]
    good = "```bash\npython3 train.py --dataset citeseer --dataset pubmed --epochs 50 --task_name=MRPC \n```"
    spec = grid_from_dict({
        "measure": "generation", "execute": False,
        "set": {**RETRIEVAL_GRID["set"], "generation.llm.backend": "scripted",
                "generation.llm.scripted_answers": [good]},
        "cells": [{"name": c["name"], "set": c["set"]} for c in
                  [{"name": "single", "set": {"generation.n": 1, "generation.check": []}},
                   {"name": "checked", "set": {"generation.check": ["bash", "python", "coverage"]}},
                   {"name": "agent", "set": {"bench.setting": "agent", "generation.n": 1}}]],
    })
    result = run_grid(spec, tasks, repos, tmp / "a", progress=False, report=False)
    rows = {r["cell"]: r for r in result.rows}
    assert set(rows) == {"single", "checked", "agent"}
    assert all(r["pass@1"] == 1.0 for r in rows.values())  # the scripted answer is right
    # the agent cell ran episodes: its reply (one bash block, no call) was the submission
    trajectories = list((tmp / "a" / "runs").glob("*/trajectories/*.jsonl"))
    assert len(trajectories) == len(tasks)
    final = [json.loads(x) for x in trajectories[0].read_text().splitlines()][-1]
    assert final["type"] == "final" and final["stop"] == "submitted"
