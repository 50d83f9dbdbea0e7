"""The shell grammar shared by chunking, the static checks and answer parsing (ragcode.shell)."""

from __future__ import annotations

import pytest

from ragcode.shell import (
    ScriptCall, logical_lines, parse_command, script_calls, split_commands, split_marked, split_prefix,
    starts_like_command, tokenize)


def call(text: str) -> ScriptCall | None:
    [words] = split_commands(text)
    return parse_command(words)


@pytest.mark.parametrize("text, launcher, kind, target, args, launcher_args", [
    ("python train.py --lr 0.1", "python", "script", "train.py", ["--lr", "0.1"], []),
    ("python3 -u main.py --a", "python3", "script", "main.py", ["--a"], ["-u"]),
    ("python3.10 -W ignore x.py", "python3.10", "script", "x.py", [], ["-W", "ignore"]),
    ("/usr/bin/python x.py", "/usr/bin/python", "script", "x.py", [], []),
    ("python -m pkg.mod --x 1", "python", "module", "pkg.mod", ["--x", "1"], []),
    ("python -m torch.distributed.launch --nproc_per_node=2 t.py --b 1",
     "python -m torch.distributed.launch", "script", "t.py", ["--b", "1"], ["--nproc_per_node=2"]),
    ("torchrun --nproc_per_node 8 train.py --b", "torchrun", "script", "train.py", ["--b"],
     ["--nproc_per_node", "8"]),
    ("torchrun --standalone -m pkg.train --c 1", "torchrun", "module", "pkg.train", ["--c", "1"],
     ["--standalone"]),
    ("accelerate launch --multi_gpu run.py --d", "accelerate launch", "script", "run.py", ["--d"],
     ["--multi_gpu"]),
    ("deepspeed --num_gpus 2 train.py --deepspeed ds.json", "deepspeed", "script", "train.py",
     ["--deepspeed", "ds.json"], ["--num_gpus", "2"]),
    ("mpiexec -n N python scripts/train.py --lr 1", "mpiexec", "script", "scripts/train.py", ["--lr", "1"],
     ["-n", "N", "python"]),
    ("bash scripts/run.sh 1", "bash", "script", "scripts/run.sh", ["1"], []),
    ("sh -x run.sh a", "sh", "script", "run.sh", ["a"], ["-x"]),
    ("source env.sh", "source", "script", "env.sh", [], []),
    (". env.sh", ".", "script", "env.sh", [], []),
    ("./run.sh --x", "", "script", "./run.sh", ["--x"], []),
    ("scripts/run.sh", "", "script", "scripts/run.sh", [], []),
    ("../tools/train.py cfg.py", "", "script", "../tools/train.py", ["cfg.py"], []),
    ("%run demo.py --n 2", "%run", "script", "demo.py", ["--n", "2"], []),
])
def test_each_launcher_form(text, launcher, kind, target, args, launcher_args) -> None:
    assert call(text) == ScriptCall(launcher, kind, target, args, launcher_args)


@pytest.mark.parametrize("text", [
    "pip install demo", "python", "python -c 'import x; print(x)'", "accelerate config",
    "bash -c 'python x.py'", "run.sh", "train.py --x 1", "cd examples", "source activate env",
    "python -m", "tools/train.py", "backend/__init__.py",
])
def test_commands_that_run_no_script(text: str) -> None:
    assert call(text) is None


def test_env_prefixes_and_wrappers() -> None:
    c = call("CUDA_VISIBLE_DEVICES=0,1 OMP_NUM_THREADS=4 nohup time python -u train.py --a 1")
    assert c == ScriptCall("python", "script", "train.py", ["--a", "1"], ["-u"],
                           {"CUDA_VISIBLE_DEVICES": "0,1", "OMP_NUM_THREADS": "4"})
    assert split_prefix(["A=1", "env", "B=", "sudo", "python", "x.py"]) == (
        {"A": "1", "B": ""}, ["python", "x.py"])
    assert call("CUDA_VISIBLE_DEVICES=0") is None


