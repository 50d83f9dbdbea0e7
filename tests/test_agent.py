"""The agent loop over a real index of a fixture repository, with scripted models (text protocol)."""

from __future__ import annotations

import json

import pytest
from agent_helpers import (EXPECTED, INSTRUCTION, ReactiveLLM, StepScriptedLLM, call, gan_index,
                           user_texts)

from ragcode.agent import solve
from ragcode.agent.protocol import parse_text_call
from ragcode.agent.trajectory import episodes
from ragcode.errors import ConfigError, RagcodeError
from ragcode.generation.backends.scripted import ScriptedLLM
from ragcode.types import Task


@pytest.fixture
def gan(tmp_path):
    return gan_index(tmp_path)


def test_search_open_cli_check_submit_reaches_the_right_answer(gan, tmp_path):
    repo, cfg, index = gan
    llm = ReactiveLLM()
    seen = []
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=llm, trajectory=tmp_path / "t.jsonl",
                 on_step=lambda rec, resumed: seen.append((rec["step"], resumed)))
    assert cand.code == EXPECTED and cand.answer_type == "bash"
    agent = cand.metadata["agent"]
    assert (agent["stop"], agent["source"], agent["steps"]) == ("submitted", "submit", 5)
    steps = cand.metadata["trajectory"]
    assert [s["call"]["name"] for s in steps] == ["search", "open", "cli", "check", "submit"]
    assert seen == [(i, False) for i in range(1, 6)]
    search = steps[0]
    assert search["chunk_ids"] and all(cid.count(":") >= 3 for cid in search["chunk_ids"])
    assert search["chunk_ids"][0] in search["observation"]  # the model sees the ids
    assert cand.metadata["chunk_ids"] == search["chunk_ids"]
    assert "    1| import argparse" in steps[1]["observation"]
    assert "--n_epochs" in steps[2]["observation"] and "number of epochs" in steps[2]["observation"]
    assert "found nothing wrong" in steps[3]["observation"]
    for s in steps:  # every step is recorded with what it cost
        assert s["observation_chars"] == len(s["observation"]) and s["tokens"]["prompt"] > 0
        assert s["seconds"] >= 0 and len(s["messages"]) == 2 * s["step"]
    # the file holds the header, the five steps and the final answer
    ep = episodes(tmp_path / "t.jsonl")[0]
    assert ep["header"]["protocol"] == "text" and ep["header"]["tools"][-1] == "submit"
    assert [s["step"] for s in ep["steps"]] == [1, 2, 3, 4, 5]
    assert ep["final"]["source"] == "submit" and ep["final"]["text"].endswith("--n_epochs 5")
    # a finished episode is read back, not run again
    again = solve(INSTRUCTION, index=index, config=cfg, llm=ReactiveLLM(), trajectory=tmp_path / "t.jsonl")
    assert again.code == EXPECTED and len(again.metadata["trajectory"]) == 5


def test_only_the_instruction_of_a_task_reaches_the_model(gan):
    repo, cfg, index = gan
    task = Task(id="SECRET-ID", github_id=99, instruction=INSTRUCTION, github="SECRET-GITHUB",
                arguments={"lr": "SECRET-ARG"}, oracle="SECRET-ORACLE", output="SECRET-OUTPUT",
                type="SECRET-TYPE", prefix_code="SECRET-PREFIX", path=".")
    llm = ReactiveLLM()
    assert solve(task, index=index, config=cfg, llm=llm).code == EXPECTED
    sent = json.dumps(llm.calls)
    assert INSTRUCTION in sent and "SECRET" not in sent


