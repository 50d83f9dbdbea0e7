"""Checked generation: selection, repair through the scripted backend, resume, the runner."""

from __future__ import annotations

import dataclasses
import json

import pytest
from check_helpers import make_check_repo

from ragcode.answer.journal import Journal
from ragcode.answer.select import normalise, rank, words_said
from ragcode.answering import generate_from_config
from ragcode.check import CheckContext, Finding
from ragcode.config import load_config
from ragcode.generation.backends.scripted import ScriptedLLM
from ragcode.types import Candidate, Context

GOOD = "```bash\npython train.py --data cora --lr 0.1 --batch_size 16\n```"
BAD_FLAG = "```bash\npython train.py --data cora --lr 0.1 --batch_sz 16\n```"
BAD_SCRIPT = "```bash\npython main.py --data cora\n```"
INSTRUCTION = "Train on cora with lr 0.1 and batch size 16"


@pytest.fixture
def repo(tmp_path):
    return make_check_repo(tmp_path)


def config(*extra: str):
    # more_samples off: these tests script the model's answers call by call (tests/test_more_samples.py has it on)
    return load_config(overrides=["generation.check=[bash,python,coverage]", "generation.more_samples=0", *extra])


def ctx(repo) -> CheckContext:
    return CheckContext(repo, ".", INSTRUCTION)


def test_selection_puts_the_finding_free_candidate_first(repo):
    llm = ScriptedLLM(answers=[BAD_SCRIPT, BAD_FLAG, GOOD, BAD_FLAG, GOOD])
    cands = generate_from_config(INSTRUCTION, None, llm, config("generation.n=5"), ctx(repo))
    assert [c.sample_index for c in cands] == [0, 1, 2, 3, 4]
    assert "--lr 0.1" in cands[0].code and cands[0].metadata["check"]["findings"] == []
    assert cands[0].metadata["check"]["original_index"] == 2 and cands[0].metadata["check"]["agreement"] == 2
    assert cands[-1].metadata["check"]["findings"][0]["code"] == "unknown-script"
    # sample 1 is drawn greedy, the rest at the configured temperature
    assert llm.calls[0]["sampling"].temperature == 0.0 and llm.calls[1]["sampling"].temperature == 0.7


def test_without_checks_generation_is_unchanged(repo):
    llm = ScriptedLLM(answers=[BAD_SCRIPT, GOOD])
    cfg = load_config(overrides=["generation.n=2", "generation.check=[]"])
    cands = generate_from_config(INSTRUCTION, None, llm, cfg, ctx(repo))
    assert "main.py" in cands[0].code and "check" not in cands[0].metadata and len(llm.calls) == 1


def test_agreement_breaks_ties_between_clean_answers():
    a = Candidate("", "python train.py --data x", "bash", 0)
    b = Candidate("", "python  train.py   --data y", "bash", 1)
    c = Candidate("", "python train.py --data y", "bash", 2)
    assert normalise(b.code) == normalise(c.code)
    out = rank([a, b, c], [[], [], []])
    assert [x.metadata["check"]["original_index"] for x in out] == [1, 2, 0]


def test_among_equally_clean_answers_the_one_the_parser_accepted_comes_before_agreement():
    a = Candidate("", "python train.py --data y", "bash", 0)
    b = Candidate("", "python train.py --data y", "bash", 1)
    c = Candidate("", "python train.py --data x", "bash", 2)
    out = rank([a, b, c], [[], [], []], accepted=[False, False, True])
    assert [x.code for x in out][0] == "python train.py --data x"
    assert out[0].metadata["check"]["parsed"] is True and out[1].metadata["check"]["parsed"] is False
    # a finding still weighs more than the parser's word
    out = rank([a, c], [[], [Finding("coverage", "missing-value", "x", severity="warning")]], accepted=[False, True])
    assert out[0].code == a.code


