"""``Candidate.metadata`` is typed (``ragcode.types.CandidateMetadata``): every key a checked
generation writes is declared there, findings have the declared shape, and the dict stays a
plain dict (``cands[0].metadata["chunk_ids"]``, JSON in run folders)."""

from __future__ import annotations

import json
import typing

from ragcode.answering import generate_from_config
from ragcode.check import CheckContext, Finding
from ragcode.config import load_config
from ragcode.generation.backends.scripted import ScriptedLLM
from ragcode.types import Candidate, CandidateMetadata, CheckRecord, Context, FindingRecord

TRAIN = ("import argparse\np = argparse.ArgumentParser()\np.add_argument('--epochs', type=int)\n"
         "p.add_argument('--lr', type=float)\nargs = p.parse_args()\n")


def test_candidate_metadata_is_the_declared_typed_dict():
    hints = typing.get_type_hints(Candidate)
    assert hints["metadata"] is CandidateMetadata
    assert Candidate("x", "x", "bash").metadata == {}


def test_a_checked_generation_writes_only_declared_keys(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    cfg = load_config(None, ["generation.check=[bash,python,coverage]", "generation.n=2"])
    llm = ScriptedLLM(answers=["```bash\npython train.py --epochs 5 --learning-rate 0.1\n```",
                               "```bash\npython train.py --epochs 5 --lr 0.1\n```"])
    ctx = Context(text="Run `python train.py --epochs 5 --lr 0.1`.", chunk_ids=("README.md:1-1",), budget=100)
    instruction = "train for 5 epochs with lr 0.1"
    cands = generate_from_config(instruction, ctx, llm, cfg, CheckContext(tmp_path, ".", instruction))
    assert cands[0].metadata["chunk_ids"] == ["README.md:1-1"]
    for cand in cands:
        meta = cand.metadata
        assert set(meta) <= set(CandidateMetadata.__annotations__), set(meta) - set(CandidateMetadata.__annotations__)
        assert set(meta["check"]) <= set(CheckRecord.__annotations__), set(meta["check"]) - set(CheckRecord.__annotations__)
        for finding in meta["check"]["findings"]:
            assert set(finding) == set(FindingRecord.__annotations__)
        json.dumps(meta)  # plain data: stored as JSON in run folders
    assert any(cand.metadata["check"]["findings"] for cand in cands)  # --learning-rate is no flag of train.py


def test_finding_dicts_match_the_declared_record():
    record = Finding(check="bash", code="unknown-flag", message="m").to_dict()
    assert set(record) == set(FindingRecord.__annotations__)
