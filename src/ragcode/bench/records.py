"""Field readers shared by the task loaders (``dataset``, ``repo_tasks``) and the scorer: an
ML-Bench ``arguments`` dict string, integer fields, record ids. Each raises ``TaskFormatError``
naming the field."""

from __future__ import annotations

import ast
from typing import Any

from ragcode.errors import TaskFormatError


def parse_arguments(raw: Any) -> dict[str, Any]:
    """ML-Bench stores ``arguments`` as a Python-dict string; parse it without ``eval``."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return dict(raw)
    if not isinstance(raw, str):
        raise TaskFormatError(f"arguments must be a dict string, got {type(raw).__name__}")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError) as exc:
        raise TaskFormatError(f"arguments is not a Python dict literal: {exc}") from None
    if not isinstance(value, dict):
        raise TaskFormatError(f"arguments must be a dict, got {type(value).__name__}")
    return value


def as_int(value: Any, name: str) -> int:
    """An integer field of an input record: an int or a string of one (``"3"``), or a float
    without a fraction (parquet); ``TaskFormatError`` naming the field otherwise."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, bool) and isinstance(value, (int, str)):
        try:
            return int(value)
        except ValueError:
            pass
    raise TaskFormatError(f"{name} {value!r} is not an integer")


def check_id(value: Any) -> None:
    """A record ``id`` is a string or an integer (ML-Bench: an integer)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TaskFormatError(f"id {value!r} is neither a string nor an integer")