def test_line_continuations() -> None:
    text = "python main.py \\\n    --model gcn \\  \n    --dataset citeseer\necho done"
    assert split_commands(text) == [
        ["python", "main.py", "--model", "gcn", "--dataset", "citeseer"], ["echo", "done"]]
    assert [i for i, _ in logical_lines(text)] == [0, 3]
    assert logical_lines("a \\\\\nb") == [(0, "a \\\\"), (1, "b")]  # an escaped backslash


def test_chains_pipes_and_background() -> None:
    assert split_commands("cd a && python x.py --y 1; echo hi | cat || true & wait") == [
        ["cd", "a"], ["python", "x.py", "--y", "1"], ["echo", "hi"], ["cat"], ["true"], ["wait"]]
    calls = script_calls("cd examples/gcn && CUDA_VISIBLE_DEVICES=0 python train.py --a 1; "
                         "bash run.sh")
    assert [(c.target, c.args) for c in calls] == [("train.py", ["--a", "1"]), ("run.sh", [])]


def test_comments() -> None:
    text = "# train first\npython x.py --tag=a#b  # the tag has a hash\n  # done"
    assert split_commands(text) == [["python", "x.py", "--tag=a#b"]]


def test_quotes_and_redirections() -> None:
    assert tokenize("echo 'a && b' \"c;d\" e\\ f \"x\\\"y\" ''") == [
        "echo", "a && b", "c;d", "e f", 'x"y', ""]
    assert split_commands("python x.py --a 1 2>&1 | tee log.txt") == [
        ["python", "x.py", "--a", "1"], ["tee", "log.txt"]]
    assert split_commands("python x.py --gpu 2 > log.txt") == [["python", "x.py", "--gpu", "2"]]
    assert split_commands("python x.py &> out.log < in.txt --b") == [["python", "x.py", "--b"]]
    assert split_commands("python x.py --data <path to data> --k <k>") == [
        ["python", "x.py", "--data", "<path to data>", "--k", "<k>"]]  # placeholders


def test_words_marked_where_the_shell_expands_a_dollar() -> None:
    [marked] = split_marked("""python x.py run.dir='out/${now:%H}' $OUT "$A" "\\$B" \\$C "x\\\\$D" plain""")
    assert marked == [("python", False), ("x.py", False), ("run.dir=out/${now:%H}", False), ("$OUT", True),
                      ("$A", True), ("$B", False), ("$C", False), ("x\\$D", True), ("plain", False)]


def test_unbalanced_quotes_are_tolerated() -> None:
    assert split_commands('python x.py --msg "unclosed && ls') == [
        ["python", "x.py", "--msg", '"unclosed'], ["ls"]]
    assert split_commands("python x.py --name it's\npython y.py") == [
        ["python", "x.py", "--name", "it's"], ["python", "y.py"]]  # never spans lines
    assert call("python x.py --q 'a b") == ScriptCall("python", "script", "x.py",
                                                      ["--q", "'a", "b"])


@pytest.mark.parametrize("line, shellish", [
    ("python x.py", True), ("$ python3.8 a.py", True), ("!python a.py", True),
    ("CUDA_VISIBLE_DEVICES=0 torchrun t.py", True), ("nohup bash run.sh &", True),
    ("./run.sh", True), ("run.sh 1", True), ("cd examples", True), ("pip3 install x", True),
    ("ls -la", True), ("CUDA_VISIBLE_DEVICES=0", True),
    ("import os", False), ("x = 1", False), ("ls = []", False), ("time = 3", False),
    ("env = dict(os.environ)", False), ("print('python x.py')", False),
])
def test_starts_like_command(line: str, shellish: bool) -> None:
    assert starts_like_command(line) is shellish


def test_comments_are_cut_at_a_word_start_outside_quotes() -> None:
    from ragcode.shell import without_comments

    text = "# train\npython t.py --url=a#b --n '#1' \"x #y\" # note\ncd x #c"
    assert without_comments(text) == "\npython t.py --url=a#b --n '#1' \"x #y\"\ncd x"
