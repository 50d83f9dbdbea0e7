"""The catalogue of the answer checks' rules: every finding code declared once.

Emission (``ragcode.check.Finding`` refuses a code declared nowhere here), the weights of
selection (``ragcode.check.penalty``) and its reading of the greedy sample
(``ragcode.answer.select.rank``), the fixes, repair, ``ragcode check`` and the documentation's
rule table (``ragcode.check.rules_doc``, kept equal to docs/generation.md by a test) all read it.
To add a rule: one ``Rule`` below (those of the checks that run the answer's code, ``parse`` and
``executed``, in ``ragcode.check.rules_parse``), the check function that emits it
(``Finding(checker, code, say(code, ...))``) and its test cases there as data
(docs/architecture.md shows an example).
"""

from __future__ import annotations

from ragcode.check.rule import ERROR, WARNING, Rule, RuleCase
from ragcode.check.rules_parse import PARSE_RULES

_PY = "python"
_FOLDERS = "models"  # the fixture repository whose task folders a `cd` can be written for
_DEMO = "demo.py"
_OUT = "outside"  # the fixture repository with the argument patterns of repositories outside ML-Bench

_STATIC = (
    Rule("unknown-script", "bash", ERROR, 3.0, {
        "": "{script} does not exist in {folder}{hint}",
        "cd": "cd {folder}: there is no folder {path} in the repository",
        "executed": "running it fails: no file {file}"},
        "a script or folder that does not exist, naming the closest real one; weighs 2.0 instead of 3.0 when a "
        "file of the same name exists elsewhere, a path slip autofix corrects (run from another folder, or "
        "`python -u X.py` when only `X.sh` exists: `bash X.sh`); the closest real one is looked at for "
        "`library-file` and `ignored-args` too",
        (RuleCase("bash missing.sh cora", target="missing.sh"),
         RuleCase(stderr="python: can't open file 'nothere.py': [Errno 2] No such file or directory")),
        fix="certain", fixed_by=("certain",), moved_weight=2.0, shows_flags=True),
    Rule("outside-repo", "bash", WARNING, 1.0, {
        "": "{target} is outside the repository; the checks read only the repository's files"},
        "a script named by an absolute path or `../` that leaves the repository: never read, and said the same "
        "way whether such a file exists or not, so the checks tell nothing about the host",
        (RuleCase("python ../../outside_of_it.py --data cora", target="../../outside_of_it.py"),)),
    Rule("unknown-module", "bash", ERROR, 2.0, {
        "": "python -m {module}: no such module in the repository or the environment{hint}"},
        "`python -m X` where no module X exists; when the repository has one script file of that name it is "
        "suggested (`python -m lm_design` -> `python examples/lm-design/lm_design.py`), a certain fix",
        (RuleCase("python -m pkg.nothere --data cora", target="pkg.nothere"),
         RuleCase("python -m lm_design task=fixedbb", target="lm_design")),
        fix="certain", fixed_by=("certain",)),
    Rule("library-file", "bash", WARNING, 1.0, {
        "": "{target} reads no command-line arguments: running it runs only its own demo; import it in a "
            "Python answer to use it with the task's values"},
        "a `.py` run without arguments that reads none and only defines things plus a `__main__` demo: a module "
        "to import; a greedy answer with it makes selection prefer Python",
        (RuleCase("python pkg/demo.py", target="pkg/demo.py"),), greedy="python"),
    Rule("ignored-args", "bash", WARNING, 1.0, {
        "": "{target} reads no command-line arguments: {args}{more} never reach it; its values are set inside "
            "it, so a Python answer that sets them would use them"},
        "arguments handed to a script that, with the repository modules it imports, reads no command line: "
        "`python grounding_dino_demo.py --input_image x.jpg`; selection reads it as `library-file`; a module it "
        "imports (relatively too: a package's `__main__.py`) or a file it runs with `exec(open(...).read())` that "
        "reads `sys.argv` reads it",
        (RuleCase("python demo.py --image_path x.jpg", target=_DEMO),
         RuleCase("python dem0.py --image_path x.jpg", target=_DEMO)), greedy="python",
        quiet=(RuleCase("python train.py config/small.py --block_size=64", repo=_OUT, path="gpt"),
               RuleCase("python -m speech talk.wav --model base", repo=_OUT))),
    Rule("not-a-script", "bash", ERROR, 3.0, {
        "": "{launcher} {target}: {name} is not a program; run one of the repository's scripts, or answer in "
            "Python"},
        "a document or data file run as a program: `python README.md:12-40` is a context passage's header "
        "copied out, `python data/GD_new.json`; weighs as an unknown script",
        (RuleCase("python README.md:12-40", target="README.md:12-40"),
         RuleCase("python data/GD_new.json --out x", target="data/GD_new.json")), greedy="none"),
    Rule("wrong-launcher", "bash", ERROR, 2.0, {
        "": "{launcher} {target}: python cannot run a shell script; run it with bash"},
        "a shell script run by python (`python run.sh`): a certain fix to `bash run.sh`",
        (RuleCase("python run.sh cora", target="python run.sh"),), fix="certain", fixed_by=("certain",)),
    Rule("cluster-launcher", "bash", WARNING, 1.0, {
        "": "{script} submits the run as a cluster job ({library}), which the instruction does not ask for: "
            "{wrapped}, the script it wraps, takes the same flags and runs here"},
        "a job launcher run where the user asked for no cluster: a script that imports a job-submission library "
        "(submitit) and the one script of its folder whose parser it extends (`run_with_submitit.py` wrapping "
        "`main.py`), with no word of clusters, nodes, partitions or jobs in the instruction; the call is moved to "
        "the wrapped script when the answer then checks better (`unlaunch`), and the cluster flags it refuses are "
        "dropped (`drop`)",
        (RuleCase("python run_with_cluster.py --model small --nodes 2", repo="wrapper",
                  instruction="Train the small model.", target="run_with_cluster.py"),),
        fix="guessing", fixed_by=("unlaunch",),
        quiet=(RuleCase("python run_with_cluster.py --model small --nodes 2", repo="wrapper",
                        instruction="Train the small model on 2 nodes of the SLURM cluster."),
               RuleCase("python submit.py --model small", repo="wrapper", instruction="Train the small model."))),
    Rule("unknown-flag", "bash", ERROR, 1.0, {
        "": "{flag} is not a flag of {script}{hint}",
        "executed": "{flags} is not accepted by the script's parser"},
        "a flag the script's parser does not declare (`--batchsize` -> `--batch_size`, argparse's unique "
        "prefixes accepted); one spelled with `-` for `_` or in another case, or one letter off the only flag "
        "that near (`--resme` -> `--resume`, names of five letters or more), is a certain fix; another one whose "
        "value and name the instruction never says (copied from an example) is dropped, with its value, when "
        "the answer then checks better (`drop`); one the instruction asks for that abbreviates one declared name "
        "(`--lr` for `--learning_rate`) is renamed to it (`rename`)",
        (RuleCase("python train.py --data cora --batchsize 16", target="train.py"),
         RuleCase(stderr="usage: train.py\ntrain.py: error: unrecognized arguments: --zzz 1")),
        fix="certain", fixed_by=("certain", "rename", "drop")),
    Rule("missing-file", "bash", WARNING, 1.0, {
        "": "{path} is not in the repository (its folder {folder}/ is){hint}"},
        "a config-like path an argument names (`.yaml`, `.yml`, `.json`, `.py`, `.cfg`, `.toml`) under a folder "
        "of the repository, not there and not a value the instruction gives (`--config-file "
        "configs/tensormask_R_50_FPN_1x.yaml`); the file of that folder whose path says most of the instruction's "
        "words, when one says more than the answer's, is suggested and written in when the answer then checks "
        "better (`refile`)",
        (RuleCase("python train.py config/medium.py", repo=_OUT, path="gpt",
                  instruction="Train the small model.", target="config/medium.py"),),
        fix="guessing", fixed_by=("refile",),
        quiet=(RuleCase("python train.py config/small.py --block_size=64", repo=_OUT, path="gpt",
                        instruction="Train the small model with a block size of 64."),
               RuleCase("python train.py --data config/mine.yaml", repo=_OUT, path="gpt",
                        instruction="Train on my config config/mine.yaml."))),
    Rule("duplicate-flag", "bash", WARNING, 0.3, {"": "{flag} is given twice to {script}"},
         "a flag given twice (one that appends or counts may be)",
         (RuleCase("python train.py --data cora --data cora", target="train.py"),)),
    Rule("missing-flag-value", "bash", ERROR, 1.0, {"": "{flag} of {script} needs a value{bool_hint}"},
         "a flag that takes a value given none; for a flag parsed as a bool (`type=bool`, `str2bool`) it "
         "suggests `True`, a certain fix (`--noise` -> `--noise True`)",
         (RuleCase("python train.py --data cora --lr", target="train.py"),
          RuleCase("python flags.py --data x --noise", target="flags.py")), fix="certain", fixed_by=("certain",)),
    Rule("switch-value", "bash", ERROR, 1.0, {
        "": "{flag} of {script} is a switch and takes no value: {word} is read as a positional argument; give "
            "the bare switch to turn it on, leave it out to keep it off"},
        "a switch (`store_true`, a click flag) given `True` or `False` as if it took a value (`--flip True`): the "
        "parser takes the word as a positional and refuses it; a certain fix keeps the bare switch for `True` "
        "and takes it out for `False`",
        (RuleCase("python train.py --data cora --gpu True", target="--gpu True"),
         RuleCase("python train.py --gpu false --data cora", target="--gpu false")),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("python train.py --data cora --gpu", answer_type="bash"),)),
    Rule("positional-as-flag", "bash", ERROR, 1.0, {
        "": "{script} takes {flag} as a positional argument, not a flag: give its value without {flag}"},
        "the script's next positional argument written as a flag (`closed_form_factorization.py --ckpt x.pt` for "
        "the positional `ckpt`): the parser refuses the flag and misses the argument; a certain fix drops the "
        "flag's name and leaves its value where it stands, which is that positional's place",
        (RuleCase("python greet.py --src src.txt", target="--src"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("python greet.py src.txt", answer_type="bash"),)),
    Rule("single-dash-flag", "bash", ERROR, 1.0, {
        "": "{flag} is written with one dash: {script}'s parser reads it as {short} followed by the value "
            "{rest}; the flag is {right}"},
        "a long flag written with one dash (`-only_center_face` for `--only_center_face`) where the script also "
        "declares the short option of its first letter: argparse and click read `-o nly_center_face`, accept "
        "it and lose the value `-o` was given; a certain fix writes the second dash (absl, which takes one dash "
        "for any flag, is left alone)",
        (RuleCase("python train.py --data cora -batch_size 16", target="-batch_size"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("python train.py --data cora -b16", answer_type="bash"),
               RuleCase("python absl_main.py -steps=5", answer_type="bash"))),
    Rule("bad-choice", "bash", ERROR, 1.0, {
        "": "{flag} {value} is not one of {script}'s choices for it: {choices}",
        "executed": "{flag}: invalid choice {value}"},
        "a value outside the flag's `choices`",
        (RuleCase("python train.py --data cora --model gxt", target="train.py"),
         RuleCase("python greet.py --name gamma src.txt", target="greet.py"))),
    Rule("bad-type", "bash", ERROR, 1.0, {
        "": "{flag} takes {kind}; {value!r} is not one", "executed": "{flag}: invalid {kind} value {value}"},
        "a value that is not of the flag's type (an int flag given `five`)",
        (RuleCase("python train.py --data cora --epochs five", target="train.py"),
         RuleCase("python absl_main.py --steps five", target="absl_main.py"))),
    Rule("missing-required", "bash", ERROR, 1.0, {
        "": "{script} requires {flag}", "executed": "the script requires {flags}"},
        "a required flag left out",
        (RuleCase("python train.py --lr 0.1", target="train.py"),
         RuleCase(stderr="train.py: error: the following arguments are required: --data"))),
    Rule("positional-count", "bash", ERROR, 1.0, {
        "": "{script} takes {want} positional argument(s); the answer gives {given}{extra}"},
        "more or fewer positional arguments than the parser (or a shell script's `$1`...) takes; a flag with "
        "`nargs=argparse.REMAINDER` takes every word after it (`--opts KEY VALUE`)",
        (RuleCase("bash two.sh cora 0.1 extra more", target="two.sh"),
         RuleCase("python greet.py --name beta a b", target="greet.py")),
        quiet=(RuleCase("python demo/opts_demo.py --input a.jpg --opts MODEL.WEIGHTS w.pkl", repo=_OUT),)),
    Rule("no-command", "bash", ERROR, 2.0, {
        "": "the answer runs no script of the repository (python X.py, bash X.sh, python -m pkg.module)"},
        "a bash answer that runs none of the repository's scripts or modules (a copied usage text); a command "
        "the repository installs (`[project.scripts]`, `console_scripts`: `whisper audio.mp3`) runs it",
        (RuleCase("echo training; ls"),), greedy="none",
        quiet=(RuleCase("speech talk.wav --model base", repo=_OUT),)),
    Rule("cd-from-root", "bash", WARNING, 1.0, {
        "": "cd {folder}: the commands start in {start}, where there is no {folder}; from there it is cd {there}"},
        "`cd implementations/bgan` written for a shell at the repository's root while the task starts in that "
        "folder: followed, weighs 0.5, autofix drops it; a root-relative `cd` into another folder is not followed",
        (RuleCase("cd implementations/bgan/\npython bgan.py --data x", repo=_FOLDERS, path="implementations/bgan",
                  target="implementations/bgan/"),), fix="certain", fixed_by=("certain",)),
    Rule("syntax-error", "python", ERROR, 3.0, {"": "the answer does not parse: line {line}: {msg}"},
         "Python that does not parse, located at its line; one cut off mid-statement (the model's token limit: "
         "`M(a=1,` and no more) has what it left open closed after its last whole line, a certain fix",
         (RuleCase("def f(:\n  pass\n", answer_type=_PY),
          RuleCase("from pkg.models import GCN\nm = GCN(\n", answer_type=_PY)), greedy="none",
         fix="certain", fixed_by=("certain",)),
    Rule("unresolved-import", "python", WARNING, 1.5, {
        "": "import {module}: no module {top!r} in the repository or the environment{hint}",
        "executed": "running it fails: no module named {module!r}"},
        "an import found neither in the repository nor in the interpreter's packages: an error with a "
        "per-repository interpreter (`execution.envs`); without one, a warning only for a near miss of the "
        "repository's own modules or declared packages (the environment ragcode runs in need not be the "
        "answer's); a package the repository itself imports or says to install is the environment's gap, "
        "no finding",
        (RuleCase("import modelz\nfrom pkg.models import GCN\nm = GCN()\n", answer_type=_PY, target="modelz"),
         RuleCase(stderr="Traceback (most recent call last):\nModuleNotFoundError: No module named 'dgl'")),
        quiet=(RuleCase("import nonexistent_mod_xyz\nfrom pkg.models import GCN\nm = GCN()\n", answer_type=_PY),)),
    Rule("missing-symbol", "python", ERROR, 1.0, {"": "{module} has no {name}{hint}"},
         "a name imported from, or used on, a repository module that has none (`from models import GCNN`); or "
         "imported from an installed package that has none (`from transformers import TransformerArgs`), asked of "
         "the answer's interpreter, sandboxed: an error with the repository's own interpreter (`execution.envs`), "
         "else a warning",
         (RuleCase("from pkg.models import GCN, GAT\nm = GAT()\n", answer_type=_PY, target="pkg.models"),),
         quiet=(RuleCase("from json import dumps\nfrom pkg.models import GCN\nm = GCN()\n", answer_type=_PY),)),
    Rule("sibling-name", "python", WARNING, 0.5, {
        "": "{name} from {module} may not be the one the task asks for: the instruction says {word}, and {module} "
            "has {sibling}"},
        "a repository name used where its module has a sibling that adds a word of the instruction at its end: `Unet` for "
        "\"a 1D U-Net\" where the package also defines `Unet1D`; read by selection, not fixed; a sibling the answer "
        "uses too says nothing",
        (RuleCase("from unet import Unet\nm = Unet(dim=64)\n", repo=_OUT, answer_type=_PY,
                  instruction="In Python, make a 1D U-Net of dimension 64.", target="Unet"),),
        quiet=(RuleCase("from unet import Unet1D\nm = Unet1D(dim=64)\n", repo=_OUT, answer_type=_PY,
                        instruction="In Python, make a 1D U-Net of dimension 64."),
               RuleCase("from unet import Unet\nm = Unet(dim=64)\n", repo=_OUT, answer_type=_PY,
                        instruction="In Python, make a U-Net of dimension 64."),
               RuleCase("from unet import Unet\nm = Unet(dim=64)\n", repo=_OUT, answer_type=_PY,
                        instruction="In Python, get a U-Net of dimension 64."),  # get_Unet: a prefix
               RuleCase("from unet import StageI, StageII\na, b = StageI(), StageII()\n", repo=_OUT,
                        answer_type=_PY, instruction="In Python, run stage I, then stage II."))),
    Rule("foreign-name", "python", ERROR, 1.0, {
        "": "{module} has no {name}: the import fails; the repository's {source} defines it"},
        "a name imported from a package that lacks it (asked of the answer's interpreter, sandboxed) while one "
        "module of the repository defines it: `from transformers import Transformer` beside llama2.c's `model.py`; "
        "a certain fix imports it from there",
        (RuleCase("from json import GCN\nm = GCN()\n", answer_type=_PY, target="GCN"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("from json import dumps\nfrom pkg.models import GCN\nm = GCN()\n", answer_type=_PY),)),
    Rule("unimported-module", "python", ERROR, 1.0, {
        "": "{name} is used but never imported: the answer stops with NameError; add `import {name}`"},
        "a module's name read but never bound (`clip.tokenize(...)` after only `from clip import load`): a "
        "standard library module, one of the repository's own or a package it depends on; a certain fix adds "
        "`import NAME` where the imports stand",
        (RuleCase("from pkg.models import GCN\nm = GCN()\nn = pkg.models.GAT()\n", answer_type=_PY, target="pkg"),
         RuleCase("import pkg.models\np = os.path.join('a', 'b')\n", answer_type=_PY, target="os")),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("import os\nimport pkg.models\nm = pkg.models.GCN()\np = os.path.join('a', 'b')\n",
                        answer_type=_PY),
               RuleCase("from pkg.models import GCN\nmodel = GCN()\nprint(model)\n", answer_type=_PY))),
    Rule("unimported-name", "python", ERROR, 1.0, {
        "": "{name} is used but never imported: the answer stops with NameError; {module} defines it: add "
            "`from {module} import {name}`"},
        "a class or function of the repository read but never bound (`MLP(2, [16, 16, 1])` after only `from "
        "micrograd import nn`) that exactly one module defines, among those the answer imports and the ones beside "
        "them; a certain fix adds `from MODULE import NAME` where the imports stand",
        (RuleCase("from pkg.models import GCN\nm = GCN()\nb = build_model('RN50')\n", answer_type=_PY,
                  target="build_model"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("from pkg.models import GCN, build_model\nb = build_model('RN50')\n", answer_type=_PY),
               RuleCase("from pkg.models import GCN\nm = GCN()\nprint(net)\n", answer_type=_PY))),
    Rule("no-repo-use", "python", WARNING, 1.5, {
        "": "the answer never uses the repository: it imports none of its modules and runs none of its scripts"},
        "Python that imports none of the repository's modules, none of its dependencies and runs none of its "
        "scripts",
        (RuleCase("import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\n", answer_type=_PY),),
        greedy="none"),
    Rule("no-own-use", "python", WARNING, 0.0, {
        "": "the answer uses only packages the repository depends on, none of its own modules or scripts"},
        "only packages the repository depends on, none of its own modules: a note that weighs nothing and asks "
        "for no repair, read by selection",
        (RuleCase("import somedep_not_installed\nsomedep_not_installed.run(3)\n", answer_type=_PY),), greedy="none"),
    Rule("own-cli", "python", WARNING, 1.5, {
        "": "the answer declares its own command-line flags instead of running the repository's script with them"},
        "its own argparse flags instead of the repository's script; a greedy answer with it makes selection "
        "prefer command lines",
        (RuleCase("import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\n"
                  "p.add_argument('--epochs')\n", answer_type=_PY),), greedy="bash"),
    Rule("missing-value", "coverage", WARNING, 0.5, {
        "": "the instruction names {value!r}, which the answer never mentions"},
        "a number, quoted string or code-like word of the instruction (`cifar10`, `ViT-B-32`, `./out`) the "
        "answer says neither as written nor by meaning (`ragcode.check.meaning`: `650-dim` said by `--emsize "
        "650`, `75%` by 0.75 or 75, `ViT-Small/8` by `--arch vit_small --patch_size 8` and `ViT-Base/16` by "
        "`mae_vit_base_patch16`, a flag's default or a configuration file the "
        "answer hands over give it anyway); a unit word whose number is absent (`512-pixel`), the repository's "
        "own name, a name in capitals its code never names (`CNN`), a library's API name (`torch.compile`), "
        "a parameter's name next to its value (`13 num_classes`, `fold_index 0`) and a name no parameter of the "
        "answer's scripts could take (`ResNet18` for a script of switches, numbers and paths) say nothing; the guessing fixes give it to its flag, "
        "never over a path of another kind or a `$VAR`, and move the answer only to a script the instruction or "
        "the retrieved passage names",
        (RuleCase("python train.py --data cora", instruction="Train on cora for 100 epochs.", target="100"),),
        fix="guessing", fixed_by=("expand", "switch", "fill", "fill_vars", "fill_calls"),
        quiet=(RuleCase("python lm_main.py --emsize 650 --nhid 650 --nlayers 3 --res 64 --tied", repo=_OUT,
                        instruction="Train a tied 3-layer LSTM with 650-dim embeddings on 64x64 inputs, without "
                                    "torch.compile."),
               RuleCase("python show_attention.py --arch vit_small --patch_size 8 --image_path img.png", repo=_OUT,
                        path="vision", instruction="Show the attention maps of img.png with the ViT-Small/8 model."),
               RuleCase("python detect_train.py --img 512 --epochs 3 --data coco128.yaml", repo=_OUT,
                        instruction="Fine-tune on coco128.yaml for 3 epochs at 512-pixel resolution."),
               RuleCase("python train.py config/small.py", repo=_OUT, path="gpt",
                        instruction="Train the 4M model on webtext with its small config."),
               RuleCase("bash two.sh 13 0", instruction="Run it with 13 num_classes and fold_index 0."),
               RuleCase("python lm_main.py --dropout 0.5 --tied", repo=_OUT,
                        instruction="Train the tied CNN language model with 50% dropout."),
               RuleCase("python show_attention.py --arch vit_base", repo=_OUT, path="vision",
                        instruction="Show the attention maps of the ViT-Base/16 model."),
               RuleCase("python main.py --lr 0.01 --resume", repo=_OUT, path="cifar",
                        instruction="Resume training ResNet18 on CIFAR10 with a learning rate of 0.01."))),
    Rule("respelled-value", "coverage", WARNING, 0.5, {
        "": "the instruction spells it {value!r}; the answer writes {wrong!r}"},
        "a value the answer says only up to case and separators, in a Python string or a bash argument "
        "(`'ViT-g/14'` for ViT-g-14, `/usr/image` for ./usr/image): a certain fix writes it the user's way; "
        "a word only where the repository's code spells it the user's way and never the answer's "
        "(`ragcode.check.spellings`: `vit_h` stands where the code registers `\"vit_h\"`), a path always; the "
        "user's file moved under an absolute folder nobody named (`/path/to/checkpoint.pth` for checkpoint.pth), "
        "or a file named with its folder written under a folder that is not there, is written back as the user "
        "named it",
        (RuleCase("from pkg.models import build_model\nm = build_model('ViT-g/14')\n", answer_type=_PY,
                  instruction="Use the ViT-g-14 model", target="ViT-g/14"),
         RuleCase("python train.py --data /path/to/cora.csv", instruction="Train on cora.csv.",
                  target="/path/to/cora.csv"),
         RuleCase("python train.py --data example/sub/evaluate.py", instruction="Train on examples/sub/evaluate.py.",
                  target="example/sub/evaluate.py")),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("python train.py --data pkg/models.py", instruction="Train on models.py."),
               RuleCase("python train.py --data checkpoints/cora.pt", instruction="Train on cora.pt."),
               RuleCase("python train.py --data https://host/cora.csv", instruction="Train on cora.csv."),
               RuleCase("python scripts/masks.py --checkpoint h.pth --model-type vit_h --input i --output o",
                        repo=_OUT, instruction="Make masks of i with the ViT-H model from h.pth into o."),
               RuleCase('from segment import registry\nsam = registry["vit_h"](checkpoint="h.pth")\n', repo=_OUT,
                        answer_type=_PY, instruction="Build the ViT-H model from h.pth."),
               RuleCase("python main.py --dataset cifar10 --niter 25", repo=_OUT, path="dcgan",
                        instruction="Train the DCGAN on CIFAR-10 for 25 epochs."))),
)

_DECLARED: tuple[Rule, ...] = _STATIC + PARSE_RULES
RULES: dict[str, Rule] = {r.code: r for r in _DECLARED}
if len(RULES) != len(_DECLARED):  # pragma: no cover - a catalogue mistake
    raise ValueError("a finding code is declared twice in ragcode.check.rules")


class UnknownRuleError(KeyError):
    """A finding code the catalogue does not declare (a typo would otherwise weigh silently)."""


def rule(code: str) -> Rule:
    try:
        return RULES[code]
    except KeyError:
        raise UnknownRuleError(f"no rule {code!r} in ragcode.check.rules; declared: {', '.join(RULES)}") from None


def say(code: str, variant: str = "", **fields: object) -> str:
    """The message of ``code``'s finding, from its declared template."""
    return rule(code).say(variant, **fields)


def codes_with(**where: object) -> frozenset[str]:
    """The codes whose rules have every attribute given: ``codes_with(greedy="none")``."""
    return frozenset(r.code for r in _DECLARED if all(getattr(r, k) == v for k, v in where.items()))
