"""The answer checks on real answer shapes against a fixture repository."""

from __future__ import annotations

import json
import sys

import pytest
from check_helpers import make_check_repo

from ragcode.check import DEFAULT_CHECKS, CheckContext, Finding, check_answer, load_checkers
from ragcode.check.coverage import instruction_values


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_check_repo(tmp_path_factory.mktemp("check"))


def codes(answer: str, repo, answer_type: str = "bash", workdir: str = ".", instruction: str = "") -> list[str]:
    ctx = CheckContext(repo, workdir, instruction)
    return [f.code for f in check_answer(answer, answer_type, ctx, load_checkers(DEFAULT_CHECKS))]


def findings(answer: str, repo, **kw):
    ctx = CheckContext(repo, kw.pop("workdir", "."), kw.pop("instruction", ""))
    return check_answer(answer, kw.pop("answer_type", "bash"), ctx, load_checkers(DEFAULT_CHECKS))


def test_a_correct_argparse_command_has_no_findings(repo):
    assert codes("python train.py --data cora --lr 0.1 --epochs 5 -b 16 --model gat --gpu", repo) == []


def test_near_miss_flag_names_the_real_one(repo):
    (f,) = findings("python train.py --data cora --batchsize 16", repo)
    assert f.code == "unknown-flag" and f.suggestion == "--batch_size" and "did you mean --batch_size" in f.message


def test_unknown_flag_with_no_close_match_lists_the_flags(repo):
    (f,) = findings("python train.py --data cora --zzz 1", repo)
    assert f.code == "unknown-flag" and not f.suggestion and "--epochs" in f.message


def test_argparse_unique_prefix_and_glued_short_values_are_accepted(repo):
    assert codes("python train.py --data cora --epo 3 -b16 --lr=0.5", repo) == []


def test_bad_choice_and_wrong_type(repo):
    got = findings("python train.py --data cora --model gcm --epochs three --lr 1e-3", repo)
    assert [f.code for f in got] == ["bad-choice", "bad-type"]
    assert got[0].suggestion == "gcn"


def test_missing_required_flag_and_duplicate_flag(repo):
    got = codes("python train.py --lr 0.1 --lr 0.2", repo)
    assert "missing-required" in got and "duplicate-flag" in got


def test_missing_script_names_the_closest_real_one(repo):
    (f,) = findings("python evaluate.py --data cora", repo)
    assert f.code == "unknown-script" and f.suggestion == "examples/sub/evaluate.py"


def test_cd_moves_the_working_directory(repo):
    assert codes("cd examples/sub && python evaluate.py --data cora", repo) == []
    assert "unknown-script" in codes("cd examples/nowhere && python evaluate.py --data cora", repo)


def test_launchers_are_looked_through(repo):
    assert codes("CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node 2 train.py --data cora", repo) == []
    assert codes("accelerate launch train.py --data x --bogus 1", repo) == ["unknown-flag"]
    assert codes("python -m torch.distributed.run --nproc_per_node=8 train.py --data c", repo) == []


def test_click_options_choices_and_positional_count(repo):
    assert codes("python greet.py --name beta --count 2 file.txt", repo) == []
    got = codes("python greet.py --name gamma", repo)
    assert "bad-choice" in got and "positional-count" in got


def test_absl_flags_booleans_and_enums(repo):
    assert codes("python absl_main.py --steps 5 --noverbose --mode eval", repo) == []
    assert codes("python absl_main.py --steps five", repo) == ["bad-type"]
    assert codes("python absl_main.py --mode serve", repo) == ["bad-choice"]


def test_shell_script_and_module_targets(repo):
    assert codes("bash run.sh cora", repo) == []
    assert codes("bash missing.sh", repo) == ["unknown-script"]
    assert codes("python -m pkg.models", repo) == []
    assert codes("python -m pkg.nothere", repo) == ["unknown-module"]


def test_an_answer_that_runs_no_script_is_a_finding(repo):
    assert codes("echo training; ls", repo) == ["no-command"]


