"""The public API: a config is a Config, a YAML path or None everywhere; keyword overrides
work or are refused by name; defaults come from the config, not from the signature."""

from __future__ import annotations

import json
import typing

import pytest

import ragcode
from ragcode import api
from ragcode.config import load_config
from ragcode.errors import ConfigError
from retrieval_helpers import make_gan_repo

ANSWER = "```bash\npython3 dcgan.py --lr 0.001\n```"


@pytest.fixture
def setup(tmp_path):
    repo = make_gan_repo(tmp_path / "gan")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"index:\n  root: {tmp_path / 'idx'}\n  cache_dir: {tmp_path / 'cache'}\n"
        "embedder:\n  enabled: false\nretrieval:\n  mode: bm25\n"
        f"generation:\n  n: 3\n  check: []\n  llm:\n    backend: scripted\n    scripted_answers: [{json.dumps(ANSWER)}]\n")
    return repo, cfg


def test_every_function_takes_a_config_path(setup):
    repo, cfg = setup
    index = ragcode.index_repo(repo, config=str(cfg), name="gan", progress=False)
    index.close()
    assert ragcode.search("gan", "wasserstein weight clipping", k=3, config=str(cfg))
    hits = ragcode.search("gan", "wasserstein weight clipping", k=3, config=cfg)  # a Path too
    assert any("clip_value" in h.chunk.text for h in hits)
    cands = ragcode.generate("train a DCGAN with lr 0.001", index="gan", config=cfg)
    assert len(cands) == 3  # generation.n from the file: the signature has no n of its own
    assert cands[0].code == "python3 dcgan.py --lr 0.001" and cands[0].metadata["chunk_ids"]
    assert ragcode.load_index("gan", config=cfg).name == "gan"


def test_a_config_object_and_overrides_resolve_like_set(setup):
    repo, cfg = setup
    base = load_config(cfg)
    resolved = api.resolve_config(base, {"retrieval.k": 7})
    assert resolved.retrieval.k == 7 and base.retrieval.k == 20  # the given Config is left as it was
    assert api.resolve_config(cfg, ["retrieval.k=7"]).hash() == resolved.hash()
    assert api.resolve_config(base) is base
    with pytest.raises(ConfigError, match="retrieval.modee"):
        api.resolve_config(cfg, {"retrieval.modee": "bm25"})
    with pytest.raises(ConfigError, match="not dict"):
        api.resolve_config({"retrieval": {}})


def test_search_keywords_set_retrieval_fields_or_are_refused_by_name(setup):
    repo, cfg = setup
    ragcode.index_repo(repo, config=cfg, name="gan", progress=False).close()
    by_keyword = ragcode.search("gan", "DCGAN learning rate", config=cfg, mode="bm25", k=4)
    by_override = ragcode.search("gan", "DCGAN learning rate", config=cfg, k=4,
                                 overrides={"retrieval.mode": "bm25"})
    assert [h.chunk.id for h in by_keyword] == [h.chunk.id for h in by_override]
    only_code = ragcode.search("gan", "DCGAN learning rate", config=cfg, kinds=["code"])
    assert only_code and {h.chunk.kind for h in only_code} == {"code"}
    with pytest.raises(ConfigError, match="takes no keyword 'modee'.*mode"):
        ragcode.search("gan", "x", config=cfg, modee="bm25")


def test_evaluate_takes_a_task_file_and_the_policy_from_the_config(tmp_path, bench):
    tasks, repos = bench
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps({"id": 100 + i, "github_id": 1, "output": [
        "python train.py --dataset citeseer "] * 5}) + "\n" for i in range(4)))
    report = ragcode.evaluate(outputs, tasks, repos, execute=False,
                              overrides={"bench.policy": "static", "index.cache_dir": str(tmp_path)})
    assert report["policy"] == "static" and report["n"] == 4


def test_the_public_functions_are_typed_without_any_where_a_type_exists():
    for name in ("index_repo", "load_index", "search", "generate", "evaluate"):
        hints = typing.get_type_hints(getattr(api, name), globalns=vars(api) | _stage_types())
        assert hints["return"] is not typing.Any, name
        for param, hint in hints.items():
            if param not in ("retrieval", "return"):  # **retrieval: field values of any type
                assert hint is not typing.Any, (name, param)


def _stage_types() -> dict:
    from ragcode.config import Config
    from ragcode.generation.llm import LLM
    from ragcode.index.store import Index
    from ragcode.types import Candidate, Context, Hit, Task

    return {"Config": Config, "LLM": LLM, "Index": Index, "Candidate": Candidate, "Context": Context,
            "Hit": Hit, "Task": Task}
