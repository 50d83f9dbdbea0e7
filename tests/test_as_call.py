"""A python-fire command written as the Python call it makes (``ragcode.dryrun.as_call``), and
checked generation doing so where the user asked for Python (``ragcode.answer.pipeline.as_asked``)."""

from __future__ import annotations

from pathlib import Path

from dryrun_helpers import FIRE, needs_bwrap, needs_extra, needs_library, one, runner, write

from ragcode.answer.pipeline import choose
from ragcode.answer.run import CheckedRun
from ragcode.check import DEFAULT_CHECKS, CheckContext, load_checkers
from ragcode.dryrun.as_call import as_python, call_source
from ragcode.dryrun.result import ACCEPTED, REJECTED, Entry, ParseResult
from ragcode.types import Candidate

ARG = "POSITIONAL_OR_KEYWORD"


def _fire(given: list, callee: str = "__main__:train", target: str = "finetune.py", workdir: str = ".",
          **kw) -> ParseResult:
    return ParseResult(kw.pop("status", ACCEPTED), Entry("script", target, (), workdir, kw.pop("env", ())),
                       parser=kw.pop("parser", "fire"), callee=callee, given=given, **kw)


def test_the_call_has_the_commands_values_and_imports_the_function_from_the_script():
    given = [["base_model", ARG, "'llama'"], ["num_epochs", "KEYWORD_ONLY", "1"]]
    assert call_source(_fire(given), ".") == "from finetune import train\n\ntrain(base_model='llama', num_epochs=1)\n"
    assert call_source(_fire(given, workdir="tools"), "tools").startswith("from finetune import train")
    assert call_source(_fire(given, callee="pkg.cli:train"), ".").startswith("from pkg.cli import train")
    long = [[f"parameter_{i}", ARG, repr("x" * 20)] for i in range(4)]
    assert call_source(_fire(long), ".").endswith("train(\n" + "".join(f"    parameter_{i}='{'x' * 20}',\n"
                                                                        for i in range(4)) + ")\n")


def test_no_call_is_said_where_it_would_not_be_the_commands_meaning():
    given = [["base_model", ARG, "'llama'"]]
    assert call_source(_fire(given, status=REJECTED), ".") is None
    assert call_source(_fire(given, parser="argparse"), ".") is None
    assert call_source(_fire(given, unrecognized=["--x"]), ".") is None
    assert call_source(_fire(given, callee="__main__:Trainer.run"), ".") is None  # a method
    assert call_source(_fire(given, callee="__main__:main.<locals>.train"), ".") is None
    assert call_source(_fire(given, workdir="sub"), ".") is None  # run after a cd
    # a script in a subfolder imports its siblings as top modules: an import from the task's folder would not
    assert call_source(_fire(given, target="src/finetune.py"), ".") is None
    assert call_source(_fire([["args", "VAR_POSITIONAL", "(1,)"]]), ".") is None
    assert call_source(_fire([["model", ARG, None]]), ".") is None  # a value Python cannot write back
    one_result = [_fire(given)]
    assert as_python("python finetune.py --base_model llama", one_result, ".") is not None
    assert as_python("pip install fire\npython finetune.py --base_model llama", one_result, ".") is None
    assert as_python("python finetune.py --base_model llama > log.txt", one_result, ".") is None
    assert as_python("X=1 python finetune.py --base_model llama", [_fire(given, env=(("X", "1"),))], ".") is None


@needs_library("fire")
@needs_bwrap
def test_the_dry_run_reports_the_function_and_only_the_values_given(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"sample.py": FIRE})
    r = one("python sample.py ckpt/ --temperature=0.5", repo, runner(tmp_path, "fire", "termcolor"))
    assert r.callee == "__main__:sample"
    assert r.given == [["ckpt_dir", ARG, "'ckpt/'"], ["temperature", ARG, "0.5"]]  # max_len's default left out
    assert as_python("python sample.py ckpt/ --temperature=0.5", [r], ".") == (
        "from sample import sample\n\nsample(ckpt_dir='ckpt/', temperature=0.5)\n")


@needs_extra("parsers")
@needs_bwrap
def test_checked_generation_writes_a_fire_command_as_its_call_only_where_python_is_asked(tmp_path: Path) -> None:
    repo = write(tmp_path / "repo", {"sample.py": FIRE})
    checkers = load_checkers([*DEFAULT_CHECKS, "parse"])
    command = "python sample.py ckpt/ --temperature 0.5"
    cands = [Candidate(f"```bash\n{command}\n```", command, "bash", 0, {})]
    asked = CheckedRun(CheckContext(repo, ".", "In Python, sample from ckpt/ at temperature 0.5."), checkers)
    chosen, _ = choose(cands, asked)
    assert (chosen[0].answer_type, chosen[0].code) == (
        "python", "from sample import sample\n\nsample(ckpt_dir='ckpt/', temperature=0.5)\n")
    assert chosen[0].metadata["converted_from"] == command
    unasked = CheckedRun(CheckContext(repo, ".", "Sample from ckpt/ at temperature 0.5."), checkers)
    assert choose(cands, unasked)[0][0].code == command
