"""The fix steps by name (``generation.fixes``), the renamed ``generation.fill``, and the one keep
rule shared by checked generation, ``ragcode check --fix`` and the agent's ``check`` tool."""

from __future__ import annotations

import pytest
from golden_repos import build_golden_repos

from ragcode.agent.tools import AgentEnv, check_tool
from ragcode.answer.fixes import DEFAULT_FIXES, FIXES, Fixed, fix_answer, keep_fixed
from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.config import Config, GenerationConfig, load_config
from ragcode.config_parse import FILL_TRUE, as_before_fixes
from ragcode.errors import ConfigError, RagcodeError

TASK = "Train the GAN for 100 epochs with a batch size of 16 and an image size of 128."


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    return build_golden_repos(tmp_path_factory.mktemp("fixes"))


def test_generation_fill_is_refused_by_name_with_its_new_spelling():
    with pytest.raises(ConfigError, match=r"generation\.fill was replaced by generation\.fixes.*fixes: \[certain\]"):
        load_config(overrides=["generation.fill=false"])


def test_the_default_fixes_are_the_chain_fill_switched_on_and_keep_its_hash():
    assert tuple(GenerationConfig().fixes) == DEFAULT_FIXES
    assert set(DEFAULT_FIXES) == set(FIXES.names())
    assert as_before_fixes({"n": 5, "fixes": list(FILL_TRUE)}) == {"n": 5, "fill": True}
    assert as_before_fixes({"fixes": ["certain"]}) == {"fill": False}
    # the default since ``drop`` joined hashes as itself: caches of the list before it are not reused
    assert as_before_fixes({"fixes": list(DEFAULT_FIXES)}) == {"fixes": list(DEFAULT_FIXES)}
    assert Config().hash() != load_config(overrides=[f"generation.fixes=[{', '.join(FILL_TRUE)}]"]).hash()
    other = load_config(overrides=["generation.fixes=[certain, fill]"])
    assert other.hash() not in (Config().hash(), load_config(overrides=["generation.fixes=[certain]"]).hash())


def test_an_unknown_fix_step_is_one_line_naming_the_known_ones(repos):
    ctx = CheckContext(repos["fill"], ".", TASK)
    with pytest.raises(RagcodeError, match="fil_vars"):
        fix_answer("python gan.py", "bash", [], ctx, load_checkers(DEFAULT_CHECKS), ["certain", "fil_vars"])


def test_each_step_runs_only_when_named(repos):
    ctx = CheckContext(repos["fill"], ".", TASK)
    checkers = load_checkers(DEFAULT_CHECKS)
    code = "python gan.py --n_epochs 100 --batch_size 16"
    fs = check_answer(code, "bash", ctx, checkers)
    assert fix_answer(code, "bash", fs, ctx, checkers, ["certain"])[0] == code
    filled, _, record = fix_answer(code, "bash", fs, ctx, checkers, ["certain", "fill"])
    assert filled == code + " --img_size 128" and record["filled"] == [["128", "--img_size"]]


def test_a_certain_fix_is_kept_even_when_it_weighs_more():
    heavier = Fixed("python evaluate.py --bogus 1", [], {"pairs": [["a/evaluate.py", "evaluate.py"]]})
    assert keep_fixed("python a/evaluate.py --bogus 1", [], heavier, "")
    assert not keep_fixed("x", [], Fixed("x", [], {"pairs": [["a", "b"]]}), "")  # nothing changed


def test_the_agents_check_tool_shows_the_answer_the_fixes_keep(repos):
    env = AgentEnv(repos["fill"], None, Config(), ".", TASK)
    seen = check_tool(env, "python gan.py --n_epochs 100 --batch_size 16")
    assert "missing-value" not in seen.text and "'128'" in seen.text  # the finding, in words
    assert seen.text.endswith("python gan.py --n_epochs 100 --batch_size 16 --img_size 128")
    clean = check_tool(env, "python gan.py --n_epochs 100 --batch_size 16 --img_size 128")
    assert "automatic fixes" not in clean.text


def test_the_fix_steps_a_rule_names_are_registered():
    from ragcode.check.rules import RULES

    named = {step for rule in RULES.values() for step in rule.fixed_by}
    assert named <= set(FIXES.names())
    assert set(DEFAULT_FIXES) - named == {"retarget"}  # it reads no finding: it runs on every bash answer
