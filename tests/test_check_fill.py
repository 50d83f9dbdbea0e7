"""Filling in the instruction's left-out values (check.fill) and opening wrapper scripts
(check.expand), alone and in the checked pipeline."""

from __future__ import annotations

import pytest
from golden_repos import fill_repo

from ragcode.answering import generate_from_config
from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.expand import expand_wrappers, inner_command
from ragcode.check.fill import fill_values, proper_names
from ragcode.config import load_config
from ragcode.generation.backends.scripted import ScriptedLLM
from ragcode.generation.parse import parse_answer



@pytest.fixture
def repo(tmp_path):
    return fill_repo(tmp_path)


def fill(repo, answer: str, instruction: str) -> tuple[str, list]:
    ctx = CheckContext(repo, ".", instruction)
    findings = check_answer(answer, "bash", ctx, load_checkers(list(DEFAULT_CHECKS)))
    return fill_values(answer, findings, ctx)


def test_a_left_out_value_goes_to_the_flag_named_next_to_it(repo):
    instruction = "Train the GAN for 100 epochs with a batch size of 16 and an image size of 128."
    code, done = fill(repo, "python gan.py --n_epochs 100 --batch_size 16", instruction)
    assert code == "python gan.py --n_epochs 100 --batch_size 16 --img_size 128"  # img <- image
    assert done == [("128", "--img_size")]
    code, _ = fill(repo, "python gan.py --n_epochs 100", "Train for 100 epochs at a learning rate of 0.005.")
    assert code.endswith("--lr 0.005")  # lr <- the initials of "learning rate"


def test_the_one_path_left_out_is_the_positional_the_script_requires(repo):
    code, done = fill(repo, "python greet.py --count 3", "Greet the names in data/names.txt, counting 3.")
    assert code == "python greet.py --count 3 data/names.txt" and done == [("data/names.txt", "(positional)")]
    code, done = fill(repo, "python greet.py --count 3 a.txt", "Greet the names in data/names.txt, counting 3.")
    assert done == []  # the positional is given (another file): not this step's to change
    two = "Greet the names in data/names.txt and data/more.txt, counting 3."
    assert fill(repo, "python greet.py --count 3", two)[1] == []  # two paths: which one goes there?


def test_a_flags_choices_name_its_value_and_replace_one_the_user_never_asked_for(repo):
    code, done = fill(repo, "python train.py --data cora --model gcn", "Run the gat model on cora.")
    assert code == "python train.py --data cora --model gat" and done == [("gat", "--model")]
    # a value the instruction names is the user's: never replaced
    code, done = fill(repo, "python train.py --data cora --model gcn", "Run gcn on cora, not gat.")
    assert done == [] and code.endswith("--model gcn")


def test_nothing_is_filled_where_two_flags_fit_equally_or_the_type_does_not(repo):
    # "the folder" names neither --output_dir nor --input_dir better than the other
    code, done = fill(repo, "python gan.py --n_epochs 1", "Use the dir ./data/x for it.")
    assert done == [] and code == "python gan.py --n_epochs 1"
    # --n_epochs takes an int: 0.5 cannot be it
    code, done = fill(repo, "python gan.py --lr 0.1", "Train with 0.5 epochs.")
    assert done == []


def test_a_capitalised_name_is_filled_only_where_its_flag_is_named_next_to_it(repo):
    assert proper_names("Please train the Autoformer model. Then the Citeseer data.") == ["Autoformer", "Citeseer"]
    code, _ = fill(repo, "python gan.py --model TimesNet", "I want to train the Autoformer model on my data.")
    assert code == "python gan.py --model Autoformer"
    code, done = fill(repo, "python gan.py --model TimesNet", "I want Autoformer here.")
    assert done == []


def test_values_go_where_the_command_spells_them_and_lines_stay_runnable(repo):
    answer = "python absl_main.py \\\n  --mode=train"
    code, done = fill(repo, answer, "Run it for 500 steps.")
    assert code == "python absl_main.py \\\n  --mode=train --steps=500"  # = style kept, on the last line
    # a command that is not the last on its line is left alone
    code, done = fill(repo, "python gan.py --lr 0.1 && echo done", "Train with an image size of 64.")
    assert done == []


