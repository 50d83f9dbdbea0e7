"""Values by meaning and fixes that leave right answers alone (check.meaning, check.spellings,
the REMAINDER and configurator readings, fill's and switch's limits): regression tests named
after the harms they pin. The rule catalogue's ``quiet`` cases run the same answers through
``check_answer`` and the default fixes (tests/test_check_rules.py)."""

from __future__ import annotations

from golden_repos import build_golden_repos

from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.slot import _same_kind
from ragcode.check.instruction import read_instruction
from ragcode.check.spellings import literal_words
from ragcode.check.switch import named_here, switch_command

SWITCH_INSTRUCTION = ("Run it with a maximum sequence length of 256 for 300,000 steps with a warm-up of 10,000 "
                      "steps and a learning rate of 0.00001.")
PREPARE_ANSWER = "python prepare.py --input_file=./sample.txt --output_file=/tmp/x.rec --max_seq_length=128"


def _codes(answer, repo, instruction, path=".", answer_type="bash"):
    ctx = CheckContext(repo, path, instruction)
    return [f.code for f in check_answer(answer, answer_type, ctx, load_checkers(DEFAULT_CHECKS))]


def test_unit_words_and_sizes_are_read_as_their_numbers(tmp_path):
    values = {v.spelling: v for v in read_instruction("a 3-layer net, 650-dim embeddings, 64x64 at 512-pixel").values}
    assert (values["3-layer"].kind, values["3-layer"].numbers) == ("measure", (3.0,))
    assert values["64x64"].numbers == (64.0, 64.0)
    repo = build_golden_repos(tmp_path)["outside"]
    # said by its number; left alone when the number is absent (the unit may be the default)
    assert _codes("python lm_main.py --emsize 650", repo, "Use 650-dim embeddings.") == []
    assert _codes("python lm_main.py --emsize 200", repo, "Use 650-dim embeddings.") == []
    assert _codes("python lm_main.py --emsize 200", repo, "Use 650 embedding dimensions.") == ["missing-value"]


def test_a_model_name_with_a_trailing_number_is_said_by_its_parts_not_by_a_conflicting_one(tmp_path):
    repo = build_golden_repos(tmp_path)["outside"]
    said = "python show_attention.py --arch vit_small --patch_size 8"
    assert _codes(said, repo, "Use the ViT-Small/8 model.", path="vision") == []
    other = "python show_attention.py --arch vit_small --patch_size 16"
    assert _codes(other, repo, "Use the ViT-Small/8 model.", path="vision") == ["missing-value"]


def test_respelling_follows_the_code_s_spelling_only():
    assert {"vit_h", "ViT-g-14", "cifar10", "lsun"} <= literal_words(
        'r = {"vit_h": f}\nname = "ViT-g-14.json"\np.add_argument("--d", help="cifar10 | lsun")\n')


def test_fill_never_overwrites_a_shell_variable_or_a_path_of_another_kind():
    assert not _same_kind("$SQUAD_DIR/dev-v1.1.json", "SQUAD1.1")
    assert not _same_kind("model/groundingdino.pth", "ground_segment/GD_new.json")
    assert not _same_kind(".asset/dog.jpg", "GD_new.json")
    assert _same_kind("data/a.json", "ground_segment/GD_new.json")
    assert _same_kind("citeseer", "pubmed")


def test_switch_moves_only_to_a_sibling_the_instruction_or_the_passage_names(tmp_path):
    repo = build_golden_repos(tmp_path)["documented"]
    checkers = load_checkers(DEFAULT_CHECKS)
    bare = CheckContext(repo, ".", SWITCH_INSTRUCTION)
    assert not named_here(repo / "pretrain.py", bare)
    assert switch_command(PREPARE_ANSWER, bare, checkers) is None
    passage = CheckContext(repo, ".", SWITCH_INSTRUCTION, extra={"context": "Then train with pretrain.py:"})
    switched = switch_command(PREPARE_ANSWER, passage, checkers)
    assert switched is not None and "python pretrain.py" in switched and "--learning_rate=0.00001" in switched
    # "pre-train" names pretrain.py: two neighbouring words joined
    assert named_here(repo / "pretrain.py", CheckContext(repo, ".", "Pre-train the model for 300,000 steps."))


def test_detectron2_style_opts_remainder_is_not_read_as_positionals(tmp_path):
    repo = build_golden_repos(tmp_path)["outside"]
    answer = "python demo/opts_demo.py --input a.jpg --opts MODEL.WEIGHTS w.pkl SOLVER.BASE_LR 0.1"
    assert _codes(answer, repo, "") == []
    assert _codes("python demo/opts_demo.py --config-file c.yaml extra", repo, "") == ["positional-count"]