def test_malformed_calls_and_an_unknown_tool_get_errors_back_and_the_episode_goes_on(gan):
    repo, cfg, index = gan
    replies = [
        "I will just answer: python dcgan.py",                            # no block
        "<tool_call>{'name': 'ls'}</tool_call>",                          # not JSON
        call("ls") + "\n" + call("ls"),                                   # two calls
        '<tool_call>{"name": "ls", "arguments": {}, "why": 1}</tool_call>',  # extra key
        '<tool_call>{"name": "open"}</tool_call>',                        # no arguments
        call("open", path=3),                                             # wrong type
        call("open", path="README.md", colour="red", end=2),              # unknown argument: runs
        call("search", query="gan", k="5"),                               # "5" is not an integer
        call("grep", pattern="lr"),                                       # unknown tool
        call("ls", path="implementations"),
        call("submit", answer=EXPECTED),
    ]
    cfg.agent.max_steps = len(replies)
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies))
    steps = cand.metadata["trajectory"]
    errors = [s["error"] for s in steps[:9]]
    # an argument the tool does not take is left out and named; the call itself runs
    assert errors[6] == "" and steps[6]["observation"].startswith("(ignored unknown argument(s) 'colour'")
    assert "open(path: string" in steps[6]["observation"] and "1| # Tiny GAN zoo" in steps[6]["observation"]
    errors = errors[:6] + errors[7:]
    assert "no tool call found" in errors[0]
    assert "not valid JSON" in errors[1] and "line 1 column 2" in errors[1]
    assert "2 tool calls in one reply" in errors[2]
    assert "unexpected key(s) 'why'" in errors[3]
    assert 'needs "arguments"' in errors[4]
    assert "path must be a string, got an integer 3" in errors[5]
    assert "k must be an integer, got a string '5'" in errors[6]
    assert "unknown tool 'grep'" in errors[7] and "search, open, ls, cli, check, submit" in errors[7]
    assert all(len(e.splitlines()) == 1 and len(e) < 300 for e in errors)  # short, one line
    assert steps[9]["error"] == "" and "dcgan/" in steps[9]["observation"]
    assert cand.code == EXPECTED and cand.metadata["agent"]["source"] == "submit"


def test_text_calls_are_parsed_strictly():
    ok = parse_text_call('Thinking...\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>')
    assert (ok.name, ok.arguments, ok.error) == ("ls", {"path": "."}, "")
    unclosed = parse_text_call('<tool_call>{"name": "ls", "arguments": {}}')  # the stop sequence ate the tag
    assert unclosed.name == "ls" and not unclosed.error
    assert parse_text_call('<tool_call>["ls", {}]</tool_call>').error.startswith("the tool call must be a JSON object")
    assert "needs \"name\"" in parse_text_call('<tool_call>{"name": 3, "arguments": {}}</tool_call>').error
    assert parse_text_call("<think><tool_call>{}</tool_call></think>done").error.startswith("no tool call")


def test_a_call_in_a_json_fence_or_bare_is_read_under_the_same_rules():
    # what the 1.5B Qwen writes when it forgets the tags: the object in a ```json fence
    fenced = parse_text_call('```json\n{\n  "name": "search",\n  "arguments": {"query": "gcn", "k": 5}\n}\n```')
    assert (fenced.name, fenced.arguments, fenced.error) == ("search", {"query": "gcn", "k": 5}, "")
    bare = parse_text_call('{"name": "ls", "arguments": {}}')
    assert (bare.name, bare.arguments, bare.error) == ("ls", {}, "")
    assert "unexpected key(s) 'flags'" in parse_text_call(
        '```json\n{"name": "cli", "arguments": {"script": "t.py"}, "flags": {}}\n```').error
    two = '```json\n{"name": "ls", "arguments": {}}\n```\nthen\n```json\n{"name": "submit", "arguments": {}}\n```'
    assert parse_text_call(two).error.startswith("2 tool calls")
    # a fenced JSON object that is not a call (a config) is no call
    assert parse_text_call('```json\n{"lr": 0.1}\n```').error.startswith("no tool call")