def test_a_script_on_the_wrong_path_weighs_less_than_one_that_exists_nowhere():
    from ragcode.check import WEIGHTS, penalty

    moved = Finding("bash", "unknown-script", "x", target="sample.py", suggestion="examples/sample.py")
    lost = Finding("bash", "unknown-script", "x", target="nothere.py", suggestion="near.py")
    module = Finding("bash", "unknown-module", "x", target="lm_design")
    assert penalty([moved]) < penalty([lost]) == WEIGHTS["unknown-script"]
    assert penalty([moved]) <= penalty([module])
    a = Candidate("", "python -m lm_design x=1", "bash", 0)
    b = Candidate("", "python sample.py x.pdb", "bash", 1)
    out = rank([a, b], [[module, Finding("coverage", "missing-value", "x", severity="warning")], [moved]])
    assert out[0].code == b.code  # the fixable slip wins over a module that is not there and a lost value


def test_then_the_answer_saying_more_of_the_instruction_comes_first():
    plain = Candidate("", "from pkg import render\nrender('image.jpg')", "python", 0)
    styled = Candidate("", "from pkg import render\nrender('image.jpg', style='cartoon')", "python", 1)
    instruction = "Render image.jpg in a cartoon style, please help"
    assert (words_said(plain.code, instruction), words_said(styled.code, instruction)) == (1, 3)  # render; style, cartoon
    out = rank([plain, styled], [[], []], instruction)
    assert out[0].metadata["check"]["original_index"] == 1 and out[0].metadata["check"]["words_said"] == 3
    # findings still come first: a cleaner answer that says less wins
    out = rank([plain, styled], [[], [Finding("python", "missing-symbol", "x")]], instruction)
    assert out[0].metadata["check"]["original_index"] == 0
    # a comment that retells the task says nothing the code does
    retold = Candidate("", "# render in a cartoon style\nfrom pkg import render\nrender('image.jpg')", "python", 0)
    assert words_said(retold.code, instruction) == 1
    assert rank([retold, styled], [[], []], instruction)[0].metadata["check"]["original_index"] == 1


def test_repair_sends_the_findings_and_the_flag_table_and_accepts_the_fix(repo):
    llm = ScriptedLLM(answers=[BAD_FLAG, GOOD])
    cfg = config("generation.n=1", "generation.repair_rounds=2")
    (cand,) = generate_from_config(INSTRUCTION, None, llm, cfg, ctx(repo))
    assert "--lr 0.1" in cand.code and cand.metadata["check"]["findings"] == []
    rounds = cand.metadata["check"]["repair"]
    assert len(rounds) == 1 and rounds[0]["accepted"] and rounds[0]["findings_before"][0]["code"] == "unknown-flag"
    conv = llm.calls[1]["messages"]
    assert conv[-2] == {"role": "assistant", "content": BAD_FLAG}
    assert "--batch_sz is not a flag of train.py; did you mean --batch_size?" in conv[-1]["content"]
    assert "The flags of train.py:" in conv[-1]["content"] and "--epochs" in conv[-1]["content"]
    assert conv[:-2] == llm.calls[0]["messages"]  # the same conversation, extended
    assert llm.calls[1]["sampling"].temperature == 0.0


def test_a_repair_that_is_not_better_is_not_taken(repo):
    llm = ScriptedLLM(answers=[BAD_FLAG, BAD_SCRIPT])
    (cand,) = generate_from_config(INSTRUCTION, None, llm, config("generation.n=1", "generation.repair_rounds=3"),
                                   ctx(repo))
    assert "--batch_sz" in cand.code
    assert [r["accepted"] for r in cand.metadata["check"]["repair"]] == [False]
    assert len(llm.calls) == 2  # stopped after the round that did not help


def test_a_killed_task_resumes_without_redoing_finished_steps(repo, tmp_path):
    journal = tmp_path / "task.jsonl"
    cfg = config("generation.n=2", "generation.repair_rounds=1")
    first = ScriptedLLM(answers=[BAD_FLAG, BAD_FLAG, GOOD])
    generate_from_config(INSTRUCTION, None, first, cfg, ctx(repo), journal=journal)
    steps = [json.loads(line)["step"] for line in journal.read_text().splitlines()]
    assert steps == ["samples", "repair-1"]
    # as if killed after sampling: keep only the first step
    journal.write_text(journal.read_text().splitlines()[0] + "\n" + '{"step": "repai')
    again = ScriptedLLM(answers=[GOOD])
    (best, _) = generate_from_config(INSTRUCTION, None, again, cfg, ctx(repo), journal=journal)
    assert len(again.calls) == 1 and again.calls[0]["n"] == 1  # only the repair round ran
    assert "--lr 0.1" in best.code and Journal(journal).get("repair-1") == GOOD


