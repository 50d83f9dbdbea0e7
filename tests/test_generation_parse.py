"""Answer parsing on real answer shapes: GPT-4 answers as ML-Bench published them (unfenced),
and Qwen2.5-Coder-style chat answers (prose around fenced blocks)."""

from __future__ import annotations

import json

import pytest

from ragcode.generation.parse import classify, parse_answer



@pytest.mark.parametrize("text, code, kind", [
    # Qwen: prose, one bash block, prose
    ("To train a GCN on Cora, run:\n\n```bash\npython train.py --dataset cora --gpu 0\n```\n\n"
     "This trains the model for 200 epochs.",
     "python train.py --dataset cora --gpu 0", "bash"),
    # Qwen: multi-line command with backslash continuations (one trailing-space continuation)
    ("Here is the command:\n```bash\npython main.py \\\n    --model gcn \\  \n    --dataset citeseer\n```",
     "python main.py \\\n    --model gcn \\\n    --dataset citeseer", "bash"),
    # a python-labelled block that holds a shell command is a bash answer
    ("```python\npython run_classifier.py --task_name=MRPC --do_train=true\n```",
     "python run_classifier.py --task_name=MRPC --do_train=true", "bash"),
    # unlabelled fence
    ("```\nbash scripts/train.sh 4 0.001\n```", "bash scripts/train.sh 4 0.001", "bash"),
    ("```sh\n$ python demo.py --input a.jpg\n```", "python demo.py --input a.jpg", "bash"),
    # a README's whole prompt copied before the command: conda env, folder, user@host
    ("```\n(robodiff)[diffusion_policy]$ conda activate robodiff\n(robodiff)[diffusion_policy]$ python "
     "train.py --x 1\n```", "conda activate robodiff\npython train.py --x 1", "bash"),
    ("Run:\nuser@host:~/repo$ python train.py --x 1", "python train.py --x 1", "bash"),
    ("```bash\necho cost$ 5\n```", "echo cost$ 5", "bash"),  # no command after it: no prompt
    # setup block first, then the real command: the command wins
    ("First install the requirements:\n```bash\npip install -r requirements.txt\n```\n"
     "Then run:\n```bash\ncd examples\npython run.py --epochs 5\n```",
     "cd examples\npython run.py --epochs 5", "bash"),
    # output block (text) next to a python script
    ("```text\nAccuracy: 0.81\n```\n```python\nimport torch\nprint(torch.zeros(2))\n```",
     "import torch\nprint(torch.zeros(2))", "python"),
    # answer cut by max_tokens: unclosed fence runs to the end
    ("Sure!\n```python\nimport esm\nmodel, alphabet = esm.pretrained.esm2_t6_8M_UR50D(",
     "import esm\nmodel, alphabet = esm.pretrained.esm2_t6_8M_UR50D(", "python"),
    # prose only, inline command
    ("You can simply run `python generate.py --prompt cat --steps 20` in the repo root.",
     "python generate.py --prompt cat --steps 20", "bash"),
    # prose then a bare command line
    ("Use this command:\npython main.py --dataset gowalla --lr 0.0001 --gpu 3\nIt trains NGCF.",
     "python main.py --dataset gowalla --lr 0.0001 --gpu 3", "bash"),
    # env assignment prefix
    ("```bash\nCUDA_VISIBLE_DEVICES=0 python train.py --name x\n```",
     "CUDA_VISIBLE_DEVICES=0 python train.py --name x", "bash"),
    # reasoning models: think blocks are not the answer
    ("<think>maybe ```bash\nrm -rf /\n```</think>\n```bash\npython a.py --k 1\n```",
     "python a.py --k 1", "bash"),
])
def test_fenced_and_prose_answers(text, code, kind):
    parsed = parse_answer(text)
    assert parsed.code == code
    assert parsed.answer_type == kind


def test_gpt4_unfenced_python_script_is_kept_whole():
    text = ("import esm.inverse_folding\n\n# Load the model\n"
            "model = esm.pretrained.esm_if1_gvp4_t16_142M_UR50()\nmodel = model.eval()\n")
    parsed = parse_answer(text)
    assert parsed.code == text.strip() and parsed.answer_type == "python" and not parsed.fenced


