"""``generation.more_samples``: more answers drawn only when the repository refuses the best of the first n."""

from __future__ import annotations

import json

import pytest
from check_helpers import make_check_repo

from ragcode.answer.journal import Journal
from ragcode.answering import generate_from_config
from ragcode.check import CheckContext
from ragcode.config import load_config
from ragcode.generation.backends.scripted import ScriptedLLM

GOOD = "```bash\npython train.py --data cora --lr 0.1 --batch_size 16\n```"
BAD_FLAG = "```bash\npython train.py --data cora --lr 0.1 --batch_sz 16\n```"
BAD_SCRIPT = "```bash\npython main.py --data cora\n```"
INSTRUCTION = "Train on cora with lr 0.1 and batch size 16"


@pytest.fixture
def ctx(tmp_path) -> CheckContext:
    return CheckContext(make_check_repo(tmp_path), ".", INSTRUCTION)


def config(*extra: str):
    # fixes off: the scripted repo's unknown flag would otherwise be mended, leaving no doubt
    return load_config(overrides=["generation.check=[bash,python,coverage]", "generation.autofix=false", *extra])


def test_when_the_first_samples_are_all_refused_more_are_drawn_and_a_clean_one_wins(ctx):
    llm = ScriptedLLM(answers=[BAD_SCRIPT, BAD_SCRIPT, GOOD, BAD_SCRIPT])
    cands = generate_from_config(INSTRUCTION, None, llm, config("generation.n=2", "generation.more_samples=2"), ctx)
    assert len(cands) == 4 and "--lr 0.1" in cands[0].code and cands[0].metadata["check"]["findings"] == []
    assert cands[0].metadata["check"]["original_index"] == 2
    # the extra draw goes on from seed + n at the sampling temperature, as a draw of n + more would
    assert [c["n"] for c in llm.calls] == [1, 1, 2]
    assert llm.calls[2]["sampling"].seed == 2 and llm.calls[2]["sampling"].temperature == 0.7


def test_no_more_samples_are_drawn_when_the_best_answer_is_clean_and_accepted(ctx):
    llm = ScriptedLLM(answers=[BAD_SCRIPT, GOOD, BAD_FLAG])
    cands = generate_from_config(INSTRUCTION, None, llm, config("generation.n=2", "generation.more_samples=3"), ctx)
    assert len(cands) == 2 and len(llm.calls) == 2 and "--lr 0.1" in cands[0].code


def test_a_first_answer_with_only_warnings_draws_no_more(ctx):
    """A missing value is a warning: the repository accepts the answer, so no more samples."""
    no_batch = "```bash\npython train.py --data cora --lr 0.1\n```"
    llm = ScriptedLLM(answers=[no_batch, GOOD])
    cands = generate_from_config(INSTRUCTION, None, llm, config("generation.n=1", "generation.more_samples=2"), ctx)
    assert len(cands) == 1 and len(llm.calls) == 1
    assert [f["code"] for f in cands[0].metadata["check"]["findings"]] == ["missing-value"]


def test_more_samples_zero_keeps_n_answers_and_five_is_the_default(ctx):
    llm = ScriptedLLM(answers=[BAD_SCRIPT])
    cands = generate_from_config(INSTRUCTION, None, llm, config("generation.n=2", "generation.more_samples=0"), ctx)
    assert len(cands) == 2 and len(llm.calls) == 2
    assert load_config().generation.more_samples == 5


def test_the_extra_samples_are_journalled_and_read_back_on_a_resume(ctx, tmp_path):
    journal = tmp_path / "task.jsonl"
    cfg = config("generation.n=1", "generation.more_samples=2")
    first = ScriptedLLM(answers=[BAD_FLAG, BAD_SCRIPT, GOOD])
    generate_from_config(INSTRUCTION, None, first, cfg, ctx, journal=journal)
    steps = [json.loads(line)["step"] for line in journal.read_text().splitlines()]
    assert steps == ["samples", "more-samples"]
    assert [d["text"] for d in Journal(journal).get("more-samples")] == [BAD_SCRIPT, GOOD]
    again = ScriptedLLM(answers=[BAD_SCRIPT])  # would be chosen against if it were asked
    (best, *_) = generate_from_config(INSTRUCTION, None, again, cfg, ctx, journal=journal)
    assert again.calls == [] and "--lr 0.1" in best.code


def test_a_negative_or_huge_more_samples_is_a_config_error():
    from ragcode.errors import ConfigError

    for value in ("-1", "21"):
        with pytest.raises(ConfigError):
            load_config(overrides=[f"generation.more_samples={value}"])