def test_only_the_instruction_and_context_reach_the_prompt(repo):
    llm = ScriptedLLM(answers=[BAD_FLAG, GOOD])
    ctx_ = CheckContext(repo, ".", INSTRUCTION)
    context = Context(text="CONTEXT-TEXT", chunk_ids=["c1"], budget=100, unit="chars", query=INSTRUCTION)
    generate_from_config(INSTRUCTION, context, llm, config("generation.n=1", "generation.repair_rounds=1"), ctx_)
    sent = json.dumps([c["messages"] for c in llm.calls])
    for secret in ("ORACLE", "ARGUMENTS", "REFERENCE-OUTPUT"):
        assert secret not in sent
    assert "CONTEXT-TEXT" in sent and INSTRUCTION in sent


def test_mlbench_run_in_checked_mode_resumes_mid_task_after_sigkill(tmp_path):
    """Killed during task 1's repair round: the rerun reads the journalled samples back and
    runs only the repair (so the scripted model's first answer goes to the repair round)."""
    import signal
    import subprocess

    from bench_helpers import cli_argv, cli_env, make_bench

    tasks_file, repos = make_bench(tmp_path, n_tasks=1)
    out, blocked = tmp_path / "run", tmp_path / "blocked"
    bad, good = "python train.py --dset citeseer", "python train.py --dataset citeseer"
    argv = cli_argv("mlbench", "run", "--tasks", str(tasks_file), "--repos", str(repos), "--out", str(out),
                    "--setting", "none", "--llm", "bench_helpers:BlockingScriptedLLM", "-n", "1", "-q",
                    "--set", f"generation.llm.scripted_answers={json.dumps([bad, good])}",
                    "--set", "generation.check=[bash,coverage]", "--set", "generation.repair_rounds=1",
                    "--set", "generation.more_samples=0")
    env = cli_env(RAGCODE_TEST_BLOCKED=str(blocked), RAGCODE_TEST_BLOCK_AT="2")
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        import time

        stop = time.monotonic() + 120
        while proc.poll() is None and not blocked.exists() and time.monotonic() < stop:
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert blocked.exists(), proc.stderr.read().decode()[-2000:]
    assert not (out / "samples.jsonl").exists() or (out / "samples.jsonl").read_text() == ""
    (journal,) = (out / "rounds").glob("*.jsonl")
    assert [json.loads(x)["step"] for x in journal.read_text().splitlines()] == ["samples"]
    env["RAGCODE_TEST_BLOCK_AT"] = "0"
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    (rec,) = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    check = rec["candidates"][0]["metadata"]["check"]
    assert check["repair"][0]["answer"] == bad  # the rerun's first model call was the repair round
    assert check["repair"][0]["findings_before"][0]["code"] == "unknown-flag"


def test_autofix_corrects_certain_slips_before_any_model_round(repo):
    from ragcode.check.autofix import autofix

    slip = "```bash\npython examples/sub/evaluate.py --data cora --lr 0.1 --batch-size 16\n```"
    llm = ScriptedLLM(answers=[slip])
    c = CheckContext(repo, "examples/sub", INSTRUCTION)
    (cand,) = generate_from_config(INSTRUCTION, None, llm, config("generation.n=1"), c)
    assert cand.code == "python evaluate.py --data cora --lr 0.1 --batch_size 16"
    assert cand.metadata["check"]["findings"] == [] and len(llm.calls) == 1
    assert cand.metadata["check"]["autofix"]["pairs"] == [["examples/sub/evaluate.py", "evaluate.py"],
                                                          ["--batch-size", "--batch_size"]]
    # a different word is not a certain correction: left to the model
    from ragcode.check import Finding

    f = Finding("bash", "unknown-flag", "--learning_rate is not a flag of x.py; did you mean --lr?",
                suggestion="--lr")
    assert autofix("python x.py --learning_rate 1", [f]) == ("python x.py --learning_rate 1", [])