def test_a_wrapper_script_opens_into_the_command_of_the_script_the_instruction_names(repo):
    assert inner_command(repo / "scripts" / "anomaly" / "Autoformer_SMAP.sh") == (
        "python -u gan.py --model Autoformer --data SMAP --batch_size 32")
    instruction = "Detect anomalies with the Autoformer model on SMAP, batch size 8."
    ctx = CheckContext(repo, ".", instruction)
    answer = "# the anomaly run\nratio=1\nbash scripts/forecast/TimesNet_SMAP.sh"
    assert expand_wrappers(answer, ctx) == "python -u gan.py --model Autoformer --data SMAP --batch_size 32"
    # a cd before the script: the command runs there too
    moved = expand_wrappers("cd scripts && bash forecast/TimesNet_SMAP.sh", ctx)
    assert moved == "cd scripts && python -u gan.py --model Autoformer --data SMAP --batch_size 32"
    # not only wrappers: left as it is
    assert expand_wrappers("bash scripts/forecast/TimesNet_SMAP.sh\npython gan.py", ctx) is None
    assert expand_wrappers("bash run.sh cora", ctx) is None  # run.sh reads its arguments
    # values handed to a script that reads no arguments never arrive: it opens all the same
    given = expand_wrappers("bash scripts/forecast/TimesNet_SMAP.sh --batch_size 8", ctx)
    assert given == "python -u gan.py --model Autoformer --data SMAP --batch_size 32"


def test_the_pipeline_records_what_was_filled_and_the_setting_turns_it_off(repo):
    instruction = "Detect anomalies with the Autoformer model on SMAP, with a batch size of 8."
    llm = ScriptedLLM(answers=["```bash\nbash scripts/forecast/TimesNet_SMAP.sh\n```"])
    config = load_config(overrides=["generation.n=1"])
    (cand,) = generate_from_config(instruction, None, llm, config, CheckContext(repo, ".", instruction))
    assert cand.code == "python -u gan.py --model Autoformer --data SMAP --batch_size 8"
    record = cand.metadata["check"]["autofix"]
    assert record["filled"] == [["8", "--batch_size"]] and record["previous"].startswith("bash scripts/")
    assert record["expanded"].endswith("--batch_size 32")
    off = load_config(overrides=["generation.n=1", "generation.fixes=[certain]"])
    llm = ScriptedLLM(answers=["```bash\nbash scripts/forecast/TimesNet_SMAP.sh\n```"])
    (cand,) = generate_from_config(instruction, None, llm, off, CheckContext(repo, ".", instruction))
    assert cand.code == "bash scripts/forecast/TimesNet_SMAP.sh"


def test_a_command_written_on_the_fence_line_is_the_answer():
    parsed = parse_answer("```bash run_scripts/blip2/caption.sh picture.jpg\n```")
    assert (parsed.code, parsed.answer_type) == ("bash run_scripts/blip2/caption.sh picture.jpg", "bash")
    assert parse_answer("```python title=x.py\nimport os\n```").code == "import os"


def test_ragcode_check_fix_prints_the_filled_answer(repo):
    import json

    from typer.testing import CliRunner

    from ragcode.cli import app

    args = ["check", "python gan.py --n_epochs 100", "--repo", str(repo),
            "--instruction", "Train for 100 epochs with an image size of 128."]
    plain = CliRunner().invoke(app, [*args, "--json"])
    assert plain.exit_code == 0 and "fixed" not in json.loads(plain.stdout)
    assert [f["code"] for f in json.loads(plain.stdout)["findings"]] == ["missing-value"]
    fixed = CliRunner().invoke(app, [*args, "--fix", "--json"])
    out = json.loads(fixed.stdout)
    assert out["fixed"]["code"] == "python gan.py --n_epochs 100 --img_size 128"
    assert out["fixed"]["filled"] == [["128", "--img_size"]] and out["fixed"]["findings"] == []
    text = CliRunner().invoke(app, [*args, "--fix"])
    assert text.exit_code == 0 and "python gan.py --n_epochs 100 --img_size 128" in text.stdout