def test_python_unresolvable_import_and_missing_repository_symbol(repo):
    code = "import nonexistent_mod_xyz\nfrom pkg.models import GCN, GAT\nm = GCN()\n"
    got = findings(code, repo, answer_type="python")
    # without the repository's interpreter, a package this environment lacks may be the answer's
    # environment's: not said; a near miss of the repository's own module is
    assert [(f.code, f.severity) for f in got] == [("missing-symbol", "error")]
    assert got[0].line == 2 and "pkg.models has no GAT" in got[0].message
    (near,) = [f for f in findings("import pkgg\n", repo, answer_type="python") if f.code == "unresolved-import"]
    assert (near.code, near.severity, near.suggestion) == ("unresolved-import", "warning", "pkg")
    assert "did you mean pkg?" in near.message
    # with the repository's own interpreter configured, a missing module is the answer's error
    ctx = CheckContext(repo, ".", "", sys.executable)
    (imp, _) = sorted(check_answer(code, "python", ctx, load_checkers(["python"])), key=lambda f: f.line)
    assert imp.code == "unresolved-import" and imp.severity == "error"


def test_a_package_the_repository_depends_on_is_the_environments_gap(tmp_path):
    own = make_check_repo(tmp_path)
    (own / "requirements.txt").write_text("somedep-not-installed>=1\n")
    cell = {"cell_type": "code", "source": ["import numpy as np\n", "from nbonly_not_installed import data\n"]}
    (own / "demo.ipynb").write_text(json.dumps({"cells": [cell], "nbformat": 4}))
    assert codes("import somedep_not_installed\nimport pkg\n", own, "python") == []
    # a package the repository's notebooks import counts too, even with the repository's interpreter
    ctx = CheckContext(own, ".", "", sys.executable)
    found = check_answer("from nbonly_not_installed import data\nimport pkg\n", "python", ctx, load_checkers(["python"]))
    assert [f.code for f in found] == []
    found = check_answer("import other_not_installed\nimport pkg\n", "python", ctx, load_checkers(["python"]))
    assert [f.code for f in found] == ["unresolved-import"]
    # only the package, none of the repository's own modules: a note that weighs nothing
    (note,) = findings("import somedep_not_installed\nsomedep_not_installed.run()\n", own, answer_type="python")
    assert (note.code, note.severity, note.weight) == ("no-own-use", "warning", 0.0)


def test_python_attribute_on_an_imported_repository_module(repo):
    got = codes("import pkg.models as m\nfrom pkg import models\nx = models.build_modle('gcn')\ny = m.GCN()\n",
                repo, "python")
    assert got == ["missing-symbol"]
    assert codes("import pkg.models as m\nm.GNN()\n", repo, "python") == ["missing-symbol"]


def test_python_syntax_error_is_located(repo):
    (f,) = findings("def f(:\n  pass\n", repo, answer_type="python")
    assert f.code == "syntax-error" and f.line == 1


def test_home_made_argparse_script_that_never_uses_the_repository(repo):
    code = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\nprint(p.parse_args().lr)\n"
    assert codes(code, repo, "python") == ["no-repo-use"]
    two = code.replace("p.add_argument('--lr')", "p.add_argument('--lr')\np.add_argument('--epochs')")
    assert codes(two, repo, "python") == ["own-cli"]  # a home-made CLI: it meant a command line
    assert codes("import os\nos.system('python train.py --data cora')\n", repo, "python") == []
    # torch is a package the repository depends on, so the script "uses" it; its own flags say
    # the model meant to run a command
    deps = make_check_repo(repo.parent / "with_deps")  # a fresh repository: its facts are read once
    (deps / "requirements.txt").write_text("torch\n")
    cli = "import argparse, torch\np = argparse.ArgumentParser()\np.add_argument('--lr')\np.add_argument('--epochs')\n"
    assert codes(cli, deps, "python") == ["own-cli"]
    assert codes("import argparse, torch\nfrom pkg.models import GCN\n" + cli.split("\n", 1)[1], deps, "python") == []


def test_value_from_the_instruction_absent_from_the_answer(repo):
    instruction = "Train GAT on 'cora' with learning rate 0.0001 for 100 epochs using resnet_50 weights"
    got = findings("python train.py --data cora --lr 1e-4 --model gat", repo, instruction=instruction)
    missing = sorted(f.target for f in got if f.code == "missing-value")
    assert missing == ["100", "resnet_50"]  # 0.0001 is there as 1e-4, cora and GAT are there