def test_a_script_that_execs_a_sys_argv_configurator_reads_the_command_line(tmp_path):
    repo = build_golden_repos(tmp_path)["outside"]
    assert _codes("python train.py --n_layer=4", repo, "", path="gpt") == []
    (repo / "gpt" / "plain.py").write_text("n_layer = 12\nprint(n_layer)\n")
    assert _codes("python plain.py --n_layer=4", repo, "", path="gpt") == ["ignored-args"]
    assert _codes("python -m speech talk.wav --model base", repo, "") == []


def test_checked_generation_hands_the_retrieved_passage_to_the_fixes(tmp_path):
    from ragcode.answering import generate_from_config
    from ragcode.config import load_config
    from ragcode.generation.backends.scripted import ScriptedLLM
    from ragcode.types import Context

    repo = build_golden_repos(tmp_path)["documented"]
    cfg = load_config(overrides=["generation.check=[bash,python,coverage]", "generation.n=1"])
    answer = f"```bash\n{PREPARE_ANSWER}\n```"
    unnamed = generate_from_config(SWITCH_INSTRUCTION, Context("Make the data first.", (), 100), ScriptedLLM(
        answers=[answer]), cfg, CheckContext(repo, ".", SWITCH_INSTRUCTION))
    assert "prepare.py" in unnamed[0].code
    named = generate_from_config(SWITCH_INSTRUCTION, Context("Then train with pretrain.py.", (), 100), ScriptedLLM(
        answers=[answer]), cfg, CheckContext(repo, ".", SWITCH_INSTRUCTION))
    assert "python pretrain.py" in named[0].code


def test_a_command_the_repository_installs_runs_it(tmp_path):
    from ragcode.check.facts import console_scripts

    (tmp_path / "setup.py").write_text("setup(name='x', entry_points={'console_scripts': "
                                       "['fairseq-train = fairseq_cli.train:cli_main', \"x-eval=x.ev:main\"]})\n")
    (tmp_path / "setup.cfg").write_text("[options.entry_points]\nconsole_scripts =\n    cfg-tool = x.tool:main\n"
                                        "[other]\nnot-one = a.b:c\n")
    assert console_scripts(tmp_path) == {"fairseq-train", "x-eval", "cfg-tool"}
    repo = build_golden_repos(tmp_path / "golden")["outside"]
    assert _codes("speech talk.wav --model base", repo, "") == []
    assert _codes("echo speech; ls", repo, "") == ["no-command"]


def test_a_name_no_parameter_of_the_answers_script_could_take_is_not_missing(tmp_path):
    repo = build_golden_repos(tmp_path)["outside"]
    instruction = "Resume training ResNet18 on CIFAR10 with a learning rate of 0.01."
    # pytorch-cifar: switches, numbers and a path; the model is chosen in the code
    assert _codes("python main.py --lr 0.01 --resume", repo, instruction, path="cifar") == []
    # a file named is still left out, whatever the script takes
    said = "Resume training from ckpt.pth with a learning rate of 0.01."
    assert _codes("python main.py --lr 0.01 --resume", repo, said, path="cifar") == ["missing-value"]
    # a parameter that takes names (lm_main.py --model), or choices that hold the name, could take it
    assert _codes("python lm_main.py --emsize 200", repo, "Train a GRU2 model.") == ["missing-value"]
    pick = 'import argparse\np = argparse.ArgumentParser()\np.add_argument("--model", choices={})\n' \
           'p.add_argument("--steps", type=int)\np.parse_args()\n'
    (repo / "pick.py").write_text(pick.format('["tiny", "ViT2"]'))
    assert _codes("python pick.py --model tiny", repo, "Run the ViT2 model.") == ["missing-value"]
    (repo / "pick2.py").write_text(pick.format('["tiny", "base"]'))
    assert _codes("python pick2.py --model tiny", repo, "Run the ViT2 model.") == []


def test_help_texts_imports_module_files_and_the_projects_name_say_a_word(tmp_path):
    repo = tmp_path / "stylegan9-ada-pytorch"
    repo.mkdir()
    (repo / "train.py").write_text(
        "import argparse\nimport tensorflow as tf\np = argparse.ArgumentParser()\n"
        "p.add_argument('--gamma', type=float, help='Override R1 gamma')\n"
        "p.add_argument('--model', help='which model')\np.parse_args()\n")
    (repo / "nets.py").write_text("def generator(z_dim=512, img_channels=3):\n    return z_dim\n")
    # a word of the help text of a flag the answer sets describes that flag
    assert _codes("python train.py --gamma 10", repo, "Train with R1 gamma 10.") == []
    assert "missing-value" in _codes("python train.py --model big", repo, "Train with R1 gamma 10.")
    # the script imports tensorflow: "TensorFlow" is what it runs on anyway
    assert _codes("python train.py --gamma 10", repo, "Train with TensorFlow, gamma 10.") == []
    # a Python answer that imports nets says nets.py; the project's name is no value
    code = "from nets import generator\ng = generator(z_dim=256)\n"
    assert _codes(code, repo, "In Python, call the generator of nets.py with z_dim 256.", answer_type="python") == []
    assert _codes(code, repo, "In Python, build the StyleGAN9 generator with z_dim 256.", answer_type="python") == []
    assert _codes(code, repo, "In Python, build the generator of gen.py with z_dim 256.",
                  answer_type="python") == ["missing-value"]


