"""Guards for optional extras: a clear message instead of a bare ``ModuleNotFoundError``."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragcode.errors import RagcodeError


class MissingExtraError(RagcodeError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def require_llamaindex() -> ModuleType:
    """Import ``llama_index.core`` or say which ragcode extra provides it."""
    try:
        return importlib.import_module("llama_index.core")
    except ImportError as exc:
        raise MissingExtraError(
            "the LlamaIndex integration needs llama-index-core, which is not installed "
            f"({exc}). Install it with: pip install 'ragcode[llamaindex]'"
        ) from exc