def test_a_whole_number_is_not_said_by_a_decimal_that_starts_with_it(repo):
    instruction = "Train GAT on cora at version 1.2 with a scale of 1"
    got = findings("python train.py --data cora --model gat --lr 1.2", repo, instruction=instruction)
    assert [f.target for f in got if f.code == "missing-value"] == ["1"]  # 1.2 is not 1
    assert not [f for f in findings("python train.py --data cora --model gat --lr 1.2 --epochs 1", repo,
                                    instruction=instruction) if f.code == "missing-value"]


def test_a_value_retold_only_in_a_comment_is_missing(repo):
    instruction = "Train GAT on 'cora' for 100 epochs using resnet_50 weights"
    bash = "# 100 epochs with resnet_50\npython train.py --data cora --model gat  # resnet_50 weights"
    missing = sorted(f.target for f in findings(bash, repo, instruction=instruction) if f.code == "missing-value")
    assert missing == ["100", "resnet_50"]
    kept = "python train.py --data cora --model gat --url=a#100 --note '# resnet_50'"  # no comments: words
    assert [f for f in findings(kept, repo, instruction=instruction) if f.code == "missing-value"] == []
    py = "# GAT on cora, 100 epochs, resnet_50\nfrom pkg.models import GAT\nm = GAT()  # 100 epochs\n"
    got = sorted(f.target for f in findings(py, repo, answer_type="python", instruction=instruction)
                 if f.code == "missing-value")
    assert "100" in got and "resnet_50" in got


def test_a_python_answers_comments_are_found_by_its_tokenizer():
    from ragcode.check.answer import code_text

    code = 'x = f("#1")  # ViT-L\ns = """a # b"""\n'
    assert code_text(code, "python") == 'x = f("#1")\ns = """a # b"""\n'
    assert code_text("m = build(  # ViT-L\n  depth=2,\n", "python") == "m = build(\n  depth=2,\n"  # cut off mid-call


def test_instruction_values_are_literal_and_code_like_only(repo):
    vals = instruction_values("I would like to train the ViT-B-32 model on cifar10 with batch size 64 "
                              "and a 2D grid, saving to ./out/run1; use the UEA data, not the GPU.")
    assert vals == ["ViT-B-32", "cifar10", "64", "./out/run1", "UEA"]
    # a negative number keeps its sign; a range or a hyphenated word does not make one
    assert instruction_values("a threshold of -5.0, steps 2-5, a step of -1") == ["-5.0", "2-5", "-1"]
    assert codes("python train.py --data x --lr -5.0", repo, instruction="a threshold of -5.0") == []


def test_shell_script_positionals_are_counted_unless_it_forwards_them(tmp_path):
    own = make_check_repo(tmp_path)
    (own / "two.sh").write_text('#!/bin/sh\npython train.py --data "$1" --lr "$2"\n')
    (own / "fwd.sh").write_text('#!/bin/sh\npython train.py "$@"\n')
    assert codes("bash two.sh cora 0.1", own) == []
    assert codes("bash two.sh cora 0.1 extra more", own) == ["positional-count"]
    assert codes("bash fwd.sh --data cora --anything 1", own) == []


def test_running_a_module_that_reads_no_arguments_is_a_library_file(tmp_path):
    repo = make_check_repo(tmp_path)  # its own: files are added (the module's repository is shared)
    (repo / "pkg" / "demo.py").write_text("import os\nclass Att:\n    pass\n\nif __name__ == '__main__':\n    print(Att())\n")
    (repo / "fetch.py").write_text("import os\nos.makedirs('ckpt', exist_ok=True)\nprint('downloaded')\n")
    assert codes("python pkg/demo.py", repo) == ["library-file"]
    assert codes("python pkg/models.py", repo) == ["library-file"]
    assert codes("python fetch.py", repo) == []  # a script: it does its work at the top level
    assert codes("python train.py --data cora", repo) == []  # it has a parser
    # the wrong path to a module of that name: both findings, the fix named
    got = findings("python demo.py", repo)
    assert [f.code for f in got] == ["unknown-script", "library-file"], [f.message for f in got]


