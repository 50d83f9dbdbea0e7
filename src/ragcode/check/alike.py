"""A value of the same kind as the user's: the model's example value where the user named another.

A README shows ``--base_model decapoda-research/llama-7b-hf``; the user asks for
``huggyllama/llama-7b`` in words that name no flag ("the demo for huggyllama/llama-7b"), and the
answer keeps the README's. ``alike`` tells that the two are values of one kind, so the ``fill``
step (``ragcode.check.fill``) may put the user's in its place when no word names a flag.
"""

from __future__ import annotations

import re

from ragcode.check.words import FILE_END

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9]")


def alike(current: str, value: str) -> bool:
    """``current``, the value a flag holds, names a thing of the same kind as the user's ``value``:
    two hub names ``owner/name`` (no file ending, no URL) sharing a word of three letters or more
    (``decapoda-research/llama-7b-hf`` copied from a README where the user named
    ``huggyllama/llama-7b``): the model's example value in the place of the user's."""
    if current == value or not all(_HUB_ID.fullmatch(v) and not FILE_END.search(v) for v in (current, value)):
        return False
    words = [{w for w in re.split(r"[-_/.]", v.lower()) if len(w) >= 3 and not w.isdigit()} for v in (current, value)]
    return bool(words[0] & words[1])