def test_a_reply_that_answers_in_one_code_block_and_calls_no_tool_is_a_submit():
    # the 1.5B's first reply was often its single-shot answer, without any call
    sub = parse_text_call("Here it is:\n```bash\npython train.py --dataset citeseer --gpu 1\n```")
    assert (sub.name, sub.error) == ("submit", "")
    assert sub.arguments == {"answer": "```bash\npython train.py --dataset citeseer --gpu 1\n```"}
    py = parse_text_call("```py\nimport dgl\nprint(dgl.__version__)\n```")
    assert py.name == "submit" and py.arguments["answer"].startswith("```python\nimport dgl")
    # two answer blocks, an empty one, or prose: still no call
    assert parse_text_call("```bash\nls\n```\nor\n```bash\npwd\n```").error.startswith("no tool call")
    assert parse_text_call("```bash\n\n```").error.startswith("no tool call")
    assert parse_text_call("I will just answer: python dcgan.py").error.startswith("no tool call")


def test_paths_outside_the_repository_are_refused(gan, tmp_path):
    repo, cfg, index = gan
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n")
    (repo / "escape").symlink_to(tmp_path)
    (repo / "leak.txt").symlink_to(tmp_path / "secret.txt")
    replies = [call("open", path="../secret.txt"), call("open", path=str(tmp_path / "secret.txt")),
               call("ls", path=".."), call("cli", script="../gan/implementations/dcgan/../../../secret.txt"),
               call("open", path="escape/secret.txt"), call("open", path="leak.txt"), call("ls", path="escape"),
               call("open", path="implementations/../README.md", start=1, end=1), call("submit", answer=EXPECTED)]
    cfg.agent.max_steps = len(replies)
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies))
    steps = cand.metadata["trajectory"]
    for s in steps[:7]:
        assert "refused" in s["error"] and "outside the repository" in s["error"], s
    assert "TOP-SECRET" not in json.dumps(steps)
    listing = solve(INSTRUCTION, index=index, config=cfg,
                    llm=StepScriptedLLM(answers=[call("ls"), call("submit", answer=EXPECTED)])).metadata["trajectory"]
    assert "escape@  (link)" in listing[0]["observation"] and "leak.txt@  (link)" in listing[0]["observation"]
    assert steps[7]["observation"].startswith("README.md (lines 1-1 of")  # inside after all: shown


def test_steps_run_out_the_answer_falls_back_to_single_shot_with_the_context(gan, tmp_path):
    repo, cfg, index = gan
    cfg.agent.max_steps = 3
    cfg.generation.more_samples = 0  # fallback.py is not in the repository: its refusal would draw more
    llm = ReactiveLLM(stop_after=1)
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=llm, trajectory=tmp_path / "t.jsonl")
    assert cand.code == "python fallback.py --from single-shot"
    agent = cand.metadata["agent"]
    assert (agent["stop"], agent["source"], agent["steps"]) == ("max_steps", "single-shot", 3)
    fallback_prompt = llm.calls[-1]
    assert len(llm.calls) == 4 and "Repository excerpts" in fallback_prompt[-1]["content"]
    assert "dcgan" in fallback_prompt[-1]["content"]  # the retrieved context
    assert cand.metadata["single_shot"]["chunk_ids"]
    assert "One tool call left" in user_texts(llm.calls[2])[-1]
    final = episodes(tmp_path / "t.jsonl")[0]["final"]
    assert final["stop"] == "max_steps" and final["source"] == "single-shot"


def test_tokens_run_out_mid_episode_the_best_checked_answer_wins(gan):
    repo, cfg, index = gan
    bad = "python implementations/dcgan/dcgan.py --learning_rate 0.001 --n_epochs 5"
    replies = [call("check", answer=bad), call("check", answer=EXPECTED), call("check", answer=bad)]
    replies += [call("search", query="x " * 50)] * 10
    used = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies))
    per_step = [s["tokens"]["prompt"] + s["tokens"]["completion"] for s in used.metadata["trajectory"]]
    cfg.agent.max_tokens = sum(per_step[:4]) + 1  # room for four calls, not five
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies))
    agent = cand.metadata["agent"]
    assert (agent["stop"], agent["steps"]) == ("max_tokens", 4) and agent["tokens"] <= cfg.agent.max_tokens
    assert agent["source"] == "best-check" and agent["from_step"] == 2 and cand.code == EXPECTED
    assert "unknown-flag" not in json.dumps(cand.metadata["trajectory"][1]["observation"])
    assert "--learning_rate" in cand.metadata["trajectory"][0]["observation"]