def test_running_a_document_or_a_cited_passage_is_not_a_script(repo):
    # a context passage's header copied as a command, a data file run by python
    for answer, target in [("python README.md:12-40", "README.md:12-40"), ("python data/GD_new.json --out x",
                                                                             "data/GD_new.json"),
                           ("bash README.md", "README.md")]:
        got = findings(answer, repo)
        assert [(f.code, f.target) for f in got] == [("not-a-script", target)], [f.message for f in got]
    assert codes("python train.py --data cfg.yaml", repo) == []  # a file as a flag's value is fine


def test_arguments_given_to_a_script_that_reads_none_are_ignored(tmp_path):
    repo = make_check_repo(tmp_path)
    (repo / "demo.py").write_text("import os\nIMAGE_PATH = 'assets/a.jpg'\nprint(os.path.exists(IMAGE_PATH))\n")
    (repo / "opts").mkdir()
    (repo / "opts" / "train_options.py").write_text("class Opts:\n    def parse(self):\n"
                                                   "        self.parser.add_argument('--name')\n")
    (repo / "fit.py").write_text("from opts.train_options import Opts\nopt = Opts().parse()\nprint(opt)\n")
    (f,) = findings("python demo.py --image_path x.jpg", repo)
    assert (f.code, f.target, f.severity) == ("ignored-args", "demo.py", "warning")
    assert "--image_path x.jpg never reach it" in f.message
    assert codes("python demo.py", repo) == []  # run as it is: it does its own work
    # the wrong path to it: the fixed path's finding comes with the unknown script
    assert codes("python tools/demo.py --image_path x.jpg", repo) == ["unknown-script", "ignored-args"]
    # and so does the closest name's (the one the message suggests)
    got = findings("python dem0.py --image_path x.jpg", repo)
    assert [(f.code, f.target) for f in got] == [("unknown-script", "dem0.py"), ("ignored-args", "demo.py")]
    assert codes("python fit.py --name x", repo) == []  # its options module parses the command line
    assert codes("python -m pkg.models --layers 2", repo) == ["ignored-args"]  # a module, as a script
    assert codes("python train.py --data cora", repo) == []


def test_a_shell_script_run_by_python_names_bash(repo):
    (f,) = findings("python run.sh cora", repo)
    assert (f.code, f.target, f.suggestion) == ("wrong-launcher", "python run.sh", "bash run.sh")
    from ragcode.check.autofix import autofix

    assert autofix("python run.sh cora", [f]) == ("bash run.sh cora", [("python run.sh", "bash run.sh")])


def test_a_missing_py_whose_shell_twin_exists_is_run_with_bash(tmp_path):
    from ragcode.check.autofix import autofix

    repo = make_check_repo(tmp_path)
    (repo / "train_genre.sh").write_text('#!/bin/sh\npython train.py --data "$1"\n')
    answer = "python -u train_genre.py cora 13"
    (f,) = findings(answer, repo)
    assert (f.code, f.target, f.suggestion) == ("unknown-script", "train_genre.py", "train_genre.sh")
    assert autofix(answer, [f]) == ("bash train_genre.sh cora 13", [("python -u train_genre.py", "bash train_genre.sh")])
    # another name is no twin: left to the model
    g = Finding("bash", "unknown-script", "x", target="train2.py", suggestion="run.sh")
    assert autofix("python train2.py", [g]) == ("python train2.py", [])


def test_the_repository_installed_as_a_package_is_its_own_use(tmp_path):
    own = make_check_repo(tmp_path)
    (own / "requirements.txt").write_text("torch\n")
    (own / "model" / "attention").mkdir(parents=True)
    (own / "model" / "attention" / "SEAttention.py").write_text("class SEAttention:\n    pass\n")
    # the published package's modules mirror the repository's files: not "only a dependency"
    published = "import torch\nfrom fightingcv_attention.attention.SEAttention import SEAttention\n"
    assert "no-own-use" not in codes(published, own, "python")
    named = "import torch\nfrom repo.models import GCN\n"  # the repository's own name
    assert "no-own-use" not in codes(named, own, "python")
    assert codes("import torch\nx = torch.ones(2)\n", own, "python") == ["no-own-use"]
