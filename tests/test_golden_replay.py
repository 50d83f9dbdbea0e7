"""The golden replay (``tests/golden_replay.py``): the stored candidates give the stored findings,
order, fixes and chosen answers. A failure prints the difference; when the change is meant, store
the new fingerprint with ``pytest tests/test_golden_replay.py --update-golden`` (or ``python
benchmarks/golden_replay.py --update``) and commit it with the change."""

from __future__ import annotations

import json

import pytest
from dryrun_helpers import needs_bwrap, needs_extra
from golden_replay import FINGERPRINT, difference, dumps, fingerprint, load_cases, replay



def _replays(test):  # noqa: ANN001, ANN202
    """Skip a test that replays the cases where the replay cannot give the stored findings: the
    default checks include `parse`, which starts the fixtures' scripts in bubblewrap (without it
    that check says nothing), and the `parsers` extra's libraries (without them the absl script
    runs on stubs)."""
    return needs_bwrap(needs_extra("parsers")(test))


@pytest.fixture(scope="module")
def replayed() -> dict:
    return replay()


@_replays
def test_the_stored_candidates_replay_to_the_stored_fingerprint(replayed, request):
    new = dumps(fingerprint(replayed))
    if request.config.getoption("--update-golden"):
        FINGERPRINT.write_text(new)
    stored = FINGERPRINT.read_text()
    assert stored == new, "the golden replay changed:\n" + difference(stored, new)


def test_the_fingerprint_hash_is_the_hash_of_its_cases():
    stored = json.loads(FINGERPRINT.read_text())
    assert stored["hash"] == fingerprint(stored["cases"])["hash"]
    assert sorted(stored["cases"]) == sorted(c["id"] for c in load_cases())


@_replays
def test_every_rule_of_the_default_checks_fires_somewhere_in_the_replay(replayed):
    from ragcode.check.rules import RULES

    seen = {f.split(" ", 1)[0] for case in replayed.values() for row in case["check_fix"] for f in row["findings"]}
    # the executed check (off by default: it runs the answer) is tested on its own
    assert seen == {code for code, rule in RULES.items() if rule.checker != "executed"}


@_replays
def test_every_fix_fires_somewhere_in_the_replay(replayed):
    done = {key for case in replayed.values() for key, value in case["fixes"].items() if value}
    done |= {key for case in replayed.values() for row in case["check_fix"] for key, value in
             row.get("fixed", {}).items() if value and key not in ("code", "findings")}
    assert {"pairs", "expanded", "retargeted", "switched", "filled", "exported"} <= done


@_replays
def test_ragcode_check_fix_and_generation_keep_the_same_fixes(tmp_path):
    """The keep rule is one: on every stored candidate, ``ragcode check --fix`` prints the answer
    checked generation's autofix returns (once they disagreed: check kept a certain fix only when
    the result weighed less)."""
    from golden_repos import build_golden_repos
    from golden_replay import _check_fix

    from ragcode.answer.pipeline import autofix_first
    from ragcode.answer.run import CheckedRun
    from ragcode.check import CheckContext, check_answer, load_checkers
    from ragcode.config import Config
    from ragcode.generation.generate import to_candidate

    repos = build_golden_repos(tmp_path)
    config = Config()
    checkers = load_checkers(config.generation.check, config)
    compared = 0
    for case in load_cases():
        run = CheckedRun(CheckContext(repos[case["repo"]], case["path"], case["instruction"]), checkers,
                         fixes=tuple(config.generation.fixes))
        for text in case["candidates"]:
            cand = to_candidate(text, 0, {"check": {}})
            fs = check_answer(cand.code, cand.answer_type, run.ctx, checkers)
            generated, _ = autofix_first(cand, fs, run)
            printed = _check_fix(case, repos[case["repo"]], text).get("fixed", {}).get("code", cand.code)
            assert printed == generated.code, (case["id"], text)
            compared += 1
    assert compared == sum(len(c["candidates"]) for c in load_cases())
