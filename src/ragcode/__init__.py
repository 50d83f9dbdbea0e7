"""ragcode: retrieval-augmented code generation over real repositories.

The public API lives in ``ragcode.api`` and is re-exported here lazily, so ``import ragcode``
stays cheap (no torch, faiss or LLM client until a function needs one).
"""

from __future__ import annotations

from typing import Any

from ragcode.version import __version__

__all__ = ["index_repo", "load_index", "search", "generate", "evaluate", "load_config", "__version__"]


def __getattr__(name: str) -> Any:
    if name in {"index_repo", "load_index", "search", "generate", "evaluate"}:
        from ragcode import api

        return getattr(api, name)
    if name == "load_config":
        from ragcode.config import load_config

        return load_config
    raise AttributeError(f"module 'ragcode' has no attribute {name!r}")
