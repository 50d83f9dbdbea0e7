"""Left-out values placed on the flags of scripts no static reading finds (python-fire, a
``sys.argv`` configurator), from their dry run (``ragcode.check.spec_flags``)."""

from __future__ import annotations

import pytest
from dryrun_helpers import needs_bwrap, needs_extra
from golden_repos import build_golden_repos

from ragcode.answer.fixes import fix_and_keep
from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.alike import alike, alike_default
from ragcode.check.spec_flags import flags_from_spec


def test_the_dry_runs_parameters_become_flags_with_their_types_and_the_parsers_name():
    spec = [{"name": "--batch_size", "type": "int", "required": False, "help": "", "default": "12"},
            {"name": "ckpt_dir", "type": "", "required": True}, {"name": "-o / --out", "type": "str"}]
    flags = flags_from_spec(spec, "configurator")
    assert [(f.name, f.type, f.parser, f.default) for f in flags] == [("--batch_size", "int", "configurator", "12")]


def test_a_hub_name_is_alike_another_that_shares_a_word_never_a_file_a_url_or_a_local_path():
    assert alike("decapoda-research/llama-7b-hf", "huggyllama/llama-7b")
    assert alike("facebook/opt-6.7b", "facebook/opt-1.3b")
    assert not alike("yahma/alpaca-cleaned", "huggyllama/llama-7b")  # no word shared
    assert not alike("bert-base-uncased", "roberta-base")  # no owner/name
    assert not alike("data/x.json", "data/y.json")  # files
    assert not alike("https://host/llama-7b", "huggyllama/llama-7b")
    assert not alike("./out/llama-7b", "huggyllama/llama-7b")


def test_a_default_path_is_alike_a_users_path_only_by_a_word_the_user_says_next_to_it():
    default = "/datasets01/imagenet_full_size/061417/"
    assert alike_default(default, "/data/imagenet", {"on", "imagenet", "at"})
    assert not alike_default(default, "/data/imagenet", {"files", "at"})  # the shared word unsaid
    assert not alike_default(default, "/data/cifar", {"imagenet", "at"})  # no word shared
    assert not alike_default("data/imagenet/train.json", "/data/imagenet", {"imagenet"})  # a file for a folder
    assert not alike_default("https://host/imagenet/", "/data/imagenet", {"imagenet"})  # a URL
    assert not alike_default(None, "/data/imagenet", {"imagenet"})  # no default
    assert not alike_default(default, default, {"imagenet"})  # the value is the default already


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    return build_golden_repos(tmp_path_factory.mktemp("spec"))["outside"]


@needs_extra("parsers")
@needs_bwrap
@pytest.mark.parametrize(("path", "code", "instruction", "fixed"), [
    ("gpt", "python train.py --n_layer=4", "Train the model with 4 layers and a block size of 64.",
     "python train.py --n_layer=4 --block_size=64"),  # a configurator reads only --name=value
    ("gpt", "python train.py config/small.py", "Train the small model with a learning rate of 0.001.",
     "python train.py config/small.py --learning_rate=0.001"),
    ("tune", "python finetune.py --base_model llama-7b", "Fine-tune llama-7b for 2 epochs.",
     "python finetune.py --base_model llama-7b --num_epochs 2"),  # a fire function's parameter
    # a README's model in the place of the user's, where no word of the instruction names the flag
    ("tune", "python finetune.py --base_model decapoda-research/llama-7b-hf", "Fine-tune huggyllama/llama-7b.",
     "python finetune.py --base_model huggyllama/llama-7b"),
])
def test_a_left_out_value_goes_to_the_flag_the_dry_run_read(outside, path, code, instruction, fixed):
    checkers = load_checkers([*DEFAULT_CHECKS, "parse"])
    ctx = CheckContext(outside, path, instruction)
    found = check_answer(code, "bash", ctx, checkers)
    assert "missing-value" in [f.code for f in found]
    kept = fix_and_keep(code, "bash", found, ctx, checkers)
    assert kept is not None and kept.code == fixed and not kept.findings
