"""A name imported from a package that lacks it, which the repository defines
(``ragcode.check.foreign``), and its certain fix."""

from __future__ import annotations

from check_helpers import make_check_repo

from ragcode.check import DEFAULT_CHECKS, CheckContext, check_answer, load_checkers
from ragcode.check.autofix import autofix


def _found(code, repo):
    ctx = CheckContext(repo, ".", "In Python, build the GCN model.")
    return check_answer(code, "python", ctx, load_checkers(DEFAULT_CHECKS))


def test_a_repository_name_taken_from_a_package_without_it_is_imported_from_the_repository(tmp_path):
    repo = make_check_repo(tmp_path)
    code = "import os\nif True:\n    from json import GCN\n    m = GCN()\n"
    found = [f for f in _found(code, repo) if f.code == "foreign-name"]
    assert [(f.target, f.suggestion, f.line) for f in found] == [("GCN", "from pkg.models import GCN", 3)]
    fixed, pairs = autofix(code, found)
    assert fixed == "import os\nif True:\n    from pkg.models import GCN\n    m = GCN()\n"
    assert pairs == [("from json import GCN", "from pkg.models import GCN")]


def test_a_name_the_package_has_or_the_repository_lacks_says_nothing(tmp_path):
    repo = make_check_repo(tmp_path)
    assert not [f for f in _found("from json import dumps\nx = dumps(1)\n", repo) if f.code == "foreign-name"]
    # a name neither has is the package's missing symbol, a warning without the repository's interpreter
    missing = [f for f in _found("from json import dumpz\nx = dumpz(1)\n", repo) if f.code in ("foreign-name", "missing-symbol")]
    assert [(f.code, f.severity, f.target, f.suggestion) for f in missing] == [("missing-symbol", "warning", "json", "dump")]
    # a package that does not import where the answer runs: nothing can be told
    assert not [f for f in _found("from not_a_pkg_xyz import GCN\nm = GCN()\n", repo) if f.code == "foreign-name"]
