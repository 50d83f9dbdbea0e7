"""The rule catalogue (``ragcode.check.rules``): every finding code declared once, emitted only
when declared, each rule's test data emitting it, and the documentation written from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_repos import build_golden_repos

from ragcode.check import DEFAULT_CHECKS, WEIGHTS, CheckContext, Finding, check_answer, load_checkers, penalty
from ragcode.check.autofix import CERTAIN_FIXES
from ragcode.check.executed import findings_from_stderr
from ragcode.check.rules import RULES, UnknownRuleError, codes_with, say
from ragcode.check.rules_doc import render_tables, tables_in
from ragcode.execution.bwrap import bwrap_works

DOC = Path(__file__).resolve().parent.parent / "docs" / "generation.md"
CASES = [(code, i) for code, r in RULES.items() for i in range(len(r.cases))]
QUIET = [(code, i) for code, r in RULES.items() for i in range(len(r.quiet))]


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    return build_golden_repos(tmp_path_factory.mktemp("rules"))


@pytest.mark.parametrize(("code", "i"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_each_rules_test_data_emits_it(code, i, repos):
    case = RULES[code].cases[i]
    if RULES[code].checker == "parse" and not bwrap_works():
        pytest.skip("the parse check's cases start their script in bubblewrap, which cannot run here")
    if case.stderr:
        found = findings_from_stderr(case.stderr)
    else:
        names = list(dict.fromkeys([*DEFAULT_CHECKS, RULES[code].checker]))
        ctx = CheckContext(repos[case.repo], case.path, case.instruction)
        found = check_answer(case.answer, case.answer_type, ctx, load_checkers(names))
    mine = [f for f in found if f.code == code]
    assert mine, f"{code}: case {i} emitted {[f.code for f in found]}"
    if case.target:
        assert case.target in [f.target for f in mine]
    if not case.stderr:  # the executed check types stderr with its own severities
        assert {f.severity for f in mine} == {RULES[code].severity}


@pytest.mark.parametrize(("code", "i"), QUIET, ids=[f"{c}-quiet-{i}" for c, i in QUIET])
def test_a_right_answer_of_a_rules_quiet_data_gets_no_finding_and_no_rewrite(code, i, repos):
    """Right answers the rule once harmed (a respelling argparse rejects, a unit word filled as a
    flag value, a REMAINDER read as positionals...): the rule says nothing, the fixes keep them."""
    from ragcode.answer.fixes import fix_and_keep
    from ragcode.config import Config

    case = RULES[code].quiet[i]
    checkers = load_checkers(list(dict.fromkeys([*DEFAULT_CHECKS, RULES[code].checker])))
    ctx = CheckContext(repos[case.repo], case.path, case.instruction)
    found = check_answer(case.answer, case.answer_type, ctx, checkers)
    assert code not in [f.code for f in found], [f.message for f in found]
    assert fix_and_keep(case.answer, case.answer_type, found, ctx, checkers, Config().generation.fixes) is None


def test_every_rule_has_test_data_and_run_error_is_tested():
    assert all(r.cases for r in RULES.values())
    assert any(c.stderr for c in RULES["run-error"].cases)


def test_a_finding_of_an_undeclared_code_is_refused():
    with pytest.raises(UnknownRuleError, match="unknown-flg"):
        Finding("bash", "unknown-flg", "a typo would otherwise weigh 1.0")
    with pytest.raises(UnknownRuleError):
        say("no-such-rule")


def test_weights_come_from_the_catalogue():
    assert WEIGHTS == {code: r.weight for code, r in RULES.items()}
    warning = Finding("coverage", "missing-value", "x", severity="warning")
    assert warning.weight == RULES["missing-value"].weight / 2
    moved = Finding("bash", "unknown-script", "x", target="a/gan.py", suggestion="gan.py")
    assert penalty([moved]) == RULES["unknown-script"].moved_weight


def test_the_certain_fixes_are_the_rules_that_declare_one():
    assert set(CERTAIN_FIXES) == codes_with(fix="certain")
    assert all(r.fixed_by for r in RULES.values() if r.fix != "none")


def test_the_docs_rule_table_is_the_catalogues():
    assert tables_in(DOC.read_text()) == render_tables(), (
        "docs/generation.md's rule tables differ from ragcode.check.rules: paste `python -m ragcode.check.rules_doc`")