def test_wall_time_runs_out(gan):
    repo, cfg, index = gan
    import time

    class Slow(StepScriptedLLM):
        def generate(self, messages, n, sampling):  # noqa: ANN001
            time.sleep(0.2)
            return super().generate(messages, n, sampling)

    cfg.agent.max_seconds = 0.3
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=Slow(answers=[call("ls")]))
    agent = cand.metadata["agent"]
    assert agent["stop"] == "max_seconds" and 1 <= agent["steps"] <= 2 and agent["source"] == "single-shot"


class Killed(Exception):
    pass


def test_resume_after_a_kill_mid_episode_repeats_no_step(gan, tmp_path):
    repo, cfg, index = gan
    path = tmp_path / "t.jsonl"
    whole = ReactiveLLM()
    reference = solve(INSTRUCTION, index=index, config=cfg, llm=whole)

    class Dies(ReactiveLLM):
        def generate(self, messages, n, sampling):  # noqa: ANN001
            if len(self.calls) == 3:
                raise Killed
            return super().generate(messages, n, sampling)

    with pytest.raises(Killed):
        solve(INSTRUCTION, index=index, config=cfg, llm=Dies(), trajectory=path)
    assert [s["step"] for s in episodes(path)[0]["steps"]] == [1, 2, 3]
    with path.open("a") as fh:
        fh.write('{"type": "step", "episode": 0, "step": 4, "rep')  # torn by the kill
    after = ReactiveLLM()
    seen = []
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=after, trajectory=path,
                 on_step=lambda rec, resumed: seen.append((rec["step"], resumed)))
    assert len(after.calls) == 2  # steps 4 and 5 only
    assert seen == [(1, True), (2, True), (3, True), (4, False), (5, False)]
    assert len(after.calls[0]) == 8 and after.calls[0] == whole.calls[3]  # the same conversation
    assert cand.code == reference.code == EXPECTED
    ep = episodes(path)[0]
    assert [s["step"] for s in ep["steps"]] == [1, 2, 3, 4, 5] and ep["final"]["source"] == "submit"
    assert [s["messages"] for s in ep["steps"]] == [s["messages"] for s in reference.metadata["trajectory"]]


def test_a_trajectory_of_other_settings_is_refused_in_one_line(gan, tmp_path):
    repo, cfg, index = gan
    path = tmp_path / "t.jsonl"
    solve(INSTRUCTION, index=index, config=cfg, llm=ReactiveLLM(), trajectory=path)
    cfg.agent.max_steps = 3
    with pytest.raises(RagcodeError, match="agent differ") as err:
        solve(INSTRUCTION, index=index, config=cfg, llm=ReactiveLLM(), trajectory=path)
    assert len(str(err.value).splitlines()) == 1


def test_bad_settings_are_one_line_errors(gan):
    repo, cfg, index = gan
    cfg.agent.protocol = "native"
    with pytest.raises(ConfigError, match="native tool calls"):
        solve(INSTRUCTION, index=index, config=cfg, llm=ScriptedLLM(answers=["x"]))
    cfg.agent.protocol = "auto"
    cfg.agent.tools = ["search", "grpe"]
    with pytest.raises(RagcodeError, match="unknown agent tool 'grpe'"):
        solve(INSTRUCTION, index=index, config=cfg, llm=ScriptedLLM(answers=["x"]))
    with pytest.raises(RagcodeError, match="needs an index"):
        solve(INSTRUCTION, config=cfg, llm=ScriptedLLM(answers=["x"]))


