"""The optional extras some tests need, and what is missing of one (no pytest here: the golden
replay's command line reads it too). CI installs every extra listed (scripts/test.sh)."""

from __future__ import annotations

import importlib.util

# extra -> the modules it installs that the tests import or start scripts with
EXTRAS = {"parsers": ("fire", "absl", "hydra")}
EXTRA_OF = {module: extra for extra, modules in EXTRAS.items() for module in modules}


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` this environment lacks."""
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def why_missing(extra: str) -> str:
    """One line saying what is missing and how to install it; empty when nothing is."""
    lacking = missing(extra)
    if not lacking:
        return ""
    return (f"the {extra!r} extra is not installed ({', '.join(lacking)} missing): pip install "
            f"'ragcode[{extra}]' (CI installs it through scripts/test.sh)")
