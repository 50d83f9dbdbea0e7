"""The catalogue's rules of the checks that run the answer's code: the dry run of its parser
(``parse``, ``ragcode.dryrun.checker``) and the executed answer (``executed``,
``ragcode.check.executed``). Declared here, read through ``ragcode.check.rules``, which joins them
to the static checks' rules (one catalogue, one place per code)."""

from __future__ import annotations

from ragcode.check.rule import ERROR, WARNING, Rule, RuleCase

_PY = "python"
_OUT = "outside"  # the fixture repository with the argument patterns of repositories outside ML-Bench

PARSE_RULES = (
    Rule("parse-rejected", "parse", ERROR, 1.0, {
        "": "{target}'s own parser refuses the command: {message}"},
        "the answer's entry point, run in the sandbox only as far as its argument parser (`ragcode.dryrun`), "
        "refuses the command (argparse, click, fire, absl, hydra, a `sys.argv` configurator), or a Python call "
        "into the repository does not bind to the callee's real signature: the parser's own message; a "
        "launcher's own options (`accelerate launch`, `torchrun`, `python -m torch.distributed.run`/`launch`, "
        "`deepspeed`) are read by that launcher's real parser, as installed in the dry run's interpreter, and its "
        "refusal names the launcher (`torchrun --nproc_per_nodes 2`); a launcher not installed says nothing; a "
        "flag the message names whose value and name the instruction never says is dropped, with its value, "
        "one refusal at a time, when the answer then checks better (`drop`); one the instruction asks for that "
        "abbreviates or respells one name the parser declares is renamed to it (`rename`: a configurator's "
        "`--lr=` for `--learning_rate=`, `--output-dir` for a parent parser's `--output_dir`)",
        (RuleCase("python train.py --data cora --zzz 1", target="train.py"),
         RuleCase("torchrun --nproc_per_nodes 2 train.py --data cora", target="torchrun")),
        fix="guessing", fixed_by=("rename", "drop"),
        quiet=(RuleCase("torchrun --nproc_per_node 2 train.py --data cora"),)),
    Rule("spaced-config-value", "parse", ERROR, 1.0, {
        "": "{target} sets its values with a configurator that reads only --name=value words: {given} puts the "
            "value after a space, which it takes for a config file to run; write {fixed}"},
        "a script whose settings a `sys.argv` configurator sets (`exec(open('configurator.py').read())`, "
        "nanoGPT's) refuses a command that gives a key it takes with the value after a space (`--batch_size 32`): "
        "said instead of `parse-rejected`, one finding per such key; a certain fix joins each key to its value "
        "(`--batch_size=32`)",
        (RuleCase("python train.py --block_size 64", repo=_OUT, path="gpt", target="--block_size"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("python train.py config/small.py --block_size=64", repo=_OUT, path="gpt"),)),
    Rule("misbound-positional", "parse", ERROR, 1.0, {
        "": "{call}() is given variables in the places of other parameters: {lands}; write them as keywords"},
        "a Python call into the repository, bound by the dry run to the callee's real signature, that passes a "
        "variable named after one of the callee's parameters in another parameter's positional place "
        "(`Unet1D(dim, dim_mults, channels)`: `dim_mults` lands in `init_dim`); the call binds, so nothing else "
        "says the values went astray; a certain fix writes those variables, the last positional arguments, as "
        "keywords (`dim_mults=dim_mults, channels=channels`)",
        (RuleCase("from pkg.unet import make_unet\ndim = 64\ndim_mults = (1, 2)\nchannels = 1\n"
                  "m = make_unet(dim, dim_mults, channels)\n", answer_type=_PY, target="make_unet"),),
        fix="certain", fixed_by=("certain",),
        quiet=(RuleCase("from pkg.unet import make_unet\ndim = 64\ndim_mults = (1, 2)\n"
                        "m = make_unet(dim, dim_mults=dim_mults)\n", answer_type=_PY),)),
    Rule("parse-machine", "parse", WARNING, 0.5, {
        "": "{target}'s own parser takes the command, then a library refused it for this machine, which has no "
            "GPU ({message}): it should run where the repository's hardware is"},
        "the parser took the command and a library's check after it refused this machine (transformers' "
        "`TrainingArguments` on `--bf16 True` or `--tf32 True` without a GPU; the dry run's sandbox never has "
        "one): the command is accepted, with a warning that says so",
        (RuleCase("python hf_train.py --output_dir out --bf16 True", repo="hf", target="hf_train.py"),),
        quiet=(RuleCase("python hf_train.py --output_dir out --bf16 False", repo="hf"),)),
    Rule("parse-version", "parse", WARNING, 0.5, {
        "": "{target}'s own parser refuses the command ({message}), but its fields come from {fields}, which "
            "change between versions: check the flag against the version the repository pins"},
        "the parser that refuses an unknown flag is built from dataclasses an installed library declares "
        "(`HfArgumentParser` over transformers' `TrainingArguments`, or over a repository class that extends it: "
        "`--evaluation_strategy` is gone from transformers 5); what it accepts depends on the installed version, so the refusal is a warning naming "
        "the library and its version, not an error",
        (RuleCase("python hf_train.py --output_dir out --evaluation_strategy steps", repo="hf",
                  target="hf_train.py"),),
        quiet=(RuleCase("python hf_train.py --output_dir out --eval_strategy steps --data_path d.json",
                        repo="hf"),)),
    Rule("parse-unfinished", "parse", WARNING, 1.0, {
        "": "{target}'s dry run reached no parser within its {cause} limit, so its parser never checked the "
            "command (it works or waits before it parses its arguments)",
        "limit": "{target}'s dry run ran into the sandbox's {cause} limit before its parser answered, so its "
                 "parser never checked the command",
        "crash": "{target}'s dry run ended before its parser answered ({cause}), so its parser never checked the "
                 "command"},
        "the dry run of the answer's entry point was cut before its parser answered: its time limit (30 s), a "
        "sandbox bound (memory, disk, CPU time) or a crash or kill (a signal, an exit without a verdict); a "
        "warning naming the limit, never a clean pass, and never cached, so the next check runs it again",
        (RuleCase("python fast_train.py --data cora", repo="native", target="fast_train.py"),)),
    Rule("run-error", "executed", ERROR, 1.5, {"": "running it fails: {last}"},
         "a run that fails in another way than its parser's errors (the last line of its traceback)",
         (RuleCase(stderr="Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                          "ZeroDivisionError: division by zero\n"),)),
)
