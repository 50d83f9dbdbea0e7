"""A value of the same kind as the user's: the model's example value where the user named another.

A README shows ``--base_model decapoda-research/llama-7b-hf``; the user asks for
``huggyllama/llama-7b`` in words that name no flag ("the demo for huggyllama/llama-7b"), and the
answer keeps the README's. ``alike`` tells that the two are values of one kind, so the ``fill``
step (``ragcode.check.fill``) may put the user's in its place when no word names a flag.

A flag the answer left out may show its kind by its default: ``--data-path`` defaults to
``/datasets01/imagenet_full_size/061417/`` and the user asks for a run "on ImageNet at
/data/imagenet" (``alike_default``).
"""

from __future__ import annotations

import re
from typing import Any

from ragcode.check.words import FILE_END

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]*[A-Za-z0-9]")


def alike(current: str, value: str) -> bool:
    """``current``, the value a flag holds, names a thing of the same kind as the user's ``value``:
    two hub names ``owner/name`` (no file ending, no URL) sharing a word of three letters or more
    (``decapoda-research/llama-7b-hf`` copied from a README where the user named
    ``huggyllama/llama-7b``): the model's example value in the place of the user's."""
    if current == value or not all(_HUB_ID.fullmatch(v) and not FILE_END.search(v) for v in (current, value)):
        return False
    words = [_words(v) for v in (current, value)]
    return bool(words[0] & words[1])


def alike_default(default: Any, value: str, said: set[str]) -> bool:
    """A flag's ``default`` is a path of the same kind as the user's path ``value``: both have a
    folder (no URL), the same file ending or none, and share a word of three letters or more that
    the user ``said`` next to the value (``imagenet`` of "on ImageNet at /data/imagenet" in the
    default ``/datasets01/imagenet_full_size/061417/``)."""
    if not isinstance(default, str) or default == value:
        return False
    if not all("/" in v and "://" not in v for v in (default, value)):
        return False
    if _ending(default) != _ending(value):
        return False
    return bool(_words(default) & _words(value) & said)


def _words(value: str) -> set[str]:
    return {w for w in re.split(r"[-_/.]", value.lower()) if len(w) >= 3 and not w.isdigit()}


def _ending(value: str) -> str:
    end = FILE_END.search(value.rstrip("/"))
    return end.group(1).lower() if end else ""
