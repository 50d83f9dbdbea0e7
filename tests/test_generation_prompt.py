"""Prompt templates, the context budget, candidates' metadata, and what may reach a prompt."""

from __future__ import annotations

import hashlib

import pytest

from ragcode.config import Config
from ragcode.errors import ConfigError
from ragcode.generation.backends.scripted import ScriptedLLM
from ragcode.answering import generate
from ragcode.generation.generate import generate_candidates
from ragcode.generation.llm import Sampling, load_llm
from ragcode.generation.prompt import build_prompt, fit_to_tokens, load_template, template_names
from ragcode.types import Context, Task

ANSWER = "Run this:\n```bash\npython train.py --lr 0.01\n```"


def _ctx(text="### README.md:1-3\n# Train\npython train.py --lr LR", ids=("README.md:1-3:markdown:abc",)):
    return Context(text=text, chunk_ids=ids, budget=1000)


def test_packaged_templates_load_with_hash_and_newest_version_by_base_name():
    names = template_names()
    for expected in ("ragcode-v1", "mlbench-readme-v1", "mlbench-bm25-v1", "mlbench-oracle-v1",
                     "mlbench-none-v1", "mlbench-gpt-v1"):
        assert expected in names
    newest = max((n for n in names if n.startswith("ragcode-v")), key=lambda n: int(n.rsplit("v", 1)[1]))
    t = load_template("ragcode")
    assert t.name == newest
    assert len(t.sha256) == 64 and t.sha256 == load_template(newest).sha256
    assert load_template("ragcode-v1").sha256 != load_template("mlbench-oracle-v1").sha256
    assert load_template("mlbench-oracle").name == "mlbench-oracle-v1"


def test_mlbench_oracle_template_is_the_papers_wording():
    msgs = build_prompt("Train GCN on cora", _ctx("python train.py --dataset cora"), "mlbench-oracle")
    assert len(msgs) == 1 and msgs[0]["role"] == "user"
    text = msgs[0]["content"]
    assert text.startswith("Suppose you are a data scientist, you will read the following README file")
    assert "You want to help me with this task:\nTrain GCN on cora\n" in text
    assert "If you want to use the code segment and script in the following segment, you can use it directly:\npython train.py --dataset cora\n" in text
    assert "Most answers can be directly found in the above segment." in text


def test_template_file_hash_is_of_its_bytes(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine-v3\nuser: 'Do {instruction} using {context}'\n")
    t = load_template(str(path))
    assert t.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert build_prompt("X", "CTX", t) == [{"role": "user", "content": "Do X using CTX"}]


def test_bad_templates_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown prompt template 'nope'"):
        load_template("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nuser: hi\nbogus: 1\n")
    with pytest.raises(ConfigError, match="unknown: \\['bogus'\\]"):
        load_template(str(bad))
    with pytest.raises(ConfigError, match="takes no context"):
        build_prompt("x", _ctx(), "mlbench-none")
    with pytest.raises(ConfigError, match="needs a context"):
        build_prompt("x", None, "mlbench-oracle")


def test_context_placeholders_are_substituted_once():
    msgs = build_prompt("train it", _ctx("literal {instruction} and {context} in a README"), "ragcode")
    user = msgs[-1]["content"]
    assert "literal {instruction} and {context} in a README" in user
    assert user.rstrip().endswith("Task: train it")


def test_no_context_uses_the_no_context_variant():
    msgs = build_prompt("train it", None, "ragcode")
    assert msgs[0]["role"] == "system"
    assert msgs[-1]["content"] == "Task: train it"


def test_fit_to_tokens_cuts_at_a_line_boundary():
    text = "\n".join(f"line {i} " + " ".join(["w"] * 5) for i in range(50))
    count = lambda s: len(s.split())  # noqa: E731
    cut, truncated = fit_to_tokens(text, 40, count)
    assert truncated and count(cut) <= 40 and text.startswith(cut)
    assert cut.splitlines()[-1].startswith("line ") and cut.endswith("w")
    assert fit_to_tokens(text, 10_000, count) == (text, False)


def test_candidates_record_template_chunks_sampling_and_seeds():
    llm = ScriptedLLM(answers=[ANSWER, "```python\nimport os\n```"])
    sampling = Sampling(temperature=0.8, top_p=0.9, max_tokens=64, seed=7)
    cands = generate_candidates("train", _ctx(), llm, n=3, template="ragcode", sampling=sampling)
    assert [c.sample_index for c in cands] == [0, 1, 2]
    assert [c.answer_type for c in cands] == ["bash", "python", "bash"]
    assert cands[0].code == "python train.py --lr 0.01"
    meta = cands[1].metadata
    assert meta["template"] == load_template("ragcode").name
    assert meta["template_sha256"] == load_template("ragcode").sha256
    assert meta["chunk_ids"] == ["README.md:1-3:markdown:abc"]
    assert meta["sampling"] == {"temperature": 0.8, "top_p": 0.9, "max_tokens": 64, "seed": 7, "stop": []}
    assert meta["seed"] == 8 and meta["model"] == "scripted"
    assert llm.calls[0]["n"] == 3  # one call for all samples: the backend may share the prefix


def test_context_is_cut_to_the_token_budget_of_the_model():
    llm = ScriptedLLM(answers=[ANSWER])
    long = "\n".join(f"python train.py --flag{i} {i}" for i in range(200))
    cands = generate_candidates("train", _ctx(long), llm, n=1, context_tokens=50)
    assert cands[0].metadata["context_truncated"] is True
    user = llm.calls[0]["messages"][-1]["content"]
    assert "--flag0 0" in user and "--flag199" not in user


def test_task_fields_other_than_instruction_never_reach_the_prompt():
    """Pinned: arguments, output and oracle of a Task stay out of every message."""
    task = Task(id=1, github_id=1, instruction="Train a GCN on the citeseer dataset",
                arguments={"dataset": "SECRET_ARG_VALUE"}, oracle="SECRET_ORACLE_SEGMENT",
                output="python SECRET_OUTPUT.py", path="examples/gcn", type="Bash Script")
    cfg = Config()
    cfg.generation.llm.backend = "scripted"
    cfg.generation.llm.scripted_answers = [ANSWER]
    llm = load_llm(cfg)
    for context in (None, _ctx()):
        generate(task, n=2, config=cfg, llm=llm, context=context)
    assert len(llm.calls) == 2
    for call in llm.calls:
        blob = "\n".join(m["content"] for m in call["messages"])
        assert "Train a GCN on the citeseer dataset" in blob
        for secret in ("SECRET_ARG_VALUE", "SECRET_ORACLE_SEGMENT", "SECRET_OUTPUT"):
            assert secret not in blob


def test_generate_uses_config_n_template_and_sampling():
    cfg = Config()
    cfg.generation.llm.backend = "scripted"
    cfg.generation.llm.scripted_answers = [ANSWER]
    cfg.generation.n = 4
    cfg.generation.template = "mlbench-none"
    cfg.generation.llm.temperature = 1.0
    cands = generate("Run the demo", config=cfg)
    assert len(cands) == 4
    assert cands[0].metadata["template"] == "mlbench-none-v1"
    assert cands[0].metadata["sampling"]["temperature"] == 1.0