def test_a_home_folder_glued_on_the_users_path_is_written_their_way(tmp_path):
    from ragcode.check.autofix import autofix

    repo = build_golden_repos(tmp_path)["check"]
    said = "Train on data/cora/graph.txt."
    answer = "python train.py --data ~data/cora/graph.txt"
    found = check_answer(answer, "bash", CheckContext(repo, ".", said), load_checkers(DEFAULT_CHECKS))
    assert [f.code for f in found] == ["respelled-value"]
    assert autofix(answer, found)[0] == "python train.py --data data/cora/graph.txt"


def test_an_acronym_spelled_out_joined_parts_and_the_projects_number_say_a_value(tmp_path):
    repo = tmp_path / "llama7.c"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "encoder.py").write_text('"""Byte pair encoding utilities"""\n\ndef get_encoder(name):\n'
                                             '    return name\n\ndef bpe(token):\n    return token\n')
    (repo / "src" / "nets.py").write_text('def build(dim=1):\n    """A plain block."""\n    return dim\n')
    (repo / "sample.py").write_text("import argparse\np = argparse.ArgumentParser()\n"
                                    "p.add_argument('--resblock_updown', type=bool)\n"
                                    "p.add_argument('--size', type=int)\np.parse_args()\n")
    py = "In Python, load the BPE encoder of the 124M model."
    # BPE is spelled out by the docstring of the module the answer imports; not by another module
    assert _codes("import encoder\nenc = encoder.get_encoder('124M')\n", repo, py, "src", "python") == []
    assert _codes("import nets\nenc = nets.build('124M')\n", repo, py, "src", "python") == ["missing-value"]
    # up/down-sampling said by --resblock_updown; not by a flag holding one part only
    ask = "Sample with residual up/down-sampling at size 64."
    assert _codes("python sample.py --resblock_updown True --size 64", repo, ask) == []
    assert _codes("python sample.py --size 64", repo, ask) == ["missing-value"]
    # "Llama 7" names the project (llama7.c); a 7 asked elsewhere is still a value
    assert _codes("python sample.py --size 64", repo, "Sample a Llama 7 model at size 64.") == []
    assert _codes("python sample.py --size 64", repo,
                  "Sample a Llama 7 model at size 64 for 7 steps.") == ["missing-value"]


def test_a_colour_format_is_said_by_its_number_of_channels(tmp_path):
    repo = tmp_path / "gan"
    repo.mkdir()
    (repo / "nets.py").write_text("MODE = 'RGB'\n\nclass Generator:\n"
                                  "    def __init__(self, z_dim, img_resolution, img_channels):\n"
                                  "        self.z_dim = z_dim\n")  # the code names RGB: a value it could take
    ask = "In Python, build a generator for 256x256 RGB images with a 512-dimensional Z."
    said = "from nets import Generator\nG = Generator(z_dim=512, img_resolution=256, img_channels=3)\n"
    assert _codes(said, repo, ask, ".", "python") == []
    # one channel is grayscale, not RGB: still missing
    gray = "from nets import Generator\nG = Generator(z_dim=512, img_resolution=256, img_channels=1)\n"
    assert _codes(gray, repo, ask, ".", "python") == ["missing-value"]


def test_a_range_is_said_by_its_two_numbers_even_as_two_parameters(tmp_path):
    values = {v.spelling: v for v in read_instruction("crops at scales 0.14-1 and 0.05-0.14").values}
    assert (values["0.14-1"].kind, values["0.14-1"].numbers) == ("range", (0.14, 1.0))
    repo = build_golden_repos(tmp_path)["outside"]
    # 1. is the float 1 in code: both ends given, in two flags, say the range
    said = "python lm_main.py --dropout 0.14 --dropout 1. --dropout 0.05"  # (duplicate-flag aside)
    assert "missing-value" not in _codes(said, repo, "Use dropouts 0.14-1 and 0.05-0.14.")
    assert _codes("python lm_main.py --dropout 1.", repo, "Use a dropout of 1.") == []
    # a range with one end or neither given is missing
    assert "missing-value" in _codes("python lm_main.py --dropout 0.3", repo, "Use dropouts 0.14-1.")
    assert "missing-value" in _codes("python lm_main.py --dropout 0.14", repo, "Use dropouts 0.14-1.")
    # a plain number the answer lacks is still missing
    assert _codes("python lm_main.py --dropout 2.", repo, "Use a dropout of 1.") == ["missing-value"]