def test_autofix_can_be_switched_off(repo):
    slip = "```bash\npython train.py --data cora --lr 0.1 --batch-size 16\n```"
    (cand,) = generate_from_config(INSTRUCTION, None, ScriptedLLM(answers=[slip]),
                                   config("generation.n=1", "generation.autofix=false"), ctx(repo))
    assert "--batch-size" in cand.code and cand.metadata["check"]["findings"][0]["code"] == "unknown-flag"


def test_checked_repair_through_the_openai_backend_on_a_real_http_server(repo):
    """Selection + repair over HTTP: the server sees the repair as the same conversation."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from ragcode.generation.llm import load_llm

    replies, seen = [BAD_FLAG, BAD_FLAG, GOOD], []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            n = body.get("n", 1)
            data = json.dumps({"choices": [{"index": i, "message": {"role": "assistant", "content": replies.pop(0)}}
                                           for i in range(n)]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cfg = config("generation.n=2", "generation.repair_rounds=1", "generation.llm.backend=openai",
                     f"generation.llm.base_url=http://127.0.0.1:{server.server_port}/v1",
                     "generation.llm.model=local", "generation.llm.api_key_env=RAGCODE_NO_KEY")
        cands = generate_from_config(INSTRUCTION, None, load_llm(cfg), cfg, ctx(repo))
    finally:
        server.shutdown()
    assert "--batch_size 16" in cands[0].code and cands[0].metadata["check"]["repair"][0]["accepted"]
    assert seen[-1]["messages"][-2]["content"] == BAD_FLAG and "did you mean --batch_size" in seen[-1]["messages"][-1]["content"]


def test_selection_keeps_to_the_greedy_samples_answer_type():
    bash_bad = Candidate("", "python nothere.py --data x", "bash", 0)
    py_clean = Candidate("", "import pkg", "python", 1)
    bash_ok = Candidate("", "python train.py --data x", "bash", 2)
    from ragcode.check import Finding

    err = [Finding("bash", "unknown-script", "nothere.py does not exist")]
    out = rank([bash_bad, py_clean, bash_ok], [err, [], []])
    assert [c.metadata["check"]["original_index"] for c in out] == [2, 0, 1]
    py_first = dataclasses.replace(py_clean, sample_index=0, code="import nonexistent")
    out = rank([py_first, dataclasses.replace(bash_ok, sample_index=1)], [err, []])
    assert out[0].answer_type == "python"  # kind of the greedy sample, even with a finding
    own = [Finding("python", "own-cli", "declares its own flags", severity="warning")]
    out = rank([py_first, dataclasses.replace(bash_ok, sample_index=1)], [own, [Finding("bash", "unknown-flag", "x")]])
    assert out[0].answer_type == "bash"  # a home-made argparse CLI meant a command line
    lib = [Finding("bash", "library-file", "reads no arguments", severity="warning")]
    bash_first = dataclasses.replace(bash_ok, sample_index=0)
    out = rank([bash_first, dataclasses.replace(py_clean, sample_index=1)], [lib, [Finding("python", "missing-symbol", "y")]])
    assert out[0].answer_type == "python"  # running a module that reads no arguments meant using it
    ignored = [Finding("bash", "ignored-args", "reads no arguments", severity="warning")]
    out = rank([bash_first, dataclasses.replace(py_clean, sample_index=1)], [ignored, [Finding("python", "missing-symbol", "y")]])
    assert out[0].answer_type == "python"  # values handed to a script that reads none: set them in Python
    cited = [Finding("bash", "not-a-script", "README.md is not a program")]
    py_second = dataclasses.replace(py_clean, sample_index=1)
    bash_third = dataclasses.replace(bash_ok, sample_index=2)
    out = rank([bash_first, py_second, bash_third], [cited, [], [Finding("bash", "unknown-flag", "x")]])
    assert out[0].answer_type == "python"  # a greedy answer that runs nothing says nothing of the kind
    out = rank([bash_first, py_second, bash_third], [[Finding("bash", "unknown-flag", "x")], [], []])
    assert out[0].answer_type == "bash"  # whereas a real command keeps its kind first
    lost = [Finding("bash", "unknown-flag", f"--x{i} is not a flag") for i in range(5)]
    out = rank([bash_first, py_second, bash_third], [lost, [Finding("python", "missing-symbol", "x")],
                                                     [Finding("bash", "unknown-script", "y")]])
    assert out[0].answer_type == "python"  # nor one wrong throughout (findings weighing 5): the findings decide
    out = rank([bash_first, py_second, bash_third], [lost[:4], [Finding("python", "missing-symbol", "x")],
                                                     [Finding("bash", "unknown-script", "y")]])
    assert out[0].answer_type == "bash"  # four unknown flags still say "a command"
    py_first = dataclasses.replace(py_clean, sample_index=0)
    bash_second = dataclasses.replace(bash_ok, sample_index=1)
    gap = Finding("coverage", "missing-value", "x", severity="warning")
    for note in ("syntax-error", "no-own-use", "no-repo-use"):
        out = rank([py_first, bash_second], [[Finding("python", note, "x", severity="warning"), gap], []])
        assert out[0].answer_type == "bash", note  # Python that does not parse or ignores the repository
    out = rank([py_first, bash_second], [[Finding("python", "missing-symbol", "x"), gap], []])
    assert out[0].answer_type == "python"  # a slip in Python that uses the repository keeps its kind


def test_a_repair_that_drops_the_instructions_value_is_not_taken(repo):
    instruction = "Train on pubmed with lr 0.1 and batch size 16"
    wrong_flag = "```bash\npython train.py --data pubmed --lr 0.1 --batch_sz 16\n```"
    gave_up = "```bash\npython train.py --data cora --lr 0.1 --batch_size 16\n```"
    llm = ScriptedLLM(answers=[wrong_flag, gave_up])
    (cand,) = generate_from_config(instruction, None, llm, config("generation.n=1", "generation.repair_rounds=1",
                                                                  "generation.check=[bash]"),
                                   CheckContext(repo, ".", instruction))
    assert "pubmed" in cand.code
    (r,) = cand.metadata["check"]["repair"]
    assert not r["accepted"] and r["lost_values"] == ["pubmed"]


def test_a_note_that_weighs_nothing_asks_for_no_repair(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "requirements.txt").write_text("json5\n")  # a package the repository depends on
    only_dep = "```python\nimport json\nimport json5\nprint(json5.loads('{a: 1}'))\n```"
    llm = ScriptedLLM(answers=[only_dep, "```python\nimport pkg\n```"])
    (cand,) = generate_from_config("Parse {a: 1}", None, llm, config("generation.n=1", "generation.repair_rounds=1",
                                                                     "generation.check=[python]"),
                                   CheckContext(repo, ".", "Parse {a: 1}"))
    assert [f["code"] for f in cand.metadata["check"]["findings"]] == ["no-own-use"]
    assert cand.metadata["check"]["repair"] == [] and "json5" in cand.code  # the model was not asked again


def test_the_kind_the_instruction_asks_for_outranks_the_greedy_samples():
    bash_first = Candidate("", "python weight_diff.py recover --path_raw a", "bash", 0)
    py_second = Candidate("", "from weight_diff import recover\nrecover(path_raw='a')\n", "python", 1)
    gap = [Finding("coverage", "missing-value", "x", severity="warning")]
    out = rank([bash_first, py_second], [[], gap], "In Python, recover the weights from a.")
    assert [c.answer_type for c in out] == ["python", "bash"]  # asked for Python: a clean command goes after
    out = rank([bash_first, py_second], [[], gap], "Recover the weights from a.")
    assert [c.answer_type for c in out] == ["bash", "python"]  # said nothing: the greedy sample's kind
    out = rank([py_second, dataclasses.replace(bash_first, sample_index=1)], [[], gap],
               "Give me the bash command that recovers the weights from a.")
    assert out[0].answer_type == "bash"
    out = rank([bash_first, py_second], [[], gap], "Recover them with python weight_diff.py, from a.")
    assert out[0].answer_type == "bash"  # "with python FILE.py" is a command, not a request for Python