def test_long_files_are_paged(gan):
    repo, cfg, index = gan
    (repo / "long.py").write_text("".join(f"value_{i} = {i}  # a line that takes room\n" for i in range(1, 501)))
    cfg.agent.max_observation_chars = 1000
    replies = [call("open", path="long.py"), call("open", path="long.py", start=25, end=30),
               call("open", path="long.py", start=600), call("submit", answer=EXPECTED)]
    steps = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies)).metadata["trajectory"]
    first = steps[0]["observation"]
    assert first.startswith("long.py (lines 1-") and len(first) <= 1000
    last = int(first.split("(lines 1-")[1].split(" ")[0])
    assert 10 < last < 500 and f"open(path='long.py', start={last + 1})" in first
    assert f"{last:>5}| value_{last} = {last}" in first
    assert steps[1]["observation"].splitlines()[1:] == [f"{i:>5}| value_{i} = {i}  # a line that takes room"
                                                        for i in range(25, 31)]
    assert "has 500 lines; start must be between 1 and 500" in steps[2]["error"]


def test_run_is_off_by_default_and_runs_answers_in_the_sandbox_when_on(gan):
    from exec_helpers import interpreter_for_other_uid

    repo, cfg, index = gan
    bad = "python implementations/dcgan/dcgan.py --learning_rate 0.001"
    replies = [call("run", answer=EXPECTED), call("submit", answer=EXPECTED)]
    off = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies)).metadata["trajectory"]
    assert "unknown tool 'run'" in off[0]["error"]
    cfg.agent.tools = [*cfg.agent.tools, "run"]
    cfg.execution.python = interpreter_for_other_uid()
    cfg.agent.max_steps = 2
    replies = [call("run", answer=bad), call("run", answer=EXPECTED)]
    cand = solve(INSTRUCTION, index=index, config=cfg, llm=StepScriptedLLM(answers=replies))
    steps = cand.metadata["trajectory"]
    assert steps[0]["observation"].startswith("exit code 2") and "unrecognized arguments" in steps[0]["observation"]
    assert steps[1]["observation"].startswith("exit code 0"), steps[1]["observation"]
    assert steps[0]["proposed"]["penalty"] > 0 == steps[1]["proposed"]["penalty"]
    agent = cand.metadata["agent"]
    assert (agent["stop"], agent["source"], cand.code) == ("max_steps", "best-run", EXPECTED)


def test_search_k_defaults_to_the_configured_value(gan):
    repo, cfg, index = gan
    cfg.agent.search_k = 2
    replies = [call("search", query="argparse parser"), call("search", query="argparse parser", k=3),
               call("submit", answer=EXPECTED)]
    llm = StepScriptedLLM(answers=replies)
    steps = solve(INSTRUCTION, index=index, config=cfg, llm=llm).metadata["trajectory"]
    assert [len(s["chunk_ids"]) for s in steps[:2]] == [2, 3]
    assert "search(query: string, k: integer = 2)" in llm.calls[0][0]["content"]


def test_the_task_message_carries_the_retrieved_context_once_and_context_chars_0_leaves_it_out(gan):
    repo, cfg, index = gan
    from ragcode.agent.loop import task_message
    from ragcode.types import Context

    calls = []

    def retrieve():
        calls.append(1)
        return Context(text="### README.md:1-3\nRun `python dcgan.py --n_epochs 5`.\n" + "x\n" * 50,
                       chunk_ids=("README.md:1-3:markdown:aa",), budget=6000)

    llm = StepScriptedLLM(answers=[call("submit", answer=EXPECTED)])
    from ragcode.agent.loop import run_episode
    from ragcode.agent.tools import AgentEnv
    env = AgentEnv(repo, index, cfg, ".", INSTRUCTION, repo.name)
    cfg.agent.context_chars = 6000
    run_episode(INSTRUCTION, env, llm, cfg, context=retrieve)
    first = user_texts(llm.calls[0])[0]
    assert first.startswith(f"Task: {INSTRUCTION}") and "python dcgan.py --n_epochs 5" in first
    assert calls == [1]  # retrieved once, for the message (a fallback would reuse it)
    short = task_message(INSTRUCTION, retrieve, 40)
    assert "README.md:1-3" in short and "--n_epochs 5" not in short and short.endswith("[...]")
    assert task_message(INSTRUCTION, retrieve, 0) == f"Task: {INSTRUCTION}"
    assert task_message(INSTRUCTION, None, 6000) == f"Task: {INSTRUCTION}"