def test_a_name_the_instruction_gives_is_reason_enough_to_open_a_wrapper(repo):
    # no number, no code-like word: only "Autoformer", which the coverage check does not count
    instruction = "Detect anomalies with the Autoformer model."
    llm = ScriptedLLM(answers=["```bash\npython scripts/forecast/TimesNet_SMAP.sh\n```"])
    (cand,) = generate_from_config(instruction, None, llm, load_config(overrides=["generation.n=1"]),
                                   CheckContext(repo, ".", instruction))
    record = cand.metadata["check"]["autofix"]
    assert record["pairs"] == [["python scripts/forecast/TimesNet_SMAP.sh", "bash scripts/forecast/TimesNet_SMAP.sh"]]
    assert cand.code == "python -u gan.py --model Autoformer --data SMAP --batch_size 32"
    # a wrapper already naming what the instruction names stays as it is
    llm = ScriptedLLM(answers=["```bash\nbash scripts/anomaly/Autoformer_SMAP.sh\n```"])
    (cand,) = generate_from_config(instruction, None, llm, load_config(overrides=["generation.n=1"]),
                                   CheckContext(repo, ".", instruction))
    assert cand.code == "bash scripts/anomaly/Autoformer_SMAP.sh" and "autofix" not in cand.metadata["check"]


def test_ragcode_generate_prints_what_autofix_filled_in(tmp_path):
    from agent_helpers import gan_index
    from typer.testing import CliRunner

    from ragcode.cli import app

    _, cfg, index = gan_index(tmp_path)
    index.close()
    sets = [f"index.root={cfg.index.root}", f"index.cache_dir={cfg.index.cache_dir}", "embedder.enabled=false",
            "retrieval.mode=bm25", "generation.n=1",
            'generation.llm.scripted_answers=["```bash\\npython implementations/dcgan/dcgan.py --n_epochs 5\\n```"]']
    args = ["generate", "--index", "gan", "--llm", "scripted", "Train the DCGAN for 5 epochs at a learning rate of 0.001"]
    result = CliRunner().invoke(app, [*args, *[x for s in sets for x in ("--set", s)]])
    assert result.exit_code == 0, result.output
    assert "--n_epochs 5 --lr 0.001" in result.stdout and "autofix: --lr 0.001" in result.stdout


_DEFAULTS = """import argparse
p = argparse.ArgumentParser()
p.add_argument('--epochs', type=int, default=300)
p.add_argument('--data-path', default='/datasets01/imagenet_full_size/061417/', type=str)
p.add_argument('--coco-path', default='/datasets/coco/', type=str)
p.add_argument('--output_dir', default='')
p.parse_args()
"""


def test_a_left_out_path_goes_to_the_flag_whose_default_holds_the_data_the_user_names(tmp_path):
    (tmp_path / "main.py").write_text(_DEFAULTS)
    code, done = fill(tmp_path, "python main.py --epochs 30", "Fine-tune for 30 epochs on ImageNet at /data/imagenet.")
    assert code == "python main.py --epochs 30 --data-path /data/imagenet" and done == [("/data/imagenet", "--data-path")]
    # the word both paths hold is not said next to the value: no flag is named, nothing is filled
    code, done = fill(tmp_path, "python main.py --epochs 30", "Fine-tune for 30 epochs with the files at /data/imagenet.")
    assert done == [] and code == "python main.py --epochs 30"


def test_a_count_of_devices_never_goes_to_the_flag_that_picks_one():
    from ragcode.check.slot import best_slot
    from ragcode.chunking.scripts.flags import Flag

    gpu, gpus = Flag(name="--gpu", type="int"), Flag(name="--gpus", type="int")
    said = "Train on /data with all 8 GPUs of this machine."
    assert best_slot("8", [gpu], {}, said) is None  # --gpu 8 would pick the ninth GPU
    assert best_slot("8", [gpu, gpus], {}, said).flag is gpus  # a count goes where GPUs are counted
    assert best_slot("8", [Flag(name="--n_gpu", type="int")], {}, said) is not None
    assert best_slot("3", [gpu], {}, "Train on /data on GPU 3.").flag is gpu  # one GPU by its number
