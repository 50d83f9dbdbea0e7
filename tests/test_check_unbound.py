"""Names a Python answer reads but never binds (``ragcode.check.unbound``), the certain fix that
imports a module read so, and the keep rule that lets that fix through."""

from __future__ import annotations

from pathlib import Path

from ragcode.check import CheckContext
from ragcode.check.autofix import CERTAIN_FIXES
from ragcode.check.python_code import PythonChecker
from ragcode.check.unbound import add_import, defining_module, unbound_names
from ragcode.dryrun.values import _adds_only_imports


def test_a_module_read_after_only_a_from_import_is_unbound():
    code = 'from clip import load\nmodel = load("ViT-B/32")\ntext = clip.tokenize(["a dog"])\n'
    assert unbound_names(code) == [(3, "clip")]


def test_scopes_resolve_as_python_resolves_them():
    code = ("def f(x):\n    global G\n    G = 1\n    y = [z for z in x]\n    return y, G\n"
            "class A:\n    k = 1\n    def m(self):\n        return k\n"
            "for i in range(2):\n    pass\nwith open('f') as fh:\n    print(fh, i, f, A, __name__)\n")
    assert unbound_names(code) == [(9, "k")]  # a class's names are not seen from its methods


def test_code_that_does_not_compile_or_star_imports_has_no_unbound_names():
    assert unbound_names("def f(:\n") == []
    assert unbound_names("from utils import *\nos.getcwd()\n") == []  # the star may bind os


def test_the_import_goes_where_the_imports_stand():
    code = '"""Doc."""\nfrom __future__ import annotations\nfrom clip import load\nclip.tokenize("a")\n'
    assert add_import(code, "clip") == ('"""Doc."""\nfrom __future__ import annotations\nimport clip\n'
                                         'from clip import load\nclip.tokenize("a")\n')


def test_without_imports_it_goes_above_the_first_statement_and_its_decorators():
    assert add_import("x = 1\n@dec\ndef g():\n    pass\n", "os") == "import os\nx = 1\n@dec\ndef g():\n    pass\n"
    assert add_import("@dec\ndef g():\n    pass\n", "os") == "import os\n@dec\ndef g():\n    pass\n"


def test_only_added_imports_pass_the_keep_rule_unasked():
    before = "from clip import load\nclip.tokenize('a')\n"
    assert _adds_only_imports(before, "import clip\n" + before)
    assert not _adds_only_imports(before, "import clip\n" + before.replace("'a'", "'b'"))
    assert not _adds_only_imports(before, "x = 1\n" + before)


def test_only_added_from_imports_pass_too():
    before = "from micrograd import nn\nm = MLP(2, [16, 1])\n"
    assert _adds_only_imports(before, "from micrograd.nn import MLP\n" + before)


def _package(root: Path) -> Path:
    (root / "micro").mkdir(parents=True)
    (root / "micro" / "__init__.py").write_text("from micro.nn import MLP\n")  # re-exported: not a definition
    (root / "micro" / "nn.py").write_text("class Neuron:\n    pass\n\n\nclass MLP:\n    pass\n")
    (root / "micro" / "engine.py").write_text("class Value:\n    pass\n\n\ndef Neuron():\n    pass\n")
    return root


def test_a_repository_name_read_unbound_comes_from_the_one_module_beside_the_imports_that_defines_it(tmp_path):
    repo = _package(tmp_path / "repo")
    engine = repo / "micro" / "engine.py"
    assert defining_module("MLP", [engine], repo) == "micro.nn"  # beside what the answer imports
    assert defining_module("Neuron", [engine], repo) == ""  # two modules define it: no guess
    assert defining_module("net", [engine], repo) == ""
    code = "from micro.engine import Value\nmodel = MLP(2, [16, 1])\nprint(model, net)\n"
    (finding,) = [f for f in PythonChecker().check(code, "python", CheckContext(repo)) if f.code.startswith("unimported")]
    assert (finding.code, finding.target, finding.suggestion) == ("unimported-name", "MLP", "from micro.nn import MLP")
    fixed, pair = CERTAIN_FIXES["unimported-name"](code, finding)
    assert fixed == "from micro.nn import MLP\n" + code and pair == ("MLP", "from micro.nn import MLP")