def test_gpt4_unfenced_command():
    text = "python main.py --dataset gowalla --regs [1e-5] --embed_size 32 --gpu 3"
    assert parse_answer(text).code == text
    assert parse_answer(text).answer_type == "bash"


def test_classify_uses_content_over_label():
    assert classify("import os\nprint(os.getcwd())", "bash") == "python"
    assert classify("ls -la", "bash") == "bash"
    assert classify("python x.py --a 1", "") == "bash"
    assert classify("x = 1", "") == "python"


@pytest.mark.parametrize("code", [
    "time python x.py", "python3.8 x.py --a", "/usr/bin/python x.py", "sudo python x.py",
    "mpirun -np 2 python x.py", "srun bash run.sh", "zsh run.sh", ". env.sh && python x.py",
    "lr=0.1 python a.py",
])
def test_every_launcher_of_the_shell_grammar_is_bash(code):
    assert classify(code, "") == "bash"
    assert parse_answer(code).code == code


def test_a_python_assignment_to_a_command_name_is_python():
    assert classify("ls = []\nprint(ls)", "bash") == "python"
    assert classify("time = 3\nprint(time)", "") == "python"


def test_empty_answer():
    parsed = parse_answer("")
    assert parsed.code == "" and parsed.answer_type == "python"


# unfenced answers in the shapes ML-Agent (GPT-4) published: a bare command, cd-and-run, a
# script, a command with continuation lines, python that names a .py file in a string
UNFENCED = [
    "python main.py --dataset cora --lr 0.01 --epochs 200",
    "cd examples/pytorch/gcn && python train.py --dataset citeseer ",
    "bash scripts/long_term_forecast/ETT_script/Autoformer_ETTh1.sh ",
    "python run_classifier.py \\\n  --task_name=MRPC \\\n  --do_train=true ",
    "import esm\nmodel, alphabet = esm.pretrained.esm2_t33_650M_UR50D()\nprint(model)",
    "from model.attention import SEAttention\nimport torch\nx = torch.randn(1, 8, 7, 7)\nprint(SEAttention(8)(x).shape)",
]


@pytest.mark.parametrize("answer", UNFENCED)
def test_unfenced_answers_keep_code_and_agree_with_mlbench_type_rule(answer):
    parsed = parse_answer(answer)
    assert parsed.code.strip() and parsed.code.split()[0] == answer.split()[0]
    legacy = "bash" if (".sh " in answer or ".py " in answer) else "python"
    assert parsed.answer_type == legacy


def test_published_gpt4_answers_keep_code_and_agree_with_mlbench_type_rule(mlbench_data):
    reference = mlbench_data / "reference_outputs" / "mlagent_agent_pass5_output.jsonl"
    answers = [o for line in reference.read_text().splitlines() for o in json.loads(line)["output"]]
    assert len(answers) > 50
    for answer in answers:
        parsed = parse_answer(answer)
        assert parsed.code, answer[:80]
        legacy = "bash" if (".sh " in answer or ".py " in answer) else "python"
        assert parsed.answer_type == legacy, answer[:200]


def test_unfenced_command_lines_in_a_row_are_one_answer():
    code = "cd demo/\npython demo.py --config-file ../configs/x.yaml \\\n  --input input1.jpg \\\n  --opts A 1"
    parsed = parse_answer(code)
    assert parsed.code == code.replace("\n  ", "\n") and parsed.answer_type == "bash"  # indents stripped
    prose = "Run this:\npython a.py --k 1\nIt trains the model."
    assert parse_answer(prose).code == "python a.py --k 1"  # prose after the commands is not taken


def test_an_installed_console_script_with_options_is_bash():
    assert parse_answer("whisper talk.wav --model base --temperature 0").answer_type == "bash"
    assert classify("whisper talk.wav --model base", "") == "bash"
    assert classify("model = load(--x)", "") == "python"  # broken Python stays Python
    assert classify("whisper talk.wav", "") == "python"  # no option: nothing says it is a command
