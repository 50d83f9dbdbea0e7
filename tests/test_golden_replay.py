"""The golden replay (``tests/golden_replay.py``): the stored candidates give the stored findings,
order, fixes and chosen answers. A failure prints the difference; when the change is meant, store
the new fingerprint with ``pytest tests/test_golden_replay.py --update-golden`` (or ``python
benchmarks/golden_replay.py --update``) and commit it with the change."""

from __future__ import annotations

import json

import pytest
from golden_replay import FINGERPRINT, difference, dumps, fingerprint, load_cases, replay


@pytest.fixture(scope="module")
def replayed() -> dict:
    return replay()


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


def test_every_fix_fires_somewhere_in_the_replay(replayed):
    done = {key for case in replayed.values() for key, value in case["fixes"].items() if value}
    done |= {key for case in replayed.values() for row in case["check_fix"] for key, value in
             row.get("fixed", {}).items() if value and key not in ("code", "findings")}
    assert {"pairs", "expanded", "retargeted", "switched", "filled", "exported"} <= done
