"""Switching to the documented sibling command that takes the instruction's values
(check.switch), setting the variables the documents export (check.fill_vars), and the fill
details they rely on: a value named in two places, ``300,000``, a value held by two flags."""

from __future__ import annotations

from check_helpers import make_check_repo
from golden_repos import PREPARE, PRETRAIN
from golden_repos import PRETRAIN_README as README

from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.facts import script_flags
from ragcode.check.fill import fill_values
from ragcode.check.fill_vars import documented, fill_vars, unset_vars
from ragcode.answer.fixes import fix_answer
from ragcode.check.switch import documented_commands, fit, switch_command

TASK = ("Pre-train the ./models/large_L-24_H-1024 model with a maximum sequence length of 256. Train it for "
        "300,000 steps with a warm-up of 10,000 steps and a learning rate of 0.00001.")
ANSWER = ("python prepare.py --input_file=./sample.txt --output_file=/tmp/x.rec --vocab_file=$MODEL_DIR/vocab.txt "
          "--max_seq_length=256")


def _repo(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "prepare.py").write_text(PREPARE)
    (repo / "pretrain.py").write_text(PRETRAIN)
    (repo / "README.md").write_text(README)
    return repo


def test_the_documented_sibling_that_takes_the_values_replaces_the_answer(tmp_path):
    repo = _repo(tmp_path)
    ctx = CheckContext(repo, ".", TASK)
    checkers = load_checkers(DEFAULT_CHECKS)
    scripts = {p.name: words[:2] for p, words in documented_commands(repo.resolve(), ctx.task_dir)}
    assert scripts["prepare.py"] == scripts["pretrain.py"][:1] + ("prepare.py",)
    switched = switch_command(ANSWER, ctx, checkers)
    assert switched is not None and switched.startswith("export MODEL_DIR=./models/large_L-24_H-1024\n"
                                                        "python pretrain.py --input_file=./sample.txt ")
    # the document's required flag comes along; the answer's value of a shared flag is kept
    assert "--config_file=$MODEL_DIR/config.json" in switched and "--max_seq_length=256" in switched
    assert "--output_file" not in switched  # pretrain.py has no such flag
    code, fs, record = fix_answer(ANSWER, "bash", check_answer(ANSWER, "bash", ctx, checkers), ctx, checkers)
    assert record["switched"] == switched
    assert code.splitlines()[0] == "export MODEL_DIR=./models/large_L-24_H-1024"
    for flag in ("--num_train_steps=300000", "--num_warmup_steps=10000", "--learning_rate=0.00001"):
        assert flag in code
    assert fs == []


def test_nothing_switches_when_the_answers_script_takes_the_values(tmp_path):
    repo = _repo(tmp_path)
    checkers = load_checkers(DEFAULT_CHECKS)
    ctx = CheckContext(repo, ".", "Prepare ./sample.txt with a maximum sequence length of 256")
    assert switch_command(ANSWER, ctx, checkers) is None
    ctx = CheckContext(repo, ".", TASK)
    assert fit(script_flags(repo / "pretrain.py"), TASK) > fit(script_flags(repo / "prepare.py"), TASK)
    # a script with no documented sibling in its folder, or an answer of two calls, is not switched
    assert switch_command("cd examples/sub && python evaluate.py --data x", ctx, checkers) is None
    assert switch_command(ANSWER + " && python prepare.py", ctx, checkers) is None


def test_unset_variables_get_the_instructions_value_of_their_documented_shape(tmp_path):
    repo = _repo(tmp_path)
    assert unset_vars('A=1\nexport B=2\npython x.py --a $A --b ${B} --c $C_DIR/x ${D} $HOME $1') == ["C_DIR", "D"]
    assert documented(repo.resolve(), repo.resolve())["MODEL_DIR"] == ("/path/to/models/base_L-12_H-768",)
    ctx = CheckContext(repo, ".", TASK)
    checkers = load_checkers(DEFAULT_CHECKS)
    code = "python pretrain.py --config_file=$MODEL_DIR/config.json"
    out, done = fill_vars(code, check_answer(code, "bash", ctx, checkers), ctx)
    assert done == [("./models/large_L-24_H-1024", "MODEL_DIR")]
    assert out == "export MODEL_DIR=./models/large_L-24_H-1024\n" + code
    # a value of another shape (a task name) is not the model's folder
    ctx = CheckContext(repo, ".", "Run pretrain.py on the 'MRPC' task")
    assert fill_vars(code, check_answer(code, "bash", ctx, checkers), ctx) == (code, [])
    # an undocumented variable is left alone
    other = "python pretrain.py --config_file=$ELSEWHERE/config.json"
    ctx = CheckContext(repo, ".", TASK)
    assert fill_vars(other, check_answer(other, "bash", ctx, checkers), ctx)[1] == []


def _fill(repo, task: str, code: str):
    ctx = CheckContext(repo, ".", task)
    return fill_values(code, check_answer(code, "bash", ctx, load_checkers(DEFAULT_CHECKS)), ctx)


def test_a_value_named_in_two_places_fills_each_places_flag(tmp_path):
    task = "Train for 300,000 steps. Use a warm-up period of 300,000 steps too, config ./c.json"
    code = "python pretrain.py --config_file=./c.json --num_train_steps=20 --num_warmup_steps=10"
    out, done = _fill(_repo(tmp_path), task, code)
    assert out == "python pretrain.py --config_file=./c.json --num_train_steps=300000 --num_warmup_steps=300000"
    assert sorted(done) == [("300000", "--num_train_steps"), ("300000", "--num_warmup_steps")]


def test_a_value_the_instruction_only_contains_is_not_the_users(tmp_path):
    repo = _repo(tmp_path)
    code = "python pretrain.py --config_file=./c.json --num_warmup_steps=10"
    # "10" is inside "1024", not said: the document's --num_warmup_steps=10 may take 5000
    out, _ = _fill(repo, "Pre-train ./models/large_L-24_H-1024 with a warm-up of 5000 steps, config ./c.json", code)
    assert "--num_warmup_steps=5000" in out
    # a value the user did say, held by that flag alone, stays
    out, _ = _fill(repo, "Use 10 warm-up steps and train for 5000 steps, config ./c.json", code)
    assert "--num_warmup_steps=10" in out and "--num_train_steps=5000" in out
